"""Alembic migrations of the results store (``env.py`` and ``versions/``); see :mod:`hopbench.harness.bench.schema`."""
