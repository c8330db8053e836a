"""The register's database: where it is (``register_url``), opening it (``open_register``: one engine per URL and
process, migrated to the code's schema by Alembic once), and ``Register``, the reads and writes every front end
calls. SQLite (the default, a file in the user's data directory) runs in WAL mode with a busy timeout, and every
write transaction starts with ``BEGIN IMMEDIATE`` and is retried while the file is locked, so concurrent writers
wait for each other instead of failing; PostgreSQL serializes the migration with an advisory lock."""

from __future__ import annotations

import getpass
import os
import random
import threading
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

from workbench.errors import WorkbenchError
from workbench.register import schema as S

ENV = "WORKBENCH_REGISTER"
"""The environment variable naming the register (a SQLAlchemy URL); it wins over the server config's
``[register] url``."""
SERVER_CONFIG = "WORKBENCH_CONFIG"  # the config the app's server starts with (workbench.config.plugins)
APP_NAME = "k-anonymity-workbench"
FILE_NAME = "register.sqlite"
HEAD = "0001"  # the newest migration (workbench/register/migrations/versions)
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BUSY_TIMEOUT_S = 30.0
RETRIES = 8
_LOCK_ID = 0x6B616E6F6E  # PostgreSQL's advisory lock for the migration ("kanon")

T = TypeVar("T")


class RegisterError(WorkbenchError):
    """The register cannot be opened or read, or a request names what it does not hold."""


def now() -> str:
    """The time as the register stores it: UTC, ISO 8601 to the second (sorts as text)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def os_user() -> str:
    """Who runs the command: the operating-system user (the CLI's ``user``)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def server_settings() -> dict[str, Any]:
    """The ``[register]`` table of the server config named by ``WORKBENCH_CONFIG`` ({} without one): ``url``,
    ``user_header`` (the header an authenticating proxy names the user in) and ``store_data`` (whether saved projects
    may hold their data)."""
    path = os.environ.get(SERVER_CONFIG, "").strip()
    if not path:
        return {}
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RegisterError(f"{SERVER_CONFIG}={path}: cannot read the server config: {exc}") from None
    table = raw.get("register", {})
    if not isinstance(table, dict):
        raise RegisterError(f"{path}: [register] must be a table")
    return dict(table)


def default_url() -> str:
    """A SQLite file in the user's data directory (platformdirs), e.g. ``~/.local/share/k-anonymity-workbench``."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return f"sqlite:///{folder / FILE_NAME}"


def register_url() -> str:
    """Where the register is: ``WORKBENCH_REGISTER``, else the server config's ``[register] url``, else
    ``default_url()``."""
    url = os.environ.get(ENV, "").strip()
    if url:
        return url
    url = server_settings().get("url")
    if url is not None:
        if not isinstance(url, str) or not url.strip():
            raise RegisterError("[register] url must be a SQLAlchemy URL such as sqlite:///register.sqlite or "
                                "postgresql+psycopg://user@host/db")
        return url.strip()
    return default_url()


def shown_url(url: str) -> str:
    """The URL without its password (for messages)."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<not a URL>"


def described(url: str) -> str:
    """The register as the app names it to analysts on a shared server: a SQLite file by its name alone, a database
    server's by its backend, database and host; never a path on the server, a user or a password."""
    try:
        parsed = sa.engine.make_url(url)
    except ArgumentError:
        return "<not a URL>"
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return f"the SQLite file {Path(parsed.database).name}" if parsed.database else "an in-memory SQLite database"
    name = f"the {backend} database" + (f" {parsed.database}" if parsed.database else "")
    return name + (f" on {parsed.host}" + (f":{parsed.port}" if parsed.port else "") if parsed.host else "")


def _is_locked(exc: BaseException) -> bool:
    text = str(getattr(exc, "orig", exc)).lower()
    return "database is locked" in text or "database table is locked" in text or "busy" in text


def retrying(fn: Callable[[], T], url: str = "") -> T:
    """``fn()``, tried again (exponential back-off with jitter, ``RETRIES`` times) while SQLite reports the file
    locked beyond its busy timeout; other errors pass through."""
    for attempt in range(RETRIES):
        try:
            return fn()
        except OperationalError as exc:
            if not _is_locked(exc) or attempt == RETRIES - 1:
                raise
            time.sleep(min(2.0, 0.05 * 2 ** attempt) * (0.5 + random.random()))
    raise AssertionError("unreachable")


def _sqlite_engine(url: sa.engine.URL) -> sa.Engine:
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        raise RegisterError(f"{ENV}: the register must be a SQLite file, not {database or 'an in-memory database'}")
    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        # a writer takes the write lock first: a deferred transaction that reads and then writes can fail at once
        # with SQLITE_BUSY in WAL mode, whatever the busy timeout
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("register_write") else "BEGIN")

    return engine


def make_engine(url: str) -> sa.Engine:
    """An engine for the register at ``url`` (SQLite or PostgreSQL)."""
    try:
        parsed = sa.engine.make_url(url)
    except ArgumentError:
        raise RegisterError(f"{ENV}: not a SQLAlchemy URL: {url!r} (e.g. sqlite:////path/register.sqlite or "
                            "postgresql+psycopg://user@host/db)") from None
    try:
        if parsed.get_backend_name() == "sqlite":
            return _sqlite_engine(parsed)
        return sa.create_engine(parsed, pool_pre_ping=True)
    except (NoSuchModuleError, ImportError) as exc:
        raise RegisterError(f"{ENV}: no driver for {shown_url(url)}: {exc}") from None


def _migrate(engine: sa.Engine, url: str) -> None:
    """Bring the database to ``HEAD`` with Alembic, in one transaction that holds a lock (SQLite's write lock,
    PostgreSQL's advisory lock) so that processes opening a new register at once migrate it once."""
    from alembic import command
    from alembic.config import Config
    from alembic.util.exc import CommandError

    def current() -> str | None:
        with engine.connect() as conn:
            if not sa.inspect(conn).has_table("alembic_version"):
                return None
            return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()

    if retrying(current, url) == HEAD:
        return

    def upgrade() -> None:
        with engine.execution_options(register_write=True).begin() as conn:
            if engine.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK_ID})")
            cfg = Config()
            cfg.set_main_option("script_location", str(MIGRATIONS))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    try:
        retrying(upgrade, url)
    except CommandError as exc:
        raise RegisterError(f"the register at {shown_url(url)} has a schema this workbench does not know ({exc}); "
                            "a newer workbench wrote it") from None


class Register:
    """The register at one URL: releases, the board's decisions and saved projects. Nothing is ever deleted: a
    release stays listed, and a new decision on it is added (the newest counts; ``decisions`` lists them all)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._writer = self.engine.execution_options(register_write=True)
        try:
            _migrate(self.engine, url)
        except (OperationalError, DBAPIError) as exc:
            raise RegisterError(f"cannot open the register at {shown_url(url)}: "
                                f"{str(getattr(exc, 'orig', exc)).strip().splitlines()[0]}") from None

    def __repr__(self) -> str:
        return f"Register({shown_url(self.url)!r})"

    # ------------------------------------------------------------------------------------------- plumbing
    def _write(self, fn: Callable[[sa.Connection], T]) -> T:
        def attempt() -> T:
            with self._writer.begin() as conn:
                return fn(conn)

        return self._guard(lambda: retrying(attempt, self.url))

    def _read(self, fn: Callable[[sa.Connection], T]) -> T:
        def attempt() -> T:
            with self.engine.connect() as conn:
                return fn(conn)

        return self._guard(lambda: retrying(attempt, self.url))

    def _guard(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except (OperationalError, DBAPIError) as exc:
            raise RegisterError(f"the register at {shown_url(self.url)}: "
                                f"{str(getattr(exc, 'orig', exc)).strip().splitlines()[0]}") from None

    def key_salt(self) -> str:
        """The register's salt for key digests (created with the register)."""
        return self._read(lambda c: c.execute(sa.select(S.meta.c.value).where(S.meta.c.name == "key_salt"))
                          .scalar_one())

    # ------------------------------------------------------------------------------------------- releases
    def record(self, entry: Mapping[str, Any]) -> int:
        """Add a release (a row of ``schema.releases`` without its id) and return its id."""
        return self._write(lambda c: int(c.execute(sa.insert(S.releases).values(**entry)
                                                   .returning(S.releases.c.id)).scalar_one()))

    def releases(self, data: Iterable[str] = (), with_footprint: bool = False,
                 key_column: str | None = None) -> list[dict[str, Any]]:
        """Every release, oldest first, each with its newest ``decision`` (None: none recorded yet); ``data``: only
        the releases whose ``data_sha256`` or ``content_sha256`` is one of these digests (and, with ``key_column``,
        those recorded with that key column)."""
        digests = [d for d in data if d]
        columns = [c for c in S.releases.c if with_footprint or c.name != "footprint"]
        query = sa.select(*columns).order_by(S.releases.c.id)
        if digests or key_column:
            r = S.releases.c
            query = query.where(sa.or_(r.data_sha256.in_(digests), r.content_sha256.in_(digests),
                                       *([r.key_column == key_column] if key_column else [])))

        def read(c: sa.Connection) -> list[dict[str, Any]]:
            rows = [dict(r._mapping) for r in c.execute(query)]
            latest = self._latest_decisions(c, [r["id"] for r in rows])
            return [r | {"decision": latest.get(r["id"])} for r in rows]

        return self._read(read)

    def release(self, release_id: int, with_footprint: bool = False) -> dict[str, Any]:
        """One release with its decisions (all, oldest first) and the newest as ``decision``."""
        columns = [c for c in S.releases.c if with_footprint or c.name != "footprint"]

        def read(c: sa.Connection) -> dict[str, Any]:
            row = c.execute(sa.select(*columns).where(S.releases.c.id == release_id)).first()
            if row is None:
                raise RegisterError(f"no release {release_id} in the register at {shown_url(self.url)}")
            decisions = [dict(d._mapping) for d in c.execute(
                sa.select(S.decisions).where(S.decisions.c.release_id == release_id).order_by(S.decisions.c.id))]
            return dict(row._mapping) | {"decisions": decisions, "decision": decisions[-1] if decisions else None}

        return self._read(read)

    def last_id(self) -> int:
        """The newest release's id (0 for an empty register)."""
        return int(self._read(lambda c: c.execute(sa.select(sa.func.max(S.releases.c.id))).scalar()) or 0)

    @staticmethod
    def _latest_decisions(c: sa.Connection, ids: list[int]) -> dict[int, dict[str, Any]]:
        if not ids:
            return {}
        newest = (sa.select(sa.func.max(S.decisions.c.id)).where(S.decisions.c.release_id.in_(ids))
                  .group_by(S.decisions.c.release_id))
        rows = c.execute(sa.select(S.decisions).where(S.decisions.c.id.in_(newest)))
        return {r.release_id: dict(r._mapping) for r in rows}

    # ------------------------------------------------------------------------------------------- decisions
    def decide(self, release_id: int, decision: str, by: str, note: str = "", recorded_by: str = "") -> dict[str, Any]:
        """Record the board's ``decision`` on a release (``schema.DECISIONS``), taken by ``by``; ``conditions``
        needs the conditions in ``note``. Returns the decision as stored."""
        if decision not in S.DECISIONS:
            raise RegisterError(f"decision must be one of {', '.join(S.DECISIONS)}, got {decision!r}")
        if not by.strip():
            raise RegisterError("the decision needs the name of who took it (--by)")
        if decision == "conditions" and not note.strip():
            raise RegisterError("a decision with conditions needs the conditions in its note (--note)")
        row = {"release_id": int(release_id), "created": now(), "decision": decision, "decided_by": by.strip(),
               "note": note.strip(), "recorded_by": recorded_by or by.strip()}

        def write(c: sa.Connection) -> dict[str, Any]:
            if c.execute(sa.select(S.releases.c.id).where(S.releases.c.id == release_id)).first() is None:
                raise RegisterError(f"no release {release_id} in the register at {shown_url(self.url)}")
            new_id = c.execute(sa.insert(S.decisions).values(**row).returning(S.decisions.c.id)).scalar_one()
            return row | {"id": int(new_id)}

        return self._write(write)

    # ------------------------------------------------------------------------------------------- projects
    def save_project(self, owner: str, name: str, data_name: str, data_sha256: str | None, study: Mapping[str, Any],
                     data: bytes | None = None) -> int:
        """Save a study of ``owner`` (a new version under ``name``; the newest is the one reopened)."""
        if not name.strip():
            raise RegisterError("a saved project needs a name")
        row = {"owner": owner, "name": name.strip(), "created": now(), "data_name": data_name,
               "data_sha256": data_sha256, "study": dict(study), "data": data}
        return self._write(lambda c: int(c.execute(sa.insert(S.projects).values(**row)
                                                   .returning(S.projects.c.id)).scalar_one()))

    def projects(self, owner: str) -> list[dict[str, Any]]:
        """``owner``'s saved projects, the newest version of each name, newest first (without their data)."""
        p = S.projects
        newest = sa.select(sa.func.max(p.c.id)).where(p.c.owner == owner).group_by(p.c.name)
        query = (sa.select(p.c.id, p.c.name, p.c.created, p.c.data_name, p.c.data_sha256,
                           (p.c.data.is_not(None)).label("has_data"))
                 .where(p.c.id.in_(newest)).order_by(p.c.id.desc()))
        return self._read(lambda c: [dict(r._mapping) for r in c.execute(query)])

    def project(self, project_id: int, owner: str) -> dict[str, Any]:
        """A saved project of ``owner`` (another owner's is not found: saved projects belong to their owner)."""
        query = sa.select(S.projects).where(S.projects.c.id == project_id, S.projects.c.owner == owner)

        def read(c: sa.Connection) -> dict[str, Any]:
            row = c.execute(query).first()
            if row is None:
                raise RegisterError(f"no saved project {project_id} of {owner}")
            return dict(row._mapping)

        return self._read(read)


_open: dict[str, Register] = {}
_open_lock = threading.Lock()


def open_register(url: str | None = None) -> Register:
    """The register at ``url`` (default ``register_url()``), opened once per process and URL."""
    url = url or register_url()
    with _open_lock:
        if url not in _open:
            _open[url] = Register(url)
        return _open[url]


def close_all() -> None:
    """Dispose every opened register's engine (tests; a process that forks)."""
    with _open_lock:
        for reg in _open.values():
            reg.engine.dispose()
        _open.clear()
