"""The results store as release ad9cf91 created it: runs, traces, tuned_params.

Revision ID: 0001
Revises:
Create Date: 2026-11-23

A store made before versioning has exactly these tables; opening it for writing
stamps it with this revision instead of running it.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("cell_key", sa.String(512), nullable=False, unique=True),
        sa.Column("suite", sa.String(128), nullable=False),
        sa.Column("instance", sa.String(256), nullable=False),
        sa.Column("instance_spec", sa.Text, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("solver", sa.String(64), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("params_tag", sa.String(256), nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("objective", sa.Float),
        sa.Column("diameter", sa.Float),
        sa.Column("aspl", sa.Float),
        sa.Column("metrics", sa.Text),
        sa.Column("elapsed_s", sa.Float),
        sa.Column("evaluations", sa.Integer),
        sa.Column("time_limit_s", sa.Float),
        sa.Column("solution", sa.Text),
        sa.Column("study", sa.String(128)),
        sa.Column("trial", sa.Integer),
        sa.Column("hopbench_version", sa.String(32)),
        sa.Column("git_commit", sa.String(64)),
        sa.Column("python_version", sa.String(32)),
        sa.Column("numpy_version", sa.String(32)),
        sa.Column("numba_version", sa.String(32)),
        sa.Column("host", sa.String(128)),
        sa.Column("cores", sa.Integer),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_runs_suite", "runs", ["suite"])
    op.create_index("ix_runs_instance", "runs", ["instance"])
    op.create_index("ix_runs_solver", "runs", ["solver"])
    op.create_table(
        "traces",
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("elapsed_s", sa.Float, nullable=False),
        sa.Column("evaluations", sa.Integer, nullable=False),
        sa.Column("value", sa.Float),
    )
    op.create_table(
        "tuned_params",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("solver", sa.String(64), nullable=False),
        sa.Column("study", sa.String(128), nullable=False),
        sa.Column("suite", sa.String(128)),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("value", sa.Float),
        sa.Column("n_trials", sa.Integer),
        sa.Column("created_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_tuned_params_solver", "tuned_params", ["solver"])


def downgrade() -> None:
    op.drop_table("tuned_params")
    op.drop_table("traces")
    op.drop_table("runs")
