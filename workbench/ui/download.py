"""The app's one download button: a name no other session or file shares, bytes produced on click and served
once (``served_once``)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import streamlit as st

from workbench.release.output import download_name
from workbench.ui import served_once, state


def download(label: str, content: bytes, file_name: str, mime: str, on_fetch: Callable[[str], None] | None = None,
             **kwargs: Any) -> None:
    """A download button for ``content`` under a name no other session or file shares, produced on click. The click
    does not rerun the page: a rerun registers a new deferred download and drops the one clicked, which could then
    be lost before the browser fetched it. The stored bytes leave Streamlit's media storage once the browser has
    fetched them (``served_once``). ``on_fetch(name)`` runs when the click asks for the bytes, before they are handed
    over (the release's record in the register); if it raises, the download fails."""
    served_once.install()
    key = state.DOWNLOAD_SECRET.setdefault(secrets.token_bytes(32))
    name = download_name(file_name, content, key)

    def produce() -> bytes:
        if on_fetch is not None:
            on_fetch(name)
        return content

    st.download_button(label, produce, file_name=name, mime=mime, on_click="ignore", **kwargs)
