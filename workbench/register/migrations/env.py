"""Alembic's environment for the register: it runs on the connection ``workbench.register.store`` hands it (inside
that connection's transaction, which holds the lock that keeps two processes from migrating at once)."""

from __future__ import annotations

from alembic import context

from workbench.register.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # `alembic` run by hand: the URL from the environment, as the workbench reads it
    import sqlalchemy as sa

    from workbench.register.store import register_url

    engine = sa.create_engine(register_url())
    with engine.begin() as connection:
        context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
