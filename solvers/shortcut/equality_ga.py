"""``equality-ga``: a genetic algorithm over Equality link sets (Liang et al. 2022, Sect. 3.3).

The genome is the set of free link values of an Equality network on ring:N of
radix K: odd values (S_A without the ring's -1 and 1, one link per router each)
and, unless ``fixed_b`` freezes them, even values (S_B, two links per router,
one for N/2).  A genome is valid when its *port cost* (1 per odd value and for
N/2, 2 per other even value) is exactly K - 2, so every individual is a
K-regular Equality network and the operators below never leave that set:

* crossover keeps the values both parents share, adds the others in random
  order while they fit, and fills any remaining port with a random new odd
  value (there is always one left);
* mutation moves one value a few steps (+-2j, j small), re-draws it uniformly,
  or (when S_B is free) trades one even value for two odd ones or back;
* tournament selection and elitism (the best ``elite`` survive unchanged).

Fitness is the problem's objective computed from a and d (``ad`` = a*d for the
``equality`` family), evaluated for a whole population at once by a parallel
numba kernel (one bit-parallel BFS from router 0 per individual; see
:mod:`hopbench.harness.problems.shortcut.equality`).  All randomness comes from one ``random.Random(seed)``
instance, so runs are reproducible and leave no global state behind; DEAP
provides the individual/fitness classes, the toolbox and the hall of fame.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math
import random
import time
from typing import Any

import numba as nb
import numpy as np
from deap import base, creator, tools

from hopbench.harness import caps
from hopbench.harness.engine.equality_bfs import bfs_levels
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.shortcut import equality as eq
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution, objective_value
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter

#: generations in a row without any unseen genome after which the search stops
IDLE_GENERATIONS = 50

#: fitness cache entries kept at most (a key is a tuple of about K ints) ...
CACHE_LIMIT = 300_000
#: ... and link values kept in them at most (about 36 bytes each: 0.4 GB), so that a large K keeps fewer keys
CACHE_VALUES = 10_000_000

#: individuals per generation at most: the paper's GA uses a few hundred; 10,000 genomes of K-2 values stay
#: small, while 10^7 took 3.2 GB and many seconds before the first generation (probe, ring:4800, K=38)
POPULATION_MAX = 10_000
#: link values (population x (K-2)) one generation may hold, about 36 bytes each (0.7 GB)
POPULATION_VALUES = 20_000_000

#: seconds one batch of fitness evaluations should take: batches are sized from the measured cost
#: per genome so that the time limit is polled this often (one BFS of ring:200,000 takes ~3 ms)
BATCH_SECONDS = 0.05
#: seconds per link the final decode (EqualityLinks.shortcuts) may take: 3.9 M links took 0.02-0.2 s on
#: 2 busy cores (the slowest the first, page-faulting a fresh 62 MB array); the search stops this much
#: before the time limit to leave room for it
DECODE_SECONDS_PER_LINK = 5e-8

# DEAP's classes are created once per process (creator is a global registry).
if not hasattr(creator, "EqualityFitness"):
    creator.create("EqualityFitness", base.Fitness, weights=(-1.0,))
if not hasattr(creator, "EqualityIndividual"):
    creator.create("EqualityIndividual", list, fitness=creator.EqualityFitness)


# --------------------------------------------------------------------------- batch evaluation


@nb.njit(cache=True, parallel=True)
def _evaluate_batch(n, values, lengths, fixed_even, out_total, out_diam):
    """a*d ingredients for a batch: row i of ``values`` holds the free link values of
    individual i (odd and even, padded); the ring and ``fixed_even`` are added here.
    One bit-parallel BFS from router 0 per row, rows in parallel."""
    m = n // 2
    words = (m + 63) >> 6
    no_dist = np.empty(0, np.int64)
    for i in nb.prange(values.shape[0]):
        cnt = lengths[i]
        sa = np.empty(cnt + 2, np.int64)
        sb = np.empty(2 * (cnt + fixed_even.shape[0]), np.int64)
        na = 0
        nb_ = 0
        sa[0] = 0  # the ring's 1
        sa[1] = m - 1  # the ring's N-1
        na = 2
        for j in range(cnt + fixed_even.shape[0]):
            v = values[i, j] if j < cnt else fixed_even[j - cnt]
            if v % 2 == 1:
                sa[na] = ((v - 1) // 2) % m
                na += 1
            else:
                t = (v // 2) % m
                sb[nb_] = t
                nb_ += 1
                if 2 * t != m:
                    sb[nb_] = (m - t) % m
                    nb_ += 1
        scratch = np.zeros((8, 2 * words + 2), np.uint64)
        levels = np.zeros(n + 1, np.int64)
        total, diam = bfs_levels(m, sa[:na], sb[:nb_], levels, scratch, no_dist)  # given: see equality_bfs.NO_DIST
        out_total[i] = total
        out_diam[i] = diam


class _Space:
    """The valid genomes of one (N, K): value pools, port costs and the random moves."""

    def __init__(self, n: int, k: int, fixed_b: tuple[int, ...] | None, rng: random.Random) -> None:
        self.n, self.k, self.h, self.rng = n, k, n // 2, rng
        self.fixed_b = fixed_b
        # odd candidates except the ring (1 and N-1); N/2 is odd when N = 2 mod 4
        self.odd = list(range(3, n - 2, 2))
        self.even = [] if fixed_b is not None else list(range(2, self.h + 1, 2))
        self.ports = k - 2 - (sum(self.cost(b) for b in fixed_b) if fixed_b else 0)
        if self.ports < 0:
            raise HopbenchError(f"fixed_b {list(fixed_b)} needs more than K-2={k - 2} ports per router")
        if self.ports > len(self.odd) + (sum(self.cost(e) for e in self.even)):
            raise HopbenchError(f"K={k} is too large for N={n}: not enough distinct link values")

    def cost(self, v: int) -> int:
        return 2 if v % 2 == 0 and v != self.h else 1

    def genome_cost(self, genes) -> int:
        h = self.h
        c = len(genes)
        for v in genes:
            if not v & 1 and v != h:
                c += 1
        return c

    def _random_new(self, present: set[int], kind: str) -> int | None:
        pool = self.odd if kind == "odd" else self.even
        if len(pool) <= len(present):
            odd = kind == "odd"
            if len(pool) - sum(1 for v in present if (v % 2 == 1) == odd) <= 0:
                return None
        size, rand = len(pool), self.rng.random
        while True:  # rejection sampling: the pools are far larger than a genome
            v = pool[int(rand() * size)]
            if v not in present:
                return v

    def fill(self, genes: set[int]) -> set[int]:
        """Add random odd values until the port cost is exactly ``ports``."""
        cost = self.genome_cost(genes)
        while cost < self.ports:
            v = self._random_new(genes, "odd")
            if v is None:  # no odd value left: use the diameter link or drop to a cheaper set
                raise HopbenchError(f"K={self.k} cannot be filled with distinct values for N={self.n}")
            genes.add(v)
            cost += 1
        return genes

    def random_genome(self, even_share: float, progression: float = 0.0) -> set[int]:
        """A random valid genome; with probability ``progression`` its even values form an
        arithmetic progression step*1..step*c with step ~ (N/2)/c, the shape of the
        paper's hand-picked S_B (E808: 70, 140, ..., 700 for N = 1400), which lets the
        odd values cover every residue modulo the step."""
        genes: set[int] = set()
        if self.even:
            limit = max(0, int(self.ports * even_share) // 2)  # even values take 2 ports each
            rng = self.rng
            if limit and rng.random() < progression:
                count = rng.randint(1, limit)
                step = 2 * round(self.h / (count + rng.choice((0, 0, 1))) / 2)
                for i in range(1, count + 1):
                    v = step * i
                    if 2 <= v <= self.h and self.genome_cost(genes) + self.cost(v) <= self.ports:
                        genes.add(v)
            else:
                for _ in range(rng.randint(0, limit)):
                    v = self._random_new(genes, "even")
                    if v is not None and self.genome_cost(genes) + self.cost(v) <= self.ports:
                        genes.add(v)
        return self.fill(genes)

    def crossover(self, a: list[int], b: list[int]) -> set[int]:
        """Uniform crossover on sets: shared values stay, each other value is inherited
        with probability 1/2 while the ports allow, and random odd values fill the rest."""
        sa, sb = set(a), set(b)
        child = sa & sb
        cost = self.genome_cost(child)
        ports, h, rand = self.ports, self.h, self.rng.random
        for v in sorted(sa ^ sb):
            if rand() < 0.5:
                c = 2 if not v & 1 and v != h else 1
                if cost + c <= ports:
                    child.add(v)
                    cost += c
        return self.fill(child)

    def _step(self, v: int) -> int | None:
        """v moved by +-2j, j geometric (mostly small), keeping its kind and range."""
        j = 1
        while self.rng.random() < 0.5 and j < self.n:
            j *= 2
        j = self.rng.randint(1, j)
        w = v + (2 * j if self.rng.random() < 0.5 else -2 * j)
        if v % 2:
            return w if 3 <= w <= self.n - 3 else None
        return w if 2 <= w < self.h else None

    def mutate(self, genes: list[int], indpb: float, directed: float = 0.0) -> set[int]:
        if directed and self.rng.random() < directed:
            moved = self.directed(genes)
            if moved is not None:
                return moved
        out = set(genes)
        rand = self.rng.random
        hit = [v for v in genes if rand() < indpb] or ([genes[int(rand() * len(genes))]] if genes else [])
        for v in hit:
            if v not in out:
                continue
            r = self.rng.random()
            if r < 0.1 and self.even:
                self._recompose(out, v)
                continue
            kind = "odd" if v % 2 else "even"
            if v == self.h:  # the diameter link costs 1: only swap it for an odd value
                out.discard(v)
                continue
            w = self._step(v) if r < 0.6 else self._random_new(out, kind)
            if w is not None and w not in out and w != self.h:
                out.discard(v)
                out.add(w)
        # repair: drop even values if a move overshot, then fill with odd ones
        while self.genome_cost(out) > self.ports:
            out.discard(max((v for v in out if v % 2 == 0), default=None) or max(out))
        return self.fill(out)

    def directed(self, genes: list[int]) -> set[int] | None:
        """Bring one farthest router closer: for a router j at the diameter D and a router x
        at distance D-2, put in the link value joining x to j (replacing a random value of
        the same cost), so that j is reached in D-1 hops.  None when no such move applies."""
        n, rand = self.n, self.rng.random
        odd = [1, n - 1] + [v for v in genes if v & 1]
        even = list(self.fixed_b or ()) + [v for v in genes if not v & 1]
        dist = eq.distances(n, odd, even)
        top = int(dist.max())
        if top < 2 or (dist < 0).any():
            return None
        far = np.flatnonzero(dist == top)
        j = int(far[int(rand() * far.size)])
        near = np.flatnonzero(dist == top - 2)
        out = set(genes)
        opposite = near[(near & 1) != (j & 1)]
        same = near[(near & 1) == (j & 1)] if self.even else near[:0]
        if opposite.size and (not same.size or rand() < 0.7):
            x = int(opposite[int(rand() * opposite.size)])
            v = (j - x) % n if x % 2 == 0 else (x - j) % n  # even x links x + v, odd x links x - v
            olds = [g for g in genes if g & 1]
            if v in (1, n - 1) or v in out or not olds:
                return None
            out.discard(olds[int(rand() * len(olds))])
            out.add(v)
        elif same.size:
            x = int(same[int(rand() * same.size)])
            v = (j - x) % n
            v = min(v, n - v)
            if v == 0 or v in out or self.cost(v) > self.ports:
                return None
            evens = [g for g in genes if not g & 1]
            if v != self.h and evens:
                out.discard(evens[int(rand() * len(evens))])
            else:
                olds = [g for g in genes if g & 1]
                for _ in range(self.cost(v)):
                    if olds:
                        out.discard(olds.pop(int(rand() * len(olds))))
            out.add(v)
        else:
            return None
        while self.genome_cost(out) > self.ports:
            others = [g for g in out if g != v]
            if not others:
                return None
            out.discard(max((g for g in others if g % 2 == 0), default=None) or max(others))
        return self.fill(out)

    def _recompose(self, out: set[int], v: int) -> None:
        """Trade an even value for odd ones or two odd values for an even one (port cost kept)."""
        if v % 2 == 0:
            out.discard(v)  # fill() puts back one or two odd values
            return
        odds = [x for x in out if x % 2 == 1 and x != v]
        if not odds:
            return
        w = self._random_new(out, "even")
        if w is None:
            return
        out.discard(v)
        if w == self.h:
            out.add(w)
        else:
            out.discard(self.rng.choice(sorted(odds)))
            out.add(w)


@register
class EqualityGA(Solver):
    """Genetic algorithm for Equality networks of the ``equality`` problem family."""

    name = "equality-ga"
    description = "DEAP genetic algorithm over Equality link sets (S_A, S_B) on an even ring; fitness a*d"
    params = {
        "population": Param(100, "individuals per generation", low=20, high=400, log=True, minimum=4,
                            maximum=POPULATION_MAX),
        "generations": Param(0, loop=True, help="generations to run (0: until the budget ends; 500 without a budget)",
                             tunable=False, minimum=0),
        "cxpb": Param(0.6, "probability that a pair is recombined", low=0.1, high=1.0, minimum=0.0, maximum=1.0),
        "mutpb": Param(0.6, "probability that a child is mutated", low=0.1, high=1.0, minimum=0.0, maximum=1.0),
        "indpb": Param(0.05, "per-value mutation probability (at least one value moves)", low=0.01, high=0.3,
                       log=True, minimum=0.0, maximum=1.0),
        "directed": Param(0.2, "share of mutations that re-link a farthest router (see _Space.directed)",
                          low=0.0, high=0.8, minimum=0.0, maximum=1.0),
        # each of up to POPULATION_MAX selections draws this many individuals, unpolled: 32 keeps that
        # under 0.1 s (a larger tournament is pure selection pressure, reached as well by 32)
        "tournament": Param(3, "tournament size", low=2, high=8, minimum=1, maximum=32),
        "elite": Param(2, "best individuals copied unchanged to the next generation", tunable=False, minimum=0),
        "even_share": Param(0.4, "largest share of the ports the initial even values (S_B) may take",
                            low=0.0, high=0.6, minimum=0.0, maximum=1.0),
        "progression": Param(0.5, "share of the initial population whose bhops form an arithmetic progression",
                             low=0.0, high=1.0, minimum=0.0, maximum=1.0),
        "fixed_b": Param("", "comma-separated bhops to keep fixed, e.g. 200,410,614,824 (empty: evolve S_B)",
                         tunable=False),
        "start": Param("", "seed the population with a published network (e.g. E361) or a detailed notation",
                       tunable=False),
        "target": Param(0.0, "stop once the objective is <= this value (0: never)", tunable=False, minimum=0.0),
    }

    # -- problem checks -----------------------------------------------------

    def skip(self, problem: Any) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        n, k = problem.n, problem.degree_cap
        try:  # the network's N*K/2 links, refused before a search that could never be decoded
            caps.EDGES.check(n * int(k) // 2, f"an Equality network of N={n}, K={k}: its links N*K/2")
        except HopbenchError as exc:
            return True, str(exc)
        if problem.family != "equality":
            try:
                eq.check_problem(problem)
            except HopbenchError:
                return True, ("equality-ga needs an equality-family problem: ring:N (N even), cap K, "
                              "budget N(K-2)/2 (add --family equality)")
        if k < 3 or n < 8:
            return True, f"equality-ga needs N >= 8 and K >= 3 (got N={n}, K={k})"
        refusal = self._population_refusal(int(k))
        return (True, refusal) if refusal else (False, "")

    def _population_refusal(self, k: int) -> str:
        """Why the population's genomes would hold too many link values at cap ``k`` ("" when they fit)."""
        size = int(self.config["population"])
        if size * max(1, k - 2) <= POPULATION_VALUES:
            return ""
        return (f"population={size} with K={k} holds {size * (k - 2):,} link values, above {POPULATION_VALUES:,}; "
                f"use population <= {max(4, POPULATION_VALUES // (k - 2))}")

    # -- the run ------------------------------------------------------------

    def _start(self, n: int, k: int) -> eq.EqualityNetwork | None:
        text = self.config["start"].strip()
        if not text:
            return None
        net = eq.parse(text)  # a notation or a published id such as E361
        if net.n != n or net.k != k:
            raise HopbenchError(f"start network {text} has N={net.n}, K={net.k} but the problem has N={n}, K={k}")
        return net

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        cfg = self.config
        n, k = problem.n, int(problem.degree_cap)
        # sizes first: the network's links (its decode) and the population's genomes
        caps.EDGES.check(n * k // 2, f"an Equality network of N={n}, K={k}: its links N*K/2")
        size = cfg["population"]
        refusal = self._population_refusal(k)
        if refusal:
            raise HopbenchError(refusal)
        rng = random.Random(seed)
        fixed_b = None
        if cfg["fixed_b"].strip():
            try:
                fixed_b = tuple(sorted({int(x) for x in cfg["fixed_b"].split(",") if x.strip()}))
            except ValueError:
                raise HopbenchError(f"fixed_b must be comma-separated even numbers, got {cfg['fixed_b']!r}") from None
            eq._normalise(n, [-1, 1], fixed_b, f"fixed_b for N={n}")
        space = _Space(n, k, fixed_b, rng)
        generations = cfg["generations"] or (0 if (budget.time_s or budget.evaluations) else 500)
        start = self._start(n, k)
        if start is not None and fixed_b is not None and tuple(start.bhops) != fixed_b:
            raise HopbenchError("start and fixed_b disagree on bhops; give one of them or the same bhops")

        toolbox = base.Toolbox()
        toolbox.register("individual", lambda genes: creator.EqualityIndividual(sorted(genes)))
        toolbox.register("mate", space.crossover)
        toolbox.register("mutate", space.mutate, indpb=cfg["indpb"], directed=cfg["directed"])
        hof = tools.HallOfFame(1)

        objective = problem.objective
        fixed_even = list(fixed_b or ())
        cache: dict[tuple[int, ...], float] = {}
        cache_limit = max(2 * size, min(CACHE_LIMIT, CACHE_VALUES // max(1, k - 2)))
        best = [math.inf]
        # the search ends early enough for the decode after it to fit in the time limit
        reserve = DECODE_SECONDS_PER_LINK * n * k / 2

        def out_of_time() -> bool:
            return report.should_stop() or (budget.time_s is not None and report.remaining_time() <= reserve)

        def links(genes: list[int]) -> tuple[list[int], list[int]]:
            odd = [1, n - 1] + [v for v in genes if v % 2]
            even = fixed_even + [v for v in genes if v % 2 == 0]
            return odd, even

        fixed_arr = np.asarray(fixed_even, dtype=np.int64)

        batch = [max(1, nb.get_num_threads())]  # genomes per kernel call, resized from its measured cost

        def evaluate(individuals: list) -> list:
            """Score ``individuals`` in batches, polling the time limit between batches; returns those
            scored (all but the tail of the unseen ones once time runs out, never none of them)."""
            todo: dict[tuple[int, ...], None] = {}
            for ind in individuals:
                key = tuple(ind)
                if key not in cache:
                    todo[key] = None
            keys = list(todo)
            if len(cache) > cache_limit:
                # bound memory on long runs, keeping the genomes still in use; decided once per call, so
                # that the cache (and the RNG draws that consult it) never depends on the batch sizes
                keep = {key: cache[key] for key in map(tuple, individuals) if key in cache}
                cache.clear()
                cache.update(keep)
            done = 0
            while done < len(keys):
                if done and out_of_time():
                    break
                chunk = keys[done:done + batch[0]]
                lengths = np.fromiter(map(len, chunk), dtype=np.int64, count=len(chunk))
                values = np.zeros((len(chunk), max(1, int(lengths.max()))), dtype=np.int64)
                for i, key in enumerate(chunk):
                    values[i, :len(key)] = key
                total = np.empty(len(chunk), dtype=np.int64)
                diam = np.empty(len(chunk), dtype=np.int64)
                t0 = time.perf_counter()
                _evaluate_batch(n, values, lengths, fixed_arr, total, diam)
                per_genome = (time.perf_counter() - t0) / len(chunk)
                batch[0] = max(1, min(4096, int(BATCH_SECONDS / max(per_genome, 1e-7))))
                report.count(len(chunk))
                done += len(chunk)
                for key, t, d in zip(chunk, total.tolist(), diam.tolist()):
                    cache[key] = math.inf if d < 0 else objective_value(objective, float(d), t / (n - 1))
            scored = [ind for ind in individuals if tuple(ind) in cache]
            for ind in scored:
                ind.fitness.values = (cache[tuple(ind)],)
            hof.update(scored)
            top = hof[0].fitness.values[0]
            if top < best[0]:
                best[0] = top
                report(top, generation=gen, notation=notation(hof[0]))
            return scored

        def notation(genes: list[int]) -> str:
            odd, even = links(list(genes))
            return eq.EqualityNetwork(n, [-1 if v == n - 1 else v for v in odd], even, k=k).notation()

        def tournament(pop: list, count: int) -> list:
            size, fits, top = cfg["tournament"], [i.fitness.values[0] for i in pop], len(pop)
            rand = rng.random
            out = []
            for _ in range(count):
                best_i = int(rand() * top)
                for _ in range(size - 1):
                    j = int(rand() * top)
                    if fits[j] < fits[best_i]:
                        best_i = j
                out.append(pop[best_i])
            return out

        gen = 0
        pop = []
        if start is not None:
            pop.append(toolbox.individual([v for v in start.odd_values.tolist() if v not in (1, n - 1)]
                                          + ([] if fixed_b else list(start.bhops))))
            # half of the population starts near the published network
            while len(pop) < size // 2 and not out_of_time():
                pop.append(toolbox.individual(toolbox.mutate(list(pop[0]))))

        def remaining() -> int:
            # an evaluation budget is respected exactly: never breed more new
            # individuals than evaluations are left
            cap = report.budget.evaluations
            return size if cap is None else max(0, cap - report.evaluations)

        first = max(1, min(size, remaining()))
        pop = pop[:first]
        # a large population takes a while to draw (population=100,000 at K=38: seconds): poll the limit,
        # keeping at least one genome so that there is an answer
        while len(pop) < first and not (pop and out_of_time()):
            pop.append(toolbox.individual(space.random_genome(cfg["even_share"], cfg["progression"])))
        pop = evaluate(pop)

        target = cfg["target"]
        idle = 0
        while not out_of_time() and (generations == 0 or gen < generations):
            if target and best[0] <= target + 1e-12:
                break
            room = remaining()
            if room <= 0:
                break
            gen += 1
            elite = sorted(pop, key=lambda i: i.fitness.values[0])[: cfg["elite"]]
            parents = tournament(pop, min(size - len(elite), room) if room < size else size - len(elite))
            children = []
            for i in range(0, len(parents), 2):
                if out_of_time():  # breeding runs BFS (directed moves): a large generation is polled
                    break
                p1 = parents[i]
                p2 = parents[i + 1] if i + 1 < len(parents) else parents[0]
                if rng.random() < cfg["cxpb"]:
                    c1, c2 = toolbox.mate(p1, p2), toolbox.mate(p2, p1)
                else:
                    c1, c2 = set(p1), set(p2)
                for c in (c1, c2):
                    genes = sorted(c)
                    if rng.random() < cfg["mutpb"]:
                        genes = sorted(toolbox.mutate(genes))
                    # a child equal to a parent or already seen costs a generation slot for
                    # nothing: mutate it (a few tries) so that every evaluation explores
                    for _ in range(3):
                        if genes != p1 and genes != p2 and tuple(genes) not in cache:
                            break
                        genes = sorted(toolbox.mutate(genes))
                    children.append(toolbox.individual(genes))
            seen = report.evaluations
            pop = evaluate(elite + children[: len(parents)])
            # a tiny search space is soon exhausted: when generations keep producing only
            # genomes already evaluated, stop instead of spinning until the time budget
            idle = idle + 1 if report.evaluations == seen else 0
            if idle >= IDLE_GENERATIONS:
                break

        winner = hof[0]
        odd, even = links(list(winner))
        net = eq.EqualityNetwork(n, [-1 if v == n - 1 else v for v in odd], even, k=k)
        solution = Solution(problem, net.shortcuts(), extra={"equality": net.notation(), "generations": gen})
        return solution
