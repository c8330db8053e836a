"""The register: releases, the board's decisions, saved projects and the register's own values.

Revision ID: 0001
Revises:
Create Date: 2026-05-20
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    meta = op.create_table(
        "register_meta",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.bulk_insert(meta, [{"name": "key_salt", "value": secrets.token_hex(16)}])
    op.create_table(
        "releases",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("user_name", sa.String(256), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("data_name", sa.Text, nullable=False),
        sa.Column("data_sha256", sa.String(64), nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=True),
        sa.Column("content_sha256", sa.String(64), nullable=False),
        sa.Column("records", sa.Integer, nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("config_sha256", sa.String(64), nullable=False),
        sa.Column("engine", sa.String(32), nullable=False),
        sa.Column("algorithm", sa.String(64), nullable=False),
        sa.Column("k", sa.BigInteger, nullable=False),
        sa.Column("models", sa.JSON, nullable=False),
        sa.Column("max_suppression", sa.Float, nullable=False),
        sa.Column("node", sa.JSON, nullable=True),
        sa.Column("quasi_identifiers", sa.JSON, nullable=False),
        sa.Column("suppressed", sa.Integer, nullable=False),
        sa.Column("classes", sa.Integer, nullable=False),
        sa.Column("risk_highest", sa.Float, nullable=True),
        sa.Column("risk_average", sa.Float, nullable=True),
        sa.Column("records_at_risk", sa.Integer, nullable=True),
        sa.Column("measures", sa.JSON, nullable=False),
        sa.Column("output", sa.Text, nullable=False),
        sa.Column("software_version", sa.String(64), nullable=False),
        sa.Column("key_column", sa.String(256), nullable=True),
        sa.Column("warnings", sa.JSON, nullable=False),
        sa.Column("footprint", sa.LargeBinary, nullable=True),
    )
    op.create_index("ix_releases_data_sha256", "releases", ["data_sha256"])
    op.create_index("ix_releases_content_sha256", "releases", ["content_sha256"])
    op.create_table(
        "decisions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("release_id", sa.Integer, sa.ForeignKey("releases.id"), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("decision", sa.String(16), nullable=False),
        sa.Column("decided_by", sa.String(256), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("recorded_by", sa.String(256), nullable=False),
        sa.CheckConstraint("decision IN ('approved', 'rejected', 'conditions')", name="ck_decisions_decision"),
    )
    op.create_index("ix_decisions_release_id", "decisions", ["release_id"])
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("owner", sa.String(256), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("data_name", sa.Text, nullable=False),
        sa.Column("data_sha256", sa.String(64), nullable=True),
        sa.Column("study", sa.JSON, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=True),
    )
    op.create_index("ix_projects_owner", "projects", ["owner"])


def downgrade() -> None:
    for table in ("projects", "decisions", "releases", "register_meta"):
        op.drop_table(table)
