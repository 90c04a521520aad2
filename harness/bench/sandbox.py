"""Run cells in a warm child process that can be killed when a cell overruns.

The coordinator (or a Dask worker) calls :func:`run_isolated` from any thread.
Each thread keeps one child ``python -m hopbench.harness.bench.sandbox`` process, started
once and reused for many cells: cells go in as JSON lines on its stdin, and
messages come back as JSON lines on its stdout — ``ready`` once the child has
imported everything, ``warming`` (with the solver's name) when it starts the
one-time warm-up of a solver, ``started`` when a cell's clock starts (after that
warm-up, so JIT compilation is never charged to a cell), then the result — or,
instead of ``started``, ``warm-up failed`` with the error when a plug-in's
warm-up raised.  The parent passes the warm-up on to a listener (the runner's
progress display), and each result's ``timing`` tells the seconds spent warming
up from the seconds the cell itself ran.  A cell that has not answered by its
hard limit (1.2 x time limit + 5 s after it started) is killed with the child
and recorded as ``timeout``; a child that dies is recorded as ``error``; either
way a fresh child serves the next cell.  Using a subprocess (not multiprocessing)
keeps this working inside Dask's daemonic worker processes.

Every solver is warmed up; the warm-up has its own limit
(:func:`hopbench.harness.bench.cells.warm_up_limit`: minutes for a solver shipped with hopbench,
``$HOPBENCH_PLUGIN_WARMUP_LIMIT`` = 60 s for a plug-in).  A plug-in whose warm-up fails —
raises, kills its worker or overruns its limit — gets that failure as its cell's row (an
error starting ``warm-up``), and so does every later cell of the same solver and
parameters in this process, at once: it is not warmed up again, since each attempt would
cost the same minute for the same result.  ``--rerun failed`` tries again.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from typing import Any, Callable

from hopbench.harness._paths import IMPORT_ROOT
from hopbench.harness.bench.cells import failed_result, hard_limit, trusted, warm_up_limit
from hopbench.solvers.contract.limits import PLUGIN_MEMORY_LIMIT_ENV, PLUGIN_WARMUP_LIMIT_ENV, plugin_memory_limit, shown_bytes

#: seconds a new child may take to import harness, solvers and numba
STARTUP_TIMEOUT = 300.0
#: set by the parent in a plug-in sandbox's environment: the bytes of address space the child allows itself
SANDBOX_MEMORY_ENV = "HOPBENCH_SANDBOX_ADDRESS_SPACE"

#: ``listener(event, solver)``: told of a sandbox's warm-ups, from the thread that drives it
Listener = Callable[[str, str], None]

_local = threading.local()
_all: "weakref.WeakSet[Sandbox]" = weakref.WeakSet()
#: plug-in warm-ups that failed: run, solver and parameters (:func:`failure_key`) -> (status, error)
_failed_warm_ups: dict[str, tuple[str, str]] = {}
_failed_lock = threading.Lock()


class Sandbox:
    """One child process that runs cells sequentially."""

    def __init__(self, threads: int = 1, memory: int | None = None) -> None:
        env = dict(os.environ)
        env["NUMBA_NUM_THREADS"] = str(max(1, threads))
        # a plug-in's sandbox: its address space is capped (RLIMIT_AS, soft and hard, set by the child itself
        # before it imports anything), so a plug-in that allocates too much fails alone
        self.memory = memory
        env.pop(SANDBOX_MEMORY_ENV, None)
        if memory is not None:
            env[SANDBOX_MEMORY_ENV] = str(int(memory))
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        # the child must import the same hopbench as this process
        root = str(IMPORT_ROOT)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", "hopbench.harness.bench.sandbox"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, env=env, start_new_session=True)
        self.ready = False
        self.phase = "start"
        self.clock = time.monotonic()
        self.sent_at = self.clock
        self.warming: str | None = None  # the solver whose warm-up is under way
        self._buffer = b""
        _all.add(self)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the solver may have children of its own
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def close(self) -> None:
        """Ask the child to finish (EOF on stdin); kill it if it does not."""
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()
        self.stderr.close()

    def stderr_tail(self, lines: int = 3) -> str:
        try:
            self.stderr.seek(0)
            text = self.stderr.read().decode(errors="replace").strip().splitlines()
            return " | ".join(text[-lines:])
        except (OSError, ValueError):
            return ""

    def _receive(self, deadline: float) -> dict[str, Any]:
        # raw reads into our own buffer: a buffered readline could swallow the next
        # message too, and select() would then wait for data that already arrived
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout()
            readable, _, _ = select.select([fd], [], [], min(remaining, 1.0))
            if readable:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise _Died(self.proc.wait())
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def start_cell(self, cell: dict[str, Any], notify: Listener | None = None) -> float:
        """Send a cell; return the monotonic time its clock started (after any warm-up).

        ``self.clock`` holds the time from which a timeout is measured: when the
        cell was sent, then when it started.  ``notify(event, solver)`` hears
        ``"warming"`` when the child starts warming the cell's solver up and
        ``"warmed"`` when that warm-up is over.
        """
        if not self.ready:
            try:
                self._receive(time.monotonic() + STARTUP_TIMEOUT)  # the "ready" message
            except _Timeout:
                raise _Died(f"none: the worker did not start within {STARTUP_TIMEOUT:g} s") from None
            self.ready = True
        try:
            self.proc.stdin.write((json.dumps(cell) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _Died(self.proc.poll()) from None
        self.clock = self.sent_at = time.monotonic()
        self.phase = "warm-up"
        deadline = self.clock + warm_up_limit(cell)
        message = self._receive(deadline)
        while message.get("event") == "warming":  # then "started", after the solver's one-time warm-up
            self.warming = str(message.get("solver"))
            if notify is not None:
                notify("warming", self.warming)
            message = self._receive(deadline)
        if message.get("event") == "warm-up failed":
            raise _WarmUpFailed(str(message.get("error")))
        if self.warming is not None:
            if notify is not None:
                notify("warmed", self.warming)
            self.warming = None
        self.phase = "run"
        self.clock = time.monotonic()
        return self.clock

    def finish_cell(self, deadline: float) -> dict[str, Any]:
        return self._receive(deadline)


class _Timeout(Exception):
    pass


class _Died(Exception):
    pass


class _WarmUpFailed(Exception):
    pass


def warm_up_key(cell: dict[str, Any]) -> str:
    """What is warmed up once: the solver with its parameters."""
    return json.dumps([cell["solver"], cell["params"]], sort_keys=True, default=str)


def failure_key(cell: dict[str, Any]) -> str:
    """What a failed plug-in warm-up stands for: its solver and parameters within one run (the ``run``
    token the runner puts in its cells), so that a long-lived Dask worker tries again in the next run."""
    return f"{cell.get('run')}|{warm_up_key(cell)}"


def run_isolated(cell: dict[str, Any], notify: Listener | None = None) -> dict[str, Any]:
    """Run ``cell`` in this thread's sandbox, enforcing the hard time limit.

    ``notify(event, solver)`` (optional, called from this thread) hears of the solver's
    warm-up: ``"warming"``, then ``"warmed"`` or, when the warm-up was killed or its
    worker died, ``"warm-up failed"``.  The result's ``timing`` holds ``warm_up_s`` (the
    seconds from sending the cell to its clock's start) and ``run_s`` (from then to the
    result; None when the cell never started).
    """
    from hopbench.harness.bench.store import now

    plugin = not trusted(cell)
    if plugin:
        with _failed_lock:
            earlier = _failed_warm_ups.get(failure_key(cell))
        if earlier is not None:  # the same warm-up again would cost the same minute for the same failure
            status, error = earlier
            result = failed_result(cell, status, f"{error} (in an earlier cell of {cell['solver']} with these "
                                                 f"parameters; not retried in this run)", elapsed_s=0.0,
                                   started_at=now().isoformat())
            result["timing"] = {"warm_up_s": 0.0, "run_s": None}
            return result
    # plug-ins run in a sandbox of their own, whose address space is capped; a shipped solver's is not
    slot = "plugin_box" if plugin else "box"
    box: Sandbox | None = getattr(_local, slot, None)
    if box is None or not box.alive():
        box = Sandbox(cell.get("threads", 1), plugin_memory_limit() if plugin else None)
        setattr(_local, slot, box)
    started = now()
    limit = hard_limit(cell)
    t0 = None
    try:
        t0 = box.start_cell(cell, notify)
        result = box.finish_cell(t0 + limit)
        result["timing"] = _timing(box, t0)
        return result
    except _Timeout:
        box.kill()
        setattr(_local, slot, None)
        waited = time.monotonic() - box.clock
        if box.phase != "warm-up":
            error = f"killed after {waited:.1f} s: still running at the hard limit of a {cell['time_limit']:g} s cell"
        elif plugin:
            error = (f"warm-up timed out: killed after {waited:.1f} s, over the {warm_up_limit(cell):g} s a plug-in "
                     f"solver's one-time warm-up may take; {PLUGIN_WARMUP_LIMIT_ENV}=SECONDS allows more")
        else:
            error = (f"warm-up timed out: killed after {waited:.1f} s in the solver's one-time warm-up (JIT "
                     f"compilation and a minimal run), which may take {warm_up_limit(cell):g} s")
        status = "timeout"
    except _Died as exc:
        tail = box.stderr_tail()
        box.kill()
        setattr(_local, slot, None)
        status, error = "error", f"worker process died (exit code {exc.args[0]})" + (f": {tail}" if tail else "")
        if box.phase == "warm-up":
            error = f"warm-up failed: {error}"
    except _WarmUpFailed as exc:
        box.kill()  # whatever the failed plug-in left behind (threads, memory) goes with its child
        setattr(_local, slot, None)
        status, error = "error", str(exc.args[0])
    if box.warming is not None and notify is not None:
        notify("warm-up failed", box.warming)
        box.warming = None
    if plugin and box.phase == "warm-up":
        with _failed_lock:
            _failed_warm_ups.setdefault(failure_key(cell), (status, error))
    result = failed_result(cell, status, error, elapsed_s=time.monotonic() - box.clock, started_at=started.isoformat())
    result["timing"] = _timing(box, t0)
    return result


def _timing(box: Sandbox, t0: float | None) -> dict[str, float | None]:
    """Seconds a cell spent in its solver's warm-up and in its own run (None: it never started)."""
    end = time.monotonic()
    if t0 is None:
        return {"warm_up_s": max(0.0, end - box.sent_at) if box.phase == "warm-up" else 0.0, "run_s": None}
    return {"warm_up_s": t0 - box.sent_at, "run_s": end - t0}


def close_all(*, kill: bool = False) -> None:
    """Stop every sandbox this process started (called when a run ends): ask each to finish, or ``kill``
    them at once (a run that stops early: the threads driving them then see their cells die)."""
    for box in list(_all):
        if kill:
            box.kill()
        else:
            box.close()
    with _failed_lock:
        _failed_warm_ups.clear()


def _serve() -> None:
    """Child side: read cells from stdin, write one JSON result line per cell."""
    limit_address_space()
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything a solver prints goes to stderr, never into the protocol

    from hopbench.harness.documents import json_default

    def send(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message, default=json_default, allow_nan=True) + "\n")
        protocol.flush()

    from hopbench.harness.bench.cells import run_cell, warm_up, warm_up_failure
    from hopbench.harness.errors import HopbenchError
    from hopbench.solvers.contract.registry import load_all
    from hopbench.solvers.contract.warmup import WarmUpFailed

    _exit_with_parent()
    load_all()  # import every solver module now, not inside a cell
    send({"event": "ready"})
    warmed: set[str] = set()  # what warm_up() has done in this process (once per solver and parameters)
    for line in sys.stdin:
        if not line.strip():
            continue
        cell = json.loads(line)
        key = warm_up_key(cell)
        if key not in warmed:
            send({"event": "warming", "solver": cell["solver"]})  # the parent shows it: compiling takes a while
        warmed.add(key)
        try:
            # the parent enforces the limits; these alarms (default action: terminate) only matter when
            # the parent is gone, so that an orphaned run cannot go on for ever
            signal.alarm(int(warm_up_limit(cell)) + 5)
            warm_up(cell)
        except WarmUpFailed as exc:
            signal.alarm(0)
            end_strays(cell)
            send({"event": "warm-up failed", "error": warm_up_failure(exc)})
            continue
        except HopbenchError as exc:  # e.g. a malformed HOPBENCH_PLUGIN_WARMUP_LIMIT on this worker
            signal.alarm(0)
            send({"event": "warm-up failed", "error": f"warm-up not run: {exc}"})
            continue
        send({"event": "started"})
        signal.alarm(int(hard_limit(cell)) + 5)
        result = run_cell(cell)
        signal.alarm(0)
        end_strays(cell)
        send(result)


def limit_address_space() -> None:
    """Child side, first thing: cap this process's address space (``RLIMIT_AS``, soft and hard, so the plug-in
    cannot raise it again) when the parent asked for it (:data:`SANDBOX_MEMORY_ENV`, a plug-in's sandbox)."""
    text = os.environ.get(SANDBOX_MEMORY_ENV)
    if not text:
        return
    import resource

    limit = int(text)
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def end_strays(cell: dict[str, Any]) -> None:
    """After a plug-in's cell: kill what it started and left running (this sandbox leads its own process group)."""
    if not trusted(cell):
        kill_process_group_but_me()


def _group_members(group: int) -> list[int]:
    """The live processes of process group ``group`` (Linux: read from /proc; elsewhere, none are found)."""
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return members
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rfind(b")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if len(fields) > 2 and fields[0] not in (b"Z", b"X") and int(fields[2]) == group:
            members.append(int(entry))
    return members


def kill_process_group_but_me(rounds: int = 50) -> int:
    """SIGKILL every other process of this process's group (grandchildren a solver left behind), again until
    none is left (one may fork while its siblings die); reap this process's own dead children.  Returns how many
    were killed.  A process that left the group (``setsid``) is out of reach, as for the runner's ``killpg``."""
    me, group = os.getpid(), os.getpgrp()
    killed = 0
    for _ in range(rounds):
        found = [pid for pid in _group_members(group) if pid != me]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        while True:  # reap our own children, so they do not linger as zombies of the group
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        time.sleep(0.01)
    return killed


def _exit_with_parent() -> None:
    """Leave when the coordinating process dies (a kill -9 closes no pipe until the cell ends)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, daemon=True, name="hopbench-parent-watch").start()


if __name__ == "__main__":
    _serve()
