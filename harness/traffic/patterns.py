"""Traffic patterns on hosts, defined as BookSim2's ``traffic.cpp`` defines them.

Hosts hang off switches, ``p`` per switch (or a count per switch) and are numbered switch by switch:
switch 0's hosts first.  A pattern says where each host's packets go; the simulator samples
destinations in its own numba kernel from a :class:`TrafficPattern`, one of three kinds:

* ``KIND_UNIFORM`` (0): every host equally likely, the source itself included -- BookSim's
  ``uniform`` draws ``RandomInt(nodes - 1)``, an inclusive range;
* ``KIND_FIXED`` (1): one destination per source, ``dest[h]`` (the permutations; a fixed point
  keeps its packets on its own switch);
* ``KIND_SHARED`` (2): one distribution shared by every source, ``cdf`` over hosts (``hotspot``).

=============  ============================================================================
pattern        destination of host ``h`` among ``H`` hosts
=============  ============================================================================
``uniform``    uniform over all ``H`` hosts, ``h`` included
``randperm``   a random permutation drawn from ``seed`` (fixed points allowed, as in BookSim)
``bitcomp``    ``~h & (H - 1)``; H a power of two
``bitrev``     the ``log2 H`` bits of ``h`` reversed; H a power of two
``shuffle``    the ``log2 H`` bits of ``h`` rotated left by one; H a power of two
``transpose``  the two halves of ``h``'s bits swapped; H = 4^b (an even number of bits)
``tornado``    per dimension of radix k: digit ``x -> (x + ceil(k/2) - 1) mod k``
``neighbor``   per dimension of radix k: digit ``x -> (x + 1) mod k``
``hotspot``    hotspot host ``i`` with probability ``rate_i / sum(rates)`` (default: host 0)
=============  ============================================================================

``tornado`` and ``neighbor`` need ``dims``, the radix per dimension in our axis order (first axis
slowest, LAST axis fastest -- BookSim's dimension 0, its fastest digit, is our last axis, so host
numbers coincide).  Either ``prod(dims)`` is the host count, or it is the switch count and every
switch has the same number of hosts: then the pattern moves the switch coordinates and a host keeps
its local index.  BookSim's ``xr`` factor (radix multiplier) is 1 here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hopbench.harness.errors import HopbenchError

KIND_UNIFORM = 0
KIND_FIXED = 1
KIND_SHARED = 2

PATTERNS = ("uniform", "randperm", "bitrev", "bitcomp", "transpose", "shuffle", "tornado",
            "neighbor", "hotspot")

#: host counts above this are refused before any array is made
MAX_HOSTS = 1 << 24


@dataclass(frozen=True)
class Hosts:
    """Hosts numbered switch by switch: those of switch ``s`` are ``first_host[s] .. first_host[s+1]-1``."""

    host_switch: np.ndarray      #: int32, the switch of each host
    first_host: np.ndarray       #: int64 prefix offsets, length ``n_switches + 1``
    count: int                   #: number of hosts

    @classmethod
    def build(cls, n_switches: int, per_switch: int | np.ndarray | list) -> "Hosts":
        """``per_switch`` hosts on every switch (an int) or a count per switch (e.g. free ports)."""
        n = int(n_switches)
        if n < 1:
            raise HopbenchError(f"hosts need at least one switch, got {n}")
        if np.ndim(per_switch) == 0:
            p = int(per_switch)
            counts = np.full(n, p, dtype=np.int64)
        else:
            counts = np.asarray(per_switch)
            if counts.shape != (n,):
                raise HopbenchError(f"hosts per switch has {counts.size} entries for {n} switches; "
                                    f"give one count per switch or a single int")
            if counts.size and not np.issubdtype(counts.dtype, np.integer):
                if not np.all(np.isfinite(counts)) or not np.all(counts == np.round(counts)):
                    raise HopbenchError("hosts per switch must be whole numbers")
            counts = counts.astype(np.int64)
        if counts.size and counts.min() < 0:
            s = int(np.argmin(counts))
            raise HopbenchError(f"switch {s} has {int(counts[s])} hosts; host counts must be >= 0 "
                                f"(a switch with no free port gets 0)")
        total = int(counts.sum())
        if total < 1:
            raise HopbenchError("there are no hosts (every switch has 0); give at least one switch a host")
        if total > MAX_HOSTS:
            raise HopbenchError(f"{total} hosts is more than the {MAX_HOSTS} supported; use fewer per switch")
        first = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=first[1:])
        host_switch = np.repeat(np.arange(n, dtype=np.int32), counts)
        for a in (host_switch, first):
            a.setflags(write=False)
        return cls(host_switch=host_switch, first_host=first, count=total)

    @property
    def n_switches(self) -> int:
        return int(self.first_host.size - 1)

    @property
    def per_switch(self) -> np.ndarray:
        """Hosts on each switch (int64)."""
        return np.diff(self.first_host)


@dataclass(frozen=True)
class TrafficPattern:
    """Where each host sends, in the form the simulator samples from (see the module docstring)."""

    name: str
    kind: int                    #: KIND_UNIFORM, KIND_FIXED or KIND_SHARED
    hosts: int                   #: host count H the pattern was made for
    dest: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))   #: int32 (H,), kind 1
    cdf: np.ndarray = field(default_factory=lambda: np.empty(0, np.float64))  #: float64 (H,), kind 2
    meta: dict = field(default_factory=dict)  #: e.g. the hotspots and rates, the dims

    def _check_hosts(self, hosts: Hosts) -> None:
        if hosts.count != self.hosts:
            raise HopbenchError(f"pattern {self.name} was made for {self.hosts} hosts, not {hosts.count}; "
                                f"make it again for these hosts")

    def host_probabilities(self) -> np.ndarray | None:
        """Kind 2 only: the probability of each host as destination (the cdf's steps)."""
        if self.kind != KIND_SHARED:
            return None
        return np.diff(self.cdf, prepend=0.0)

    def demand_matrix(self, hosts: Hosts, n_switches: int | None = None) -> np.ndarray:
        """Expected flits per cycle from switch s to switch t when every host injects 1 flit/cycle.

        Row s sums to the host count of switch s; the diagonal is traffic that never leaves its switch.
        """
        self._check_hosts(hosts)
        n = hosts.n_switches if n_switches is None else int(n_switches)
        if n != hosts.n_switches:
            raise HopbenchError(f"the hosts sit on {hosts.n_switches} switches, not {n}; "
                                f"pass the network's switch count")
        counts = hosts.per_switch.astype(np.float64)
        if self.kind == KIND_UNIFORM:
            return np.outer(counts, counts) / float(hosts.count)
        if self.kind == KIND_FIXED:
            out = np.zeros(n * n, dtype=np.float64)
            keys = hosts.host_switch.astype(np.int64) * n + hosts.host_switch[self.dest]
            np.add.at(out, keys, 1.0)  # one flit per host per cycle to its one destination
            return out.reshape(n, n)
        if self.kind == KIND_SHARED:
            to_switch = np.bincount(hosts.host_switch, weights=self.host_probabilities(), minlength=n)
            return np.outer(counts, to_switch)
        raise HopbenchError(f"pattern {self.name} has unknown kind {self.kind}; kinds are 0, 1, 2")

    def sample(self, sources: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Destinations for the given source hosts (numpy; the simulator has its own kernel)."""
        src = np.asarray(sources, dtype=np.int64)
        if self.kind == KIND_UNIFORM:
            return rng.integers(0, self.hosts, size=src.shape)
        if self.kind == KIND_FIXED:
            return self.dest[src].astype(np.int64)
        u = rng.random(size=src.shape)
        return np.minimum(np.searchsorted(self.cdf, u, side="right"), self.hosts - 1)


# --------------------------------------------------------------------------- definitions


def _power_of_two_bits(name: str, count: int) -> int:
    if count & (count - 1):
        lo = 1 << (count.bit_length() - 1)
        raise HopbenchError(f"pattern {name} needs a power-of-two host count, got {count} hosts; "
                            f"change the hosts per switch or the switch count (e.g. {lo} or {lo * 2} hosts)")
    return count.bit_length() - 1


def _bitcomp(h: np.ndarray, bits: int) -> np.ndarray:
    return ~h & ((1 << bits) - 1)


def _bitrev(h: np.ndarray, bits: int) -> np.ndarray:
    out = np.zeros_like(h)
    for b in range(bits):  # bit b of the source becomes bit bits-1-b
        out |= ((h >> b) & 1) << (bits - 1 - b)
    return out


def _shuffle(h: np.ndarray, bits: int) -> np.ndarray:
    if bits == 0:
        return h.copy()
    mask = (1 << bits) - 1
    return ((h << 1) & mask) | (h >> (bits - 1))


def _transpose(h: np.ndarray, bits: int) -> np.ndarray:
    half = bits // 2
    lo = (1 << half) - 1
    return ((h >> half) & lo) | ((h << half) & (lo << half))


def _digits_map(ids: np.ndarray, dims: tuple[int, ...], step: str) -> np.ndarray:
    """Apply the per-digit map to mixed-radix ids, LAST radix fastest (BookSim's dim 0)."""
    out = np.zeros_like(ids)
    stride = 1
    for k in reversed(dims):
        digit = (ids // stride) % k
        shift = (k + 1) // 2 - 1 if step == "tornado" else 1
        out += stride * ((digit + shift) % k)
        stride *= k
    return out


def _digit_pattern(name: str, hosts: Hosts, dims: Any) -> np.ndarray:
    if dims is None:
        raise HopbenchError(f"pattern {name} needs dims, the radix per dimension (e.g. dims=(8, 8) "
                            f"for torus:8x8, or dims=({hosts.count},) for one ring of hosts)")
    try:
        dims = tuple(int(k) for k in dims)
    except (TypeError, ValueError):
        raise HopbenchError(f"pattern {name}: dims must be a list of radices, e.g. (8, 8); got {dims!r}") from None
    if not dims or min(dims) < 1:
        raise HopbenchError(f"pattern {name}: every radix in dims must be >= 1, got {dims}")
    size = math.prod(dims)
    h = np.arange(hosts.count, dtype=np.int64)
    if size == hosts.count:
        return _digits_map(h, dims, name)
    per = hosts.per_switch
    if size == hosts.n_switches and (per == per[0]).all():
        p = int(per[0])  # move the switch coordinates, keep the host's index on its switch
        return _digits_map(h // p, dims, name) * p + h % p
    raise HopbenchError(f"pattern {name}: dims {'x'.join(map(str, dims))} hold {size} nodes but there "
                        f"are {hosts.count} hosts on {hosts.n_switches} switches; give dims whose product "
                        f"is the host count (or the switch count, with the same hosts on every switch)")


def _hotspot(hosts: Hosts, params: dict, seed: int) -> tuple[np.ndarray, dict]:
    spots = params.get("hotspots", [0])
    spots = [spots] if np.ndim(spots) == 0 else list(spots)
    if not spots:
        raise HopbenchError("pattern hotspot needs at least one hotspot host, e.g. params={'hotspots': [0]}")
    rng = np.random.default_rng(seed)
    chosen = []
    for s in spots:
        s = int(s)
        if s < 0:  # BookSim: a negative hotspot is a random node
            s = int(rng.integers(0, hosts.count))
        if s >= hosts.count:
            raise HopbenchError(f"pattern hotspot: host {s} does not exist (hosts are 0..{hosts.count - 1})")
        chosen.append(s)
    rates = params.get("rates", [1])
    rates = [rates] if np.ndim(rates) == 0 else list(rates)
    if not rates:
        rates = [1]
    rates = [float(r) for r in rates]
    rates = (rates + [rates[-1]] * len(chosen))[:len(chosen)]  # BookSim pads with the last rate
    if min(rates) <= 0 or not all(math.isfinite(r) for r in rates):
        raise HopbenchError(f"pattern hotspot: rates must be positive numbers, got {rates}")
    pdf = np.zeros(hosts.count, dtype=np.float64)
    np.add.at(pdf, np.asarray(chosen, dtype=np.int64), np.asarray(rates))
    cdf = np.cumsum(pdf / pdf.sum())
    cdf[-1] = 1.0
    cdf[pdf.nonzero()[0].max():] = 1.0  # no rounding gap past the last hotspot
    return cdf, {"hotspots": chosen, "rates": rates}


def make_pattern(name: str, hosts: Hosts, *, seed: int = 0, dims: Any = None,
                 params: dict | None = None) -> TrafficPattern:
    """The named pattern on ``hosts`` (see the module docstring).

    ``params`` is for ``hotspot`` only: ``{"hotspots": [host, ...], "rates": [w, ...]}`` (a negative
    host is a random one drawn from ``seed``; rates are relative weights, padded with the last).
    """
    if not isinstance(hosts, Hosts):
        raise HopbenchError(f"make_pattern needs a Hosts, got {type(hosts).__name__}; use Hosts.build(n, p)")
    params = dict(params or {})
    if name not in PATTERNS:
        raise HopbenchError(f"unknown traffic pattern {name!r}; known: {', '.join(PATTERNS)}")
    allowed = {"hotspot": {"hotspots", "rates"}}.get(name, set())
    extra = sorted(set(params) - allowed)
    if extra:
        takes = f"takes only {', '.join(sorted(allowed))}" if allowed else "takes no parameters"
        raise HopbenchError(f"pattern {name} {takes}; got {', '.join(extra)}")
    H = hosts.count
    h = np.arange(H, dtype=np.int64)
    meta: dict = {}
    if name == "uniform":
        return TrafficPattern(name, KIND_UNIFORM, H)
    if name == "hotspot":
        cdf, meta = _hotspot(hosts, params, seed)
        cdf.setflags(write=False)
        return TrafficPattern(name, KIND_SHARED, H, cdf=cdf, meta=meta)
    if name == "randperm":
        dest = np.random.default_rng(seed).permutation(H)
        meta = {"seed": int(seed)}
    elif name in ("tornado", "neighbor"):
        dest = _digit_pattern(name, hosts, dims)
        meta = {"dims": [int(k) for k in dims]}
    else:
        bits = _power_of_two_bits(name, H)
        if name == "transpose" and bits % 2:
            raise HopbenchError(f"pattern transpose needs a square host count 4^b (an even number of bits), "
                                f"got {H} hosts; use e.g. {1 << (bits - 1)} or {1 << (bits + 1)} hosts")
        dest = {"bitcomp": _bitcomp, "bitrev": _bitrev, "shuffle": _shuffle, "transpose": _transpose}[name](h, bits)
    dest = np.ascontiguousarray(dest, dtype=np.int32)
    dest.setflags(write=False)
    return TrafficPattern(name, KIND_FIXED, H, dest=dest, meta=meta)


def draw_destination(kind: int, dest: np.ndarray, cdf: np.ndarray, count: int, source: int, u: float) -> int:
    """One destination for ``source`` from a uniform ``u`` in [0, 1): the rule the simulator's kernel
    follows (plain Python here, so it doubles as the reference in tests)."""
    if kind == KIND_UNIFORM:
        return min(int(u * count), count - 1)
    if kind == KIND_FIXED:
        return int(dest[source])
    return min(int(np.searchsorted(cdf, u, side="right")), count - 1)
