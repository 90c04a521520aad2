"""The Moore order of a network of large diameter: exact, in closed form, and MB% and the JSON
``moore_bound`` of ``summary()`` without the float overflow a ring-like network used to hit."""
from __future__ import annotations

import json
import math

import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.shortcut import equality as eq
from hopbench.harness.problems.shortcut.equality.network import MOORE_BITS, moore_order_json


def test_closed_form_equals_the_sum():
    for k in range(30):
        for d in range(25):
            assert eq.moore_order(k, d) == 1 + k * sum((k - 1) ** i for i in range(d)), (k, d)


def test_large_diameter_is_exact_and_its_ratio_underflows_instead_of_overflowing():
    order = eq.moore_order(6, 20_000)  # N200000K6[-1,1,3,9](4) has d = 20,000
    assert order == 1 + 6 * (5**20_000 - 1) // 4
    assert eq.moore_ratio(200_000, 6, 20_000) == 0.0
    assert math.isclose(eq.moore_ratio(2048, 28, 3), 100 * 2048 / 21_197)  # 1 + 28 (1 + 27 + 27^2)


def test_json_value_is_exact_then_float_then_null():
    assert moore_order_json(37) == 37 and isinstance(moore_order_json(2**63 - 1), int)
    assert moore_order_json(2**63) == float(2**63)
    assert moore_order_json(eq.moore_order(6, 20_000)) is None
    json.dumps(moore_order_json(eq.moore_order(3, 100_000)))  # a 30,000-digit int cannot be printed


def test_absurd_arguments_are_one_line_errors():
    with pytest.raises(HopbenchError, match="K >= 0 and d >= 0"):
        eq.moore_order(-1, 3)
    with pytest.raises(HopbenchError, match=f"more than {MOORE_BITS:,}"):
        eq.moore_order(1000, 10**9)


def test_summary_of_a_ring_like_network():
    net = eq.parse("N20000K6[-1,1,3,9](4)")
    doc = net.summary()
    assert doc["d"] == 2000
    assert doc["MB_percent"] == 0.0 and doc["moore_bound"] is None
    json.dumps(doc, allow_nan=False)
    small = eq.parse("N14K6[-1,1,3,9](4)").summary()
    assert (small["moore_bound"], small["MB_percent"]) == (37, 100 * 14 / 37)
