"""Fuzzing the new cases of issue 34, in-process: suites with many bases, parameter grids, plug-in modules that
misbehave at import (or in ``__init__``), and output paths that are symlinks, devices or worse.

A seeded generator builds each input; every one must end in a result or a one-line
:class:`~hopbench.harness.errors.HopbenchError` (a broken plug-in: a one-line entry in the registry's failures while
the built-in solvers keep working).  Any other exception, or a message on more than one line, fails the test,
which lists every offending input.  Over 1,000 inputs in all (see :data:`COUNTS`).
"""
from __future__ import annotations

import importlib
import os
import random
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from hopbench.harness.errors import HopbenchError

COUNTS = {"suites": 300, "grids": 300, "plugins": 240, "outputs": 240}
TOPOLOGIES = ["ring:{n}", "path:{n}", "empty:{n}", "torus:{n}x4", "mesh:4x{n}", "hypercube:{d}"]


def outcome(call: Callable[[], Any]) -> str | None:
    """``None`` when ``call`` returns or raises a one-line HopbenchError; else what went wrong."""
    try:
        call()
    except HopbenchError as exc:
        return None if len(str(exc).splitlines()) <= 1 else f"multi-line message: {str(exc)[:200]!r}"
    except BaseException as exc:  # noqa: BLE001 - anything else is the finding
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    return None


def suite_text(rng: random.Random) -> str:
    """A suite whose grid names many bases (some large, some repeated, some malformed)."""
    count = rng.choice([1, 5, 30, 200, 2_000])
    ns = [rng.choice([rng.randint(3, 60), rng.randint(3, 5_000), rng.randint(-5, 2), 10**rng.randint(6, 30)])
          for _ in range(count)]
    base = rng.choice(TOPOLOGIES + ["bogus:{n}", "ring:{n}x", "ring:{{n}}"])
    cap = rng.choice([3, 4, 6, "n", "n // 2", -1, "10**99"])
    budget = rng.choice([1, 2, "n // 4", "n ** n", 0])
    lines = ['name = "fuzz"', 'description = "d"', f"seeds = {rng.choice([1, 3])}", "[[grid]]",
             f"vars = {{ n = {ns!r}, d = [{rng.randint(1, 12)}] }}", f'bases = ["{base}"]',
             f"caps = [{cap!r}]".replace("'", '"'), f"budgets = [{budget!r}]".replace("'", '"')]
    if rng.random() < 0.3:
        lines.append(f"time_limit = {rng.choice([1, 2**31, 1e300, 3.5, 2**40])}")
    return "\n".join(lines) + "\n"


def test_suites_with_many_bases(tmp_path, monkeypatch):
    from hopbench.harness.bench.suites import load_suite

    monkeypatch.setenv("HOPBENCH_MAX_SUITE_BASES", "40")
    monkeypatch.setenv("HOPBENCH_MAX_SUITE_VERTICES", "20000")
    rng = random.Random(34)
    bad = []
    for k in range(COUNTS["suites"]):
        path = tmp_path / f"fuzz{k}.toml"
        path.write_text(suite_text(rng))
        if (found := outcome(lambda: load_suite(path))) is not None:
            bad.append((path.read_text()[:300], found))
    assert not bad, bad[:5]


def param_items(rng: random.Random) -> list[str]:
    names = ["random", "vrs", "annealing", "random-matching", "no-such", "", "random.x"]
    keys = ["y", "k", "moves", "samples", "order", "restarts", "", "x.y", "tries"]
    items = []
    for _ in range(rng.choice([0, 1, 2, 4, 8])):
        values = ",".join(rng.choice(["1", "2", "0", "-1", "1e30", "10" * rng.randint(1, 40), "random", "", "x"])
                          for _ in range(rng.choice([1, 3, 10, 40])))
        form = rng.choice(["{s}.{k}={v}", "{s}.{k}", "{s}={v}", "{k}={v}", "{s}.{k}=={v}"])
        items.append(form.format(s=rng.choice(names), k=rng.choice(keys), v=values))
    return items


def test_parameter_grids(monkeypatch):
    from hopbench import solvers
    from hopbench.harness.bench.runner import _param_sets, parse_param_grid

    monkeypatch.setenv("HOPBENCH_MAX_PARAM_SETS", "200")
    rng = random.Random(35)
    bad = []
    chosen = ["random", "vrs", "annealing", "random-matching"]
    solvers.names()
    for _ in range(COUNTS["grids"]):
        items = param_items(rng)

        def plan() -> None:
            grid = parse_param_grid(items, chosen)
            for name, overrides in grid.items():
                _param_sets(name, overrides)
        if (found := outcome(plan)) is not None:
            bad.append((items, found))
    assert not bad, bad[:5]


PLUGIN_HEADER = ("import numpy as np\nfrom hopbench.harness.problems.shortcut.problem import Solution\n"
                 "from hopbench.solvers.contract import Solver, register\n")


def plugin_source(rng: random.Random, k: int) -> str:
    """A plug-in module that misbehaves in one of many ways (or not at all)."""
    name = rng.choice([f"fuzz-plugin-{k}", "random", "vrs", "", "two words", "x" * 80, None, 5, f"ok.{k}+v",
                       "\x1b[2J", f"fuzz-plugin-{k}"])
    at_import = rng.choice(["", "def f(:\n", "raise RuntimeError('import')\n", "import sys\nsys.exit(3)\n",
                            "raise SystemExit\n", "raise KeyError('k')\n", "import no_such_module_xyz\n",
                            "1/0\n", "raise RecursionError\n", "x = (\n", "raise MemoryError\n", ""])
    init = rng.choice(["", "", "raise RuntimeError('init')", "raise SystemExit(1)", "raise ValueError('v')",
                       "raise HopbenchError('plugin says no')", "super().__init__(**params)"])
    named = "" if name is None else f"    name = {name!r}\n"
    body = (f"    def __init__(self, **params):\n        from hopbench.harness.errors import HopbenchError\n        {init}\n"
            if init else "")
    cls = (f"@register\nclass Fuzz{k}(Solver):\n{named}    description = 'fuzz'\n{body}"
           "    def solve(self, problem, *, seed, budget, report):\n"
           "        return Solution(problem, np.empty((0, 2), dtype=np.int64))\n")
    order = rng.random()
    return PLUGIN_HEADER + (at_import + cls if order < 0.5 else cls + at_import)


def test_plugin_modules_that_misbehave(tmp_path, monkeypatch):
    from hopbench import solvers
    from hopbench.harness.plugins import import_plugin
    from hopbench.solvers.contract import registry

    solvers.names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_FAILURES", {})
    builtins = set(solvers.names())
    monkeypatch.syspath_prepend(str(tmp_path))
    rng = random.Random(36)
    bad = []
    for k in range(COUNTS["plugins"]):
        module = f"fuzz_plugin_{k}"
        (tmp_path / f"{module}.py").write_text(plugin_source(rng, k))
        importlib.invalidate_caches()
        before = set(registry._REGISTRY)
        found = outcome(lambda: registry._plugin(f"module {module!r}", lambda: import_plugin(module)))
        sys.modules.pop(module, None)
        for new in set(registry._REGISTRY) - before:
            found = found or outcome(lambda: solvers.create(new))
        failure = registry._FAILURES.get(f"module {module!r}")
        if failure is not None and (len(failure.splitlines()) != 1 or "\x1b" in failure):
            found = found or f"failure line: {failure!r}"
        if failure is not None and set(registry._REGISTRY) != before:
            found = found or "a failed plug-in left solvers registered"
        if not builtins <= set(registry._REGISTRY) or any(registry._REGISTRY[b].__module__.startswith("fuzz_plugin")
                                                          for b in builtins):
            found = found or "a built-in solver was displaced"
        if found:
            bad.append((module, (tmp_path / f"{module}.py").read_text()[-300:], found))
    assert not bad, bad[:5]
    assert registry._FAILURES  # the generator did make broken plug-ins


def output_target(rng: random.Random, root: Path, k: int) -> Path:
    """An output path that is a symlink (to a file, a directory, a device, nowhere), a device, a directory, a
    missing folder, a name too long, a FIFO, or a plain new file."""
    place = root / f"case{k}"
    place.mkdir()
    victim = place / "victim.txt"
    victim.write_text("precious")
    choice = rng.choice(["link-file", "link-dir", "link-dangling", "link-dev-null", "link-dev-full", "dev-full",
                         "dev-null", "dir", "missing-dir", "long", "fifo", "plain", "link-chain", "link-self"])
    out = place / "out.json"
    if choice == "link-file":
        out.symlink_to(victim)
    elif choice == "link-dir":
        out.symlink_to(place)
    elif choice == "link-dangling":
        out.symlink_to(place / "nowhere" / "x")
    elif choice == "link-dev-null":
        out.symlink_to("/dev/null")
    elif choice == "link-dev-full":
        out.symlink_to("/dev/full")
    elif choice == "dev-full":
        out = Path("/dev/full")
    elif choice == "dev-null":
        out = Path("/dev/null")
    elif choice == "dir":
        out = place
    elif choice == "missing-dir":
        out = place / "missing" / "out.json"
    elif choice == "long":
        out = place / ("x" * rng.choice([255, 256, 300, 5000]))
    elif choice == "fifo":
        os.mkfifo(out)
    elif choice == "link-chain":
        (place / "b").symlink_to(victim)
        out.symlink_to(place / "b")
    elif choice == "link-self":
        out.symlink_to(out)
    return out


def test_output_paths_that_are_links_or_devices(tmp_path):
    from hopbench.harness.outputs import write_output_file

    rng = random.Random(37)
    bad = []
    for k in range(COUNTS["outputs"]):
        out = output_target(rng, tmp_path, k)
        data = rng.choice(["{}\n", b"\x00" * rng.randint(0, 70_000), "x" * 10])
        found = outcome(lambda: write_output_file(out, data))
        victim = tmp_path / f"case{k}" / "victim.txt"
        if victim.read_text() != "precious":
            found = found or "wrote through a link"
        if found:
            bad.append((str(out)[:120], found))
    assert not bad, bad[:5]


def test_the_fuzz_makes_over_a_thousand_inputs():
    assert sum(COUNTS.values()) >= 1_000
