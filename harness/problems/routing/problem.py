"""`RoutingProblem`: route every ordered pair of a node subset of a torus.

A problem names a torus, the subset of nodes that talk to each other (all
nodes by default; routes between them may pass through any node), the rules a
route must obey and the objective:

``rules = "angara"``   every route is a path of the (deadlock-free extended)
                       Angara routing graph of Mukosey et al. 2021 (:mod:`hopbench.harness.problems.routing.graph`)
``rules = "minimal"``  any shortest walk; only deadlock freedom is required

``minimal = True`` (the default, and what the paper's algorithms produce)
asks every route to have the hop distance of its pair as length; with
``rules = "minimal"`` routes are always minimal.

Objectives (minimised): ``max_load`` -- the edge-forwarding index max γ_c,
with σ(4, R) folded in as a tie-breaker as ``max γ_c + σ / (1 + σ)`` (the
integer part is max γ_c and the fraction orders equal-max tables by σ);
``sigma4`` -- σ(4, R) alone (the genetic algorithm's fitness in the paper).

Named subsets: ``all`` (every node of any torus) and the Desmos subsets of
the 4x2x2x2 torus (:data:`SUBSETS`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

import numpy as np

from hopbench.harness.caps import ROUTING_PAIRS
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.problems.routing.network import Torus, format_dims, parse_dims
from hopbench.harness.problems.routing.network import torus as make_torus

RULES = ("angara", "minimal")
OBJECTIVES = ("max_load", "sigma4")
#: node ids an error message shows before "... and N more" (a 4,096-node list is a 25 KB line)
SHOWN_IDS = 6


def ids_text(ids: tuple[int, ...] | list[int]) -> str:
    """A node-id list for an error message: the first few ids and a count of the rest."""
    ids = list(ids)
    if len(ids) <= SHOWN_IDS + 1:
        return str(ids)
    return f"[{', '.join(str(v) for v in ids[:SHOWN_IDS])}, ... and {len(ids) - SHOWN_IDS:,} more]"


def _desmos_subsets() -> dict[str, dict[tuple[int, ...], tuple[tuple[int, ...], str]]]:
    """The Desmos subsets on 4x2x2x2 and on its mirror 2x2x2x4 (dimension order reversed)."""
    described = {
        2: "two ring neighbours (diameter 1)",
        4: "the 4-node ring (diameter 2)",
        8: "the ring x one size-2 dimension (diameter 3)",
        16: "the ring x two size-2 dimensions (diameter 4)",
    }
    out: dict[str, dict[tuple[int, ...], tuple[tuple[int, ...], str]]] = {}
    for k, text in described.items():
        ring_first = tuple(range(k))  # node ids 0..k-1 of 4x2x2x2, X fastest
        # the same nodes on 2x2x2x4: coordinates (x, y, z, w) -> (w, z, y, x)
        mirrored = []
        for node in ring_first:
            x, y, z, w = node % 4, (node // 4) % 2, (node // 8) % 2, node // 16
            mirrored.append(w + 2 * z + 4 * y + 8 * x)
        out[f"desmos{k}"] = {
            (4, 2, 2, 2): (ring_first, f"nodes {ring_first[0]}-{ring_first[-1]} of 4x2x2x2: {text}"),
            (2, 2, 2, 4): (tuple(sorted(mirrored)), f"the mirror of desmos{k} on 2x2x2x4: {text}"),
        }
    return out


#: Named node subsets.  Seed 003 (Table 2) routes 2, 4, 8, 16 and 32 nodes of
#: the Desmos cluster's 4x2x2x2 torus but does not publish which nodes.  On
#: 4x2x2x2 we use the first k node ids (X varies fastest), the sub-tori a
#: linear node allocation yields: 2 X-neighbours, the X ring (4), the 4x2 X-Y
#: plane (8), the 4x2x2 X-Y-Z block (16).  Their diameters 1, 2, 3, 4 (and 5
#: for all 32 nodes) equal Table 2's max D column.  The same subsets exist on
#: 2x2x2x4, the torus with the dimension order reversed (the 4-node ring is
#: the *last* dimension, K): on that orientation our BFS and SSSP reproduce
#: Table 2 closely (docs/routing.md), which suggests it is how the paper's
#: routing sees Desmos.
SUBSETS = _desmos_subsets()


def parse_nodes(text: str | list | tuple, num_nodes: int) -> tuple[int, ...]:
    """``"0,1,5-7"`` or a list of ints -> a sorted tuple of distinct node ids in range."""
    how = "give node ids 0..N-1 as a comma list with ranges, e.g. --nodes 0,1,4-7"
    if isinstance(text, str):
        out: list[int] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            lo, sep, hi = part.partition("-")
            try:
                a, b = (int(lo), int(hi)) if sep else (int(part), int(part))
                if b < a:
                    raise ValueError
            except ValueError:
                raise HopbenchError(f"node list {text!r:.80}: cannot read {part!r:.40}; {how}") from None
            if a < 0 or b >= num_nodes:  # checked before a range is expanded: 0-10^12 is 10^12 ids
                raise HopbenchError(f"node {a if a < 0 else b} is out of range: the torus has nodes "
                                    f"0..{num_nodes - 1}; {how}")
            out.extend(range(a, b + 1))
    elif isinstance(text, (list, tuple, np.ndarray)):
        out = []
        for v in text:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise HopbenchError(f"node list entries must be integers, got {v!r}; {how}")
            out.append(int(v))
    else:
        raise HopbenchError(f"node list {text!r} is malformed; {how}")
    bad = [v for v in out if not 0 <= v < num_nodes]
    if bad:
        raise HopbenchError(f"node {bad[0]} is out of range: the torus has nodes 0..{num_nodes - 1}; {how}")
    nodes = tuple(sorted(set(out)))
    if len(nodes) < 2:
        raise HopbenchError(f"a routing problem needs at least 2 distinct nodes, got {list(nodes)}; {how}")
    return nodes


def subset_nodes(name: str, net: Torus) -> tuple[int, ...]:
    """The node ids of a named subset on ``net``."""
    if name == "all":
        return tuple(range(net.num_nodes))
    if name not in SUBSETS:
        known = ", ".join(["all", *SUBSETS])
        raise HopbenchError(f"unknown node subset {name!r}; known subsets: {known}")
    per_torus = SUBSETS[name]
    if net.dims not in per_torus:
        tori = " or ".join(format_dims(d) for d in per_torus)
        raise HopbenchError(f"subset {name!r} is defined on the {tori} torus, not on {net.spec}; "
                            f"use --torus {format_dims(next(iter(per_torus)))} or give --nodes")
    return per_torus[net.dims][0]


@dataclass(frozen=True)
class RoutingProblem:
    """Route every ordered pair of distinct ``nodes`` of ``network`` (see the module docstring).

    ``nodes`` is normalised to a sorted tuple (``None`` means every node);
    ``subset`` only names the subset for display and ids.  ``network`` may be a
    :class:`Torus`, a spec (``"torus:4x2x2x2"`` or ``"4x2x2x2"``) or the dimension sizes.
    """

    network: Torus
    nodes: tuple[int, ...] | None = None
    rules: str = "angara"
    minimal: bool = True
    objective: str = "max_load"
    subset: str | None = None

    kind = "routing"

    def __post_init__(self) -> None:
        if not isinstance(self.network, Torus):
            # parse first: a document's [4.0, 4] is a one-line error, not an unhashable cache key
            dims = self.network
            if isinstance(dims, Graph):  # its edges do not say which torus (and which node order) it is
                raise HopbenchError("a routing problem needs the torus's dimension sizes, which a Graph does not "
                                    "carry; give the torus as a spec such as 'torus:4x2x2x2' or as sizes (4, 2, 2, 2)")
            object.__setattr__(self, "network", make_torus(parse_dims(dims)))
        net = self.network
        if self.nodes is None:
            object.__setattr__(self, "nodes", tuple(range(net.num_nodes)))
            if self.subset is None:
                object.__setattr__(self, "subset", "all")
        else:
            object.__setattr__(self, "nodes", parse_nodes(list(self.nodes), net.num_nodes))
        m = len(self.nodes)
        # every table, candidate list and solver work array is sized by the pairs: refuse before any of them
        ROUTING_PAIRS.check(m * (m - 1), f"the number of ordered node pairs to route on torus {net.spec} "
                                         f"({m:,} nodes)")
        self._check_subset_name()
        if self.rules not in RULES:
            raise HopbenchError(f"unknown routing rules {self.rules!r}; use one of {', '.join(RULES)}")
        if self.objective not in OBJECTIVES:
            raise HopbenchError(f"unknown routing objective {self.objective!r}; use one of {', '.join(OBJECTIVES)}")
        if not isinstance(self.minimal, bool):
            raise HopbenchError(f"'minimal' must be true or false, got {self.minimal!r}")

    def _check_subset_name(self) -> None:
        """A named subset must be the nodes it names (a document could claim one and list others)."""
        if not self.subset or (self.subset != "all" and self.subset not in SUBSETS):
            return  # no name, or a free-form label rather than one of the named subsets
        expected = subset_nodes(self.subset, self.network)  # a named subset on another torus raises
        if expected is not None and tuple(expected) != tuple(self.nodes):
            raise HopbenchError(f"subset {self.subset!r} of torus {self.network.spec} is nodes "
                                f"{ids_text(expected)}, but the nodes given are {ids_text(self.nodes)}")

    # pickles (runner workers) carry the definition only; the caches are rebuilt on demand
    def __getstate__(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    # ------------------------------------------------------------------ identity

    @property
    def all_nodes(self) -> bool:
        return len(self.nodes) == self.network.num_nodes

    @property
    def name(self) -> str:
        label = self.subset or f"{len(self.nodes)} nodes"
        return f"{self.network.spec}/{label}"

    def describe(self) -> dict[str, Any]:
        """JSON-able definition: torus dims, nodes, rules, objective."""
        return {
            "torus": list(self.network.dims),
            "nodes": "all" if self.all_nodes else list(self.nodes),
            "subset": self.subset,
            "rules": self.rules,
            "minimal": self.minimal,
            "objective": self.objective,
        }

    # ------------------------------------------------------------------ derived data (cached)

    @property
    def num_nodes(self) -> int:
        """Number of subset nodes (|N| in the paper)."""
        return len(self.nodes)

    @cached_property
    def node_array(self) -> np.ndarray:
        return np.asarray(self.nodes, dtype=np.int64)

    @property
    def num_pairs(self) -> int:
        return self.num_nodes * (self.num_nodes - 1)

    @cached_property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(src, dst)`` node ids of every ordered pair, in table order (by source, then destination)."""
        m = self.num_nodes
        si = np.repeat(np.arange(m), m - 1)
        di = np.tile(np.arange(m - 1), m)
        di = di + (di >= si)
        return self.node_array[si], self.node_array[di]

    def pair_index(self, src: int, dst: int) -> int:
        """Position of (src, dst) in table order; HopbenchError when not a subset pair."""
        pos = {v: i for i, v in enumerate(self.nodes)}
        if src not in pos or dst not in pos or src == dst:
            raise HopbenchError(f"({src}, {dst}) is not a pair of distinct subset nodes")
        si, di = pos[src], pos[dst]
        return si * (self.num_nodes - 1) + di - (di > si)

    @cached_property
    def pair_distance(self) -> np.ndarray:
        s, d = self.pairs
        return self.network.distance[s, d].astype(np.int64)

    @cached_property
    def graph(self):
        """The routing graph in use (the extended Angara graph; used for channel checks under any rules)."""
        from hopbench.harness.problems.routing.graph import routing_graph

        return routing_graph(self.network.dims)

    @cached_property
    def candidates(self):
        """:class:`~hopbench.harness.problems.routing.candidates.CandidateRoutes` (every minimal legal route per pair)."""
        from hopbench.harness.problems.routing.candidates import CandidateRoutes

        if self.rules != "angara":
            raise HopbenchError("candidate routes are enumerated for rules 'angara' only "
                                "(shortest walks are too many to list)")
        return CandidateRoutes(self.graph, self.node_array)

    def candidates_within(self, should_stop: Callable[[], bool]):
        """:attr:`candidates`, enumerated while ``should_stop()`` says go on (polled every few sources).

        Raises :class:`~hopbench.harness.problems.routing.candidates.Interrupted` when it says stop; a
        complete list is kept as :attr:`candidates`.
        """
        if "candidates" not in self.__dict__:
            from hopbench.harness.problems.routing.candidates import CandidateRoutes

            if self.rules != "angara":
                return self.candidates  # the one-line error
            # cached_property's own slot (the dataclass is frozen, its __dict__ is not)
            self.__dict__["candidates"] = CandidateRoutes(self.graph, self.node_array, should_stop=should_stop)
        return self.candidates

    @cached_property
    def channel_set(self) -> np.ndarray:
        """C: bool mask over channel ids of the channels lying on at least one minimal route
        (a route the rules allow) between two subset nodes."""
        net = self.network
        if self.all_nodes:
            # every channel (u, D) is the only minimal route u -> u + D, a one-step DOR route
            return net.channel_exists.copy()
        if self.rules == "angara":
            return self.candidates.channel_mask(net.num_channel_slots)
        # shortest walks: channel u -> v lies on one iff d(s,u) + 1 + d(v,t) = d(s,t)
        dist = net.distance.astype(np.int64)
        chan = np.flatnonzero(net.channel_exists)
        u, v = chan // net.ndir, net.neighbor.ravel()[chan]
        nodes = self.node_array
        mask = np.zeros(net.num_channel_slots, dtype=bool)
        for s in nodes:
            ok = (dist[s, u][:, None] + 1 + dist[v][:, nodes]) == dist[s, nodes][None, :]
            ok[:, nodes == s] = False
            mask[chan[ok.any(axis=1)]] = True
        return mask

    @cached_property
    def total_min_length(self) -> int:
        """Sum of pair distances = total length of any minimal table."""
        return int(self.pair_distance.sum())

    @property
    def gamma_perfect(self) -> float:
        """γ_perfect = (total minimal route length) / |C|."""
        return self.total_min_length / int(self.channel_set.sum())

    def load_lower_bound(self) -> int:
        """No minimal table has max γ_c below ceil(γ_perfect) (loads sum to the total length over C)."""
        return int(-(-self.total_min_length // int(self.channel_set.sum())))

    def objective_lower_bound(self) -> float | None:
        """No table scores below this value of the objective; None when no useful bound is known (sigma4)."""
        if self.objective != "max_load":
            return None
        if self.minimal:
            return float(self.load_lower_bound())
        # longer routes only add load; at best it spreads over every existing channel
        return float(-(-self.total_min_length // self.network.num_channels))


def make_problem(torus_spec: str | tuple, *, nodes: str | list | None = None, subset: str | None = None,
                 rules: str = "angara", minimal: bool = True, objective: str = "max_load") -> RoutingProblem:
    """Build a problem from a torus spec and either a node list or a subset name (or neither: all nodes)."""
    net = make_torus(parse_dims(torus_spec))
    if nodes is not None and subset is not None:
        raise HopbenchError("give either a node list or a subset name, not both")
    if subset is not None:
        return RoutingProblem(net, subset_nodes(subset, net), rules, minimal, objective, subset=subset)
    if nodes is not None:
        chosen = parse_nodes(nodes, net.num_nodes)
        return RoutingProblem(net, chosen, rules, minimal, objective,
                              subset="all" if len(chosen) == net.num_nodes else None)
    return RoutingProblem(net, None, rules, minimal, objective)
