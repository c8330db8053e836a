"""The UI's session state is typed: only the state modules (workbench/ui/state.py and its companion
state_upload.py) touch ``st.session_state``; every page reads and writes it through their named slots."""

from __future__ import annotations

import ast
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
STATE_MODULES = {"state.py", "state_upload.py"}


def _mentions(path: Path) -> list[int]:
    """The lines of ``path`` whose code (not docstrings or comments) names ``session_state``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted({node.lineno for node in ast.walk(tree)
                   if (isinstance(node, ast.Name) and node.id == "session_state")
                   or (isinstance(node, ast.Attribute) and node.attr == "session_state")
                   or (isinstance(node, ast.alias) and "session_state" in node.name.split("."))})


def test_only_the_state_modules_touch_session_state():
    offenders = {str(path.relative_to(ROOT)): lines
                 for path in sorted((ROOT / "workbench" / "ui").rglob("*.py"))
                 if path.name not in STATE_MODULES and (lines := _mentions(path))}
    assert offenders == {}, f"use a Slot of workbench/ui/state.py instead: {offenders}"


def test_the_walk_finds_every_way_of_naming_it(tmp_path):
    """The check is not vacuous: each form a page could use is found."""
    for code in ("import streamlit as st\nx = st.session_state.get('a')\n",
                 "from streamlit import session_state\nsession_state['a'] = 1\n",
                 "import streamlit\nstreamlit.session_state.pop('a')\n"):
        path = tmp_path / "page.py"
        path.write_text(code, encoding="utf-8")
        assert _mentions(path), code
    path.write_text('"""Kept in st.session_state."""\n# st.session_state\n', encoding="utf-8")
    assert _mentions(path) == []
    assert _mentions(ROOT / "workbench" / "ui" / "state.py")  # the state module itself does touch it


def _slots_app() -> None:
    import streamlit as st

    from workbench.ui import state

    slot = state.Slot("probe")
    st.session_state["seen"] = [slot.get(), slot.get_or("d"), slot.present()]
    assert slot.setdefault("a") == "a" and slot.setdefault("b") == "a"
    slot.set("c")
    st.session_state["after_set"] = [slot.get(), slot.present()]
    st.session_state["popped"] = [slot.pop(), slot.pop(), slot.present()]
    st.session_state["stored"] = {"x": 1}
    state.keep(["stored", "absent"])
    st.session_state["values"] = state.values(["stored", "absent"])
    state.apply(lambda values: values.__setitem__("applied", True))


def test_a_slot_reads_and_writes_its_key():
    at = AppTest.from_function(_slots_app).run()
    assert not at.exception
    assert at.session_state["seen"] == [None, "d", False]
    assert at.session_state["after_set"] == ["c", True]
    assert at.session_state["popped"] == ["c", None, False]
    assert at.session_state["values"] == {"stored": {"x": 1}}
    assert at.session_state["applied"] is True


def test_the_persistent_settings_are_the_slots_declared_persistent():
    """``main.PERSISTENT_SETTINGS`` (the keys ``state.keep`` writes back on every run) is derived from the slots: a
    slot is kept across pages exactly when it is declared ``persistent=True`` (and the privacy-model pickers)."""
    from workbench.ui import main, state

    slots = [v for v in vars(state).values() if isinstance(v, state.Slot)]
    assert slots and len({s.key for s in slots}) == len(slots)  # one slot per key
    persistent = {s.key for s in slots if s.persistent}
    assert {state.K.key, state.SUPPRESSION.key, state.AN_ALG.key, state.LAT_VIEW.key} <= persistent
    assert state.LAT_NODE.key not in persistent and state.LAST_RUN.key not in persistent
    assert set(main.PERSISTENT_SETTINGS) == persistent | set(state.model_picker_keys())
    assert len(main.PERSISTENT_SETTINGS) == len(set(main.PERSISTENT_SETTINGS))
