"""How a release's guarantee is shown: green only for k-anonymity that holds; a weaker guarantee (k-ambiguity)
in its own colour and words, explained in one sentence; an acknowledgement before such a release is exported."""

from __future__ import annotations

import streamlit as st

from workbench.release.guarantees import DOCS, guarantee_text
from workbench.ui.format import md


def show(kind: str, holds: bool, described: str) -> None:
    """The guarantee of a release as a coloured box: success (k-anonymity), warning (weaker), error (fails)."""
    text = guarantee_text(kind)
    described = md(described)
    if not holds:
        st.error(f"Guarantee: {described}")
    elif text.k_anonymous:
        st.success(f"Guarantee: {described}")
    else:
        st.warning(f"Weaker guarantee, NOT k-anonymous: {described}.  \n"
                   f"{text.adjective.capitalize()} means that {text.meaning}. More in {DOCS}.", icon="⚠️")


def acknowledged(kind: str, key: str) -> bool:
    """True for a k-anonymous release; for a weaker guarantee, True only once the analyst ticks that they export
    a release that is not k-anonymous."""
    text = guarantee_text(kind)
    if text.k_anonymous:
        return True
    st.warning(f"This release is {text.adjective}, not k-anonymous: {text.meaning}. More in {DOCS}.", icon="⚠️")
    return st.checkbox(f"I understand that this release is {text.adjective}, not k-anonymous, and export it as such "
                       "(its provenance names the guarantee)", key=key)
