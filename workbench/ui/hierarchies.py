"""Hierarchies page (in progress)."""

from __future__ import annotations

import streamlit as st

from workbench.ui.source import Source


def page(source: Source) -> None:
    st.header("Hierarchies")
    st.write(source.label)
