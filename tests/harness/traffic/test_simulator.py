"""The cycle-level simulator: exact zero-load timing, determinism, conservation, deadlock detection, limits."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.traffic.patterns import Hosts, make_pattern
from hopbench.harness.traffic.routing import build_routing
from hopbench.harness.traffic.simulator import (Network, RouterConfig, router_config, saturation_throughput,
                                       simulate_load)

SHORT = dict(warmup_periods=1, sample_period=500, max_samples=6)


def _net(spec: str, routing: str, pattern: str = "uniform", *, hosts: int = 1, dims=None, torus=None,
         **config) -> Network:
    g = parse_spec(spec)
    cfg = router_config(**{"num_vcs": 2, **SHORT, **config})
    h = Hosts.build(g.n, hosts)
    return Network(g, h, build_routing(routing, g, num_vcs=cfg.num_vcs, dims=dims, torus=torus),
                   make_pattern(pattern, h, seed=1, dims=dims), cfg)


@pytest.mark.parametrize("packet_size", [1, 4])
def test_isolated_packets_take_booksims_pipeline_time(packet_size):
    # BookSim's iq_router with its default delays: 7 cycles from creation to ejection for a packet
    # to its own switch, 5 more per hop with 1-cycle channels, plus the serialisation of the body
    net = _net("torus:8x8", "dor", "tornado", dims=(8, 8), torus=True, packet_size=packet_size)
    point = simulate_load(net, 0.002, seed=3)
    assert not point.saturated and point.packets > 0
    # tornado on an 8x8 torus: every packet travels 3 hops in each dimension
    assert point.hops == pytest.approx(6.0)
    assert point.latency_median == 7 + 5 * 6 + (packet_size - 1)


@pytest.mark.parametrize("packet_size", [1, 4])
def test_internal_speedup_2_takes_booksims_pipeline_time(packet_size):
    # BookSim with internal_speedup = 2.0 runs its router pipeline twice a cycle: 5 cycles to the own
    # switch's host and 3 a hop (measured with the BookSim2 binary: 23.03 and 26.03 cycles on this run)
    net = _net("torus:8x8", "dor", "tornado", dims=(8, 8), torus=True, packet_size=packet_size, internal_speedup=2)
    point = simulate_load(net, 0.002, seed=3)
    assert point.hops == pytest.approx(6.0)
    assert point.latency_median == 5 + 3 * 6 + (packet_size - 1)


@pytest.mark.parametrize("speedup, pattern", [(2, "uniform"), (4, "hotspot")])
def test_every_flit_is_somewhere_under_speedup_past_saturation(speedup, pattern):
    # output queues, credits and the channel wheels under overload: every flit the counters say is in the
    # network is in an input buffer or on a channel (a collision on a wheel would lose one), nothing deadlocks,
    # and a hotspot's ejection port takes one flit a cycle however many the switch delivers to its queue
    from hopbench.harness.traffic import _router_kernel as k
    from hopbench.harness.traffic.simulator import _State

    net = _net("dlnr:32:4", "adaptive-updown", pattern, hosts=4, num_vcs=3, packet_size=3, vc_buf_size=4,
               internal_speedup=speedup)
    st = _State(net, seed=7)
    for _ in range(4):  # a hotspot at full load keeps every VC waiting: a few hundred cycles a check suffice
        assert st.run(400, 1.0, False) == k.RUNNING
        in_buffers = int(st.vcount.sum())
        on_channels = int((st.wheel_code >= 0).sum())
        assert in_buffers + on_channels == st.stats[k.S_FLITS_IN_NETWORK] > 0
        assert st.stats[k.S_INJECTED_FLITS] == st.stats[k.S_EJECTED_FLITS] + st.stats[k.S_FLITS_IN_NETWORK]
        assert (st.ocredit >= 0).all() and (st.ocredit <= st.B).all()
    assert (st.o_free - st.t).max() > 1  # output queues did form (their channels are booked cycles ahead)
    if pattern == "hotspot":  # host 0 takes every packet: at most one flit a cycle
        assert st.stats[k.S_EJECTED_FLITS] <= st.t


def test_internal_speedup_raises_saturation_on_a_high_radix_switch():
    # 12 ports a switch (8 links, 4 hosts): a single-iteration allocator matches too few of them under
    # uniform traffic; two allocation rounds a cycle and output queues recover much of the loss
    common = dict(hosts=4, num_vcs=3, vc_buf_size=16)
    one = saturation_throughput(_net("dlnr:32:8", "adaptive-updown", **common), seed=1, tolerance=0.05)
    two = saturation_throughput(_net("dlnr:32:8", "adaptive-updown", internal_speedup=2, **common), seed=1,
                                tolerance=0.05)
    assert two.throughput > one.throughput + 0.1  # measured: 0.75 and 1.0


def test_channel_latency_adds_per_hop():
    net = _net("torus:8x8", "dor", "tornado", dims=(8, 8), torus=True, channel_latency=2)
    point = simulate_load(net, 0.002, seed=3)
    assert point.latency_median == 7 + 6 * 6


def test_same_seed_same_numbers_other_seed_other_numbers():
    net = _net("torus:4x4", "dor", dims=(4, 4), torus=True)
    a = simulate_load(net, 0.3, seed=5).as_dict()
    b = simulate_load(net, 0.3, seed=5).as_dict()
    c = simulate_load(net, 0.3, seed=6).as_dict()
    for d in (a, b, c):
        d.pop("wall_s")
    assert a == b
    assert a != c


def test_below_saturation_every_measured_packet_arrives_and_accepted_matches_offered():
    net = _net("mesh:4x4", "dor", dims=(4, 4), torus=False)
    point = simulate_load(net, 0.1, seed=1)
    assert point.status == "ok" and not point.saturated
    assert point.accepted == pytest.approx(point.injected, rel=0.05)
    assert point.injected == pytest.approx(0.1, rel=0.1)
    assert point.latency_mean >= point.network_latency > 0
    assert point.latency_p99 >= point.latency_median


def test_saturation_is_found_and_accepted_load_flattens():
    net = _net("mesh:4x4", "dor", dims=(4, 4), torus=False)
    sat = saturation_throughput(net, seed=1, tolerance=0.02)
    # a 4x4 mesh under uniform traffic: the bisection bound is 4/k = 1 flit/cycle/host; DOR with two
    # VCs and BookSim's allocators reaches well below it, but well above a trickle
    assert 0.2 < sat.throughput < 1.0
    over = simulate_load(net, min(1.0, sat.throughput + 0.15), seed=1)
    assert over.saturated


def test_minimal_routing_on_a_ring_with_one_vc_deadlocks_and_says_so():
    g = parse_spec("ring:8")
    cfg = router_config(num_vcs=1, packet_size=8, vc_buf_size=2, deadlock_cycles=200, **SHORT)
    h = Hosts.build(g.n, 1)
    routing = build_routing("minimal", g, num_vcs=1)
    net = Network(g, h, routing, make_pattern("tornado", h, dims=(8,)), cfg)
    point = simulate_load(net, 0.9, seed=1)
    assert point.deadlock and point.status == "deadlock" and point.saturated


def test_updown_never_deadlocks_on_the_same_ring():
    g = parse_spec("ring:8")
    cfg = router_config(num_vcs=1, packet_size=8, vc_buf_size=2, deadlock_cycles=200, **SHORT)
    h = Hosts.build(g.n, 1)
    net = Network(g, h, build_routing("updown", g, num_vcs=1), make_pattern("tornado", h, dims=(8,)), cfg)
    point = simulate_load(net, 0.9, seed=1)
    assert not point.deadlock


def test_virtual_cut_through_and_wormhole_both_run():
    for fc in ("wormhole", "vct"):
        net = _net("torus:4x4", "dor", dims=(4, 4), torus=True, flow_control=fc, packet_size=4)
        assert simulate_load(net, 0.1, seed=1).status == "ok"


def test_hosts_per_switch_and_adaptive_escape():
    net = _net("ring:16", "adaptive-updown", hosts=2, num_vcs=3)
    point = simulate_load(net, 0.05, seed=2)
    assert point.status == "ok" and point.packets > 0


def test_escape_share_counts_the_hops_taken_on_the_escape_vc():
    # the escape VC carries more of the traffic as the load rises, and less when more adaptive VCs can take it;
    # a routing without an escape sub-network states no share
    def point(load: float, num_vcs: int = 2):
        net = _net("dlnr:32:3", "adaptive-updown", num_vcs=num_vcs, packet_size=4, vc_buf_size=4)
        return simulate_load(net, load, seed=2)

    low, high, more_vcs = point(0.05), point(0.3), point(0.3, num_vcs=4)
    assert [p.status for p in (low, high, more_vcs)] == ["ok"] * 3
    assert 0 < low.escape_share < high.escape_share <= 1
    assert 0 < more_vcs.escape_share < high.escape_share
    assert simulate_load(_net("torus:4x4", "dor", dims=(4, 4), torus=True), 0.1, seed=1).escape_share is None
    assert simulate_load(_net("dlnr:32:3", "ugal", num_vcs=4), 0.1, seed=1).escape_share is None


@pytest.mark.parametrize("values, words", [
    ({"num_vcs": 0}, "num_vcs"),
    ({"num_vcs": 65}, "num_vcs"),
    ({"vc_buf_size": 0}, "vc_buf_size"),
    ({"packet_size": 5000}, "packet_size"),
    ({"flow_control": "vct", "packet_size": 16, "vc_buf_size": 8}, "virtual cut-through"),
    ({"sample_period": 10**6, "max_samples": 10**4}, "above the cap"),
    ({"bogus": 1}, "unknown simulator parameter"),
    ({"num_vcs": "two"}, "must be int"),
    ({"latency_thres": "nan"}, "finite"),
    ({"channel_latency": 0}, "channel_latency"),
    ({"internal_speedup": 0}, "internal_speedup"),
    ({"internal_speedup": 9}, "internal_speedup"),
    ({"internal_speedup": "1.5"}, "must be int"),
])
def test_bad_router_parameters_are_one_line_errors(values, words):
    with pytest.raises(HopbenchError, match=words) as exc:
        router_config(**values)
    assert "\n" not in str(exc.value)


def test_output_queues_that_would_need_huge_channel_wheels_are_refused_before_allocating(monkeypatch):
    # with the caps at 2^23 (the shipped ones are larger, so that a 10,000-host network fits, and would make this
    # test allocate gigabytes): within the buffer cap (5,120 input ports x 16 VCs x 80 flits), but a flit may
    # queue 1,280 cycles at an output with the speedup, so the wheels would need 9,216 channels x 1,280+ cycles
    from hopbench.harness.traffic.simulator import _State

    monkeypatch.setenv("HOPBENCH_MAX_SIM_WHEEL", str(1 << 23))
    monkeypatch.setenv("HOPBENCH_MAX_SIM_PACKETS", str(1 << 23))
    net = _net("torus:16x16", "dor", hosts=16, dims=(16, 16), torus=True, num_vcs=16, vc_buf_size=80,
               packet_size=16, internal_speedup=2)
    with pytest.raises(HopbenchError, match="channel wheels") as exc:
        _State(net, seed=1)
    assert "\n" not in str(exc.value) and "HOPBENCH_MAX_SIM_WHEEL" in str(exc.value)
    _State(_net("torus:16x16", "dor", hosts=16, dims=(16, 16), torus=True, num_vcs=16, vc_buf_size=80, packet_size=16),
           seed=1)


def test_buffers_above_the_cap_are_refused_before_allocating():
    # 5,120 input ports x 64 VCs x 1,024 flits = 335 million flit slots, ten times the cap
    from hopbench.harness.caps import SIM_PACKETS
    from hopbench.harness.traffic.simulator import _State

    net = _net("torus:16x16", "dor", hosts=16, dims=(16, 16), torus=True, num_vcs=64, vc_buf_size=1024)
    with pytest.raises(HopbenchError, match=f"above the simulator's cap of {SIM_PACKETS.limit():,}") as exc:
        _State(net, seed=1)
    assert "\n" not in str(exc.value) and "--endpoints" in str(exc.value)
    assert "HOPBENCH_MAX_SIM_PACKETS" in str(exc.value)


def test_bad_loads_are_refused():
    net = _net("ring:4", "updown")
    for load in (0, -0.1, 1.5, float("nan")):
        with pytest.raises(HopbenchError, match="flits/cycle/host"):
            simulate_load(net, load)


def test_routing_and_router_must_agree_on_vcs():
    g = parse_spec("ring:4")
    h = Hosts.build(g.n, 1)
    with pytest.raises(HopbenchError, match="VC"):
        Network(g, h, build_routing("updown", g, num_vcs=2), make_pattern("uniform", h), RouterConfig(num_vcs=4))


@pytest.mark.parametrize("pattern", ["uniform", "hotspot", "tornado", "randperm", "bitrev"])
def test_every_pattern_reaches_the_kernel_with_one_array_type(pattern):
    # numba compiles run_cycles once per argument type; a read-only pattern array would be a second,
    # 20-second compilation of the whole kernel for that pattern family
    from hopbench.harness.traffic.simulator import _State

    st = _State(_net("torus:8x8", "dor", pattern, dims=(8, 8), torus=True), seed=1)
    kind, dest, cdf = st.pattern
    assert dest.flags.writeable and cdf.flags.writeable
    assert dest.dtype == np.int64 and cdf.dtype == np.float64 and dest.flags.c_contiguous and cdf.flags.c_contiguous
