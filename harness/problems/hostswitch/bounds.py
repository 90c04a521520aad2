"""Lower bounds of the host-switch problem and the estimate of the best switch count.

Both come from Yasudo, Koibuchi, Nakano, Matsutani and Amano, "Designing High-Performance
Interconnection Networks with Host-Switch Graphs", IEEE TPDS 30(2), 315-330, 2019
(doi:10.1109/TPDS.2018.2864286), the paper that defines Graph Golf's host-switch category.
They are written here from the paper's arguments; mnakao/ORP (``ORP_Set_lbounds``,
``ORP_Optimize_switches``) computes the same quantities, and the tests check our values against
the ones ORP prints for its sample graphs.

**The h-ASPL and h-diameter bound.**  Seen from one host, the other ``n - 1`` hosts hang in a tree:
the host's switch has ``r - 1`` free ports, and a port ``k`` switch hops away (``k >= 1``) holds
either a host at distance ``k + 1`` or another switch with ``r - 1`` ports one hop further.  With
``b = r - 1``, at most ``b^k`` ports lie ``k`` hops away, so the hosts are closest when the levels
are filled in order: let ``i`` be the largest level with ``b^i <= n - 1``.  If ``b^i = n - 1``
every other host sits at distance ``i + 1``.  Otherwise ``x = ceil((n - 1 - b^i) / (b - 1))`` ports
of level ``i`` must hold switches (each turns one port into ``b``), ``b^i - x`` hosts sit at
distance ``i + 1`` and the rest at ``i + 2``.  Every host's distance sum is at least that tree's,
so the mean over pairs (the h-ASPL) is too, and the tree's depth bounds the h-diameter.

**The switch count.**  With ``m`` switches and the hosts spread evenly, a switch keeps
``r - n/m`` ports for other switches.  The paper estimates the h-ASPL as
``2 + A(m, r - n/m) * n (m - 1) / (m (n - 1))``: the ASPL ``A`` of a switch graph of ``m``
vertices and that (real) degree, bounded by the Moore bound, counted over the host pairs on
different switches (two hops more for the two host links).  The estimate of the best ``m`` is the
one that minimises it, among the counts that can hold ``n`` hosts at all (a tree of ``m``
switches keeps ``m r - 2 (m - 1)`` ports for hosts).
"""
from __future__ import annotations

import math

from hopbench.harness.errors import HopbenchError


def check_sizes(hosts: int, radix: int) -> None:
    """Refuse a pair no host-switch graph exists for (the one-line error says which range works)."""
    if isinstance(hosts, bool) or not isinstance(hosts, int) or hosts < 2:
        raise HopbenchError(f"a host-switch problem needs at least 2 hosts, got {hosts!r}")
    if isinstance(radix, bool) or not isinstance(radix, int) or radix < 3:
        raise HopbenchError(f"a host-switch problem needs switches of radix >= 3 (with 2 ports, switches only "
                            f"make chains joining 2 hosts), got {radix!r}")


def lower_bounds(hosts: int, radix: int) -> tuple[int, float]:
    """``(h-diameter, h-ASPL)`` lower bounds of Yasudo et al. for ``hosts`` hosts and switches of ``radix`` ports.

    >>> lower_bounds(32, 4)   # ORP's sample h32s26r4: 5, 130 / 31
    (5, 4.193548387096774)
    """
    check_sizes(hosts, radix)
    others = hosts - 1
    if hosts <= radix:
        return 2, 2.0  # one switch holds every host
    b = radix - 1
    level, ports = 1, b
    while ports * b <= others:
        level, ports = level + 1, ports * b
    if ports == others:
        return level + 1, float(level + 1)
    deeper = -(-(others - ports) // (b - 1))  # ports of this level that must hold switches
    near = ports - deeper
    total = near * (level + 1) + (others - near) * (level + 2)
    return level + 2, total / others


def lower_bound_sum(hosts: int, radix: int) -> int:
    """The h-ASPL bound as a total distance over unordered host pairs (an integer: n / 2 host trees)."""
    _, aspl = lower_bounds(hosts, radix)
    return math.ceil(round(aspl * (hosts - 1) * hosts / 2, 6))


def min_switches(hosts: int, radix: int) -> int:
    """The fewest switches that can hold ``hosts`` hosts connected: ``m r - 2 (m - 1) >= n``."""
    check_sizes(hosts, radix)
    if hosts <= radix:
        return 1
    return max(2, -(-(hosts - 2) // (radix - 2)))


def max_switches(hosts: int, radix: int) -> int:
    """The most switches a solution may have: ``4 n``, a cap on allocation rather than a rule of the
    problem (a switch without hosts only forwards; the best counts measured are below ``1.3 n``)."""
    return max(min_switches(hosts, radix), 4 * hosts)


def moore_aspl(vertices: float, degree: float) -> float:
    """The Moore bound on the ASPL of a graph of ``vertices`` vertices and (real) degree ``degree``.

    Levels of ``degree (degree - 1)^(k-1)`` vertices at distance k fill up until every vertex is
    placed, the last level partly.  A degree below 2 is taken as 2 (a connected switch graph's
    average degree is at least ``2 - 2/m``, and the levels of a smaller degree would never fill).
    """
    if vertices <= 1:
        return 0.0
    degree = max(2.0, degree)
    if degree + 1 >= vertices:
        return 1.0
    placed, level, total = 1.0, 0, 0.0
    width = degree
    while placed + width < vertices:
        level += 1
        placed += width
        total += level * width
        width *= degree - 1
    total += (level + 1) * (vertices - placed)
    return total / (vertices - 1)


def estimated_h_aspl(hosts: int, radix: int, switches: int) -> float:
    """Yasudo et al.'s continuous estimate of the best h-ASPL with ``switches`` switches (see the module)."""
    if switches <= 1:
        return 2.0
    n, m = float(hosts), float(switches)
    return 2.0 + moore_aspl(m, radix - n / m) * n * (m - 1) / (m * (n - 1))


def best_switch_count(hosts: int, radix: int) -> int:
    """The switch count that minimises :func:`estimated_h_aspl` (Yasudo et al.'s estimate of the best count).

    The estimate falls, then rises with ``m``; the scan stops once it has risen 10 % above its minimum
    (or at :func:`max_switches`).
    """
    lo = min_switches(hosts, radix)
    if lo == 1:
        return 1
    best_m, best = lo, math.inf
    m = lo
    while m <= max_switches(hosts, radix):
        value = estimated_h_aspl(hosts, radix, m)
        if value < best:
            best_m, best = m, value
        elif value > 1.1 * best:
            break
        m += 1
    return best_m
