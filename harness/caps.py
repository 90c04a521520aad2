"""The input caps: every size read from input is checked against one of these before anything is allocated.

Each cap has a default that admits every standard instance (every Graph Golf
featured pair up to n = 100,000 included) and an environment variable that
raises it for users with a big machine, e.g. ``HOPBENCH_MAX_VERTICES=2000000``
for a 10^6-vertex graph.  A value over a cap is a one-line
:class:`~hopbench.harness.errors.HopbenchError` naming the cap and that variable.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

from hopbench.harness.errors import HopbenchError


@dataclass(frozen=True)
class Cap:
    """One named limit: ``limit()`` reads its environment variable each time, so tests and users can set it late."""

    name: str
    env: str
    default: int
    meaning: str

    def limit(self) -> int:
        text = os.environ.get(self.env)
        if text is None or not text.strip():
            return self.default
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            raise HopbenchError(f"{self.env}={text!r} is not an integer; set it to the {self.meaning} "
                                f"you allow, e.g. {self.env}={self.default}") from None
        if value < 1:
            raise HopbenchError(f"{self.env}={text!r} must be a positive integer ({self.meaning})")
        return value

    def check(self, value: int | float, what: str) -> None:
        """Refuse ``value`` (a size about to be allocated or iterated) above the cap; ``what`` names it."""
        limit = self.limit()
        if value > limit:
            if isinstance(value, int) and value.bit_length() > 200:
                # str() of a huge int is slow, and refused past 4,300 digits: give its magnitude
                shown = f"about 10^{int((value.bit_length() - 1) * 0.30103)}"
            else:
                shown = f"{value:,}" if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e18 \
                    else f"{value:.3g}"
            raise HopbenchError(f"{what} is {shown}, above the cap of {limit:,} {self.meaning}; "
                                f"raise it with {self.env}=N if your machine has room for it")


def env_seconds(env: str, default: float) -> float:
    """A positive, finite number of seconds from environment variable ``env`` (``default`` when unset);
    anything else is a one-line error naming the variable.  Read on every call, so a worker reads its own."""
    text = os.environ.get(env, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise HopbenchError(f"{env}={text[:40]!r} is not a positive number of seconds; set it to e.g. {env}={default:g}")
    check_seconds(value, env)
    return value


#: vertices of one graph (a base, an Equality network, a solution's declared n)
VERTICES = Cap("vertices", "HOPBENCH_MAX_VERTICES", 200_000, "vertices per graph")
#: links of one graph, base and shortcuts together
EDGES = Cap("edges", "HOPBENCH_MAX_EDGES", 4_000_000, "edges per graph")
#: bytes of one input file after decompression (an edge list of 4,000,000 edges is about 60 MB)
INPUT_BYTES = Cap("input bytes", "HOPBENCH_MAX_INPUT_BYTES", 64 * 2**20, "bytes per input file (after decompression)")
#: bytes of the dense n x n distance matrices one run of vrs, edgecut-* or annealing's shortcut moves keeps
#: (2 GiB: n = 32,768 at two bytes a distance; graph golf's n = 10,000 takes 200 MB)
DENSE_MATRIX_BYTES = Cap("dense distance matrices", "HOPBENCH_MAX_DENSE_MATRIX_BYTES", 2 * 2**30,
                         "bytes of dense n x n distance matrices per run")
#: depth of nested lists and tables in a JSON or TOML document
NESTING = Cap("nesting", "HOPBENCH_MAX_NESTING", 64, "levels of nesting in a JSON or TOML document")
#: magnitude of any number a suite formula computes, intermediate results included
FORMULA = Cap("formula magnitude", "HOPBENCH_MAX_FORMULA", 10**12, "in magnitude for a suite formula's values")
#: seeds of one cell or suite, and the largest seed value
SEEDS = Cap("seeds", "HOPBENCH_MAX_SEEDS", 1_000, "seeds per run")
SEED_VALUE = Cap("seed value", "HOPBENCH_MAX_SEED_VALUE", 2**32 - 1, "as a seed value")
#: dimensions of a mesh, torus or hypercube spec
DIMENSIONS = Cap("dimensions", "HOPBENCH_MAX_DIMENSIONS", 20, "dimensions per topology spec")
#: random trials of a sampling analysis (fault tolerance), and instances of a suite
SAMPLES = Cap("samples", "HOPBENCH_MAX_SAMPLES", 10_000, "random trials per analysis")
INSTANCES = Cap("instances", "HOPBENCH_MAX_INSTANCES", 100_000, "instances per suite")
#: local worker processes of one command (run --jobs, tune --workers): each imports numba and holds its own
#: problem, about 150-300 MB
WORKERS = Cap("workers", "HOPBENCH_MAX_WORKERS", 64, "local worker processes per command")

ALL = (VERTICES, EDGES, INPUT_BYTES, DENSE_MATRIX_BYTES, NESTING, FORMULA, SEEDS, SEED_VALUE, DIMENSIONS, SAMPLES,
       INSTANCES, WORKERS)

#: ordered node pairs of one routing table (2^20 admits 1,024 nodes, e.g. 8x8x8x2; the largest Angara torus,
#: 8x8x8x8, has 16.8 million pairs: angara-sssp's candidate routes alone would take about 10 GB)
ROUTING_PAIRS = Cap("routing pairs", "HOPBENCH_MAX_ROUTING_PAIRS", 2**20, "ordered node pairs per routing table")
ALL = (*ALL, ROUTING_PAIRS)

#: variables of one throughput LP (hopbench.harness.traffic.bounds.max_concurrent_flow: sending switches x 2m channels);
#: 2^21 admits torus:8x8x8 all-to-all (1.57 million), whose LP takes HiGHS a few GB and tens of minutes
LP_VARIABLES = Cap("LP variables", "HOPBENCH_MAX_LP_VARIABLES", 2**21, "variables per throughput LP")
ALL = (*ALL, LP_VARIABLES)

#: one cycle-level simulation (hopbench.harness.traffic).  The defaults take a 16,384-host network at 4 VCs of
#: 64 flits (E361) and keep one run under about 10 GB; the Equality paper's 48,000-host E481
#: (4,800 switches) needs all four raised and 11 GB (docs/traffic.md gives the command).
#: Routing-table keys: switches^2 x routing states, 8 bytes each (4,096 switches at 3 states)
SIM_ROUTING_KEYS = Cap("routing-table keys", "HOPBENCH_MAX_SIM_ROUTING_KEYS", 4096 * 4096 * 3,
                       "routing-table keys (switches^2 x routing states) per simulation")
#: Routing-table candidates (next hop and VC range), about 17 bytes each: 2^28 is 4.6 GB
SIM_ROUTING_CANDIDATES = Cap("routing-table candidates", "HOPBENCH_MAX_SIM_ROUTING_CANDIDATES", 2**28,
                             "routing-table candidates (next hops) per simulation")
#: Flit slots of the routers' input buffers, and packets alive at once (about 45 bytes each: 1.4 GiB at 2^25)
SIM_PACKETS = Cap("simulator packets", "HOPBENCH_MAX_SIM_PACKETS", 2**25,
                  "buffered flits and packets alive per simulation")
#: Channel-wheel slots (16 bytes each and 8 more in the event lists: 0.75 GiB at 2^25)
SIM_WHEEL = Cap("simulator channel wheel", "HOPBENCH_MAX_SIM_WHEEL", 2**25, "channel-wheel slots per simulation")
ALL = (*ALL, SIM_ROUTING_KEYS, SIM_ROUTING_CANDIDATES, SIM_PACKETS, SIM_WHEEL)

#: distinct base graphs one suite builds while it loads, and their vertices together (graphgolf: 23 bases, 42,089
#: vertices): a few lines of grid can name thousands of large bases, each built to derive its instance's id
SUITE_BASES = Cap("suite bases", "HOPBENCH_MAX_SUITE_BASES", 1_000, "distinct base graphs per suite")
SUITE_VERTICES = Cap("suite vertices", "HOPBENCH_MAX_SUITE_VERTICES", 10_000_000,
                     "vertices across the distinct base graphs of a suite")
#: parameter combinations of one solver in a run (the product of its --param value lists)
PARAM_SETS = Cap("parameter sets", "HOPBENCH_MAX_PARAM_SETS", 1_000, "parameter combinations per solver")
#: cells of one run: instances x parameter sets x seeds, over its solvers
CELLS = Cap("cells", "HOPBENCH_MAX_CELLS", 1_000_000, "cells per run")
#: hosts of one network (--endpoints P gives every switch P of them)
HOSTS = Cap("hosts", "HOPBENCH_MAX_HOSTS", 1_000_000, "hosts (endpoints) per network")
#: characters of one line of a text input (an edge list's line is a few dozen)
LINE_CHARS = Cap("line length", "HOPBENCH_MAX_LINE_CHARS", 65_536, "characters per line of an edge file")
#: samples x vertices x edges of one fault-tolerance analysis (each sample takes about seven all-pairs searches)
FAULT_WORK = Cap("fault-tolerance work", "HOPBENCH_MAX_FAULT_WORK", 10**10,
                 "as samples x vertices x edges of a fault-tolerance analysis")
#: a solver parameter that sets a loop count (generations, moves, steps, samples), when the run has no time limit
LOOP_COUNT = Cap("loop count", "HOPBENCH_MAX_LOOP_COUNT", 10_000_000,
                 "iterations a solver parameter may ask for when no time limit is given")
#: switches x directed channels of one channel-load measurement (a BFS and a push per destination, O(n m))
CHANNEL_LOAD_WORK = Cap("channel-load work", "HOPBENCH_MAX_CHANNEL_LOAD_WORK", 2_000_000_000,
                        "as switches x directed channels of one channel-load measurement")
ALL = (*ALL, SUITE_BASES, SUITE_VERTICES, PARAM_SETS, CELLS, HOSTS, LINE_CHARS, FAULT_WORK, LOOP_COUNT,
       CHANNEL_LOAD_WORK)


def check_channel_load_work(n: int, links: int) -> None:
    """Refuse, in one line, a graph whose channel-load measurement would pass ``HOPBENCH_MAX_CHANNEL_LOAD_WORK``
    (switches x directed channels; the objective is meant for instances of some hundreds of switches).  Here,
    not beside the kernels, so that a problem definition checks it without loading numba."""
    CHANNEL_LOAD_WORK.check(int(n) * 2 * int(links), f"measuring the channel load of {n:,} switches and "
                                                     f"{links:,} links (switches x directed channels)")

#: the longest time limit, in seconds: a cell's hard limit (1.2 x T + 5 s, plus 5 s) arms signal.alarm, which
#: takes whole seconds below 2^31 (about 56 years of them; not raisable)
MAX_TIME_LIMIT = int((2**31 - 1 - 10) / 1.2)


def check_seconds(value: float, what: str) -> None:
    """Refuse a time limit ``value`` (seconds) above :data:`MAX_TIME_LIMIT`: one error here, instead of an
    ``OverflowError`` from ``signal.alarm`` in every cell."""
    if not value <= MAX_TIME_LIMIT:
        raise HopbenchError(f"{what} is {value:.3g} s, above the longest time limit hopbench can enforce "
                            f"({MAX_TIME_LIMIT:,} s: signal.alarm takes under 2^31 s); give a shorter one")
