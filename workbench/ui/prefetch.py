"""Background warm-up: when the app first opens on an embedded dataset, the Lattice and Compare pages' first
views (at their default settings) are computed in a background thread, once per server process, so that an
analyst or a demonstration reaching those pages finds them ready instead of waiting for a cold computation
(3-4 s for the registry's 3,600-node table, about 10 s for its local-engine releases).

Only embedded datasets are warmed (their results are shared by all sessions anyway); uploaded data is never
touched outside the session that owns it. ``WORKBENCH_PREFETCH=0`` turns the warm-up off (the AppTest suite
does, so that its timings are its own).
"""

from __future__ import annotations

import logging
import os
import threading

from workbench.errors import WorkbenchError
from workbench.ui import compare_page, lattice
from workbench.ui.source import Source

_started: set[str] = set()
_lock = threading.Lock()
log = logging.getLogger(__name__)


def enabled() -> bool:
    return os.environ.get("WORKBENCH_PREFETCH", "1") != "0"


def start(source: Source) -> threading.Thread | None:
    """Warm the slow first views of ``source`` in the background (embedded samples only, once each)."""
    if source.sample is None or not enabled():
        return None
    with _lock:
        if source.sample in _started:
            return None
        _started.add(source.sample)
    thread = threading.Thread(target=_warm, args=(source,), name=f"prefetch-{source.sample}", daemon=True)
    thread.start()
    return thread


def _warm(source: Source) -> None:
    for prefetch in (lattice.prefetch, compare_page.prefetch):
        try:
            prefetch(source)
        except WorkbenchError:  # kept by the cache: the page shows it when it asks
            pass
        except Exception:  # a warm-up must never break the app: the page computes and reports it itself
            log.exception("background warm-up of %s failed", prefetch.__module__)
