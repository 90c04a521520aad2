"""`HostSwitchProblem`: Graph Golf's host-switch category, and the exact evaluation of a candidate.

A host-switch graph (Yasudo et al., IEEE TPDS 30(2), 2019) has ``n`` hosts of degree 1, each
linked to one switch, and any number ``m`` of switches with at most ``r`` ports each; a host link
takes a port.  Switches link to each other; hosts never link to hosts.  A parallel link or a loop is allowed, as the
competition's reference library (mnakao/ORP) allows it, and takes its ports, but never shortens a
path (hopbench's solvers make neither).
The number of switches is the solver's choice (``switches`` fixes it when a problem asks so).

Objectives, as Graph Golf ranks the category (always minimised):

``h_golf``   the h-diameter (the most hops between two hosts) first, then the h-ASPL (the mean
             hop count over the ``n (n - 1) / 2`` host pairs), as one number:
             ``h_diameter + h_aspl / (h_diameter + 1)`` (the order/degree problem's ``golf``)
``h_aspl``   the h-ASPL alone

Two hosts on one switch are 2 hops apart, and two on switches ``a != b`` are ``d(a, b) + 2``.
A graph whose switches do not all reach each other has infinite metrics.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.hostswitch import bounds

OBJECTIVES = ("h_golf", "h_aspl")
#: the largest radix (a host count per switch must fit the evaluation's 16 bit planes)
MAX_RADIX = 4096


def golf_value(diameter: float, aspl: float) -> float:
    """``diameter + aspl / (diameter + 1)``: a smaller h-diameter always wins, then a smaller h-ASPL."""
    if math.isinf(diameter) or math.isinf(aspl):
        return math.inf
    return float(diameter) + float(aspl) / (float(diameter) + 1.0)


@dataclass(frozen=True)
class HostSwitchEvaluation:
    """The metrics of a valid host-switch graph."""

    objective: float
    h_diameter: float   #: inf when disconnected
    h_aspl: float       #: inf when disconnected
    total: int          #: sum of hop counts over unordered host pairs (-1 when disconnected)
    switches: int
    switch_links: int
    unreachable: int    #: unordered host pairs with no path

    def metrics(self) -> dict[str, float]:
        return {"objective": self.objective, "h_diameter": self.h_diameter, "h_aspl": self.h_aspl,
                "total": self.total, "switches": self.switches, "switch_links": self.switch_links,
                "unreachable": self.unreachable}


@dataclass(frozen=True)
class HostSwitchProblem:
    """``hosts`` hosts, switches of ``radix`` ports, ``switches`` fixed or None (the solver's choice)."""

    hosts: int
    radix: int
    switches: int | None = None
    objective: str = "h_golf"

    kind = "hostswitch"

    def __post_init__(self) -> None:
        bounds.check_sizes(self.hosts, self.radix)
        caps.HOSTS.check(self.hosts, "the hosts of a host-switch problem")
        if self.radix > MAX_RADIX:
            raise HopbenchError(f"radix {self.radix} is above the {MAX_RADIX} ports a host-switch problem allows")
        if self.objective not in OBJECTIVES:
            raise HopbenchError(f"unknown host-switch objective {self.objective!r}; use one of {', '.join(OBJECTIVES)}")
        if self.switches is not None:
            low, high = bounds.min_switches(self.hosts, self.radix), bounds.max_switches(self.hosts, self.radix)
            switches = self.switches
            if isinstance(switches, bool) or not isinstance(switches, int) or not low <= switches <= high:
                raise HopbenchError(f"switches must be an integer from {low} (the fewest that hold {self.hosts} hosts "
                                    f"of radix {self.radix} connected) to {high}, got {self.switches!r}")

    @property
    def name(self) -> str:
        fixed = f", {self.switches} switches" if self.switches is not None else ""
        return f"hosts {self.hosts}, radix {self.radix}{fixed}"

    def describe(self) -> dict[str, Any]:
        return {"hosts": self.hosts, "radix": self.radix, "switches": self.switches, "objective": self.objective}

    @property
    def switch_range(self) -> tuple[int, int]:
        """The switch counts a solution may use."""
        if self.switches is not None:
            return self.switches, self.switches
        return bounds.min_switches(self.hosts, self.radix), bounds.max_switches(self.hosts, self.radix)

    def lower_bounds(self) -> tuple[int, float]:
        """Yasudo et al.'s ``(h-diameter, h-ASPL)`` bounds (:func:`bounds.lower_bounds`)."""
        return bounds.lower_bounds(self.hosts, self.radix)

    def objective_value(self, diameter: float, aspl: float) -> float:
        return golf_value(diameter, aspl) if self.objective == "h_golf" else float(aspl)

    def objective_lower_bound(self) -> float:
        d, a = self.lower_bounds()
        return self.objective_value(d, a)

    # ------------------------------------------------------------------ evaluation

    def check(self, host_counts: np.ndarray, links: np.ndarray) -> None:
        """Raise :class:`InvalidSolution` naming the first rule the graph breaks.

        ``host_counts[s]``: hosts on switch s; ``links``: ``(k, 2)`` switch pairs.
        """
        m = len(host_counts)
        low, high = self.switch_range
        if not low <= m <= high:
            fixed = "the problem fixes" if self.switches is not None else "a solution may use"
            raise InvalidSolution(f"the graph has {m} switches; {fixed} {low}" + (f" to {high}" if high != low else ""))
        if (host_counts < 0).any():
            raise InvalidSolution("a switch has a negative host count")
        if int(host_counts.sum()) != self.hosts:
            raise InvalidSolution(f"the switches hold {int(host_counts.sum())} hosts; the problem has {self.hosts}")
        if len(links):
            if links.min() < 0 or links.max() >= m:
                raise InvalidSolution(f"a switch link names a switch outside 0..{m - 1}")
        # a loop takes two ports of its switch, as it does in the competition's files
        ports = host_counts + np.bincount(links.ravel(), minlength=m) if len(links) else host_counts.copy()
        if (ports > self.radix).any():
            s = int(np.argmax(ports > self.radix))
            raise InvalidSolution(f"switch {s} uses {int(ports[s])} ports ({int(host_counts[s])} hosts); the radix is "
                                  f"{self.radix}")

    def evaluate(self, host_counts: np.ndarray, links: np.ndarray) -> HostSwitchEvaluation:
        """Validate, then measure exactly (the compiled BFS of :mod:`._kernel`)."""
        host_counts = np.ascontiguousarray(host_counts, dtype=np.int64)
        links = np.asarray(links, dtype=np.int64).reshape(-1, 2)
        self.check(host_counts, links)
        return measure(self, host_counts, links)


def padded_table(switches: int, links: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(nbr, deg)``: the switch graph as a padded neighbour table."""
    deg = np.bincount(links.ravel(), minlength=switches).astype(np.int64) if len(links) else \
        np.zeros(switches, np.int64)
    width = max(1, int(deg.max()) if switches else 1)
    nbr = np.full((switches, width), -1, dtype=np.int64)
    fill = np.zeros(switches, dtype=np.int64)
    both = np.concatenate([links, links[:, ::-1]]) if len(links) else links
    order = np.argsort(both[:, 0], kind="stable") if len(both) else np.zeros(0, np.int64)
    if len(both):
        src, dst = both[order, 0], both[order, 1]
        starts = np.concatenate([[0], np.cumsum(deg)[:-1]])
        slot = np.arange(len(src)) - starts[src]
        nbr[src, slot] = dst
        fill[:] = deg
    return nbr, fill


def from_sums(problem: HostSwitchProblem, host_counts: np.ndarray, switch_links: int, s_sum: int, reached: int,
              far: int) -> HostSwitchEvaluation:
    """The metrics from the kernel's ordered sums (see :mod:`._kernel`)."""
    n = problem.hosts
    h = host_counts.astype(np.int64)
    apart = n * n - int((h * h).sum())       # ordered host pairs on different switches
    together = int((h * (h - 1)).sum())      # ordered host pairs on one switch
    unreachable = (apart - reached) // 2
    m = len(host_counts)
    if unreachable > 0:
        return HostSwitchEvaluation(math.inf, math.inf, math.inf, -1, m, switch_links, unreachable)
    total = (s_sum + 2 * apart + 2 * together) // 2
    diameter = far + 2 if apart > 0 else 2
    aspl = total / (n * (n - 1) / 2)
    return HostSwitchEvaluation(problem.objective_value(diameter, aspl), float(diameter), aspl, total, m,
                                switch_links, 0)


def measure(problem: HostSwitchProblem, host_counts: np.ndarray, links: np.ndarray) -> HostSwitchEvaluation:
    """Measure a graph already checked (:meth:`HostSwitchProblem.check`)."""
    from hopbench.harness.problems.hostswitch._kernel import switch_sums, workspace

    m = len(host_counts)
    nbr, deg = padded_table(m, links)
    A, B, P = workspace(m)
    out = np.zeros(3, np.int64)
    switch_sums(nbr, deg, host_counts, A, B, P, out)
    return from_sums(problem, host_counts, len(links), int(out[0]), int(out[1]), int(out[2]))
