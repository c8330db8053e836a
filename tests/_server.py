"""A Streamlit server for the browser tests, and Debian's chromium as Playwright launches it here."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(env: dict[str, str], port: int, args: Sequence[str] = (), cwd: Path = ROOT,
                     host: str = "localhost", output: IO[bytes] | int = subprocess.DEVNULL,
                     failure: str | Callable[[], str] = "streamlit did not start within 60 s") -> Iterator[str]:
    """``streamlit run app.py`` with ``args`` on ``port``; yields its URL once it answers its health check."""
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), *args], cwd=cwd,
                            env=env, stdout=output, stderr=subprocess.STDOUT if output != subprocess.DEVNULL
                            else subprocess.DEVNULL)
    url = f"http://{host}:{port}"
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(failure() if callable(failure) else failure)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def local_args(port: int) -> list[str]:
    """The flags ``make run`` passes, on ``port``."""
    return ["--server.port", str(port), "--server.address", "localhost", "--server.headless", "true",
            "--server.fileWatcherType", "none"]


SCREENSHOTS_ENV = "WORKBENCH_SCREENSHOTS"  # a folder (docs/screenshots) that receives the published screenshots


def screenshot(page: object, path: Path, publish: bool = False) -> None:
    """A full-page screenshot to ``path`` (test artifacts); a ``publish`` one goes also, under the same file name,
    to the folder ``WORKBENCH_SCREENSHOTS`` names when it is set. That is how the README's screenshots are
    refreshed: ``WORKBENCH_SCREENSHOTS=docs/screenshots pytest tests/test_browser.py``."""
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    folder = os.environ.get(SCREENSHOTS_ENV)
    if publish and folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / path.name), full_page=True)  # type: ignore[attr-defined]


@contextlib.contextmanager
def app_server(prefetch: bool = False, env: dict[str, str] | None = None) -> Iterator[str]:
    """The app as ``make run`` starts it, on a free port, without usage statistics and with the background warm-up
    only when ``prefetch``, with ``env`` added to the environment; yields its URL."""
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
           "WORKBENCH_PREFETCH": "1" if prefetch else "0", **(env or {})}
    with streamlit_server(env, port, local_args(port)) as url:
        yield url
