"""Fixtures of the results-store and tuning tests: a fresh schema of the test PostgreSQL server."""
from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


def with_options(base: str, options: str) -> str:
    """``base`` with libpq's ``options`` set (for example ``-csearch_path=S``), the password kept."""
    return make_url(base).update_query_dict({"options": options}).render_as_string(hide_password=False)


@pytest.fixture
def postgres_schema():
    """A fresh schema of the test PostgreSQL database (HOPBENCH_TEST_POSTGRES_URL); yields (url, schema).

    The tests share one database; a schema of their own gives each an empty database, so that a test of
    what happens to a new store does not depend on which test ran first."""
    base = os.environ.get("HOPBENCH_TEST_POSTGRES_URL")
    if not base:
        if os.environ.get("HOPBENCH_REQUIRE_POSTGRES"):
            pytest.fail("HOPBENCH_REQUIRE_POSTGRES is set but HOPBENCH_TEST_POSTGRES_URL is not")
        pytest.skip("set HOPBENCH_TEST_POSTGRES_URL=postgresql://... to test a PostgreSQL store (CI does)")
    name = f"hopbench_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f"create schema {name}"))
    yield base, name
    with admin.begin() as conn:
        conn.execute(text(f"drop schema {name} cascade"))
    admin.dispose()


@pytest.fixture
def empty_postgres_url(postgres_schema) -> str:
    """The URL of an empty PostgreSQL database: every connection sees the fresh schema first."""
    base, name = postgres_schema
    return with_options(base, f"-csearch_path={name}")
