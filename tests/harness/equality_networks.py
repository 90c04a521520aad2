"""Random Equality networks for the tests of the graph, engine and problem layers' Equality modules."""
from __future__ import annotations

import numpy as np

from hopbench.harness.graphs.equality import EqualityLinks


def random_network(rng: np.random.Generator, n: int | None = None, cls: type[EqualityLinks] = EqualityLinks) -> EqualityLinks:
    """A valid Equality network (an instance of ``cls``) on N routers (random even N below 320 if not given),
    with up to 6 odd values besides the ring and up to 3 even values."""
    n = n if n is not None else int(rng.integers(2, 160)) * 2
    odds = list(range(3, n - 2, 2))
    evens = list(range(2, n // 2 + 1, 2))
    a = rng.choice(odds, int(rng.integers(0, min(len(odds), 6) + 1)), replace=False).tolist() if odds else []
    b = rng.choice(evens, int(rng.integers(0, min(len(evens), 3) + 1)), replace=False).tolist() if evens else []
    return cls(n, [-1, 1, *a], b)
