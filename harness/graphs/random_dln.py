"""Koibuchi et al.'s random shortcut topology DLN-2-y: a ring plus y random perfect matchings.

Sect. III-A of Koibuchi, Matsutani, Amano, Hsu, Casanova (ISCA 2012): every switch gets y random
shortcuts, so that the network is (2 + y)-regular.  Each shortcut set is a perfect matching of the
switches drawn at random; a drawn pair that repeats an existing link (a ring link or an earlier
shortcut) is repaired by exchanging partners with another random pair of the same matching, so
every switch ends with exactly y shortcuts and no link is doubled.  The draw is fixed by ``seed``:
``dlnr:N:y:seed`` always names the same graph, which is what makes it usable as a benchmark
instance (the paper's Sect. IV simulates one such sample per size; its Figs. 21-22 show that the
sample hardly matters).
"""
from __future__ import annotations

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

#: repair rounds per matching before the draw is given up, and rounds in a row without fewer repeated
#: links (a draw too dense to finish gives up early instead of looping)
MAX_ROUNDS = 2_000
STALL_ROUNDS = 50


def random_shortcut_ring(n: int, y: int, seed: int = 1) -> Graph:
    """The ring of ``n`` switches plus ``y`` random perfect matchings drawn with ``seed`` (``n`` even)."""
    if n < 4 or n % 2:
        raise HopbenchError(f"dlnr:{n}:{y}: N must be even and at least 4 (a perfect matching pairs every switch)")
    if not 0 <= y <= max(0, n // 2 - 1):
        raise HopbenchError(f"dlnr:{n}:{y}: y shortcuts per switch must be 0..N/2-1 (random matchings that avoid "
                            f"every existing link get hard to draw beyond that); use fewer shortcuts")
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    links = {(min(a, b), max(a, b)) for a, b in zip(i, (i + 1) % n)}
    parts = [np.stack([i, (i + 1) % n], axis=1)]
    for _ in range(y):
        pairs = rng.permutation(n).reshape(-1, 2)
        fewest, stalled = len(pairs) + 1, 0
        for _round in range(MAX_ROUNDS):
            bad = [k for k, (a, b) in enumerate(pairs) if (min(a, b), max(a, b)) in links]
            if not bad:
                break
            fewest, stalled = (len(bad), 0) if len(bad) < fewest else (fewest, stalled + 1)
            if stalled >= STALL_ROUNDS:
                raise HopbenchError(f"dlnr:{n}:{y}: could not draw shortcut set {len(parts)} without repeating a "
                                    f"link; use fewer shortcuts per switch")
            for k in bad:
                # exchange partners with a random other pair when both new pairs are new links
                j = int(rng.integers(len(pairs)))
                if j == k:
                    continue
                a, b = pairs[k]
                c, d = pairs[j]
                if (min(a, c), max(a, c)) not in links and (min(b, d), max(b, d)) not in links and a != c:
                    pairs[k], pairs[j] = (a, c), (b, d)
        else:
            raise HopbenchError(f"dlnr:{n}:{y}: could not draw shortcut set {len(parts)} without repeating a link; "
                                f"use fewer shortcuts per switch")
        links.update((min(a, b), max(a, b)) for a, b in pairs)
        parts.append(pairs.astype(np.int64))
    return Graph(n, np.concatenate(parts))
