"""Alembic migrations of the results store (``env.py`` and ``versions/``); see :mod:`harness.bench.schema`."""
