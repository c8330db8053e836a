"""What every page is given: ``PageContext``, the one argument of every page function
(``def page(ctx: PageContext) -> None``), built by ``main.py`` from the Dataset box before the page runs."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.ui.source import Source


@dataclass(frozen=True)
class PageContext:
    """The dataset the page works on: ``source`` (an embedded sample, the session's own table once it is ready, or
    a placeholder naming it while it is not) and ``dataset``, the Dataset box's choice (a sample's name or
    ``"uploaded"``). Pages that work on a table of their own (Check, Walkthrough) ignore it."""

    source: Source
    dataset: str
