"""A sampling analysis asked for 10^11 trials (issue 15) is refused before its first trial."""
from __future__ import annotations

import pytest

from hopbench.harness.analysis.fault_tolerance import fault_tolerance
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec


def test_fault_tolerance_samples_are_capped_before_any_distance_is_computed(monkeypatch):
    import hopbench.harness.analysis.fault_tolerance as ft

    def no_apsp(graph):
        raise AssertionError("a distance computation ran before the sample count was checked")

    monkeypatch.setattr(ft, "summary", no_apsp)
    with pytest.raises(HopbenchError, match="100,000,000,000, above the cap .*HOPBENCH_MAX_SAMPLES"):
        fault_tolerance(parse_spec("ring:8"), samples=10**11)


def test_raising_the_sample_variable_admits_more(monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_SAMPLES", "2")
    with pytest.raises(HopbenchError, match="HOPBENCH_MAX_SAMPLES"):
        fault_tolerance(parse_spec("ring:8"), samples=3)
    monkeypatch.setenv("HOPBENCH_MAX_SAMPLES", "3")
    assert len(fault_tolerance(parse_spec("ring:8"), samples=3).samples) == 3
