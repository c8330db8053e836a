"""Checks the engine tests share, each against an independent reference: a local release generalizes every
record's own value, and every lattice search finds the optimum a brute-force reference found."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest

from workbench import study as S
from workbench.errors import ConfigError
from workbench.local.posets import FinitePoset

SEARCHES = ["exhaustive", "bnb", "incognito", "flash", "ola"]


def assert_generalizes(columns: list[Any], leaf_states: np.ndarray, released: np.ndarray) -> None:
    """Each record's released cell is an upper bound of its own value: an ancestor-or-self in a finite poset, an
    interval holding it in a range poset."""
    for j, col in enumerate(columns):
        p = col.poset
        if isinstance(p, FinitePoset):
            assert p.ancestors[leaf_states[:, j], released[:, j]].all()
        else:
            lo, hi = p.ends(released[:, j])
            v, _ = p.ends(leaf_states[:, j])
            assert ((lo <= v) & (v <= hi)).all()


def assert_searches_find_the_reference(ref: Mapping[tuple, tuple[bool, Mapping[str, float]]], ds: Any,
                                       study_for: Callable[[str, str], Any], monotone: bool, refusal: str) -> None:
    """Every search's optimum is the reference's best admissible node (DM*, the monotone variant, for Flash and
    OLA; DM for the others; ties to the lowest, then the first node); Flash and OLA refuse a rule that is not
    ``monotone`` with a ConfigError matching ``refusal``. ``ref``: node -> (admissible, measure values);
    ``study_for(algorithm, objective)``: the study to search."""
    for algorithm in SEARCHES:
        objective = "dm_star" if algorithm in ("flash", "ola") else "dm"
        admissible = {node: values[objective] for node, (ok, values) in ref.items() if ok}
        best = min(admissible, key=lambda node: (admissible[node], sum(node), node)) if admissible else None
        study = study_for(algorithm, objective)
        if algorithm in ("flash", "ola") and not monotone:
            with pytest.raises(ConfigError, match=refusal):
                S.search(study, ds, algorithm)
            continue
        result = S.search(study, ds, algorithm)
        assert result.optimum == best, algorithm
        if best is not None:
            assert result.value == pytest.approx(admissible[best], rel=1e-12)
