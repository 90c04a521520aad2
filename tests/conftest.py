"""Shared test helpers."""
from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
GRAPHGOLF = DATA / "graphgolf"


@pytest.fixture
def cli(capsys):
    """Run ``hopbench ARGS`` in-process; returns (exit code, stdout, stderr)."""
    from hopbench.harness.cli import main

    def run(*args: str):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse exits for --help and usage errors
            code = exc.code if isinstance(exc.code, int) else 2
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile every built-in solver's numba kernels once, before any test measures time.

    On a clean checkout (CI) the on-disk numba cache is empty; without this the
    first test to touch a kernel would pay its compilation inside a timed run.
    """
    from hopbench.solvers.contract.warmup import warm_builtin_solvers

    warm_builtin_solvers()


@pytest.fixture(scope="session", autouse=True)
def own_data_dir(tmp_path_factory):
    """The key that signs board manifests lives in a data directory of the test session, never the user's
    (subprocesses inherit it)."""
    import os

    path = tmp_path_factory.mktemp("hopbench-data")
    old = os.environ.get("HOPBENCH_DATA_DIR")
    os.environ["HOPBENCH_DATA_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("HOPBENCH_DATA_DIR", None)
    else:
        os.environ["HOPBENCH_DATA_DIR"] = old
