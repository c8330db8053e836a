"""Memory after sessions close: start a local `streamlit run app.py`, open N browser sessions (Debian's chromium,
Playwright), each computing its own result, close them all, and print the server's resident memory before, at the
peak, once the closed sessions have ended, and after a garbage collection (not part of the default pytest run:
this file is not named test_*.py).

    PYTHONPATH=. python tests/load/session_memory.py --sessions 20 --flow upload --repeat 3

Flows: ``upload`` (each session uploads its own table of ``--rows`` records with a config, runs the Anonymize page
with k = 5 + i and keeps the result: the session's data and results live in its session state) and ``anonymize``
(the same on the embedded registry sample: results shared between sessions, one per k). At most ``--concurrent``
sessions start at once; all stay open until the last has its result, then all close.

Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` seconds in case it reconnects; the
server runs with ``--ttl`` (10 s by default, 60 s in docs/deploy/config.toml) and the "ended" reading is taken
``--ttl`` + ``--wait`` seconds after the tabs closed. The "gc" reading follows a ``gc.collect()`` and glibc's
``malloc_trim`` in the server, asked for with SIGUSR1 through a ``sitecustomize`` module this script puts on the
server's path (the app has no such hook). Memory: ``VmRSS``; the peak is ``VmHWM`` (since the server started).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_load import CHROMIUM, FLAGS, ROOT, rss_mb, start_server  # noqa: E402

SITECUSTOMIZE = """import collections, ctypes, gc, os, signal

WATCH = ("AppSession", "SessionState", "Dataset", "DataFrame", "UploadedFile")

def _collect(signum, frame):
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    alive = collections.Counter(type(o).__name__ for o in gc.get_objects() if type(o).__name__ in WATCH)
    with open(os.environ["WB_LOAD_GC_DONE"], "a") as done:
        done.write(", ".join(f"{name} {alive[name]}" for name in WATCH) + "\\n")

signal.signal(signal.SIGUSR1, _collect)
"""

CONFIG = """[data]
path = "patients.csv"
[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [5, 10, 20] }
[attributes.sex]
role = "quasi"
builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }
[attributes.zip]
role = "quasi"
builder = { kind = "masking" }
[attributes.patient]
role = "identifying"
[privacy]
k = 5
max_suppression = 0.02
[engine]
kind = "lattice"
algorithm = "flash"
objective = "entropy"
"""


def write_inputs(folder: Path, rows: int, session: int) -> tuple[Path, Path]:
    """Session ``session``'s own table (``rows`` records, different in every session) and its config."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(session)
    frame = pd.DataFrame({"patient": [f"S{session:02d}P{i:07d}" for i in range(rows)],
                          "age": rng.integers(18, 90, rows).astype(str),
                          "sex": rng.choice(["F", "M"], rows),
                          "zip": [f"{z:05d}" for z in rng.integers(10000, 10400, rows)],
                          "note": [f"visit {v}" for v in rng.integers(0, 10**6, rows)]})
    (folder / str(session)).mkdir(exist_ok=True)
    data, config = folder / str(session) / "patients.csv", folder / str(session) / "study.toml"
    frame.to_csv(data, index=False)
    config.write_text(CONFIG, encoding="utf-8")
    return data, config


async def _open(browser, url: str, flow: str, k: int, inputs: tuple[Path, Path] | None, timeout_s: float):
    """One session: open the app (upload its table and config), run the Anonymize page at ``k``; returns the
    open context and its seconds to result (or the error)."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    start = time.perf_counter()
    try:
        await page.goto(url)
        await page.get_by_text("Attributes").first.wait_for(timeout=timeout_s * 1000)
        if inputs is not None:
            await page.locator('input[type="file"]').nth(0).set_input_files(str(inputs[0]))
            await page.get_by_text("held in this session only").first.wait_for(timeout=timeout_s * 1000)
            await page.locator('input[type="file"]').nth(1).set_input_files(str(inputs[1]))
            await page.get_by_text("Ready:").first.wait_for(timeout=timeout_s * 1000)
        await page.locator('[data-testid="stSidebar"]').get_by_text("Anonymize", exact=True).click()
        box = page.get_by_label("k", exact=True)
        await box.wait_for(timeout=timeout_s * 1000)
        await box.fill(str(k))
        await box.press("Enter")
        await page.locator('[data-test-script-state="notRunning"]').wait_for(timeout=timeout_s * 1000)
        await page.get_by_role("button", name="Run").click()
        await page.get_by_text("Guarantee:").first.wait_for(timeout=timeout_s * 1000)
        return context, time.perf_counter() - start
    except PlaywrightTimeout:
        return context, f"no result within {timeout_s:.0f} s"


async def _drive(url: str, flow: str, sessions: int, concurrent: int, folder: Path, rows: int, timeout_s: float,
                 on_open) -> list[float | str]:
    """Open ``sessions`` sessions (``concurrent`` at a time), call ``on_open()`` once all have their result, then
    close them all."""
    from playwright.async_api import async_playwright

    gate = asyncio.Semaphore(concurrent)

    async def one(browser, i: int):
        inputs = write_inputs(folder, rows, i) if flow == "upload" else None
        async with gate:
            return await _open(browser, url, flow, 5 + i, inputs, timeout_s)

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            opened = await asyncio.gather(*(one(browser, i) for i in range(sessions)))
            on_open()
            for context, _ in opened:
                await context.close()  # the tab closes: its websocket disconnects
        finally:
            await browser.close()
    return [outcome for _, outcome in opened]


def _gc(pid: int, done: Path, timeout_s: float = 30) -> str:
    """Ask the server for a gc.collect() and malloc_trim (SIGUSR1), wait until it has run; returns how many
    objects of a few kinds (sessions, their states, datasets, tables, uploaded files) are still alive."""
    before = done.read_text().count("\n") if done.exists() else 0
    os.kill(pid, signal.SIGUSR1)
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if done.exists() and done.read_text().count("\n") > before:
            return done.read_text().splitlines()[-1]
        time.sleep(0.2)
    raise RuntimeError("the server did not run its garbage collection")


def one_round(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "site").mkdir()
        (folder / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        done = folder / "gc-done"
        env = {**dict(item.split("=", 1) for item in args.env), "WB_LOAD_GC_DONE": str(done),
               "WORKBENCH_PREFETCH": "0", "PYTHONPATH": os.pathsep.join([str(folder / "site"), str(args.root)])}
        proc, url = start_server(env, args.root, ["--server.disconnectedSessionTTL", str(args.ttl)])
        try:
            out: dict = {"idle": rss_mb(proc.pid), "sessions": [], "wall": 0.0}
            for batch in range(args.batches):
                tag = f" #{batch + 1}" if args.batches > 1 else ""

                def on_open(tag: str = tag) -> None:
                    out["open" + tag] = rss_mb(proc.pid)

                wall = time.perf_counter()
                out["sessions"] += asyncio.run(_drive(url, args.flow, args.sessions, args.concurrent, folder,
                                                      args.rows, args.timeout, on_open))
                out["wall"] += time.perf_counter() - wall
                out["closed" + tag] = rss_mb(proc.pid)
                time.sleep(args.ttl + args.wait)
                out["ended" + tag] = rss_mb(proc.pid)
            out["peak"] = rss_mb(proc.pid, "VmHWM")
            out["alive"] = _gc(proc.pid, done)
            out["gc"] = rss_mb(proc.pid)
            return out
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def readings(batches: int) -> list[str]:
    """The RSS readings of a round, in the order taken."""
    tags = [f" #{b + 1}" for b in range(batches)] if batches > 1 else [""]
    return ["idle", *[name + tag for tag in tags for name in ("open", "closed", "ended")], "peak", "gc"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--concurrent", type=int, default=5, help="sessions starting at once")
    parser.add_argument("--flow", choices=["upload", "anonymize"], default="upload")
    parser.add_argument("--rows", type=int, default=50_000, help="records of each session's table (upload)")
    parser.add_argument("--ttl", type=int, default=10, help="server.disconnectedSessionTTL, seconds")
    parser.add_argument("--wait", type=float, default=20, help="seconds after the TTL before the 'ended' reading")
    parser.add_argument("--batches", type=int, default=1,
                        help="batches of sessions one after the other on the same server (memory reused or not)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh servers in a row (medians are printed)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a session may wait for its result")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for the server (e.g. MALLOC_ARENA_MAX=2), repeatable")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py runs (e.g. an older one)")
    args = parser.parse_args(argv)
    rounds, names = [], readings(args.batches)
    for r in range(args.repeat):
        outcome = one_round(args)
        rounds.append(outcome)
        times = [s for s in outcome["sessions"] if isinstance(s, float)]
        print(f"round {r + 1}: {args.batches} x {args.sessions} sessions ({args.concurrent} at once), flow "
              f"{args.flow}, wall {outcome['wall']:.0f} s, result median "
              f"{statistics.median(times) if times else float('nan'):.1f} s; "
              "server RSS " + ", ".join(f"{key} {outcome[key]:.0f} MB" for key in names), flush=True)
        print(f"  alive after the gc: {outcome['alive']}", flush=True)
        for i, s in enumerate(outcome["sessions"]):
            if not isinstance(s, float):
                print(f"  session {i + 1}: {s}", flush=True)
    if args.repeat > 1:
        print(f"median of {args.repeat}: server RSS " + ", ".join(
            f"{key} {statistics.median(o[key] for o in rounds):.0f} MB" for key in names))
    return 0 if all(isinstance(s, float) for o in rounds for s in o["sessions"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
