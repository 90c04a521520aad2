"""Torus networks for routing: nodes, directions and directed channels.

An n-dimensional torus ``d_1 x ... x d_n`` (n = 1..4, every d_j in 2..8, the
range of the Angara router) has one node per coordinate vector.  Conventions
used everywhere in the routing modules:

* **node ids** are mixed-radix numbers with the first dimension (X) varying
  fastest: ``id = u_1 + d_1 * (u_2 + d_2 * (u_3 + ...))``.  On the Desmos
  torus 4x2x2x2, nodes 0..3 are the X ring at Y = Z = K = 0.
* **directions** are numbered in the Angara direction order
  ``+X +Y +Z +K -X -Y -Z -K``: direction ``j < n`` is +dimension j, direction
  ``n + j`` is -dimension j, and ``D_i < D_j`` iff ``i < j``.  Names are
  ``"+X"``, ``"-Y"``, ... (dimensions are called X, Y, Z, K as in the paper).
* a **size-2 dimension is a mesh**: one link between the two nodes, no
  wrap-around, so a node at coordinate 0 has only the + channel and a node at
  coordinate 1 only the - channel of that dimension.
* a **channel** is a directed link ``(u, D)`` from node u in direction D; its
  id is ``u * 2n + D``.  Channel ids of missing channels (mesh ends) exist in
  the id space but are flagged by :attr:`Torus.channel_exists`.

Distances are hop counts: the sum over dimensions of the ring distance
``min(|a-b|, d-|a-b|)`` (for a size-2 mesh dimension this is ``|a-b|`` too).
"""
from __future__ import annotations

import math
from functools import cached_property, lru_cache

import numpy as np

from hopbench.harness.errors import HopbenchError

#: dimension names in the paper's order
DIM_NAMES = "XYZK"
MIN_DIMS, MAX_DIMS = 1, 4
MIN_SIZE, MAX_SIZE = 2, 8


def direction_name(d: int, n: int) -> str:
    """``"+X"`` for direction 0 of an n-dimensional torus, ``"-X"`` for direction n, ..."""
    return ("+" if d < n else "-") + DIM_NAMES[d % n]


def parse_direction(text: str, n: int) -> int:
    """The direction index of a name such as ``"+Y"`` (case-insensitive); HopbenchError if unknown."""
    if isinstance(text, str) and len(text) == 2 and text[0] in "+-":
        dim = DIM_NAMES.find(text[1].upper())
        if 0 <= dim < n:
            return dim if text[0] == "+" else n + dim
    names = ", ".join(direction_name(d, n) for d in range(2 * n))
    raise HopbenchError(f"unknown direction {text!r}; a {n}-dimensional torus has directions {names}")


def parse_dims(spec: str | list | tuple) -> tuple[int, ...]:
    """Parse ``"4x2x2x2"`` (optionally prefixed ``torus:``) or a list of sizes.

    Raises :class:`HopbenchError` with the accepted range when the torus is not
    one Angara can route (1 to 4 dimensions, each of size 2 to 8).
    """
    example = "e.g. 4x2x2x2"
    if isinstance(spec, str):
        text = spec.strip().lower()
        if text.startswith("torus:"):
            text = text[len("torus:"):]
        try:
            dims = tuple(int(p) for p in text.split("x"))
        except ValueError:
            raise HopbenchError(f"torus {spec!r} is malformed; write the dimension sizes as AxBxC, {example}") from None
    elif isinstance(spec, (list, tuple)) and all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                  for d in spec):
        dims = tuple(int(d) for d in spec)
    else:
        raise HopbenchError(f"torus {spec!r} is malformed; give the dimension sizes, {example}")
    if not MIN_DIMS <= len(dims) <= MAX_DIMS:
        raise HopbenchError(f"torus {spec!r} has {len(dims)} dimensions; Angara routes 1 to 4 dimensions, {example}")
    bad = [d for d in dims if not MIN_SIZE <= d <= MAX_SIZE]
    if bad:
        raise HopbenchError(f"torus {spec!r}: dimension size {bad[0]} is out of range; every size must be "
                            f"between {MIN_SIZE} and {MAX_SIZE}, {example}")
    return dims


def format_dims(dims: tuple[int, ...] | list[int]) -> str:
    return "x".join(str(int(d)) for d in dims)


class Torus:
    """An n-dimensional torus with Angara's conventions (see the module docstring).

    Build it with :func:`torus` (cached per shape) or ``Torus((4, 2, 2, 2))``.

    >>> t = Torus((4, 2, 2, 2))
    >>> t.num_nodes, t.num_channels
    (32, 160)
    """

    def __init__(self, dims: tuple[int, ...] | list[int] | str) -> None:
        self.dims: tuple[int, ...] = parse_dims(dims)
        self.n = len(self.dims)
        self.ndir = 2 * self.n
        self.num_nodes = math.prod(self.dims)
        self.strides = np.cumprod((1,) + self.dims[:-1]).astype(np.int64)

    # ------------------------------------------------------------------ identity

    def __repr__(self) -> str:
        return f"Torus({format_dims(self.dims)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Torus) and other.dims == self.dims

    def __hash__(self) -> int:
        return hash(("Torus", self.dims))

    def __getstate__(self) -> dict:
        # the cached arrays are cheap to rebuild; keep pickles (runner workers) small
        return {"dims": self.dims}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["dims"])

    @property
    def spec(self) -> str:
        return format_dims(self.dims)

    # ------------------------------------------------------------------ geometry

    @cached_property
    def coords(self) -> np.ndarray:
        """``(N, n)`` int64 coordinates of every node."""
        ids = np.arange(self.num_nodes, dtype=np.int64)
        return np.stack([(ids // s) % d for s, d in zip(self.strides, self.dims)], axis=1)

    def node(self, coord: tuple[int, ...] | list[int]) -> int:
        """The id of the node at ``coord``."""
        return int(sum(int(c) * int(s) for c, s in zip(coord, self.strides)))

    @cached_property
    def neighbor(self) -> np.ndarray:
        """``(N, 2n)`` int64: the node reached from u in direction D, -1 where the channel does not exist."""
        c = self.coords
        out = np.empty((self.num_nodes, self.ndir), dtype=np.int64)
        ids = np.arange(self.num_nodes, dtype=np.int64)
        for j, d in enumerate(self.dims):
            for sign, col in ((1, j), (-1, self.n + j)):
                moved = (c[:, j] + sign) % d
                nb = ids + (moved - c[:, j]) * self.strides[j]
                if d == 2:
                    # mesh: + only from coordinate 0, - only from coordinate 1
                    ok = c[:, j] == (0 if sign > 0 else 1)
                    nb = np.where(ok, nb, -1)
                out[:, col] = nb
        return out

    @property
    def num_channel_slots(self) -> int:
        return self.num_nodes * self.ndir

    @cached_property
    def channel_exists(self) -> np.ndarray:
        """``(N * 2n,)`` bool, indexed by channel id ``u * 2n + D``."""
        return (self.neighbor >= 0).ravel()

    @property
    def num_channels(self) -> int:
        return int(self.channel_exists.sum())

    def channel(self, u: int, d: int) -> int:
        return int(u) * self.ndir + int(d)

    def channel_name(self, c: int) -> str:
        u, d = divmod(int(c), self.ndir)
        return f"({u}, {direction_name(d, self.n)})"

    def direction_names(self) -> list[str]:
        return [direction_name(d, self.n) for d in range(self.ndir)]

    @cached_property
    def ring_distance(self) -> list[np.ndarray]:
        """Per dimension, ``rd[j][delta]`` = hop distance for a coordinate difference ``delta mod d_j``."""
        return [np.minimum(np.arange(d), d - np.arange(d)).astype(np.int64) for d in self.dims]

    @cached_property
    def distance(self) -> np.ndarray:
        """``(N, N)`` int16 hop-distance matrix (at most 4096 nodes -> 32 MiB)."""
        # int16 throughout: int64 temporaries made 8x8x8x8's 32 MB matrix cost 0.6 GB and 2 s
        c = self.coords.astype(np.int16)
        out = np.zeros((self.num_nodes, self.num_nodes), dtype=np.int16)
        for j, d in enumerate(self.dims):
            delta = c[None, :, j] - c[:, None, j]
            delta %= np.int16(d)
            out += self.ring_distance[j].astype(np.int16)[delta]
        return out

    @property
    def diameter(self) -> int:
        return int(sum(d // 2 for d in self.dims))

    def walk(self, src: int, directions: list[int] | np.ndarray) -> list[int]:
        """Nodes visited from ``src`` following ``directions`` (-1 once a channel is missing)."""
        out = [int(src)]
        u = int(src)
        for d in directions:
            u = int(self.neighbor[u, int(d)]) if u >= 0 else -1
            out.append(u)
        return out


@lru_cache(maxsize=64)
def torus(dims: tuple[int, ...] | str) -> Torus:
    """A cached :class:`Torus` (several problems on one shape share its tables)."""
    return Torus(parse_dims(dims) if isinstance(dims, str) else tuple(dims))
