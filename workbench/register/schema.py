"""The register's tables (SQLAlchemy Core). The schema is created and changed only by the Alembic migrations in
``workbench/register/migrations/versions``; these definitions are what the code reads and writes, and
``tests/test_register.py`` checks that they match the migrated database."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

DECISIONS = ("approved", "rejected", "conditions")
"""The decisions a board records: approved as proposed, rejected, or approved with conditions (the note says which)."""

meta = sa.Table(
    "register_meta", metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
"""Register-wide values: ``key_salt``, mixed into the digests of a key column's values (``entries.key_digests``)."""

releases = sa.Table(
    "releases", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created", sa.String(32), nullable=False),  # UTC, ISO 8601 to the second: sorts as text
    sa.Column("user_name", sa.String(256), nullable=False),
    sa.Column("channel", sa.String(16), nullable=False),  # cli, app, report, python
    sa.Column("data_name", sa.Text, nullable=False),
    sa.Column("data_sha256", sa.String(64), nullable=False, index=True),  # the input bytes', else the content's
    sa.Column("file_sha256", sa.String(64), nullable=True),
    sa.Column("content_sha256", sa.String(64), nullable=False, index=True),
    sa.Column("records", sa.Integer, nullable=False),
    sa.Column("config", sa.JSON, nullable=False),
    sa.Column("config_sha256", sa.String(64), nullable=False),
    sa.Column("engine", sa.String(32), nullable=False),
    sa.Column("algorithm", sa.String(64), nullable=False),
    sa.Column("k", sa.BigInteger, nullable=False),
    sa.Column("models", sa.JSON, nullable=False),
    sa.Column("max_suppression", sa.Float, nullable=False),
    sa.Column("node", sa.JSON, nullable=True),  # {qi: level} for a lattice node, null for local recoding
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
    sa.Column("warnings", sa.JSON, nullable=False),  # what the check against earlier releases found when recorded
    sa.Column("footprint", sa.LargeBinary, nullable=True),  # what the attacks need (entries.Footprint), compressed
)

decisions = sa.Table(
    "decisions", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("release_id", sa.Integer, sa.ForeignKey("releases.id"), nullable=False, index=True),
    sa.Column("created", sa.String(32), nullable=False),
    sa.Column("decision", sa.String(16), nullable=False),
    sa.Column("decided_by", sa.String(256), nullable=False),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("recorded_by", sa.String(256), nullable=False),
    sa.CheckConstraint("decision IN ('approved', 'rejected', 'conditions')", name="ck_decisions_decision"),
)

projects = sa.Table(
    "projects", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("owner", sa.String(256), nullable=False, index=True),
    sa.Column("name", sa.String(256), nullable=False),
    sa.Column("created", sa.String(32), nullable=False),
    sa.Column("data_name", sa.Text, nullable=False),
    sa.Column("data_sha256", sa.String(64), nullable=True),
    sa.Column("study", sa.JSON, nullable=False),  # roles, hierarchies, posets and settings (ui.state's snapshot)
    sa.Column("data", sa.LargeBinary, nullable=True),  # the table's bytes, only when asked for and allowed
)
