"""Bounded load test: start a local `streamlit run app.py` and drive N browser sessions through a page at once;
print each session's time to result and the server's resident memory (not part of the default pytest run: this
file is not named test_*.py).

    PYTHONPATH=. python tests/load/run_load.py --sessions 4 --flow compare
    PYTHONPATH=. python tests/load/run_load.py --sessions 1 --flow anonymize --repeat 3   # fresh-server memory

Flows: ``anonymize`` (Run on the Anonymize page until the guarantee shows), ``compare`` (the Compare page until
its table of each measure's choice shows) and ``lattice`` (the Lattice page until its node count shows). Session
i uses k = base k + i, so that no two sessions share a cached result (each computes its own k). Memory: the
server's RSS when it answers its health check (``idle``), when every session has its result (``after``), and its
peak (VmHWM). Debian's chromium (/usr/bin/chromium) runs the sessions, on the same machine as the server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FLOWS = {  # page, text that shows the result, base k
    "anonymize": ("Anonymize", "Guarantee: k-anonymous", 5),
    "compare": ("Compare", "Which solution each measure would choose", 5),
    "lattice": ("Lattice", "nodes;", 5),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """A process's resident memory (``VmRSS``) or its peak (``VmHWM``) in MB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for process {pid}")


def start_server(env_extra: dict[str, str], root: Path = ROOT, args: list[str] | None = None
                 ) -> tuple[subprocess.Popen, str]:
    """A fresh headless server of the checkout at ``root`` on a free port (the Makefile's run flags, then
    ``args``); returns it once healthy."""
    port = _free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "PYTHONPATH": str(root), **env_extra}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(root / "app.py"), "--server.port",
                             str(port), "--server.address", "localhost", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false", *(args or [])],
                            cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://localhost:{port}"
    for _ in range(240):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.25)
    proc.kill()
    raise RuntimeError("streamlit did not start within 60 s")


async def _session(browser, url: str, flow: str, k: int, timeout_s: float) -> dict[str, float | str]:
    """One browser session: open the app, go to the flow's page, set k, wait for the result."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    page_name, ready, _ = FLOWS[flow]
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    out: dict[str, float | str] = {"k": k}
    start = time.perf_counter()
    try:
        await page.goto(url)
        await page.get_by_text("Attributes").first.wait_for(timeout=timeout_s * 1000)
        out["first paint s"] = time.perf_counter() - start
        await page.locator('[data-testid="stSidebar"]').get_by_text(page_name, exact=True).click()
        box = page.get_by_label("k", exact=True)
        await box.wait_for(timeout=timeout_s * 1000)
        await box.fill(str(k))
        await box.press("Enter")
        clicked = time.perf_counter()
        if flow == "anonymize":
            await page.get_by_role("button", name="Run").click()
        result = asyncio.ensure_future(page.get_by_text(ready).first.wait_for(timeout=timeout_s * 1000))
        waiting, most = page.get_by_text("Waiting for a worker"), -1
        while not result.done():  # the queue position the page shows while it waits
            for text in await waiting.all_inner_texts():
                most = max(most, 0 if "next in line" in text else int(text.split(": ")[1].split()[0]))
            await asyncio.sleep(0.3)
        await result
        out["result s"] = time.perf_counter() - clicked
        out["most jobs ahead shown"] = most if most >= 0 else "none"
    except PlaywrightTimeout:
        out["error"] = f"no result within {timeout_s:.0f} s"
    finally:
        await context.close()
    return out


async def drive(url: str, flow: str, sessions: int, timeout_s: float) -> list[dict[str, float | str]]:
    from playwright.async_api import async_playwright

    base_k = FLOWS[flow][2]
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            return await asyncio.gather(*(_session(browser, url, flow, base_k + i, timeout_s)
                                          for i in range(sessions)))
        finally:
            await browser.close()


def one_round(flow: str, sessions: int, timeout_s: float, env_extra: dict[str, str], settle: float = 0,
              root: Path = ROOT) -> dict:
    proc, url = start_server(env_extra, root)
    try:
        idle = rss_mb(proc.pid)
        wall = time.perf_counter()
        results = asyncio.run(drive(url, flow, sessions, timeout_s))
        wall = time.perf_counter() - wall
        after = rss_mb(proc.pid)
        time.sleep(settle)  # the background warm-up may still be running
        return {"idle": idle, "after": after, "settled": rss_mb(proc.pid), "peak": rss_mb(proc.pid, "VmHWM"),
                "wall": wall, "sessions": results}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1, help="concurrent browser sessions (N)")
    parser.add_argument("--flow", choices=list(FLOWS), default="compare")
    parser.add_argument("--repeat", type=int, default=1, help="fresh servers in a row (medians are printed)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a session may wait for its result")
    parser.add_argument("--settle", type=float, default=0, help="seconds to wait before the last RSS reading")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py runs (e.g. an older one)")
    parser.add_argument("--prefetch", choices=["0", "1"], default=None, help="WORKBENCH_PREFETCH for the server")
    parser.add_argument("--workers", default=None, help="WORKBENCH_WORKERS for the server")
    args = parser.parse_args(argv)
    env_extra = {name: value for name, value in (("WORKBENCH_PREFETCH", args.prefetch),
                                                 ("WORKBENCH_WORKERS", args.workers)) if value is not None}
    rounds = []
    for r in range(args.repeat):
        outcome = one_round(args.flow, args.sessions, args.timeout, env_extra, args.settle, args.root)
        rounds.append(outcome)
        times = [s.get("result s") for s in outcome["sessions"]]
        print(f"round {r + 1}: {args.sessions} session(s), flow {args.flow}, wall {outcome['wall']:.1f} s; "
              f"server RSS idle {outcome['idle']:.0f} MB, after {outcome['after']:.0f} MB, "
              f"{args.settle:g} s later {outcome['settled']:.0f} MB, "
              f"peak {outcome['peak']:.0f} MB", flush=True)
        for i, s in enumerate(outcome["sessions"]):
            detail = ", ".join(f"{key} {value:.2f}" if isinstance(value, float) else f"{key} {value}"
                               for key, value in s.items())
            print(f"  session {i + 1}: {detail}", flush=True)
        if any(t is None for t in times):
            print("  (a session got no result)", flush=True)
    if args.repeat > 1:
        med = {key: statistics.median(o[key] for o in rounds) for key in ("idle", "after", "settled", "peak", "wall")}
        per = [s["result s"] for o in rounds for s in o["sessions"] if "result s" in s]
        print(f"median of {args.repeat}: RSS idle {med['idle']:.0f} MB, after {med['after']:.0f} MB, "
              f"{args.settle:g} s later {med['settled']:.0f} MB, "
              f"peak {med['peak']:.0f} MB; wall {med['wall']:.1f} s; time to result median "
              f"{statistics.median(per):.1f} s, max {max(per):.1f} s")
    return 0 if all("error" not in s for o in rounds for s in o["sessions"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
