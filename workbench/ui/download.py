"""The app's one download button: a name no other session or file shares, bytes produced on click and served
once (``served_once``)."""

from __future__ import annotations

import secrets
from typing import Any

import streamlit as st

from workbench.release.output import download_name
from workbench.ui import served_once, state


def download(label: str, content: bytes, file_name: str, mime: str, **kwargs: Any) -> None:
    """A download button for ``content`` under a name no other session or file shares, produced on click. The click
    does not rerun the page: a rerun registers a new deferred download and drops the one clicked, which could then
    be lost before the browser fetched it. The stored bytes leave Streamlit's media storage once the browser has
    fetched them (``served_once``)."""
    served_once.install()
    key = state.DOWNLOAD_SECRET.setdefault(secrets.token_bytes(32))
    st.download_button(label, lambda: content, file_name=download_name(file_name, content, key), mime=mime,
                       on_click="ignore", **kwargs)
