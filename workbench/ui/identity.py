"""Who the session's analyst is, as the register records them (docs/register.md): the signed-in user when the app
runs behind ``st.login`` (``st.user``), else the user an authenticating proxy names in the header the server config
gives (``[register] user_header``), else ``anonymous session``."""

from __future__ import annotations

import streamlit as st

from workbench.errors import WorkbenchError
from workbench.register.store import server_settings

ANONYMOUS = "anonymous session"


def current_user() -> str:
    """The analyst of this session (at most 256 characters)."""
    try:
        user = st.user
        if bool(getattr(user, "is_logged_in", False)):
            for field in ("email", "name", "sub"):
                value = user.get(field)
                if value:
                    return str(value)[:256]
    except (AttributeError, KeyError, RuntimeError):  # no auth configured, or outside a served session
        pass
    try:
        header = server_settings().get("user_header")
    except WorkbenchError:
        header = None
    if isinstance(header, str) and header:
        try:
            value = st.context.headers.get(header)
        except (AttributeError, RuntimeError):
            value = None
        if value and value.strip():
            return value.strip()[:256]
    return ANONYMOUS
