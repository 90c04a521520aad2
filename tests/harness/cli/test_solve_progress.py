"""``hopbench solve`` on a terminal: one updating stderr line while the solver runs (the warm-up,
then the incumbent, the lower bound and the elapsed seconds), nothing of it otherwise; and an
exact solver's status, bound and gap after the result."""
from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from hopbench.harness.cli.solve import LiveLine, fit, lower_bound_of, proof_line
from hopbench.solvers.contract.budget import TracePoint

ROOT = Path(__file__).resolve().parents[3]
SOLVE = ["solve", "--base", "torus:4x4", "--cap", "6", "--budget", "4", "--solver", "random", "--seed", "1"]


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def shown(out: io.StringIO) -> str:
    """What the terminal shows now: the text after the last carriage return (without its padding)."""
    return out.getvalue().rpartition("\r")[2].rstrip()


def test_live_line_shows_warm_up_then_incumbent_bound_and_time_and_is_wiped():
    clock, out = Clock(), io.StringIO()
    with LiveLine(out, "annealing", 2.0, clock=clock, interval=0, width=200) as line:
        assert shown(out) == "annealing: warming up (numba compiles its kernels, once per install) 0 s"
        clock.now += 30
        line.start()
        assert shown(out) == "annealing 0.0 s  |  incumbent none yet  |  lower bound 2"
        clock.now += 1.5
        line.report(TracePoint(1.5, 40, 3.0))
        assert shown(out) == "annealing 1.5 s  |  incumbent 3  |  lower bound 2 (+50.00%)  |  40 evaluations"
        drawn = len(out.getvalue())
        clock.now += 0.01
        line.report(TracePoint(1.51, 50, 2.5))  # within 0.1 s of the last draw: kept, drawn later
        assert len(out.getvalue()) == drawn and line.best == 2.5
        clock.now += 1
        line.draw(force=True)  # what the ticking thread does
        last = out.getvalue().rpartition("\r")[2]
        assert shown(out) == "annealing 2.5 s  |  incumbent 2.500000  |  lower bound 2 (+25.00%)  |  50 evaluations"
    text = out.getvalue()
    assert text.endswith("\r" + " " * len(last) + "\r")  # the line is wiped before the result is printed
    assert "\n" not in text


def test_live_line_fits_the_terminal_and_knows_no_bound():
    clock, out = Clock(), io.StringIO()
    with LiveLine(out, "x", None, clock=clock, interval=0, width=30) as line:
        line.start()
        line.report(TracePoint(0.1, 0, 7.0))
    assert all(len(part) <= 29 for part in out.getvalue().split("\r"))
    assert "lower bound" not in out.getvalue()


def test_live_line_counts_evaluations_between_improvements():
    """The count comes from the run's reporter on every redraw (the ticking thread's, twice a second), not only
    from the improvements the solver reports."""
    clock, out = Clock(), io.StringIO()

    class Reporter:
        evaluations = 0

    reporter = Reporter()
    with LiveLine(out, "annealing", 2.0, clock=clock, interval=0, width=200) as line:
        line.start()
        line.watch(reporter)
        clock.now += 0.5
        line.report(TracePoint(0.1, 5, 3.0))
        assert shown(out).endswith("|  5 evaluations")
        reporter.evaluations = 123_456  # no improvement since
        clock.now += 1
        line.draw(force=True)
        assert shown(out).endswith("|  123,456 evaluations") and "incumbent 3 " in shown(out) + " "


@pytest.mark.parametrize("width", [200, 100, 90, 80, 70, 60, 50, 40, 30, 20, 12, 10])
def test_the_line_fits_any_width_and_never_cuts_a_number(width):
    clock, out = Clock(), io.StringIO()

    class Reporter:
        evaluations = 123_456

    line = LiveLine(out, "edgecut-full", 2.230769, clock=clock, interval=0, width=width)
    line.start()
    line.watch(Reporter())
    clock.now += 12.345
    line.report(TracePoint(1.0, 10, 4.113248))
    full = line.text()
    text = line.text(width)
    assert len(text) <= width
    numbers = re.findall(r"[-+]?\d[\d,.]*%?", full)
    for token in re.findall(r"[-+]?\d[\d,.]*%?", text):
        assert token in numbers or token in ("12",), (token, text)  # "12s" is the seconds, shortened
    assert "4.113248" in text  # the incumbent is the last thing to go
    if len(full) <= width:
        assert text == full
    if width >= 60:
        assert "123,456" in text and "edgecut-full" in text


def test_fit_cuts_a_single_long_part_at_a_space():
    assert fit("warming up 12345 s", 16) == "warming up..."
    assert fit("abc 1234567", 9) == "1234567"  # a number that fits is kept whole
    assert fit("abc 1234567890", 9) == "abc..."
    assert len(fit("x" * 50, 10)) <= 10


def test_lower_bound_of_a_problem():
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem

    problem = ShortcutProblem(parse_spec("torus:4x4"), 6, 4, base_spec="torus:4x4")
    assert lower_bound_of(problem) == pytest.approx(problem.objective_lower_bound())
    assert lower_bound_of(object()) is None


def test_proof_line_reports_status_bound_and_gap():
    assert proof_line({"status": "optimal", "bound": 1.9333333333, "gap": 0.0}) == \
        "status optimal  bound 1.933333  gap 0.00%"
    assert proof_line({"status": "feasible", "bound": 2, "gap": 0.1234}) == "status feasible  bound 2  gap 12.34%"
    assert proof_line({"status": "unknown", "bound": None, "gap": float("inf")}) == \
        "status unknown  bound unknown  gap inf"
    assert proof_line({}) == "" and proof_line({"phases": []}) == ""


def test_solve_prints_milp_status_bound_and_gap(cli):
    pytest.importorskip("ortools")
    code, out, err = cli("solve", "--base", "ring:10", "--cap", "3", "--budget", "3", "--solver", "milp",
                         "--time-limit", "20")
    assert code == 0, err
    assert out.splitlines()[-1].startswith("milp: status optimal  bound ") and out.rstrip().endswith("gap 0.00%")
    assert err == ""  # stderr is no terminal here: no live line
    code, out, _ = cli(*SOLVE)
    assert code == 0 and "status" not in out  # solvers that prove nothing print no such line


def _solve_on_a_terminal(*extra: str) -> tuple[str, str]:
    """Run ``hopbench solve`` with stderr on a pseudo-terminal; returns (what the terminal got, stdout)."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen([sys.executable, "-m", "hopbench.harness.cli", *SOLVE, *extra], stdout=subprocess.PIPE,
                            stderr=slave, env=env, cwd=ROOT)
    os.close(slave)
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        stdout = proc.communicate(timeout=300)[0]
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    return seen.decode(errors="replace"), stdout.decode()


def test_solve_shows_a_live_line_on_a_terminal_only():
    terminal, stdout = _solve_on_a_terminal("--time-limit", "1")
    assert "random: warming up" in terminal and "incumbent" in terminal and "lower bound" in terminal
    assert "\n" not in terminal.strip("\r ")  # one line, rewritten in place, then wiped
    assert stdout.startswith("random (seed 1) on torus:4x4")
    terminal, stdout = _solve_on_a_terminal("--json")
    assert terminal == "" and stdout.startswith("{")
    plain = subprocess.run([sys.executable, "-m", "hopbench.harness.cli", *SOLVE], capture_output=True, text=True, cwd=ROOT,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert plain.returncode == 0 and plain.stderr == ""
