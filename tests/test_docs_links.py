"""The README and docs/ stand on their own: every relative link (and image) resolves to a file in the
repository, an anchor to a heading of the page it names, and no link leaves the repository's folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def _links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))  # code blocks hold console output, not links
    return [m.group(1) for m in LINK.finditer(text)]


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    out = set()
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_there_are_pages_and_links():
    assert (ROOT / "docs" / "architecture.md").exists()
    assert sum(len(_links(p)) for p in PAGES) > 20


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(page: Path):
    for link in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # http:, https:, mailto:
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.is_relative_to(ROOT), f"{page.name}: {link} points outside the repository"
        assert target.exists(), f"{page.name}: {link} does not exist"
        if anchor and target.suffix == ".md":
            assert anchor in _anchors(target), f"{page.name}: {link}: no heading #{anchor} in {target.name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_do_not_cite_issue_numbers(page: Path):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\bissues? #?\d+|(?<![\w&])#\d+\b", text, re.I), page.name
