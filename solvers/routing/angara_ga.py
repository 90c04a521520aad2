"""``angara-ga``: the genetic algorithm of Mukosey et al. 2021 (Sect. 4.2), built on DEAP.

A chromosome holds one gene per ordered pair that has more than one minimal
legal route; the gene picks one of that pair's routes (pairs with a single
route are fixed).  As in the paper: 100 random chromosomes, parents chosen by
panmixia (``tournsize = 1``: uniformly at random; larger values give
tournament selection), two-point crossover, mutation re-drawing each gene of a
child with probability 2%, fitness σ(4, R), and the run stops after 30
generations without improvement of the best fitness (or when the time /
evaluation budget is spent, or after ``max_generations``).  Survivors are the
best ``population`` of parents and children ((μ+λ), so the best fitness never
worsens).  The paper's second stopping rule (next best "less than 0.05 of the
global best") is ambiguous and not used.

The table returned is the best one by the *problem's* objective (max γ_c,
then σ) among all chromosomes evaluated; the anytime trace reports that value
whenever it improves.

Chromosomes are numpy arrays (``creator.AngaraChromosome``); a whole
generation is evaluated by one compiled kernel.  All randomness comes from a
``numpy.random.Generator`` seeded with the run's seed, so a run is
deterministic for a seed unless the time budget cuts it short.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import numba as nb
import numpy as np
from deap import base, creator, tools

from hopbench.harness.problems.routing import RoutingProblem, RoutingTable, make_problem
from hopbench.harness.problems.routing.candidates import Interrupted
from hopbench.solvers.contract import Param, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.routing._router import AngaraSolver

# DEAP's creator classes are global: define them once, at import
if not hasattr(creator, "AngaraFitness"):
    creator.create("AngaraFitness", base.Fitness, weights=(-1.0,))
if not hasattr(creator, "AngaraChromosome"):
    creator.create("AngaraChromosome", np.ndarray, fitness=creator.AngaraFitness)


@nb.njit(cache=True)
def _add_route(load, r, offsets, channels, delta):
    for t in range(offsets[r], offsets[r + 1]):
        load[channels[t]] += delta


@nb.njit(cache=True)
def _full_load(genes, first_route, offsets, channels, base_load, out):
    """``out`` = loads of the chromosome ``genes`` (fixed pairs' loads in ``base_load``)."""
    out[:] = base_load
    for g in range(genes.shape[0]):
        _add_route(out, first_route[g] + genes[g], offsets, channels, 1)


@nb.njit(cache=True)
def _swap_region(a, b, lo, hi, inside, first_route, offsets, channels, load_a):
    """Swap the genes of a and b inside [lo, hi) (or outside it), keeping ``load_a`` = loads of a."""
    n = a.shape[0]
    for g in range(n):
        if (lo <= g < hi) != inside:
            continue
        ga, gb = a[g], b[g]
        if ga == gb:
            continue
        _add_route(load_a, first_route[g] + ga, offsets, channels, -1)
        _add_route(load_a, first_route[g] + gb, offsets, channels, 1)
        a[g] = gb
        b[g] = ga


@nb.njit(cache=True)
def _set_genes(ind, pos, values, first_route, offsets, channels, load):
    for k in range(pos.shape[0]):
        g = pos[k]
        _add_route(load, first_route[g] + ind[g], offsets, channels, -1)
        _add_route(load, first_route[g] + values[k], offsets, channels, 1)
        ind[g] = values[k]


@nb.njit(cache=True)
def _score(loads, cset, gamma_perfect, out_max, out_sigma):
    """Max load and σ(4, R) over C of every row of ``loads``."""
    for i in range(loads.shape[0]):
        mx = 0
        acc = 0.0
        for a in range(cset.shape[0]):
            v = loads[i, cset[a]]
            if v > mx:
                mx = v
            dev = gamma_perfect - v
            dev *= dev
            acc += dev * dev
        out_max[i] = mx
        out_sigma[i] = (acc / cset.shape[0]) ** 0.25


class RouteGenome:
    """The encoding: which pairs carry a gene, how many routes each gene chooses from, base loads.

    Every chromosome carries its channel loads (``ind.load``), kept up to date
    by the variation operators, so scoring a child costs O(|C|) plus the genes
    that changed rather than a pass over all pairs.
    """

    def __init__(self, problem: RoutingProblem) -> None:
        self.problem = problem
        cand = problem.candidates
        self.cand = cand
        self.pairs = np.flatnonzero(cand.counts > 1)
        self.choices = cand.counts[self.pairs]
        self.first_route = cand.pair_ptr[self.pairs]
        unique_routes = cand.pair_ptr[np.flatnonzero(cand.counts == 1)]
        lengths = np.diff(cand.offsets)
        sel = np.zeros(cand.num_routes, dtype=bool)
        sel[unique_routes] = True
        self.base_load = np.bincount(cand.channels[np.repeat(sel, lengths)],
                                     minlength=problem.network.num_channel_slots).astype(np.int64)
        self.cset = np.flatnonzero(problem.channel_set).astype(np.int64)
        self.gamma_perfect = float(problem.gamma_perfect)
        self.dtype = np.int8 if self.choices.max(initial=1) < 127 else np.int32
        self._ops = (self.first_route, cand.offsets, cand.channels)

    @property
    def size(self) -> int:
        return len(self.pairs)

    def attach_load(self, ind: np.ndarray) -> None:
        ind.load = np.empty_like(self.base_load)
        _full_load(ind, *self._ops, self.base_load, ind.load)

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> None:
        """Two-point crossover in place.  Swapping the segment or its complement yields the same two
        children (with their labels exchanged), so the shorter one is swapped."""
        size = len(a)
        if size < 2:
            return
        lo, hi = sorted(rng.choice(size + 1, size=2, replace=False).tolist())
        inside = (hi - lo) <= size - (hi - lo)
        total = a.load + b.load
        _swap_region(a, b, lo, hi, inside, *self._ops, a.load)
        b.load = total - a.load

    def mutate(self, ind: np.ndarray, indpb: float, rng: np.random.Generator) -> None:
        """Re-draw each gene with probability ``indpb`` to one of the pair's *other* routes."""
        pos = bernoulli_positions(len(ind), indpb, rng)
        if not len(pos):
            return
        k = self.choices[pos]
        values = (ind[pos].astype(np.int64) + rng.integers(1, k)) % k
        _set_genes(ind, pos, values, *self._ops, ind.load)

    def score(self, individuals: list) -> tuple[np.ndarray, np.ndarray]:
        loads = np.stack([ind.load for ind in individuals])
        mx = np.empty(len(individuals), dtype=np.int64)
        sg = np.empty(len(individuals), dtype=np.float64)
        _score(loads, self.cset, self.gamma_perfect, mx, sg)
        return mx, sg

    def table(self, chromosome: np.ndarray) -> RoutingTable:
        cand, problem = self.cand, self.problem
        route = cand.pair_ptr[:-1].copy()  # first candidate for every pair (the only one for fixed pairs)
        route[self.pairs] += np.asarray(chromosome, dtype=np.int64)
        starts, ends = cand.offsets[route], cand.offsets[route + 1]
        lengths = ends - starts
        steps = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))
        offsets = np.zeros(len(route) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return RoutingTable(problem, offsets, cand.dirs[steps])


def bernoulli_positions(n: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Indices i < n each selected independently with probability p, drawn as geometric gaps
    (cost proportional to the number selected, not to n)."""
    if p <= 0.0 or n == 0:
        return np.empty(0, dtype=np.int64)
    out = []
    last = -1
    while last < n:
        expect = (n - last) * p
        gaps = rng.geometric(p, size=int(expect + 6.0 * expect ** 0.5) + 16)
        pos = last + np.cumsum(gaps)
        out.append(pos[pos < n])
        last = int(pos[-1])
    return np.concatenate(out)


def random_chromosome(genome: RouteGenome, rng: np.random.Generator) -> np.ndarray:
    """A chromosome with uniformly random genes, its fitness unset and its loads attached."""
    genes = rng.integers(0, genome.choices).astype(genome.dtype) if genome.size else np.empty(0, genome.dtype)
    # a view, not creator.AngaraChromosome(genes): DEAP's constructor goes through a Python list
    ind = genes.view(creator.AngaraChromosome)
    ind.fitness = creator.AngaraFitness()
    genome.attach_load(ind)
    return ind


def clone(ind: np.ndarray) -> np.ndarray:
    """Copy a chromosome with its fitness and loads (faster than DEAP's deepcopy of __dict__)."""
    new = ind.copy()
    new.fitness = creator.AngaraFitness()
    if ind.fitness.valid:
        new.fitness.values = ind.fitness.values
    new.load = ind.load.copy()
    return new


def _tournament(pop: list, k: int, tournsize: int, rng: np.random.Generator) -> list:
    """k parents, each the fittest of ``tournsize`` uniform draws (1 = panmixia)."""
    picks = rng.integers(0, len(pop), size=(k, tournsize))
    if tournsize == 1:
        return [pop[i] for i in picks[:, 0].tolist()]
    return [max((pop[i] for i in row), key=lambda ind: ind.fitness) for row in picks.tolist()]


@register
class AngaraGA(AngaraSolver):
    """Mukosey et al.'s genetic algorithm over each pair's minimal legal routes (DEAP)."""

    name = "angara-ga"
    uses_angara = "picks among Angara routes"
    description = ("Angara genetic algorithm (Mukosey et al. 2021, Sect. 4.2, DEAP): a gene per pair picks one of its minimal "
                   "routes; two-point crossover, 2% gene mutation, fitness sigma(4,R)")
    params = {
        # at most 10,000: 100 times the paper's 100 and 30 times the tuning range. A chromosome costs about
        # 46 us to draw on 4x4 (a 10,000 population: 0.5 s a generation) plus its genes and channel loads in
        # memory; population=10^8 was 11 GB before its first generation was built
        "population": Param(100, "chromosomes per generation", low=20, high=300, minimum=2, maximum=10_000),
        "cxpb": Param(1.0, "probability that a parent pair is crossed over", low=0.3, high=1.0,
                      minimum=0.0, maximum=1.0),
        "mutpb": Param(1.0, "probability that a child is mutated", low=0.2, high=1.0, minimum=0.0, maximum=1.0),
        "indpb": Param(0.02, "probability that a mutated child's gene is re-drawn", low=0.001, high=0.1, log=True,
                       minimum=0.0, maximum=1.0),
        "tournsize": Param(1, "parent tournament size (1 = panmixia, the paper's choice)", low=1, high=8,
                           minimum=1),
        "patience": Param(30, "stop after this many generations without a better fitness", minimum=1,
                          tunable=False),
        "max_generations": Param(1000, loop=True, help="hard cap on generations", minimum=1, tunable=False),
        "fitness": Param("sigma4", "what selection minimises: sigma4 (the paper) or the problem objective",
                         choices=("sigma4", "objective")),
    }


    #: children varied between two budget checks
    POLL_EVERY = 64
    #: seconds per pair kept for building and validating the returned table (see solve)
    FINISH_SECONDS_PER_PAIR = 1e-6
    #: bytes the parents and children of one generation may keep (genes and channel loads)
    MAX_CHROMOSOME_BYTES = 2 * 2**30

    def skip(self, problem: RoutingProblem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        # at most a gene (one byte) per pair, and int64 loads per channel slot; parents + children
        population = int(self.config["population"])
        per = problem.num_pairs + 8 * problem.network.num_channel_slots
        need = 2 * population * per
        if need > self.MAX_CHROMOSOME_BYTES:
            return True, (f"population {population:,} on {problem.num_pairs:,} pairs could keep "
                          f"{need / 2**30:.1f} GiB of chromosomes (limit {self.MAX_CHROMOSOME_BYTES / 2**30:.0f} GiB); "
                          f"use a population of at most {self.MAX_CHROMOSOME_BYTES // (2 * per):,}")
        return False, ""

    def warm_up(self) -> None:
        # the warm-up runs spend their evaluation budget on the first population, before crossover and
        # mutation: load those kernels here, or a timed run loads them on its clock (0.5 s under load)
        genome = RouteGenome(make_problem("4x3"))
        rng = np.random.default_rng(0)
        a, b = random_chromosome(genome, rng), random_chromosome(genome, rng)
        genome.crossover(a, b, rng)
        genome.mutate(a, 1.0, rng)

    def solve(self, problem: RoutingProblem, *, seed: int, budget: Budget, report: Reporter) -> RoutingTable:
        cfg = self.config
        rng = np.random.default_rng(seed)
        # seconds kept for building the returned table and validating it (0.55 s on 8x8x8x2's million pairs,
        # twice that with both cores busy), and, during the enumeration, for the genome and one chromosome too
        finish = self.FINISH_SECONDS_PER_PAIR * problem.num_pairs

        def stop(reserve: float = finish) -> bool:
            return report.should_stop() or report.remaining_time() < reserve

        try:
            # the genes are the candidate routes: enumerate them under the budget (1-2 s on 1,024 nodes)
            problem.candidates_within(lambda: stop(1.5 * finish))
        except Interrupted:
            # no genes yet: return the DOR table (valid in the routing graph), as BFS does for what it
            # could not route
            return self.dor_table(problem, report, generations=0, genes=0)
        genome = RouteGenome(problem)
        objective = problem.objective

        def scalar(mx: np.ndarray, sg: np.ndarray) -> np.ndarray:
            return sg if objective == "sigma4" else mx + sg / (1.0 + sg)

        toolbox = base.Toolbox()
        toolbox.register("individual", random_chromosome, genome, rng)
        toolbox.register("clone", clone)
        toolbox.register("mate", genome.crossover, rng=rng)
        toolbox.register("mutate", genome.mutate, indpb=cfg["indpb"], rng=rng)
        toolbox.register("select_parents", _tournament, tournsize=cfg["tournsize"], rng=rng)
        toolbox.register("select_survivors", tools.selBest)

        best = {"value": np.inf, "chromosome": None}

        def evaluate(individuals: list) -> None:
            mx, sg = genome.score(individuals)
            obj = scalar(mx, sg)
            fit = sg if cfg["fitness"] == "sigma4" else obj
            for ind, f in zip(individuals, fit.tolist()):
                ind.fitness.values = (f,)
            report.count(len(individuals))
            i = int(np.argmin(obj)) if len(obj) else -1
            if i >= 0 and obj[i] < best["value"]:
                best["value"] = float(obj[i])
                best["chromosome"] = individuals[i].copy()
                report(best["value"], generation=generation)

        generation = 0
        population = []
        # the first generation is built under the budget too (population=10^6 on 4x4 took 46 s; a chromosome
        # of 8x8x8x2 takes 60 ms), and no larger than the evaluations left; at least one chromosome, the table
        # returned
        size = cfg["population"]
        if budget.evaluations is not None:
            size = min(size, max(1, budget.evaluations - report.evaluations))
        for _ in range(size):
            if population and stop():
                break
            population.append(toolbox.individual())
        evaluate(population)
        best_fit = min(ind.fitness.values[0] for ind in population)
        stall = 0
        mu = cfg["population"]
        while genome.size and stall < cfg["patience"] and generation < cfg["max_generations"] and not stop():
            generation += 1
            offspring = [toolbox.clone(ind) for ind in toolbox.select_parents(population, mu)]
            # the budget is polled inside a generation too: one of 10,000 chromosomes on 4x4 takes 0.6 s; a
            # generation cut short is dropped (its best parents are already kept)
            cut = False
            for k, (a, b) in enumerate(zip(offspring[::2], offspring[1::2])):
                if k % self.POLL_EVERY == 0 and stop():
                    cut = True
                    break
                if rng.random() < cfg["cxpb"]:
                    toolbox.mate(a, b)
            for k, child in enumerate(offspring):
                if cut or (k % self.POLL_EVERY == 0 and stop()):
                    cut = True
                    break
                if rng.random() < cfg["mutpb"]:
                    toolbox.mutate(child)
            if cut:
                generation -= 1
                break
            evaluate(offspring)
            population = toolbox.select_survivors(population + offspring, mu)
            gen_best = population[0].fitness.values[0]
            if gen_best < best_fit:
                best_fit = gen_best
                stall = 0
            else:
                stall += 1
        table = genome.table(best["chromosome"] if best["chromosome"] is not None else population[0])
        table.extra.update({"generations": generation, "genes": int(genome.size)})
        table.evaluate()
        return table
