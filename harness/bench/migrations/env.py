"""Alembic environment of the results store.

``hopbench.harness.bench.store`` runs it with an open connection (``config.attributes["connection"]``,
already inside the transaction that holds the schema lock).  From a checkout, the
``alembic`` command works too (``[tool.alembic]`` in pyproject.toml names this folder)::

    alembic revision --rev-id 0002 -m "add runs.memory_mb"     # a new, empty migration
    alembic -x url=sqlite:///hopbench.db upgrade head          # or: upgrade head --sql

The version table is ``hopbench_alembic_version``, not Alembic's default: an Optuna study
kept in the same database has its own ``alembic_version``.  Only hopbench's tables take part
in comparisons, so autogenerate never offers to drop Optuna's.
"""
from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from hopbench.harness.bench.schema import VERSION_TABLE, metadata


def include_name(name: str | None, type_: str, parent_names: dict) -> bool:
    return type_ != "table" or name in metadata.tables


def configure(**kw) -> None:
    context.configure(target_metadata=metadata, version_table=VERSION_TABLE, include_name=include_name,
                      render_as_batch=True,  # SQLite alters a table by copying it
                      **kw)


def url() -> str:
    given = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option("sqlalchemy.url")
    if not given:
        raise SystemExit("give the store's URL: alembic -x url=sqlite:///hopbench.db ...")
    return given


connection = context.config.attributes.get("connection")
if context.is_offline_mode():
    configure(url=url(), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
elif connection is not None:
    configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()
else:
    engine = create_engine(url())
    with engine.connect() as connection:
        configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()
