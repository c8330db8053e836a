"""The session's state, typed: one set of privacy settings (k and the suppression limit in percent of records)
that every page edits and shows. Streamlit keeps a widget's value only while the widget is drawn; the keys
named here are written back on every run (``main.keep_settings``), so a value survives the pages that do not
draw it."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from workbench.guarantees import SUPPRESSION_DEFAULT_MAX_PERCENT
from workbench.ui.source import Source

K = "an_k"  # k, on every page
SUPPRESSION = "an_sup"  # the suppression limit, percent of records, on every page
OVERRIDE = "sup_override"  # the analyst allows a suppression limit above SUPPRESSION_DEFAULT_MAX_PERCENT
MAX_WIDGET_INT = 2**53 - 1  # the largest integer a browser widget (a JavaScript number) holds exactly
SUPPRESSION_STEP_PERCENT = 1.0
DEFAULT_K = 5
DEFAULT_SUPPRESSION_PERCENT = 2.0


@dataclass(frozen=True)
class Privacy:
    """The session's privacy settings: k and the suppression limit in percent of records."""

    k: int
    suppression_percent: float

    @property
    def max_suppression(self) -> float:
        """The limit as the config's share of records (0.02 for 2 %)."""
        return self.suppression_percent / 100


def privacy() -> Privacy:
    """The session's privacy settings (defaults before any page set them)."""
    return Privacy(int(st.session_state.get(K, DEFAULT_K)),
                   float(st.session_state.get(SUPPRESSION, DEFAULT_SUPPRESSION_PERCENT)))


def set_privacy(k: int, max_suppression: float) -> None:
    """Set k and the suppression limit (a share of records, as a config gives it) for every page."""
    percent = round(100 * max_suppression, 9)
    st.session_state[K] = int(k)
    st.session_state[SUPPRESSION] = percent
    if percent > SUPPRESSION_DEFAULT_MAX_PERCENT:
        st.session_state[OVERRIDE] = True


def k_input(container: DeltaGenerator, help: str | None = None) -> int:
    """The k widget (the same on every page)."""
    st.session_state.setdefault(K, DEFAULT_K)
    return int(container.number_input("k", min_value=1, max_value=MAX_WIDGET_INT, step=1, key=K,
                                      help=help))


def suppression_input(container: DeltaGenerator) -> float:
    """The suppression-limit widget in percent of records (the same on every page): up to
    ``SUPPRESSION_DEFAULT_MAX_PERCENT`` unless the analyst deliberately allows more."""
    st.session_state.setdefault(SUPPRESSION, DEFAULT_SUPPRESSION_PERCENT)
    override = bool(st.session_state.get(OVERRIDE, False))
    top = 100.0 if override else SUPPRESSION_DEFAULT_MAX_PERCENT
    if st.session_state[SUPPRESSION] > top:  # the override was just withdrawn: back into the sensible range
        st.session_state[SUPPRESSION] = top
    value = container.slider("Suppression limit (% of records)", 0.0, top,
                             step=SUPPRESSION_STEP_PERCENT, key=SUPPRESSION, format="%.0f %%",
                             help="the largest share of records that may be suppressed (released with * in every "
                                  "quasi-identifier); lattice engine only")
    container.checkbox(f"Allow a limit above {SUPPRESSION_DEFAULT_MAX_PERCENT:.0f} %", key=OVERRIDE,
                       help="a release that suppresses most records says little about them; allow it deliberately")
    return float(value)


def keep_valid(key: str, options: list[object], multiple: bool = False) -> None:
    """Before drawing the widget ``key``: drop what it stores that its ``options`` no longer contain (a widget
    must never keep a value its options lost; Streamlit raises on it)."""
    if key not in st.session_state:
        return
    stored = st.session_state[key]
    if multiple:
        kept = [v for v in (stored or []) if v in options]
        if kept != list(stored or []):
            st.session_state[key] = kept
    elif stored is not None and stored not in options:
        del st.session_state[key]


SOURCE = "current_source"  # the dataset the pages work on, chosen in the Dataset box before the page runs


def set_current(source: Source, dataset: str) -> None:
    """Record the dataset the page about to run works on (main.py, before ``st.navigation``'s page runs)."""
    st.session_state[SOURCE] = source
    st.session_state["current_dataset"] = dataset


def current_source() -> Source:
    """The dataset the current page works on."""
    return st.session_state[SOURCE]


def current_dataset() -> str:
    """The Dataset box's choice for the current page."""
    return st.session_state["current_dataset"]
