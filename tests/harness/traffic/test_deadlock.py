"""The channel-dependency check with VCs: acyclic routings, Duato's condition, cycles it must find."""
from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.traffic.deadlock import check, require_deadlock_free
from hopbench.harness.traffic.routing import SimRouting, build_routing


def ring_with_shortcuts(n: int, extra: int, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    e = rng.integers(0, n, size=(extra, 2))
    return parse_spec(f"ring:{n}").with_edges(e[e[:, 0] != e[:, 1]])


def random_regular(n: int, d: int, seed: int) -> Graph:
    return Graph(n, np.array(list(nx.random_regular_graph(d, n, seed=seed).edges())))


def assert_is_cycle(report, g: Graph):
    """The reported cycle is a closed chain of real channels."""
    hops = report.cycle
    assert len(hops) >= 2
    for (a, b, _, _), (c, _, _, _) in zip(hops, hops[1:] + hops[:1]):
        assert g.has_edge(a, b) and b == c
    assert "\n" not in report.reason


def rows(r: SimRouting):
    """Candidate rows (key, port, lo, hi, state, escape) of a routing, for building variants."""
    keys = np.repeat(np.arange(len(r.cand_ptr) - 1), np.diff(r.cand_ptr))
    return [keys, r.cand_port.astype(np.int64), r.cand_vc_lo.astype(np.int64), r.cand_vc_hi.astype(np.int64),
            r.cand_state.astype(np.int64), r.cand_escape.astype(np.int64)]


def from_rows(r: SimRouting, n: int, S: int, cols, **kw) -> SimRouting:
    keys, port, lo, hi, st, esc = (np.asarray(c, dtype=np.int64) for c in cols)
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n * n * S + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(keys, minlength=n * n * S))
    fields = dict(num_states=S, cand_ptr=ptr, cand_port=port[order].astype(np.int32),
                  cand_vc_lo=lo[order].astype(np.int32), cand_vc_hi=hi[order].astype(np.int32),
                  cand_state=st[order].astype(np.int32), cand_escape=esc[order].astype(np.uint8),
                  cand_random=np.zeros(n * n * S, dtype=np.uint8))
    fields.update(kw)
    return dataclasses.replace(r, **fields)


def restate(r: SimRouting, S: int, shift: int, cols):
    """Rows of ``r`` moved into states ``shift..`` of an S-state table."""
    keys, port, lo, hi, st, esc = cols
    rt, s = np.divmod(keys, r.num_states)
    return [rt * S + s + shift, port, lo, hi, st + shift, esc]


# --------------------------------------------------------------------------- dimension order


@pytest.mark.parametrize("spec, vcs", [("mesh:4x4", 1), ("mesh:3x5", 2), ("mesh:3x3x3", 1)])
def test_dor_on_a_mesh_is_acyclic(spec, vcs):
    g = parse_spec(spec)
    dims = [int(x) for x in spec.split(":")[1].split("x")]
    rep = check(build_routing("dor", g, num_vcs=vcs, dims=dims), g)
    assert rep.deadlock_free and rep.method == "acyclic" and rep.reachable_states > 0


@pytest.mark.parametrize("spec", ["torus:8x8", "torus:5x5", "torus:4x4x4", "torus:2x6", "torus:7"])
def test_dor_on_a_torus_with_two_vcs_is_acyclic(spec):
    g = parse_spec(spec)
    dims = [int(x) for x in spec.split(":")[1].split("x")]
    r = build_routing("dor", g, num_vcs=2, dims=dims)
    rep = check(r, g)
    assert rep.deadlock_free and rep.method == "acyclic"
    assert r.deadlock_free and "acyclic" in r.meta["deadlock_check"]


@pytest.mark.parametrize("spec", ["torus:8x8", "torus:5x5", "torus:7"])
def test_dor_on_a_torus_without_the_dateline_split_is_cyclic(spec):
    g = parse_spec(spec)
    dims = [int(x) for x in spec.split(":")[1].split("x")]
    r = build_routing("dor", g, num_vcs=2, dims=dims)
    flat = dataclasses.replace(r, cand_vc_lo=np.zeros_like(r.cand_vc_lo), cand_vc_hi=np.ones_like(r.cand_vc_hi))
    rep = check(flat, g)
    assert not rep.deadlock_free and rep.method == "cycle"
    assert_is_cycle(rep, g)
    k = dims[-1]
    assert len(rep.cycle) == k or len(rep.cycle) == dims[0]  # one ring of a dimension


# --------------------------------------------------------------------------- graph routings


def test_minimal_on_a_ring_is_cyclic():
    g = parse_spec("ring:16")
    r = build_routing("minimal", g, num_vcs=4)
    assert not r.deadlock_free
    rep = check(r, g)
    assert not rep.deadlock_free and rep.method == "cycle" and "channel-dependency cycle" in rep.reason
    assert len(rep.cycle) == 16 and "vc0-3" in rep.reason
    assert_is_cycle(rep, g)
    with pytest.raises(HopbenchError, match="routing minimal on this network can deadlock") as e:
        require_deadlock_free(r, g)
    assert "--allow-deadlock" in str(e.value) and "updown/adaptive-updown" in str(e.value)
    assert "\n" not in str(e.value)
    assert require_deadlock_free(r, g, allow_deadlock=True) == rep


@pytest.mark.parametrize("make", [lambda: random_regular(40, 3, 1), lambda: random_regular(64, 5, 2),
                                  lambda: ring_with_shortcuts(48, 20, 4), lambda: parse_spec("torus:8x8"),
                                  lambda: parse_spec("hypercube:6"), lambda: parse_spec("dln:64:5")])
def test_updown_is_acyclic(make):
    g = make()
    for vcs in (1, 3):
        r = build_routing("updown", g, num_vcs=vcs)
        rep = check(r, g)
        assert r.deadlock_free and rep.deadlock_free and rep.method == "acyclic"


@pytest.mark.parametrize("make", [lambda: ring_with_shortcuts(64, 16, 5), lambda: parse_spec("torus:8x8"),
                                  lambda: random_regular(50, 4, 3)])
def test_adaptive_updown_passes_duato(make):
    g = make()
    r = build_routing("adaptive-updown", g, num_vcs=3)
    rep = check(r, g)
    assert rep.deadlock_free and r.deadlock_free
    assert rep.method in ("duato", "acyclic")
    if g.n == 64 and g.m == 128:  # torus:8x8: minimal adaptive on the rings is cyclic, only Duato saves it
        assert rep.method == "duato"


# --------------------------------------------------------------------------- broken routings


def test_a_missing_escape_candidate_is_refused():
    g = parse_spec("torus:6x6")
    r = build_routing("adaptive-updown", g, num_vcs=2)
    cols = rows(r)
    keys = cols[0]
    # drop the escape candidates of every adaptive-state key toward destination 0
    drop = (cols[5] == 1) & ((keys // r.num_states) % g.n == 0) & (keys % r.num_states == 0)
    broken = from_rows(r, g.n, r.num_states, [c[~drop] for c in cols])
    rep = check(broken, g)
    assert not rep.deadlock_free and rep.method == "escape" and "no escape candidate" in rep.reason
    with pytest.raises(HopbenchError, match="can deadlock"):
        require_deadlock_free(broken, g)


def test_an_escape_subnetwork_with_a_cycle_is_refused():
    # escape = minimal deterministic routing on a ring (cyclic), adaptive = the same on VC 1
    g = parse_spec("ring:12")
    m = build_routing("minimal", g, num_vcs=1)
    mk, mport, _, _, _, _ = rows(m)
    r, t = np.divmod(mk, g.n)
    k0 = (r * g.n + t) * 2
    zeros, ones = np.zeros_like(mk), np.ones_like(mk)
    cols = [np.concatenate(x) for x in ([k0, k0, k0 + 1], [mport] * 3, [ones, zeros, zeros], [ones, zeros, zeros],
                                         [zeros, ones, ones], [zeros, ones, ones])]
    base = build_routing("adaptive-updown", g, num_vcs=2)
    broken = from_rows(base, g.n, 2, cols)
    rep = check(broken, g)
    assert not rep.deadlock_free and rep.method == "escape"
    assert "escape VCs have a channel-dependency cycle" in rep.reason
    assert_is_cycle(rep, g)
    assert all(lo == hi == 0 for _, _, lo, hi in rep.cycle)


def test_leaving_the_escape_vc_is_refused():
    g = parse_spec("torus:5x5")
    r = build_routing("adaptive-updown", g, num_vcs=2)
    cols = rows(r)
    # escape states (1, 2) also offered the minimal adaptive candidates of state 0
    adaptive = (cols[5] == 0)
    extra = []
    for s in (1, 2):
        c = [x[adaptive].copy() for x in cols]
        c[0] = c[0] + s
        extra.append(c)
    merged = [np.concatenate([cols[i]] + [e[i] for e in extra]) for i in range(6)]
    broken = from_rows(r, g.n, r.num_states, merged)
    rep = check(broken, g)
    assert not rep.deadlock_free and "offered a non-escape candidate" in rep.reason


def test_an_incomplete_routing_is_refused():
    g = parse_spec("ring:8")
    r = build_routing("updown", g, num_vcs=1)
    cols = rows(r)
    keep = cols[0] != (3 * g.n + 6) * r.num_states  # switch 3 toward 6 in the up phase: nothing
    rep = check(from_rows(r, g.n, r.num_states, [c[keep] for c in cols]), g)
    assert not rep.deadlock_free and rep.method == "incomplete" and "switch 3 bound for switch 6" in rep.reason


def test_only_reachable_states_count():
    # DOR on a ring (acyclic) plus, in extra states no packet ever enters, the cyclic minimal routing
    g = parse_spec("torus:8")
    dor = build_routing("dor", g, num_vcs=2, dims=(8,))
    cyc = build_routing("minimal", g, num_vcs=2)
    S = dor.num_states + cyc.num_states
    cols = [np.concatenate(x) for x in zip(restate(dor, S, 0, rows(dor)), restate(cyc, S, dor.num_states, rows(cyc)))]
    merged = from_rows(dor, g.n, S, cols)
    assert check(merged, g).deadlock_free
    started_there = dataclasses.replace(merged, init_state=dor.num_states)
    assert not check(started_there, g).deadlock_free


def test_malformed_tables_are_one_line_errors():
    g = parse_spec("ring:6")
    r = build_routing("updown", g, num_vcs=2)
    bad_port = r.cand_port.copy()
    bad_port[0] = 2
    bad_vc = r.cand_vc_hi.copy()
    bad_vc[0] = 2
    for variant, words in [(dataclasses.replace(r, cand_port=bad_port), "break the table layout"),
                           (dataclasses.replace(r, cand_vc_hi=bad_vc), "break the table layout"),
                           (dataclasses.replace(r, cand_ptr=r.cand_ptr[:-1]), "cand_ptr must hold"),
                           (dataclasses.replace(r, cand_state=r.cand_state[:-1]), "must hold"),
                           (dataclasses.replace(r, n=7), "switches")]:
        with pytest.raises(HopbenchError, match=words) as e:
            check(variant, g)
        assert "\n" not in str(e.value)
    esc = dataclasses.replace(r, cand_escape=np.ones_like(r.cand_escape))
    with pytest.raises(HopbenchError, match="escape_vcs"):
        check(esc, g)
    with pytest.raises(HopbenchError, match="only the escape VCs"):
        check(dataclasses.replace(esc, escape_vcs=(0,)), g)
