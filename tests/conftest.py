"""Shared test helpers."""
from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
GRAPHGOLF = DATA / "graphgolf"


@pytest.fixture
def cli(capsys):
    """Run ``hopbench ARGS`` in-process; returns (exit code, stdout, stderr)."""
    from harness.cli import main

    def run(*args: str):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse exits for --help and usage errors
            code = exc.code if isinstance(exc.code, int) else 2
        out, err = capsys.readouterr()
        return code, out, err

    return run
