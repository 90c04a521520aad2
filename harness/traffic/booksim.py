"""BookSim2 as an alternative simulation engine: config files, runs of the user's binary, its numbers.

BookSim2 (Jiang et al., ISPASS 2013) is the field's cycle-level interconnect simulator.  hopbench
does not ship it: the user builds it (``make -C src`` in a checkout of github.com/booksim/booksim2)
and names the binary with ``--booksim PATH`` or ``HOPBENCH_BOOKSIM=PATH``.  This module

* writes BookSim configs (:func:`booksim_config`): its native ``torus`` / ``mesh`` (``k``, ``n``,
  ``routing_function = dim_order``) or ``anynet`` on any hopbench graph (``routing_function =
  min``, the network file from :func:`anynet_text`); every other parameter is passed through
  under BookSim's own name, with BookSim's default (:data:`BOOKSIM_DEFAULTS`);
* refuses, in one line, a routing BookSim cannot run soundly (:func:`check_routing`);
* finds and checks the binary (:func:`find_booksim`), runs it in a temporary directory under a
  time limit, the whole process group killed at the limit (:func:`run_booksim`), and parses what
  it prints into a :class:`BookSimResult` (one row per offered load; a run BookSim calls unstable,
  or that deadlocks, is a row that says so).

BookSim's own conventions, kept in the rows: loads are flits/cycle/node; ``injection_rate`` is
*packets* per cycle per node unless ``injection_rate_uses_flits = 1``; the packet latency runs
from the packet's creation (source queueing included, ``include_queuing = 1``) to its tail flit's
ejection; BookSim's "Hops average" counts the routers a packet passes (links + 1), and
:attr:`BookSimResult.hops` gives the switch-to-switch links (that value - 1), as hopbench's own
simulator counts them.
"""
from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph

#: the environment variable naming the BookSim binary when ``--booksim`` is not given
ENV = "HOPBENCH_BOOKSIM"
#: the names the config and the anynet network file get in the run's temporary directory
CONFIG_FILE = "booksim.cfg"
NETWORK_FILE = "network.anynet"
#: seconds the binary check (a run without arguments) may take
PROBE_TIMEOUT = 3.0
#: default limit of one simulation, seconds
DEFAULT_TIMEOUT = 600.0
HOW_TO_GET = ("build BookSim2 (git clone https://github.com/booksim/booksim2 && make -C booksim2/src; needs g++, "
              "make, flex, bison) and pass --booksim booksim2/src/booksim or set HOPBENCH_BOOKSIM to it")

BOOKSIM_DEFAULTS: dict[str, int | float | str] = {
    # ---- topology (booksim_config.cpp, "Topology options")
    "topology": "torus",
    "k": 8,                          # routers per dimension
    "n": 2,                          # dimensions
    "c": 1,                          # concentration (nodes per router; torus/mesh use 1)
    "routing_function": "none",      # hopbench writes dim_order (torus, mesh) or min (anynet)
    "use_noc_latency": 1,            # 1: torus channels take 2 cycles, mesh channels 1 (kncube.cpp)
    "subnets": 1,
    # ---- router ("Router options"); the input-queued router ("iq") is BookSim's default
    "router": "iq",
    "num_vcs": 16,
    "vc_buf_size": 8,                # flits per VC buffer (private buffers)
    "buf_size": -1,                  # -1: num_vcs * vc_buf_size per input port
    "buffer_policy": "private",
    "wait_for_tail_credit": 0,       # 0: an output VC is free again once the tail flit is sent
    "vc_busy_when_full": 0,
    "vc_prioritize_empty": 0,
    "vc_shuffle_requests": 0,
    "hold_switch_for_packet": 0,
    "speculative": 0,                # 0: VC and switch allocation in sequence
    "routing_delay": 1,              # 0 would be lookahead routing
    "vc_alloc_delay": 1,
    "sw_alloc_delay": 1,
    "st_prepare_delay": 0,
    "st_final_delay": 1,             # switch traversal = st_prepare_delay + st_final_delay
    "credit_delay": 0,               # extra cycles before a received credit is used
    "input_speedup": 1,
    "output_speedup": 1,
    "internal_speedup": 1.0,
    "output_buffer_size": -1,        # -1: unbounded output queue
    "noq": 0,
    "vc_allocator": "islip",         # iq_router ignores alloc_iters: islip runs 1 iteration
    "sw_allocator": "islip",         # unless written "islip(N)"
    "arb_type": "round_robin",
    "alloc_iters": 1,
    # ---- traffic ("Traffic")
    "classes": 1,
    "traffic": "uniform",            # uniform includes the source itself as a destination
    "injection_process": "bernoulli",
    "injection_rate": 0.1,           # packets/cycle/node (flits if injection_rate_uses_flits = 1)
    "injection_rate_uses_flits": 0,
    "packet_size": 1,                # flits per packet
    "priority": "none",
    "perm_seed": 0,
    "burst_alpha": 0.5,
    "burst_beta": 0.5,
    "burst_r1": -1.0,
    "use_read_write": 0,
    # ---- measurement ("Simulation parameters")
    "sim_type": "latency",
    "warmup_periods": 3,             # sample periods of warm-up (0: until latency/throughput settle)
    "sample_period": 1000,           # cycles per sample period
    "max_samples": 10,               # sample periods in all, warm-up included
    "latency_thres": 500.0,          # mean latency (in-flight packets at their age) above: unstable
    "warmup_thres": 0.05,
    "acc_warmup_thres": 0.05,
    "stopping_thres": 0.05,          # converged: latency and accepted rate change < 5 %, 3 periods running
    "acc_stopping_thres": 0.05,
    "include_queuing": 1,            # packet latency counts from creation (source queue included)
    "sim_count": 1,
    "seed": 0,
    "deadlock_warn_timeout": 256,    # cycles without an ejection before "Possible network deadlock"
}
"""BookSim2's parameters that hopbench passes through, with BookSim's defaults (read from
``booksim_config.cpp`` at commit 28f4329).

hopbench's own cycle-level simulator uses the same names and the same defaults, so one set of
keyword arguments describes a run of either engine.  Every value here is written explicitly into
each config (so what BookSim runs is what this dict and the caller's overrides say, whatever the
binary's own defaults).  Integers must be given as integers, reals as reals (BookSim's config
parser keeps separate integer and real fields).  Left out on purpose: output files and tracing
(``watch_*``, ``stats_out``, ``*_out``), power modelling, fault injection, the cmesh/single-node
fields and per-class vectors.  Two defaults are easy to miss: the allocators are iSLIP with one
iteration (the ``iq`` router ignores ``alloc_iters``), and ``num_vcs`` is 16.
"""

_STR_VALUE = re.compile(r"[A-Za-z_\-/.][A-Za-z0-9_\-/.+(){},]*\Z")   # BookSim's StrConst (config.l)
_NATIVE = ("torus", "mesh")


# --------------------------------------------------------------------------- configs


def _format(key: str, value: Any) -> str:
    default = BOOKSIM_DEFAULTS[key]
    if isinstance(default, str):
        text = str(value)
        if not _STR_VALUE.match(text):
            raise HopbenchError(f"BookSim parameter {key}={value!r} is not a plain word "
                                f"(letters, digits, _-/.+(){{}},); give e.g. {key}={default}")
        return text
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
            raise HopbenchError(f"BookSim parameter {key} must be a finite number, got {value!r}")
        return repr(float(value))
    if isinstance(value, bool):
        value = int(value)
    if not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise HopbenchError(f"BookSim parameter {key} must be an integer, got {value!r}")
    if not -2**31 < int(value) < 2**31:
        raise HopbenchError(f"BookSim parameter {key}={value} is out of range for a C int")
    return str(int(value))


def resolve_params(**params: Any) -> dict[str, Any]:
    """:data:`BOOKSIM_DEFAULTS` updated by ``params`` (unknown names refused, types checked)."""
    out = dict(BOOKSIM_DEFAULTS)
    for key, value in params.items():
        if key not in BOOKSIM_DEFAULTS:
            raise HopbenchError(f"unknown BookSim parameter {key!r}; hopbench passes through: "
                                f"{', '.join(sorted(BOOKSIM_DEFAULTS))}")
        _format(key, value)
        out[key] = value
    return out


def _has_cycle(n: int, edges: list[tuple[int, int]]) -> bool:
    """Whether the undirected graph on ``0..n-1`` with these (deduplicated) edges has a cycle."""
    parent = list(range(n))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for u, v in edges:
        a, b = root(u), root(v)
        if a == b:
            return True
        parent[a] = b
    return False


def _anynet_links(network_text: str) -> tuple[int, list[tuple[int, int]]]:
    """Routers and undirected router-router links of an anynet file (latencies ignored)."""
    routers: set[int] = set()
    links: set[tuple[int, int]] = set()
    for line in network_text.splitlines():
        words = line.split()
        if len(words) < 2:
            continue
        if words[0] != "router":
            continue
        try:
            head = int(words[1])
        except ValueError:
            raise HopbenchError(f"anynet line {line.strip()!r} does not start with 'router <id>'") from None
        routers.add(head)
        i = 2
        while i + 1 < len(words):
            kind, ident = words[i], words[i + 1]
            if kind == "router":
                other = int(ident)
                routers.add(other)
                links.add((min(head, other), max(head, other)))
                i += 2
            elif kind == "node":
                i += 2
            else:
                i += 1          # a link latency
    n = max(routers) + 1 if routers else 0
    return n, sorted(links)


def check_routing(values: dict[str, Any], *, network_text: str | None = None, graph: Graph | None = None,
                  allow_deadlock: bool = False) -> None:
    """Refuse (one-line :class:`HopbenchError`) a topology/routing BookSim cannot run soundly.

    * ``torus`` / ``mesh``: only ``dim_order``; on the torus it splits the VCs into two dateline
      classes (``routefunc.cpp`` ``dim_order_torus``), so ``num_vcs`` must be even and >= 2.
    * ``anynet``: only ``min`` (shortest paths, Dijkstra, lowest router id first).  It has no
      deadlock avoidance, so on a graph with a cycle it can deadlock: refused unless
      ``allow_deadlock`` (a tree is always fine).
    """
    topology = str(values.get("topology"))
    routing = str(values.get("routing_function"))
    num_vcs = int(values.get("num_vcs", BOOKSIM_DEFAULTS["num_vcs"]))
    if topology in _NATIVE:
        if routing != "dim_order":
            raise HopbenchError(f"hopbench runs BookSim's {topology} only with routing_function=dim_order "
                                f"(got {routing!r}); drop the routing_function override")
        if topology == "torus" and (num_vcs < 2 or num_vcs % 2):
            raise HopbenchError(f"BookSim's torus dim_order routing needs an even num_vcs >= 2 (two dateline "
                                f"classes, half the VCs each), got num_vcs={num_vcs}; use e.g. num_vcs=2")
        if num_vcs < 1:
            raise HopbenchError(f"num_vcs must be >= 1, got {num_vcs}")
        return
    if topology == "anynet":
        if routing != "min":
            raise HopbenchError(f"hopbench runs BookSim's anynet only with routing_function=min (got {routing!r})")
        if num_vcs < 1:
            raise HopbenchError(f"num_vcs must be >= 1, got {num_vcs}")
        if graph is not None:
            from_graph = graph.m > 0 and _has_cycle(graph.n, [tuple(e) for e in graph.edges.tolist()])
            cyclic = from_graph
        elif network_text is not None:
            n, links = _anynet_links(network_text)
            cyclic = any(u == v for u, v in links) or _has_cycle(n, links)
        else:
            raise HopbenchError("an anynet run needs its network (a graph or the anynet file's text)")
        if cyclic and not allow_deadlock:
            raise HopbenchError("BookSim's anynet min routing has no deadlock avoidance and this network has a "
                                "cycle, so the run can deadlock; use hopbench's own engine (deadlock-free "
                                "routings), a torus/mesh with dim_order, or allow deadlocks to run it anyway "
                                "(--allow-deadlock; allow_deadlock=True from Python)")
        return
    raise HopbenchError(f"hopbench runs BookSim's torus, mesh or anynet topologies, not {topology!r}")


def anynet_text(graph: Graph, endpoints: int | np.ndarray = 1) -> str:
    """The BookSim ``anynet`` network file of ``graph``: ``router R node E ... router S ...`` per router.

    ``endpoints`` (an integer or one per router) nodes per router, numbered router by router; every
    link on both of its routers' lines.  ``hopbench export --format anynet`` writes this too."""
    counts = np.full(graph.n, int(endpoints), dtype=np.int64) if np.ndim(endpoints) == 0 \
        else np.asarray(endpoints, dtype=np.int64)
    if counts.shape != (graph.n,) or (counts < 0).any():
        raise HopbenchError(f"endpoints must be a count >= 0 or one count per router ({graph.n}), got {endpoints!r}")
    indptr, indices = graph.csr
    first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    lines = []
    for r in range(graph.n):
        parts = [f"router {r}"]
        parts += [f"node {e}" for e in range(int(first[r]), int(first[r + 1]))]
        parts += [f"router {int(s)}" for s in sorted(indices[indptr[r]:indptr[r + 1]].tolist())]
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def booksim_config(topology: str = "torus", *, k: int | None = None, n: int | None = None,
                   graph: Graph | None = None, allow_deadlock: bool = False, **params: Any) -> str:
    """A BookSim config file's text.

    ``topology`` ``torus`` or ``mesh``: ``k`` routers per dimension, ``n`` dimensions (BookSim's
    defaults 8 and 2), ``routing_function = dim_order``.  ``anynet``: ``graph`` is the network
    (its file, :func:`anynet_text`, is read from :data:`NETWORK_FILE`, which :func:`run_booksim`
    writes from its ``network_text``), ``routing_function = min``, refused on a graph with a
    cycle unless ``allow_deadlock``.  ``params``: any of :data:`BOOKSIM_DEFAULTS` by BookSim's
    name.  Every parameter of :data:`BOOKSIM_DEFAULTS` is written, one ``name = value;`` a line.
    """
    if topology not in (*_NATIVE, "anynet"):
        raise HopbenchError(f"BookSim topology must be torus, mesh or anynet, got {topology!r}")
    for key in ("topology", "k", "n"):
        if key in params:
            raise HopbenchError(f"give {key} as booksim_config's own argument, not as a pass-through parameter")
    params.setdefault("routing_function", "min" if topology == "anynet" else "dim_order")
    values = resolve_params(**params)
    values["topology"] = topology
    extra = []
    if topology in _NATIVE:
        if graph is not None:
            raise HopbenchError(f"BookSim's {topology} is built from k and n, not from a graph; use topology='anynet'")
        kk = int(BOOKSIM_DEFAULTS["k"] if k is None else k)
        nn = int(BOOKSIM_DEFAULTS["n"] if n is None else n)
        if kk < 2 or nn < 1:
            raise HopbenchError(f"BookSim's {topology} needs k >= 2 and n >= 1, got k={kk}, n={nn}")
        caps.DIMENSIONS.check(nn, f"the {topology}'s dimension count n")
        caps.VERTICES.check(kk ** nn, f"the {topology}'s router count k^n")
        values["k"], values["n"] = kk, nn
        check_routing(values)
    else:
        if graph is None:
            raise HopbenchError("BookSim's anynet needs the network: pass graph=...")
        if k is not None or n is not None:
            raise HopbenchError("k and n describe BookSim's torus/mesh; an anynet network comes from its graph")
        caps.VERTICES.check(graph.n, "the network's router count")
        check_routing(values, graph=graph, allow_deadlock=allow_deadlock)
        extra.append(f"network_file = {NETWORK_FILE};")
    rate = float(values["injection_rate"])
    packet = int(values["packet_size"])
    per_packet = rate / packet if int(values["injection_rate_uses_flits"]) else rate
    if packet < 1:
        raise HopbenchError(f"packet_size must be >= 1 flit, got {packet}")
    if not 0.0 <= per_packet <= 1.0:
        raise HopbenchError(f"BookSim's Bernoulli injection needs 0 <= packets/cycle/node <= 1, got {per_packet:g} "
                            f"(injection_rate={rate:g}, packet_size={packet}); lower injection_rate")
    lines = ["// written by hopbench (hopbench.harness.traffic.booksim)"]
    lines += [f"{key} = {_format(key, value)};" for key, value in values.items()]
    lines += extra
    return "\n".join(lines) + "\n"


def _config_values(config_text: str) -> dict[str, str]:
    """``name = value`` pairs of a BookSim config (comments dropped; the last assignment wins)."""
    text = re.sub(r"//[^\n]*", "", config_text)
    out: dict[str, str] = {}
    for statement in text.split(";"):
        if "=" in statement:
            key, _, value = statement.partition("=")
            out[key.strip()] = value.strip()
    return out


# --------------------------------------------------------------------------- the binary


_CHECKED: dict[tuple[str, int, int], None] = {}


def find_booksim(path: str | os.PathLike | None = None) -> Path:
    """The BookSim binary: ``path``, else ``$HOPBENCH_BOOKSIM``; checked to exist, be an executable
    file and answer like BookSim (run without arguments, it prints its usage line ``configfile...``).
    The check takes at most :data:`PROBE_TIMEOUT` seconds and is remembered per file version."""
    source = "--booksim"
    if path is None or str(path).strip() == "":
        path = os.environ.get(ENV, "").strip()
        source = ENV
        if not path:
            raise HopbenchError(f"no BookSim binary given: {HOW_TO_GET}")
    p = Path(os.path.expanduser(str(path)))
    if not p.exists():
        raise HopbenchError(f"BookSim binary {p} ({source}) does not exist; {HOW_TO_GET}")
    if p.is_dir():
        inside = [c for c in (p / "src" / "booksim", p / "booksim") if c.is_file()]
        hint = f"did you mean {inside[0]}?" if inside else "name the booksim executable inside it (its src/booksim)"
        raise HopbenchError(f"BookSim binary {p} ({source}) is a directory; {hint}")
    if not p.is_file():
        raise HopbenchError(f"BookSim binary {p} ({source}) is not a regular file; {HOW_TO_GET}")
    if not os.access(p, os.X_OK):
        raise HopbenchError(f"BookSim binary {p} ({source}) is not executable; name the built binary "
                            f"(booksim2/src/booksim after make), or chmod +x it if it is one")
    p = p.resolve()
    st = p.stat()
    key = (str(p), st.st_mtime_ns, st.st_size)
    if key in _CHECKED:
        return p
    try:
        code, out, err, _ = _run([str(p)], cwd=None, timeout=PROBE_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise HopbenchError(f"{p} ({source}) did not answer within {PROBE_TIMEOUT:g} s when run without arguments, "
                            f"so it is not BookSim2; {HOW_TO_GET}") from None
    except OSError as exc:
        raise HopbenchError(f"{p} ({source}) cannot be run ({exc.strerror or exc}); it is not a BookSim2 binary "
                            f"for this machine; {HOW_TO_GET}") from None
    if "configfile" not in out + err:
        said = (err.strip() or out.strip()).splitlines()
        shown = f"it printed {said[0][:80]!r}" if said else "it printed nothing"
        raise HopbenchError(f"{p} ({source}) is not BookSim2: run without arguments BookSim prints its usage "
                            f"('Usage: booksim configfile...'), {shown}; {HOW_TO_GET}")
    _CHECKED[key] = None
    return p


def _run(argv: list[str], *, cwd: str | None, timeout: float) -> tuple[int, str, str, float]:
    """Run ``argv`` in its own process group; on timeout (re-raised) or any interruption the whole
    group is killed.  Returns (exit code, stdout, stderr, wall seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.communicate()
        raise
    return (proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
            time.perf_counter() - start)


# --------------------------------------------------------------------------- results


@dataclass
class BookSimResult:
    """One BookSim run (one offered load), parsed.  Loads in flits/cycle/node, latencies in cycles.

    For a run BookSim reports unstable (mean latency, in-flight packets counted at their age, over
    ``latency_thres``; it then prints no overall statistics), the latencies are ``None`` and
    ``accepted`` / ``injected`` are those of its last sample period."""

    offered: float                      #: flits/cycle/node asked for (injection_rate in flits)
    injected: float | None              #: flits/cycle/node injected during the measurement
    accepted: float | None              #: flits/cycle/node ejected during the measurement
    latency_mean: float | None          #: packet latency, creation to tail ejection
    latency_min: float | None
    latency_max: float | None
    network_latency: float | None       #: head injection to tail ejection
    network_latency_min: float | None
    network_latency_max: float | None
    flit_latency: float | None          #: per flit, injection to ejection
    hops: float | None                  #: switch-to-switch links per packet (BookSim's "Hops average" - 1)
    accepted_packets: float | None      #: packets/cycle/node ejected
    cycles: int | None                  #: simulated cycles, warm-up and drain included ("Time taken")
    saturated: bool                     #: unstable, or accepted below 95 % of offered
    deadlock: bool                      #: unstable after BookSim warned of a possible deadlock
    status: str                         #: ``ok``, ``unstable`` or ``deadlock``
    deadlock_warnings: int = 0          #: "Possible network deadlock" lines (each after 256 idle cycles)
    wall_s: float = 0.0                 #: wall-clock seconds of the run
    booksim_seconds: float | None = None  #: BookSim's own "Total run time"
    output_tail: str = field(default="", repr=False)  #: the last 40 lines BookSim printed

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def row(self) -> dict[str, Any]:
        """The result as a table row (no raw output), keys shared with hopbench's own simulator."""
        out = self.as_dict()
        out.pop("output_tail")
        out["engine"] = "booksim"
        return out


_NUMBER = r"(-?nan|-?inf|[-+0-9.eE]+)"
_STAT = re.compile(r"^(?P<name>[A-Z][A-Za-z \-]*?) (?:average ?= ?|= ?)" + _NUMBER)
_MINMAX = re.compile(r"^\s+(?P<which>minimum|maximum) = " + _NUMBER)


def _num(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _parse_block(lines: list[str]) -> dict[str, float | None]:
    """``{"packet latency": x, "packet latency min": y, ...}`` from a statistics block."""
    out: dict[str, float | None] = {}
    last = None
    for line in lines:
        m = _MINMAX.match(line)
        if m and last is not None:
            out[f"{last} {m['which'][:3]}"] = _num(m.group(2))
            continue
        m = _STAT.match(line)
        if m:
            last = m["name"].strip().lower()
            out[last] = _num(m.group(2))
        elif not line.startswith("\t"):
            last = None
    return out


def parse_output(stdout: str, stderr: str = "", *, offered: float, returncode: int | None = None,
                 wall_s: float = 0.0) -> BookSimResult:
    """A :class:`BookSimResult` from what BookSim printed; anything that is neither a finished nor an
    unstable BookSim run is a one-line :class:`HopbenchError` quoting BookSim's error."""
    lines = stdout.splitlines()
    tail = "\n".join(lines[-40:])
    unstable = any(line.startswith("Simulation unstable") for line in lines)
    warnings = sum(1 for line in lines if "Possible network deadlock" in line)
    overall_at = next((i for i, line in enumerate(lines) if line.startswith("====== Overall Traffic Statistics")), None)
    if overall_at is None and not unstable:
        errors = [line.strip() for line in (stderr.splitlines() + lines)
                  if re.match(r"\s*(Error|Parse error|Unknown|Could not|Usage|Anynet:|No network file)", line)]
        said = errors[0] if errors else (stderr.strip().splitlines() or lines or ["nothing"])[-1].strip()
        if not errors and not any("BEGIN Configuration File" in line for line in lines):
            raise HopbenchError(f"the binary did not answer like BookSim2 (exit code {returncode}, last words "
                                f"{said[:120]!r}); {HOW_TO_GET}")
        raise HopbenchError(f"BookSim stopped with an error (exit code {returncode}): {said[:200]}; "
                            f"check the parameters passed to it")
    seconds = next((_num(line.split()[-1]) for line in lines if line.startswith("Total run time")), None)
    cycles = next((int(m[1]) for line in lines if (m := re.match(r"Time taken is (\d+) cycles", line))), None)
    if overall_at is not None:
        stats = _parse_block(lines[overall_at + 1:])
    else:
        # the last sample period's block (an abort during the drain prints "Class 0:" blocks of
        # remaining flits after it, without rates)
        stats = {}
        for start in reversed([i for i, line in enumerate(lines) if line.strip() == "Class 0:"]):
            block = _parse_block(lines[start + 1:])
            if "accepted flit rate" in block:
                stats = {key: value for key, value in block.items() if "rate" in key}
                break
    accepted = stats.get("accepted flit rate")
    booksim_hops = stats.get("hops")
    saturated = unstable or (accepted is not None and accepted < 0.95 * offered)
    deadlock = unstable and warnings > 0
    return BookSimResult(
        offered=offered, injected=stats.get("injected flit rate"), accepted=accepted,
        latency_mean=stats.get("packet latency"), latency_min=stats.get("packet latency min"),
        latency_max=stats.get("packet latency max"),
        network_latency=stats.get("network latency"), network_latency_min=stats.get("network latency min"),
        network_latency_max=stats.get("network latency max"),
        flit_latency=stats.get("flit latency"),
        hops=None if booksim_hops is None else booksim_hops - 1.0,
        accepted_packets=stats.get("accepted packet rate"),
        cycles=cycles, saturated=saturated, deadlock=deadlock,
        status="deadlock" if deadlock else ("unstable" if unstable else "ok"),
        deadlock_warnings=warnings, wall_s=wall_s, booksim_seconds=seconds, output_tail=tail)


def offered_flits(config_text: str) -> float:
    """The offered load of a config, flits/cycle/node (``injection_rate`` x ``packet_size`` unless
    ``injection_rate_uses_flits``; BookSim's defaults for what the config leaves out)."""
    values = _config_values(config_text)
    try:
        rate = float(values.get("injection_rate", BOOKSIM_DEFAULTS["injection_rate"]))
        packet = float(values.get("packet_size", BOOKSIM_DEFAULTS["packet_size"]))
        in_flits = int(values.get("injection_rate_uses_flits", BOOKSIM_DEFAULTS["injection_rate_uses_flits"]))
    except ValueError:
        raise HopbenchError("the BookSim config's injection_rate, packet_size or injection_rate_uses_flits "
                            "is not a single number") from None
    return rate if in_flits else rate * packet


def run_booksim(binary: str | os.PathLike | None, config_text: str, *, network_text: str | None = None,
                timeout: float = DEFAULT_TIMEOUT, allow_deadlock: bool = False) -> BookSimResult:
    """Run BookSim on ``config_text`` (e.g. from :func:`booksim_config`) and parse its statistics.

    ``binary``: a path, or ``None`` for ``$HOPBENCH_BOOKSIM`` (checked by :func:`find_booksim`).
    The run happens in a fresh temporary directory holding :data:`CONFIG_FILE` and, for anynet,
    ``network_text`` as :data:`NETWORK_FILE`.  The routing is checked as :func:`check_routing`
    does (an anynet network with a cycle needs ``allow_deadlock``).  Past ``timeout`` seconds the
    run's process group is killed and a one-line error raised.
    """
    exe = find_booksim(binary)
    values = _config_values(config_text)
    merged = {**BOOKSIM_DEFAULTS, **values}
    if merged.get("topology") == "anynet":
        if network_text is None:
            raise HopbenchError("an anynet config needs its network: pass network_text (see anynet_text)")
        if values.get("network_file", NETWORK_FILE) != NETWORK_FILE:
            raise HopbenchError(f"the anynet config must read network_file = {NETWORK_FILE} (run_booksim writes it)")
    try:
        merged["num_vcs"] = int(merged["num_vcs"])
    except ValueError:
        raise HopbenchError(f"num_vcs must be an integer, got {merged['num_vcs']!r}") from None
    check_routing(merged, network_text=network_text, allow_deadlock=allow_deadlock)
    offered = offered_flits(config_text)
    if not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf):
        raise HopbenchError(f"timeout must be a positive number of seconds, got {timeout!r}")
    with tempfile.TemporaryDirectory(prefix="hopbench-booksim-") as tmp:
        Path(tmp, CONFIG_FILE).write_text(config_text)
        if network_text is not None:
            Path(tmp, NETWORK_FILE).write_text(network_text)
        try:
            code, out, err, wall = _run([str(exe), CONFIG_FILE], cwd=tmp, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise HopbenchError(f"BookSim ran past the {timeout:g} s time limit and was stopped; raise the "
                                f"limit or shorten the run (sample_period, max_samples, a smaller network)") from None
        except OSError as exc:
            raise HopbenchError(f"BookSim binary {exe} cannot be run ({exc.strerror or exc}); {HOW_TO_GET}") from None
    return parse_output(out, err, offered=offered, returncode=code, wall_s=wall)
