"""AppTest helpers: switching pages, and an uploaded table made ready by a loaded config for the pages that need
the analyst's own data."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def goto(at: AppTest, title: str) -> AppTest:
    """Switch the app to a page by its title, as a click in the navigation does (call ``run()`` after). The pages
    are functions (``st.Page(callable)``), which ``AppTest.switch_page`` (file pages only) cannot name: the page is
    found among those the last run's ``st.navigation`` registered, by its title, and requested by its hash as
    ``switch_page`` does."""
    hashes = [h for h, info in at._registered_pages.items() if info.get("page_name") == title]
    if len(hashes) != 1:
        raise ValueError(f"no page {title!r} in the navigation (run the app first)")
    at._page_hash = hashes[0]
    return at


def people_config(tail: str) -> str:
    """The config of a people.csv with age in 5/10/20/40-year intervals and sex in one group, then ``tail`` (TOML for
    the other columns)."""
    return """[data]
path = "people.csv"
[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [5, 10, 20, 40] }
[attributes.sex]
role = "quasi"
builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }
""" + tail


def ready_own_table(column: str, values: list[str], config_tail: str, seed: int, n: int) -> AppTest:
    """``n`` random people (age, sex and ``column`` drawn from ``values``) uploaded as people.csv and made ready by a
    config: age in intervals, sex in one group, then ``config_tail`` (TOML for ``column``'s role or a target)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          column: rng.choice(values, n)})
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload("people.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    toml = people_config(config_tail)
    at.file_uploader(key="config_upload").upload("people.toml", toml.encode(), "application/toml").run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    return at


@contextlib.contextmanager
def captured_downloads() -> Iterator[dict[str, Callable[[], bytes]]]:
    """The app's download buttons produce their bytes on click (a deferred callable); AppTest cannot click one.
    Inside this block every deferred download the app registers is recorded by its file name without the digest
    (``registry-k5-release.csv``) and by each tail of it after a dash (``release.csv``), so a test calls it for the
    bytes the analyst would get."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    seen: dict[str, Callable[[], bytes]] = {}
    original = MediaFileManager.add_deferred

    def record(self: Any, data_callable: Callable[[], bytes], mimetype: Any, coordinates: str,
               file_name: str | None = None, **kwargs: Any) -> str:
        if file_name:
            path = Path(file_name)
            name = re.sub(r"-[0-9a-f]{16}$", "", path.stem) + path.suffix
            seen[name] = data_callable
            parts = name.split("-")  # named for the dataset and the rule, "registry-k5-release.csv": also by its kind
            for i in range(1, len(parts)):
                seen.setdefault("-".join(parts[i:]), data_callable)
        return original(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    MediaFileManager.add_deferred = record  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        MediaFileManager.add_deferred = original  # type: ignore[method-assign]
