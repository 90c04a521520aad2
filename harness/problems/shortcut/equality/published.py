"""The paper's Table 2 re-evaluated: the published Equality networks and their reproduction.

The 27 Equality rows of Liang et al. 2022's Table 2 and their Table 3 link sets are
data of the graph layer (:mod:`hopbench.harness.graphs.equality`, file
``harness/graphs/equality2022.json``), because the ``equality:E361`` topology spec
needs them; this module turns them into :class:`EqualityNetwork` objects and checks
every row against its printed a and d (:func:`reproduce_published`).
"""
from __future__ import annotations

import math
from typing import Any

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.equality import published, published_links, published_networks
from hopbench.harness.problems.shortcut.equality.network import EqualityNetwork, moore_ratio

__all__ = ["published_networks", "published", "published_network", "reproduce_published"]


def published_network(label: str) -> EqualityNetwork:
    """The network Table 3 lists for ``label`` (raises for E443, whose links are not valid for its N)."""
    return EqualityNetwork.from_links(published_links(label))


def _agrees(ours: float, printed: str) -> bool:
    """Does ``ours`` agree with a printed decimal, rounded or truncated to its digits?

    Table 2 mixes both (E361's 2.7167 is printed 2.717, E366's 3.7187 as 3.71)."""
    digits = len(printed.split(".")[1]) if "." in printed else 0
    scale = 10 ** digits
    value = round(float(printed) * scale)
    return round(ours * scale) == value or math.floor(ours * scale + 1e-9) == value


def reproduce_published() -> list[dict[str, Any]]:
    """Re-evaluate every Table 2 row from its Table 3 link sets.

    A row *matches* when its link sets are valid for the row's N, give the row's K
    by Eq. 1, the exact d, and a that agrees with the printed a (rounded or
    truncated to the printed digits).  Rows that do not match keep their reason.
    """
    out = []
    for row in published_networks():
        r = {k: row[k] for k in ("id", "N", "K", "p", "n", "a", "d", "K_over_p", "MB_percent", "reproducible")}
        r.update(a_ours=None, d_ours=None, K_ours=None, B_r=None, MB_percent_ours=None, matches=False)
        t = row["table3"]
        try:
            net = EqualityNetwork(t["N"], t["ahops"], t["bhops"])
        except HopbenchError as exc:
            r["reason"] = str(exc)
        else:
            m = net.metrics()
            r.update(a_ours=m.aspl, d_ours=m.diameter, K_ours=net.k, B_r=net.bisection_ratio(),
                     MB_percent_ours=moore_ratio(net.n, net.k, m.diameter) if m.connected else 0.0,
                     notation=net.notation())
            problems = []
            if net.n != row["N"]:
                problems.append(f"N={net.n}, not {row['N']}")
            if net.k != row["K"]:
                problems.append(f"the link sets give K={net.k}, not {row['K']}")
            if m.diameter != row["d"]:
                problems.append(f"d={m.diameter}, not {row['d']}")
            if not _agrees(m.aspl, row["a_text"]):
                problems.append(f"a={m.aspl:.4f}, not {row['a_text']}")
            r["matches"] = not problems
            if problems:
                r["reason"] = "; ".join(problems)
        if "erratum" in row:
            r["erratum"] = row["erratum"]
        out.append(r)
    return out
