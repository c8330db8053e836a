"""How many random examples a property test draws: every one in `make test` and CI, a quarter in the fast loop
(`make test-fast`, which runs pytest with ``-m "not slow"``; ``tests/conftest.py`` sets ``WORKBENCH_FAST_TESTS``).
The fast loop thus still checks every property against its reference, on fewer random tables."""

from __future__ import annotations

import os


def fast_loop() -> bool:
    """Whether this pytest run is the fast loop."""
    return os.environ.get("WORKBENCH_FAST_TESTS") == "1"


def examples(full: int) -> int:
    """``full`` examples in the full run; a quarter (at least 5, at most ``full``) in the fast loop."""
    return min(full, max(full // 4, 5)) if fast_loop() else full
