"""The BookSim2 engine: configs, one-line refusals, bad binaries, output parsing, and real runs.

The real-binary tests need ``HOPBENCH_BOOKSIM`` (CI builds BookSim2 and sets it); they are skipped
without it, and fail when ``HOPBENCH_REQUIRE_BOOKSIM`` is set but the binary is not given.
"""
from __future__ import annotations

import os
import re
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.traffic import booksim as bs


def ring(n: int) -> Graph:
    return Graph(n, [(i, (i + 1) % n) for i in range(n)])


def path_graph(n: int) -> Graph:
    return Graph(n, [(i, i + 1) for i in range(n - 1)])


def one_line_error(excinfo) -> str:
    text = str(excinfo.value)
    assert "\n" not in text and text.strip() == text and text
    return text


@pytest.fixture
def booksim_binary() -> Path:
    """The BookSim2 binary of ``HOPBENCH_BOOKSIM`` (CI builds it from the peers' source copy)."""
    path = os.environ.get(bs.ENV)
    if not path:
        if os.environ.get("HOPBENCH_REQUIRE_BOOKSIM"):
            pytest.fail("HOPBENCH_REQUIRE_BOOKSIM is set but HOPBENCH_BOOKSIM is not")
        pytest.skip("set HOPBENCH_BOOKSIM=/path/to/booksim2/src/booksim to run BookSim2 (CI does)")
    return bs.find_booksim(path)


def script(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / name
    p.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    p.chmod(0o755)
    return p


# --------------------------------------------------------------------------- configs (no binary)


def config_values(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        if line.startswith("//") or not line.strip():
            continue
        m = re.fullmatch(r"(\w+) = (\S+);", line)
        assert m, f"not a BookSim assignment: {line!r}"
        assert m[1] not in out, f"{m[1]} written twice"
        out[m[1]] = m[2]
    return out


def test_torus_config_writes_every_default_with_its_type():
    values = config_values(bs.booksim_config("torus", k=8, n=2, num_vcs=2, injection_rate=0.25, seed=3))
    assert values["topology"] == "torus" and values["k"] == "8" and values["n"] == "2"
    assert values["routing_function"] == "dim_order"
    assert values["num_vcs"] == "2" and values["injection_rate"] == "0.25" and values["seed"] == "3"
    assert set(bs.BOOKSIM_DEFAULTS) <= set(values)
    for key, default in bs.BOOKSIM_DEFAULTS.items():
        if isinstance(default, float):
            assert re.fullmatch(r"-?\d+\.\d+(e[-+]\d+)?", values[key]), key   # BookSim's real fields need a '.'
        elif isinstance(default, int):
            assert re.fullmatch(r"-?\d+", values[key]), key
    # untouched parameters keep BookSim's defaults
    assert values["vc_buf_size"] == "8" and values["vc_allocator"] == "islip" and values["warmup_periods"] == "3"


def test_defaults_are_booksims():
    d = bs.BOOKSIM_DEFAULTS
    assert (d["num_vcs"], d["vc_buf_size"], d["packet_size"], d["routing_delay"], d["vc_alloc_delay"],
            d["sw_alloc_delay"], d["st_final_delay"], d["credit_delay"]) == (16, 8, 1, 1, 1, 1, 1, 0)
    assert (d["warmup_periods"], d["sample_period"], d["max_samples"], d["latency_thres"]) == (3, 1000, 10, 500.0)
    assert (d["sw_allocator"], d["vc_allocator"], d["alloc_iters"], d["wait_for_tail_credit"]) == \
        ("islip", "islip", 1, 0)
    assert all(isinstance(v, (int, float, str)) for v in d.values())


def test_mesh_config_and_float_formats():
    values = config_values(bs.booksim_config("mesh", k=4, n=3, injection_rate=1e-05, internal_speedup=2))
    assert (values["topology"], values["k"], values["n"]) == ("mesh", "4", "3")
    assert values["routing_function"] == "dim_order" and values["num_vcs"] == "16"
    assert float(values["injection_rate"]) == 1e-05 and values["internal_speedup"] == "2.0"


def test_anynet_config_and_network_text():
    tree = path_graph(5)
    values = config_values(bs.booksim_config("anynet", graph=tree, num_vcs=2))
    assert values["topology"] == "anynet" and values["routing_function"] == "min"
    assert values["network_file"] == bs.NETWORK_FILE
    text = bs.anynet_text(tree, 2)
    assert text.splitlines()[0] == "router 0 node 0 node 1 router 1"
    assert text.splitlines()[2] == "router 2 node 4 node 5 router 1 router 3"


def test_anynet_text_is_what_hopbench_export_writes():
    from hopbench.harness.report.exports import anynet_text as export_anynet
    g = Graph(6, [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (0, 5)])
    endpoints = np.array([1, 0, 2, 1, 3, 1])
    assert bs.anynet_text(g, endpoints) == export_anynet(g, endpoints)
    assert bs.anynet_text(g, 1) == export_anynet(g, np.ones(6, dtype=np.int64))


# --------------------------------------------------------------------------- refusals (one line each)


@pytest.mark.parametrize("kwargs, words", [
    (dict(topology="torus", num_vcs=1), "even num_vcs"),
    (dict(topology="torus", num_vcs=3), "even num_vcs"),
    (dict(topology="torus", num_vcs=2, routing_function="min_adapt"), "only with routing_function=dim_order"),
    (dict(topology="mesh", routing_function="romm"), "only with routing_function=dim_order"),
    (dict(topology="fly"), "torus, mesh or anynet"),
    (dict(topology="torus", num_vcs=2, bogus=1), "unknown BookSim parameter 'bogus'"),
    (dict(topology="torus", num_vcs=2.5), "must be an integer"),
    (dict(topology="torus", num_vcs=2, injection_rate="high"), "finite number"),
    (dict(topology="torus", num_vcs=2, injection_rate=float("nan")), "finite number"),
    (dict(topology="torus", num_vcs=2, traffic="uniform; k = 4"), "plain word"),
    (dict(topology="torus", num_vcs=2, injection_rate=1.5), "packets/cycle/node <= 1"),
    (dict(topology="torus", num_vcs=2, injection_rate=0.5, packet_size=4, injection_rate_uses_flits=1), None),
    (dict(topology="torus", k=1), "k >= 2"),
    (dict(topology="torus", num_vcs=2, seed=2**40), "C int"),
])
def test_refusals_are_one_line(kwargs, words):
    kwargs = dict(kwargs)
    topology = kwargs.pop("topology")
    if words is None:
        bs.booksim_config(topology, **kwargs)      # 0.5 flits in 4-flit packets = 0.125 packets: fine
        return
    with pytest.raises(HopbenchError) as excinfo:
        bs.booksim_config(topology, **kwargs)
    assert words in one_line_error(excinfo)


def test_anynet_min_routing_on_a_cycle_is_refused_unless_allowed():
    with pytest.raises(HopbenchError) as excinfo:
        bs.booksim_config("anynet", graph=ring(8), num_vcs=2)
    text = one_line_error(excinfo)
    assert "deadlock" in text and "allow_deadlock" in text
    bs.booksim_config("anynet", graph=ring(8), num_vcs=2, allow_deadlock=True)
    bs.booksim_config("anynet", graph=path_graph(8), num_vcs=1)                    # a tree cannot deadlock
    bs.booksim_config("anynet", graph=Graph(4, [(0, 1), (2, 3)]), num_vcs=1)       # nor a forest
    with pytest.raises(HopbenchError) as excinfo:
        bs.booksim_config("anynet", graph=path_graph(3), routing_function="dim_order")
    one_line_error(excinfo)


def test_run_refuses_a_cyclic_anynet_text_before_running(tmp_path):
    fake = script(tmp_path, "booksim", "echo 'Usage: booksim configfile... [param=value...]' >&2\n")
    config = bs.booksim_config("anynet", graph=ring(4), allow_deadlock=True, num_vcs=2)
    with pytest.raises(HopbenchError) as excinfo:
        bs.run_booksim(fake, config, network_text=bs.anynet_text(ring(4)))
    assert "deadlock" in one_line_error(excinfo)
    with pytest.raises(HopbenchError) as excinfo:
        bs.run_booksim(fake, config)
    assert "network_text" in one_line_error(excinfo)
    torus = bs.booksim_config("torus", num_vcs=2).replace("num_vcs = 2;", "num_vcs = 3;")
    with pytest.raises(HopbenchError) as excinfo:
        bs.run_booksim(fake, torus)
    assert "even num_vcs" in one_line_error(excinfo)


# --------------------------------------------------------------------------- bad binaries (within 5 s)


def bad_binary(path, monkeypatch=None) -> str:
    start = time.perf_counter()
    with pytest.raises(HopbenchError) as excinfo:
        bs.find_booksim(path)
    assert time.perf_counter() - start < 60.0  # not a timing: a binary or run that is not stopped lasts minutes
    return one_line_error(excinfo)


def test_no_binary_given(monkeypatch):
    monkeypatch.delenv(bs.ENV, raising=False)
    text = bad_binary(None)
    assert "HOPBENCH_BOOKSIM" in text and "--booksim" in text


def test_missing_binary_and_env_fallback(tmp_path, monkeypatch):
    assert "does not exist" in bad_binary(tmp_path / "nope")
    monkeypatch.setenv(bs.ENV, str(tmp_path / "gone"))
    text = bad_binary(None)
    assert "does not exist" in text and "HOPBENCH_BOOKSIM" in text


def test_a_directory_is_not_a_binary(tmp_path):
    assert "is a directory" in bad_binary(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "booksim").write_text("x")
    assert "did you mean" in bad_binary(tmp_path)


def test_a_text_file_is_not_a_binary(tmp_path):
    text_file = tmp_path / "booksim.txt"
    text_file.write_text("just some notes\n")
    assert "not executable" in bad_binary(text_file)
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x00\x01\x02 not an executable format")
    junk.chmod(0o755)
    assert "booksim" in bad_binary(junk).lower()


def test_true_and_garbage_printers_are_not_booksim(tmp_path):
    assert "not BookSim2" in bad_binary("/bin/true")
    garbage = script(tmp_path, "garbage", "echo 'hello from something else'\n")
    text = bad_binary(garbage)
    assert "not BookSim2" in text and "hello from something else" in text


def test_a_binary_that_hangs_is_stopped_within_5_s(tmp_path):
    hang = script(tmp_path, "hang", "sleep 300\n")
    assert "did not answer" in bad_binary(hang)


def test_a_fake_booksim_that_prints_garbage_when_run(tmp_path):
    fake = script(tmp_path, "booksim", """\
        if [ $# -eq 0 ]; then echo 'Usage: booksim configfile... [param=value...]' >&2; exit 0; fi
        echo 'bzzt 42'
        """)
    with pytest.raises(HopbenchError) as excinfo:
        bs.run_booksim(fake, bs.booksim_config("torus", num_vcs=2))
    assert "did not answer like BookSim2" in one_line_error(excinfo)


def test_a_run_past_its_limit_is_killed_with_its_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    fake = script(tmp_path, "booksim", f"""\
        if [ $# -eq 0 ]; then echo 'Usage: booksim configfile...' >&2; exit 0; fi
        sleep 300 &
        echo $! > {pidfile}
        wait
        """)
    start = time.perf_counter()
    with pytest.raises(HopbenchError) as excinfo:
        bs.run_booksim(fake, bs.booksim_config("torus", num_vcs=2), timeout=0.5)
    assert time.perf_counter() - start < 60.0  # not a timing: a binary or run that is not stopped lasts minutes
    assert "time limit" in one_line_error(excinfo)
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child}/stat").exists() and Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        pytest.fail("the run's child process survived the time limit")


# --------------------------------------------------------------------------- parsing (canned output)


FINISHED = """\
Class 0:
Packet latency average = 31.1317
\tminimum = 7
\tmaximum = 58
Accepted flit rate average= 0.009375
latency change    = 0.00339642
Draining all recorded packets ...
Draining remaining packets ...
Time taken is 6084 cycles
====== Overall Traffic Statistics ======
====== Traffic class 0 ======
Packet latency average = 31.0005 (1 samples)
\tminimum = 7 (1 samples)
\tmaximum = 57 (1 samples)
Network latency average = 30.5 (1 samples)
\tminimum = 6 (1 samples)
\tmaximum = 56 (1 samples)
Flit latency average = 31.0553 (1 samples)
\tminimum = 7 (1 samples)
\tmaximum = 57 (1 samples)
Fragmentation average = 0 (1 samples)
\tminimum = 0 (1 samples)
\tmaximum = 0 (1 samples)
Injected packet rate average = 0.00970833 (1 samples)
\tminimum = 0.005 (1 samples)
\tmaximum = 0.0136667 (1 samples)
Accepted packet rate average = 0.00969792 (1 samples)
\tminimum = 0.005 (1 samples)
\tmaximum = 0.0143333 (1 samples)
Injected flit rate average = 0.00970833 (1 samples)
\tminimum = 0.005 (1 samples)
\tmaximum = 0.0136667 (1 samples)
Accepted flit rate average = 0.00969792 (1 samples)
\tminimum = 0.005 (1 samples)
\tmaximum = 0.0143333 (1 samples)
Injected packet size average = 1 (1 samples)
Accepted packet size average = 1 (1 samples)
Hops average = 4.98605 (1 samples)
Total run time 0.420851
"""

UNSTABLE = """\
BEGIN Configuration File: booksim.cfg
END Configuration File: booksim.cfg
Class 0:
Packet latency average = 380.5
\tminimum = 7
\tmaximum = 900
Injected flit rate average = 0.31
\tminimum = 0.2 (at node 3)
\tmaximum = 0.4 (at node 9)
Accepted flit rate average= 0.2523
\tminimum = 0.2 (at node 3)
\tmaximum = 0.3 (at node 9)
Average latency for class 0 exceeded 500 cycles. Aborting simulation.
Too many sample periods needed to converge
Simulation unstable, ending ...
Total run time 1.02603
"""


def test_parse_a_finished_run():
    r = bs.parse_output(FINISHED, offered=0.01)
    assert (r.status, r.saturated, r.deadlock) == ("ok", False, False)
    assert r.latency_mean == 31.0005 and (r.latency_min, r.latency_max) == (7.0, 57.0)
    assert (r.network_latency, r.network_latency_min, r.network_latency_max) == (30.5, 6.0, 56.0)
    assert r.flit_latency == 31.0553 and r.accepted == 0.00969792 and r.injected == 0.00970833
    assert r.hops == pytest.approx(3.98605) and r.cycles == 6084 and r.booksim_seconds == 0.420851
    row = r.row()
    assert row["engine"] == "booksim" and "output_tail" not in row


def test_parse_unstable_and_deadlocked_runs():
    r = bs.parse_output(UNSTABLE, offered=0.4)
    assert (r.status, r.saturated, r.deadlock, r.latency_mean) == ("unstable", True, False, None)
    assert r.accepted == 0.2523 and r.injected == 0.31
    stuck = UNSTABLE.replace("Class 0:", "WARNING: Possible network deadlock.\nClass 0:")
    r = bs.parse_output(stuck, offered=0.4)
    assert (r.status, r.deadlock, r.deadlock_warnings) == ("deadlock", True, 1)
    assert "Simulation unstable" in r.output_tail
    # aborted during the drain: BookSim lists the remaining flits after the last sample period
    in_drain = UNSTABLE.replace("Average latency", "Draining all recorded packets ...\nClass 0:\n"
                                "Remaining flits: 260151 260771 [...] (5925 flits)\n"
                                "Measured flits: 260151 [...] (100 flits)\nAverage latency")
    r = bs.parse_output(in_drain, offered=0.4)
    assert (r.status, r.accepted, r.injected) == ("unstable", 0.2523, 0.31)


def test_parse_saturated_but_finished_and_nan():
    low = FINISHED.replace("Accepted flit rate average = 0.00969792", "Accepted flit rate average = 0.0050")
    assert bs.parse_output(low, offered=0.01).saturated
    nan = FINISHED.replace("Packet latency average = 31.0005", "Packet latency average = -nan")
    assert bs.parse_output(nan, offered=0.01).latency_mean is None


def test_parse_booksim_errors():
    with pytest.raises(HopbenchError) as excinfo:
        bs.parse_output("BEGIN Configuration File: booksim.cfg\nError: Unknown traffic pattern: zigzag\n", offered=0.1)
    assert "Unknown traffic pattern: zigzag" in one_line_error(excinfo)
    with pytest.raises(HopbenchError) as excinfo:
        bs.parse_output("", "Parse error on line 3 : syntax error\n", offered=0.1, returncode=255)
    assert "Parse error on line 3" in one_line_error(excinfo)


# --------------------------------------------------------------------------- the real binary


def test_real_binary_found_through_the_environment(booksim_binary, monkeypatch):
    monkeypatch.setenv(bs.ENV, str(booksim_binary))
    assert bs.find_booksim(None) == booksim_binary == bs.find_booksim(str(booksim_binary))


def test_real_torus_zero_load(booksim_binary):
    config = bs.booksim_config("torus", k=8, n=2, num_vcs=2, injection_rate=0.01)
    r = bs.run_booksim(booksim_binary, config, timeout=60)
    assert r.status == "ok" and not r.saturated
    # 7 cycles at the source router + 6 per link (2-cycle torus channels), 4 links on average
    assert r.latency_mean == pytest.approx(31.0, abs=1.5) and r.latency_min == 7.0
    assert r.hops == pytest.approx(4.0, abs=0.2)
    assert r.accepted == pytest.approx(0.01, rel=0.1) and r.cycles >= 6000


@pytest.mark.parametrize("packet_size", [1, 4])
def test_real_internal_speedup_2_matches_ours_per_packet(booksim_binary, packet_size):
    # BookSim's router pipeline twice a cycle: tornado on the 8x8 torus (every packet 6 hops, 1-cycle
    # channels) takes 5 + 3 x 6 cycles plus the body's serialisation, in BookSim and in ours
    from hopbench.harness.traffic.booksim_study import booksim_params
    from hopbench.harness.traffic.study import simulate
    from hopbench.harness.traffic.simulator import router_config

    cfg = router_config(num_vcs=2, packet_size=packet_size, internal_speedup=2, sample_period=20000)
    params = booksim_params(cfg, topology="torus", pattern="tornado", seed=3)
    assert params["internal_speedup"] == 2
    r = bs.run_booksim(booksim_binary, bs.booksim_config("torus", k=8, n=2, injection_rate=0.002, **params),
                       timeout=120)
    ours = simulate("torus:8x8", traffic="tornado", routing="dor", loads=[0.002], seed=3, num_vcs=2,
                    packet_size=packet_size, internal_speedup=2, sample_period=20000).points[0]
    assert r.status == "ok" and r.hops == ours.hops == pytest.approx(6.0)
    assert r.latency_mean == pytest.approx(5 + 3 * 6 + packet_size - 1, abs=0.1)
    assert ours.latency_mean == pytest.approx(r.latency_mean, abs=0.1)


def test_real_mesh_multi_flit_packets_in_flits(booksim_binary):
    config = bs.booksim_config("mesh", k=4, n=2, num_vcs=2, packet_size=4, injection_rate=0.04,
                               injection_rate_uses_flits=1, seed=1)
    r = bs.run_booksim(booksim_binary, config, timeout=60)
    assert r.status == "ok" and r.offered == 0.04
    # 7 + 5 per link (1-cycle mesh channels), 2.5 links on average on a 4x4 mesh, + 3 serialisation
    assert r.latency_mean == pytest.approx(7 + 5 * 2.5 + 3, abs=1.5)
    assert r.network_latency <= r.latency_mean and r.flit_latency < r.network_latency


def test_real_unstable_run_is_a_row(booksim_binary):
    config = bs.booksim_config("torus", k=8, n=2, num_vcs=2, injection_rate=0.6)
    r = bs.run_booksim(booksim_binary, config, timeout=60)
    assert (r.status, r.saturated, r.latency_mean) == ("unstable", True, None)
    assert 0.1 < r.accepted < 0.4


def test_real_anynet_tree_and_deadlocking_ring(booksim_binary):
    tree = path_graph(4)
    config = bs.booksim_config("anynet", graph=tree, num_vcs=2, injection_rate=0.05)
    r = bs.run_booksim(booksim_binary, config, network_text=bs.anynet_text(tree, 2), timeout=60)
    assert r.status == "ok" and r.latency_min == 7.0 and r.accepted == pytest.approx(0.05, rel=0.15)
    loop = ring(8)
    config = bs.booksim_config("anynet", graph=loop, num_vcs=1, injection_rate=0.3, allow_deadlock=True)
    r = bs.run_booksim(booksim_binary, config, network_text=bs.anynet_text(loop), allow_deadlock=True, timeout=60)
    assert (r.status, r.deadlock, r.saturated) == ("deadlock", True, True) and r.deadlock_warnings > 0


def test_real_booksim_error_is_one_line(booksim_binary):
    config = bs.booksim_config("mesh", k=3, n=2, num_vcs=2, traffic="transpose")
    with pytest.raises(HopbenchError) as excinfo:
        bs.run_booksim(booksim_binary, config, timeout=60)
    assert "power of two" in one_line_error(excinfo)


def test_real_run_past_its_limit(booksim_binary):
    config = bs.booksim_config("torus", k=16, n=2, num_vcs=2, injection_rate=0.05, max_samples=1000,
                               warmup_periods=0, stopping_thres=1e-9, acc_stopping_thres=1e-9)
    start = time.perf_counter()
    with pytest.raises(HopbenchError) as excinfo:
        bs.run_booksim(booksim_binary, config, timeout=1.0)
    assert time.perf_counter() - start < 60.0  # not a timing: a binary or run that is not stopped lasts minutes
    assert "time limit" in one_line_error(excinfo)
