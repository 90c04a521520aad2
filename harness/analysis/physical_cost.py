"""Physical cost of a network: cabinets, cable lengths, copper/fibre, routers.

Two published models, both taking any :class:`~hopbench.harness.graphs.graph.Graph` (vertex i is
router i), so every solver's solution can be costed the same way.

**Liang et al. 2022, Sect. 4.1** (itself following Besta & Hoefler's Slim Fly
model).  Cabinets are 1 m x 1 m, 42U, placed with no aisle on a square grid;
every router and every endpoint is 1U; routers are taken in order, each
followed by its p endpoints, and packed sequentially into cabinets (a router's
endpoints may spill into the next cabinet); inside a cabinet the routers sit at
the top.  A cable is routed with Manhattan segments:

* same cabinet: ``2 * 0.5 m`` (from each port to the cabinet side) plus the
  vertical distance, so two adjacent modules are joined by 2 x 0.5 m +
  44.45 mm (the paper's "104.45 cm");
* different cabinets: ``0.5 m`` at each end, up from each module to the
  overhead pathway 1 m above the cabinet top, and the Manhattan distance
  between the cabinets (1 m per cabinet).

Cables longer than 8 m are fibre, the others copper.  Prices (the paper's
footnote 2): copper ``0.4079 x + 0.5771`` $/Gb/s, fibre ``0.0919 x + 7.2745``
$/Gb/s (the footnote prints ``0.0919 + 7.2745``; the x is restored as in the
Slim Fly model it cites), for x the length in metres, times the channel
bandwidth; a router of radix k costs ``350.4 k - 892.3`` $.  The bandwidth is
not stated in the seeds: 40 Gb/s (the FDR10 links of the Slim Fly cost model)
is the default, a parameter.  The router radix is the largest degree plus p.

**Koibuchi et al. 2012, Sect. V-C** (average switch-to-switch cable length).
128 hosts per cabinet, 8 hosts per switch (16 switches per cabinet), cabinet
footprint 0.57 m x 1.44 m at 75 hosts/m^2 (so a cabinet occupies
128/75 m^2: cabinets stand side by side, 0.57 m apart in a row, and rows are
(128/75)/0.57 = 2.99 m apart); cabinets fill a square grid; cables follow
Manhattan paths.  Switch-to-switch cables inside one cabinet are 2 m (our
reading of "the inter cabinet cables are set to be 2m": an inter-cabinet cable
cannot have a fixed length) and cables between cabinets are the Manhattan
distance plus 2 m of overhead.  Layouts: *distributed* (each switch in its
hosts' cabinet) and *centralized* (all switches in the cabinets nearest the
grid centre, 128 switches per cabinet, an assumption the paper leaves open).
Host-to-switch cables are excluded, as in the paper.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

# --------------------------------------------------------------------------- Liang et al. 2022


@dataclass(frozen=True)
class LiangCostModel:
    """Constants of the cabinet/cable/router model (defaults: Liang et al. 2022, Sect. 4.1 and footnote 2)."""

    cabinet_units: int = 42  #: 42U standard cabinets
    unit_m: float = 0.04445  #: 1U = 44.45 mm; every router and endpoint is 1U
    cabinet_pitch_m: float = 1.0  #: 1 m x 1 m cabinets, no aisle
    tray_height_m: float = 1.0  #: overhead cable pathway 1 m above the cabinet
    port_offset_m: float = 0.5  #: horizontal run from the cabinet side to a port, at each end
    fibre_above_m: float = 8.0  #: cables longer than this are fibre, otherwise copper
    copper_slope: float = 0.4079  #: $/Gb/s per metre
    copper_base: float = 0.5771  #: $/Gb/s
    fibre_slope: float = 0.0919
    fibre_base: float = 7.2745
    router_slope: float = 350.4  #: $ per port
    router_base: float = -892.3  #: $
    bandwidth_gbps: float = 40.0  #: channel bandwidth (assumption; see the module docstring)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.bandwidth_gbps) and self.bandwidth_gbps > 0):
            raise HopbenchError(f"bandwidth must be a positive number of Gb/s, got {self.bandwidth_gbps!r}")

    def cable_cost(self, length_m: np.ndarray) -> np.ndarray:
        x = np.asarray(length_m, dtype=float)
        fibre = x > self.fibre_above_m
        per_gbps = np.where(fibre, self.fibre_slope * x + self.fibre_base, self.copper_slope * x + self.copper_base)
        return per_gbps * self.bandwidth_gbps

    def router_cost(self, radix: int) -> float:
        return self.router_slope * radix + self.router_base


@dataclass(frozen=True)
class LiangCost:
    """The model's result for one network and p."""

    routers: int
    endpoints: int
    router_radix: int
    cabinets: int
    router_links: int
    router_links_copper: int
    router_links_fibre: int
    router_link_mean_m: float
    router_link_total_m: float
    endpoint_links_copper: int
    endpoint_links_fibre: int
    endpoint_link_mean_m: float
    router_cost: float
    cable_cost: float
    total_cost: float
    cost_per_endpoint: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Placement:
    """Where each module is: cabinet index and slot counted from the cabinet top."""

    router_cabinet: np.ndarray
    router_slot: np.ndarray
    endpoint_router: np.ndarray
    endpoint_cabinet: np.ndarray
    endpoint_slot: np.ndarray
    cabinets: int


def place(n: int, p: int, model: LiangCostModel = LiangCostModel()) -> Placement:
    """Pack routers (each followed by its p endpoints) into cabinets, routers on top."""
    if n < 1 or p < 0:
        raise HopbenchError(f"need at least one router and p >= 0 endpoints, got n={n}, p={p}")
    per = p + 1
    caps.VERTICES.check(n, "the number of routers")
    caps.EDGES.check(n * per, "the number of modules to place (routers times p + 1)")  # one slot each
    order = np.arange(n * per, dtype=np.int64)  # global slot of every module, in packing order
    cabinet = order // model.cabinet_units
    is_router = order % per == 0
    owner = order // per
    cabinets = int(cabinet[-1]) + 1
    # inside a cabinet routers go first (top), then endpoints, both in packing order
    routers_in = np.bincount(cabinet[is_router], minlength=cabinets)
    r_cab = cabinet[is_router]
    r_rank = np.arange(n) - np.searchsorted(r_cab, r_cab)
    e_cab = cabinet[~is_router]
    e_rank = np.arange(e_cab.size) - np.searchsorted(e_cab, e_cab)
    return Placement(router_cabinet=r_cab, router_slot=r_rank, endpoint_router=owner[~is_router],
                     endpoint_cabinet=e_cab, endpoint_slot=routers_in[e_cab] + e_rank, cabinets=cabinets)


def _grid(cabinet: np.ndarray, cabinets: int) -> tuple[np.ndarray, np.ndarray]:
    cols = max(1, math.ceil(math.sqrt(cabinets)))
    return cabinet % cols, cabinet // cols


def cable_lengths(c1: np.ndarray, s1: np.ndarray, c2: np.ndarray, s2: np.ndarray, cabinets: int,
                  model: LiangCostModel = LiangCostModel()) -> np.ndarray:
    """Manhattan cable length (m) between modules at (cabinet, slot) pairs."""
    x1, y1 = _grid(c1, cabinets)
    x2, y2 = _grid(c2, cabinets)
    same = c1 == c2
    vertical_same = np.abs(s1 - s2) * model.unit_m
    via_tray = (2 * model.tray_height_m + (s1 + s2) * model.unit_m
                + model.cabinet_pitch_m * (np.abs(x1 - x2) + np.abs(y1 - y2)))
    return 2 * model.port_offset_m + np.where(same, vertical_same, via_tray)


def liang_cost(g: Graph, p: int, *, model: LiangCostModel = LiangCostModel(), radix: int | None = None) -> LiangCost:
    """Total cost of ``g`` with p endpoints per router under the Liang et al. 2022 model.

    >>> from hopbench.harness.graphs.topologies import ring
    >>> round(liang_cost(ring(4), 1).router_link_mean_m, 4)  # one cabinet: 1 m + the vertical run
    1.0667
    """
    pl = place(g.n, p, model)
    u, v = g.edges[:, 0].astype(np.int64), g.edges[:, 1].astype(np.int64)
    rl = cable_lengths(pl.router_cabinet[u], pl.router_slot[u], pl.router_cabinet[v], pl.router_slot[v],
                       pl.cabinets, model)
    er = pl.endpoint_router
    el = cable_lengths(pl.router_cabinet[er], pl.router_slot[er], pl.endpoint_cabinet, pl.endpoint_slot,
                       pl.cabinets, model)
    k = int(radix) if radix is not None else g.max_degree + p
    routers = g.n * model.router_cost(k)
    cables = float(model.cable_cost(rl).sum() + model.cable_cost(el).sum())
    endpoints = g.n * p
    total = routers + cables
    return LiangCost(
        routers=g.n, endpoints=endpoints, router_radix=k, cabinets=pl.cabinets, router_links=g.m,
        router_links_copper=int((rl <= model.fibre_above_m).sum()), router_links_fibre=int((rl > model.fibre_above_m).sum()),
        router_link_mean_m=float(rl.mean()) if rl.size else 0.0, router_link_total_m=float(rl.sum()),
        endpoint_links_copper=int((el <= model.fibre_above_m).sum()), endpoint_links_fibre=int((el > model.fibre_above_m).sum()),
        endpoint_link_mean_m=float(el.mean()) if el.size else 0.0,
        router_cost=float(routers), cable_cost=cables, total_cost=float(total),
        cost_per_endpoint=float(total / endpoints) if endpoints else math.nan,
    )


# --------------------------------------------------------------------------- Koibuchi et al. 2012


@dataclass(frozen=True)
class KoibuchiLayout:
    """Constants of the layout (defaults: Koibuchi et al. 2012, Sect. V-C)."""

    hosts_per_cabinet: int = 128
    hosts_per_switch: int = 8
    cabinet_width_m: float = 0.57
    cabinet_depth_m: float = 1.44
    hosts_per_m2: float = 75.0
    intra_cabinet_m: float = 2.0
    overhead_m: float = 2.0
    central_switches_per_cabinet: int = 128  #: assumption: a switch takes a host's place

    @property
    def row_pitch_m(self) -> float:
        """Distance between cabinet rows so that a cabinet occupies hosts_per_cabinet / density m^2."""
        return max(self.cabinet_depth_m, self.hosts_per_cabinet / self.hosts_per_m2 / self.cabinet_width_m)


@dataclass(frozen=True)
class CableLength:
    layout: str
    links: int
    cabinets: int
    intra_cabinet: int
    mean_m: float
    max_m: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def koibuchi_cable_length(g: Graph, *, layout: str = "distributed",
                          params: KoibuchiLayout = KoibuchiLayout()) -> CableLength:
    """Average switch-to-switch cable length of ``g`` in Koibuchi's distributed or centralized layout."""
    if layout not in ("distributed", "centralized"):
        raise HopbenchError(f"unknown layout {layout!r}; use distributed or centralized")
    n = g.n
    per_cab = max(1, params.hosts_per_cabinet // params.hosts_per_switch)
    host_cabinets = math.ceil(n * params.hosts_per_switch / params.hosts_per_cabinet)
    if layout == "distributed":
        total = math.ceil(n / per_cab)
        cols = max(1, math.ceil(math.sqrt(total)))
        cell = np.arange(total)
        switch_cabinet = np.arange(n) // per_cab
    else:
        switch_cabs = math.ceil(n / params.central_switches_per_cabinet)
        total = host_cabinets + switch_cabs
        cols = max(1, math.ceil(math.sqrt(total)))
        rows = math.ceil(total / cols)
        grid = np.arange(cols * rows)
        gx = (grid % cols) * params.cabinet_width_m
        gy = (grid // cols) * params.row_pitch_m
        cx, cy = gx.mean(), gy.mean()
        centrality = np.abs(gx - cx) + np.abs(gy - cy)
        cell = np.argsort(centrality, kind="stable")[:switch_cabs]  # the central cells hold the switches
        switch_cabinet = np.arange(n) // params.central_switches_per_cabinet
    x = (cell % cols) * params.cabinet_width_m
    y = (cell // cols) * params.row_pitch_m
    u, v = g.edges[:, 0].astype(np.int64), g.edges[:, 1].astype(np.int64)
    cu, cv = switch_cabinet[u], switch_cabinet[v]
    same = cu == cv
    length = np.where(same, params.intra_cabinet_m,
                      np.abs(x[cu] - x[cv]) + np.abs(y[cu] - y[cv]) + params.overhead_m)
    return CableLength(layout=layout, links=g.m, cabinets=int(total), intra_cabinet=int(same.sum()),
                       mean_m=float(length.mean()) if length.size else 0.0,
                       max_m=float(length.max()) if length.size else 0.0)


# --------------------------------------------------------------------------- input


def load_network(text: str) -> tuple[Graph, int | None]:
    """A graph from a topology spec, an Equality notation or id, a result JSON or an edge list.

    Returns the graph and the notation's p when it gives one.
    """
    from hopbench.harness.problems import networks

    net = networks.load_network(text, action="cost",
                                example="torus:8x8, 'N14K6[-1,1,3,9](4)', E361 or a solution .json file")
    p = net.p
    spec = text.strip()
    if p is None and spec.lower().startswith("equality:"):
        from hopbench.harness.problems.shortcut import equality as eq

        p = eq.parse(spec.split(":", 1)[1]).p  # an equality: spec carries its notation's p too
    return net.graph, p
