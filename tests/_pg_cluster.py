"""A throwaway PostgreSQL cluster for the register's tests: ``python tests/_pg_cluster.py -- COMMAND ...`` starts a
cluster in a temporary folder (Debian's ``initdb`` and ``pg_ctl``, a Unix socket in that folder, no TCP), creates a
database, runs COMMAND with ``WORKBENCH_TEST_POSTGRES`` set to its SQLAlchemy URL, stops the cluster and removes the
folder, whatever COMMAND did; it exits with COMMAND's status. Without PostgreSQL's programs it runs COMMAND alone (the
PostgreSQL tests then skip) and says so. As root the server runs as the ``postgres`` user (``runuser``), since
PostgreSQL refuses to run as root.

``make test`` and ``.ci/run`` run the test suite through it (docs/register.md#tests)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = "WORKBENCH_TEST_POSTGRES"
DATABASE = "workbench_register_test"


def bin_dir() -> Path | None:
    """The folder of PostgreSQL's server programs (``initdb``, ``pg_ctl``): the newest Debian version's, else the
    one on PATH; None when PostgreSQL is not installed."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name),
                         reverse=True):
        if (Path(folder) / "initdb").exists():
            return Path(folder)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


def start(folder: Path) -> str:
    """Initialize and start a cluster in ``folder`` (listening on a socket there only) and create the test database;
    returns its SQLAlchemy URL (psycopg 3)."""
    programs = bin_dir()
    if programs is None:
        raise RuntimeError("PostgreSQL is not installed (no initdb)")
    data, sock = folder / "data", folder / "sock"
    sock.mkdir(parents=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(sock, "postgres")
        os.chmod(folder, 0o755)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "text": True}
    user = "postgres" if os.geteuid() == 0 else None
    run = [str(programs / "initdb"), "-D", str(data), "-A", "trust", "-E", "UTF8", "--no-sync"]
    if user:
        run += ["-U", user]
    _check(subprocess.run(_as_server_user(run), **quiet), "initdb")
    options = f"-k {sock} -c listen_addresses='' -c fsync=off -c max_connections=60"
    _check(subprocess.run(_as_server_user([str(programs / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                                           str(folder / "server.log"), "-w", "start"]), **quiet), "pg_ctl start")
    role = user or _whoami()
    _check(subprocess.run(_as_server_user([str(programs / "createdb"), "-h", str(sock), "-U", role, DATABASE]),
                          **quiet), "createdb")
    return f"postgresql+psycopg://{role}@/{DATABASE}?host={sock}"


def stop(folder: Path) -> None:
    """Stop the cluster of ``folder`` (immediately) and remove the folder."""
    programs = bin_dir()
    if programs is not None and (folder / "data" / "postmaster.pid").exists():
        subprocess.run(_as_server_user([str(programs / "pg_ctl"), "-D", str(folder / "data"), "-m", "immediate",
                                        "-w", "stop"]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(folder, ignore_errors=True)


def _whoami() -> str:
    import getpass

    return getpass.getuser()


def _check(done: subprocess.CompletedProcess, what: str) -> None:
    if done.returncode:
        raise RuntimeError(f"{what} failed: {(done.stderr or '').strip()[-500:]}")


def main(argv: list[str]) -> int:
    if "--" in argv:
        argv = argv[argv.index("--") + 1:]
    if not argv:
        print("usage: python tests/_pg_cluster.py -- COMMAND ...", file=sys.stderr)
        return 2
    if os.environ.get(ENV) or bin_dir() is None:
        if not os.environ.get(ENV):
            print(f"pg_cluster: PostgreSQL is not installed: the register's PostgreSQL tests skip ({ENV} unset)",
                  file=sys.stderr)
        return subprocess.call(argv)
    folder = Path(tempfile.mkdtemp(prefix="workbench-pg-"))
    try:
        try:
            url = start(folder)
        except (RuntimeError, OSError) as exc:
            print(f"pg_cluster: could not start PostgreSQL ({exc}): the register's PostgreSQL tests skip",
                  file=sys.stderr)
            return subprocess.call(argv)
        started = time.time()
        print(f"pg_cluster: PostgreSQL on {folder / 'sock'} for the tests", file=sys.stderr)
        code = subprocess.call(argv, env=os.environ | {ENV: url})
        print(f"pg_cluster: stopping PostgreSQL after {time.time() - started:.0f} s", file=sys.stderr)
        return code
    finally:
        stop(folder)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
