"""The competition's file format for host-switch graphs (Graph Golf 2021; mnakao/ORP reads and writes it).

The first line gives the host count ``h``, the switch count ``s`` and the radix ``r``; every other
line is one link ``u v``.  Hosts are the vertices ``0 .. h - 1``, switches ``h .. h + s - 1``; each
host has exactly one link, to a switch.  Example (3 hosts on one switch of radix 4)::

    3 1 4
    0 3
    1 3
    2 3

hopbench writes hosts switch by switch (the hosts of switch 0 first), switch links after the host
links, each once.  Every count read is capped before anything of that size is allocated.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError

GUIDE = "the first line is 'hosts switches radix', then one 'u v' link per line (hosts 0..h-1, switches h..h+s-1)"


def write_text(radix: int, host_counts: np.ndarray, links: np.ndarray) -> str:
    """The file's text for switches holding ``host_counts`` hosts and the switch ``links`` (switch ids from 0)."""
    counts = np.asarray(host_counts, dtype=np.int64)
    h, s = int(counts.sum()), len(counts)
    owner = np.repeat(np.arange(s, dtype=np.int64), counts) + h
    lines = [f"{h} {s} {radix}"]
    lines += [f"{i} {int(v)}" for i, v in enumerate(owner.tolist())]
    lines += [f"{int(a) + h} {int(b) + h}" for a, b in np.asarray(links, dtype=np.int64).reshape(-1, 2).tolist()]
    return "\n".join(lines) + "\n"


def parse_text(text: str, name: str = "host-switch file") -> tuple[int, int, np.ndarray, np.ndarray]:
    """``(hosts, radix, host_counts, links)`` of a file's text; a malformed file is a one-line error."""
    rows = [line.split() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not rows:
        raise HopbenchError(f"{name} is empty; {GUIDE}")
    try:
        h, s, r = (int(x) for x in rows[0])
    except ValueError:
        raise HopbenchError(f"{name}: the first line must be three integers 'hosts switches radix', got "
                            f"{' '.join(rows[0])[:60]!r}") from None
    if h < 2 or s < 1 or r < 3:
        raise HopbenchError(f"{name}: needs at least 2 hosts, 1 switch and radix 3, got {h} {s} {r}")
    caps.HOSTS.check(h, f"{name}: the hosts it declares")
    caps.VERTICES.check(s, f"{name}: the switches it declares")
    caps.EDGES.check(len(rows) - 1, f"{name}: its links")
    try:
        edges = np.array([[int(a), int(b)] for a, b in rows[1:]], dtype=np.int64).reshape(-1, 2)
    except ValueError:
        bad = next(row for row in rows[1:] if len(row) != 2 or not all(x.lstrip("-").isdigit() for x in row))
        raise HopbenchError(f"{name}: line {' '.join(bad)[:60]!r} is not a link 'u v'; {GUIDE}") from None
    if len(edges) and (edges.min() < 0 or edges.max() >= h + s):
        raise HopbenchError(f"{name}: a link names vertex {int(edges.max() if edges.max() >= h + s else edges.min())}, "
                            f"outside 0..{h + s - 1} ({h} hosts, {s} switches)")
    is_host = edges < h
    both = is_host.all(axis=1)
    if both.any():
        a, b = edges[both][0]
        raise HopbenchError(f"{name}: link {a} {b} joins two hosts; a host links to a switch")
    host_rows = is_host.any(axis=1)
    host_end = np.where(is_host[:, 0], edges[:, 0], edges[:, 1])[host_rows]
    switch_end = np.where(is_host[:, 0], edges[:, 1], edges[:, 0])[host_rows] - h
    per_host = np.bincount(host_end, minlength=h)
    if (per_host != 1).any():
        v = int(np.argmax(per_host != 1))
        raise HopbenchError(f"{name}: host {v} has {int(per_host[v])} links; every host has exactly one")
    counts = np.bincount(switch_end, minlength=s).astype(np.int64)
    links = edges[~host_rows] - h
    return h, r, counts, links


def read_file(path: str | Path) -> tuple[int, int, np.ndarray, np.ndarray]:
    """:func:`parse_text` of a file (its size capped before it is read)."""
    from hopbench.harness.inputs import read_text

    return parse_text(read_text(path, "host-switch file"), str(path))
