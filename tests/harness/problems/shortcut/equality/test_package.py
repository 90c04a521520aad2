"""The package keeps the one namespace callers use (``from hopbench.harness.problems.shortcut import equality as eq``)."""
from __future__ import annotations

from hopbench.harness.problems.shortcut import equality as eq


def test_every_public_name_is_reexported():
    for name in eq.__all__:
        assert getattr(eq, name) is not None, name
    # the old module's names its callers use, private ones included (equality-ga's batch kernel and
    # its fixed_b check)
    for name in ("parse", "parse_config", "EqualityConfig", "EqualityNetwork", "published_network", "check_problem",
                 "from_shortcuts", "evaluate_links", "distances", "reference_distances", "_normalise"):
        assert hasattr(eq, name), name
    assert not hasattr(eq, "moore_bound")  # renamed moore_order: graphs.bounds.moore_bound is the inverse
