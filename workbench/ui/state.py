"""The session's state, typed: every value a page keeps between runs is a named ``Slot`` here (or in
``state_upload`` for the session's own data), so no page touches ``st.session_state`` by key. One set of privacy
settings (k and the suppression limit in percent of records) is edited and shown on every page. Streamlit keeps a
widget's value only while the widget is drawn; ``keep`` writes the keys of the slots declared
``persistent=True`` back on every run (``persistent_keys``, which ``main.PERSISTENT_SETTINGS`` is), so a value
survives the pages that do not draw it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import streamlit as st
from streamlit import runtime
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state import SessionState

from workbench.config import Study
from workbench.policy import suppression_percent, suppression_share
from workbench.privacy.kind import FormField, PrivacyModelKind
from workbench.privacy.registry import PRIVACY_MODELS
from workbench.release.guarantees import SUPPRESSION_DEFAULT_MAX_PERCENT
from workbench.ui.context import PageContext

T = TypeVar("T")


_PERSISTENT: list[str] = []  # the keys of the slots declared persistent, in declaration order


class Slot(Generic[T]):
    """One named value of the session state; ``key`` is also the key of the widget that stores it, if any.
    ``persistent``: a setting that keeps its value while its page is not shown (Streamlit drops the state of a
    widget that a run does not draw; ``keep`` writes it back): fixed-choice widgets only."""

    __slots__ = ("key", "persistent")

    def __init__(self, key: str, persistent: bool = False) -> None:
        self.key = key
        self.persistent = persistent
        if persistent and key not in _PERSISTENT:
            _PERSISTENT.append(key)

    def __repr__(self) -> str:
        return f"Slot({self.key!r})"

    def get(self) -> T | None:
        """The value, None when absent."""
        return st.session_state.get(self.key)

    def get_or(self, default: T) -> T:
        """The value, ``default`` when absent."""
        return st.session_state.get(self.key, default)

    def present(self) -> bool:
        return self.key in st.session_state

    def set(self, value: T) -> None:
        st.session_state[self.key] = value

    def setdefault(self, value: T) -> T:
        """The value, after setting it to ``value`` when absent."""
        return st.session_state.setdefault(self.key, value)

    def pop(self) -> T | None:
        """The value (None when absent), removed."""
        return st.session_state.pop(self.key, None)


def held_state() -> SessionState | None:
    """This session's state as Streamlit's runtime holds it across runs (None outside a served session), for
    ``sessions`` to empty once the session has ended."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not runtime.exists():
        return None
    held = getattr(runtime.get_instance().get_app_session(ctx.session_id), "session_state", None)
    return held if isinstance(held, SessionState) else None


def empty(held: SessionState) -> None:
    """Drop every value of an ended session's state: its uploads, datasets, results and widgets' values."""
    held.clear()


def persistent_keys() -> tuple[str, ...]:
    """The keys of every slot declared ``persistent=True`` and of every registered privacy model's picker."""
    return (*_PERSISTENT, *(key for key in model_picker_keys() if key not in _PERSISTENT))


def keep(keys: Iterable[str]) -> None:
    """Write each widget value named in ``keys`` back as session state, so it survives a run that does not draw
    its widget (Streamlit drops the state of an undrawn widget)."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def values(keys: Iterable[str]) -> dict[str, Any]:
    """The session's values of the widgets ``keys`` (those present), for the pure functions that read widget
    values by key (``anonymize.chosen_models``, tested on a plain dict)."""
    return {key: st.session_state[key] for key in keys if key in st.session_state}


def apply(change: Callable[[MutableMapping[str, Any]], None]) -> None:
    """Run ``change`` on the session's values (a widget callback written as a pure function of a mapping, such as
    ``lattice.open_clicked_node``, tested on a plain dict)."""
    change(st.session_state)


# the privacy settings, on every page
K: Slot[int] = Slot("an_k", persistent=True)  # k, on every page
SUPPRESSION: Slot[float] = Slot("an_sup", persistent=True)  # the suppression limit, percent of records, on every page
OVERRIDE: Slot[bool] = Slot("sup_override", persistent=True)  # the analyst allows a limit above the default maximum
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
        return suppression_share(self.suppression_percent)


def privacy() -> Privacy:
    """The session's privacy settings (defaults before any page set them)."""
    return Privacy(int(K.get_or(DEFAULT_K)), float(SUPPRESSION.get_or(DEFAULT_SUPPRESSION_PERCENT)))


def set_privacy(k: int, max_suppression: float) -> None:
    """Set k and the suppression limit (a share of records, as a config gives it) for every page."""
    percent = suppression_percent(max_suppression)
    K.set(int(k))
    SUPPRESSION.set(percent)
    if percent > SUPPRESSION_DEFAULT_MAX_PERCENT:
        OVERRIDE.set(True)


def k_input(container: DeltaGenerator, help: str | None = None) -> int:
    """The k widget (the same on every page)."""
    K.setdefault(DEFAULT_K)
    return int(container.number_input("k", min_value=1, max_value=MAX_WIDGET_INT, step=1, key=K.key,
                                      help=help))


def suppression_input(container: DeltaGenerator) -> float:
    """The suppression-limit widget in percent of records (the same on every page): up to
    ``SUPPRESSION_DEFAULT_MAX_PERCENT`` unless the analyst deliberately allows more."""
    current = SUPPRESSION.setdefault(DEFAULT_SUPPRESSION_PERCENT)
    override = bool(OVERRIDE.get_or(False))
    top = 100.0 if override else SUPPRESSION_DEFAULT_MAX_PERCENT
    if current > top:  # the override was just withdrawn: back into the sensible range
        SUPPRESSION.set(top)
    value = container.slider("Suppression limit (% of records)", 0.0, top,
                             step=SUPPRESSION_STEP_PERCENT, key=SUPPRESSION.key, format="%.0f %%",
                             help="the largest share of records that may be suppressed (released with * in every "
                                  "quasi-identifier); lattice engine only")
    container.checkbox(f"Allow a limit above {SUPPRESSION_DEFAULT_MAX_PERCENT:.0f} %", key=OVERRIDE.key,
                       help="a release that suppresses most records says little about them; allow it deliberately")
    return float(value)


def keep_valid(slot: Slot[Any] | str, options: list[object], multiple: bool = False) -> None:
    """Before drawing the widget of ``slot`` (a slot, or a widget key): drop what it stores that its ``options`` no
    longer contain (a widget must never keep a value its options lost; Streamlit raises on it)."""
    key = slot.key if isinstance(slot, Slot) else slot
    if key not in st.session_state:
        return
    stored = st.session_state[key]
    if multiple:
        kept = [v for v in (stored or []) if v in options]
        if kept != list(stored or []):
            st.session_state[key] = kept
    elif stored is not None and stored not in options:
        del st.session_state[key]


def settle(key: str, value: object) -> None:
    """Before drawing the widget of ``key``: give it ``value`` when it holds another (a value its options lost, or
    one saved in an older form, replaced by what the page reads it as)."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value


# the dataset the pages work on, chosen in the Dataset box before the page runs (every page's one argument)
CONTEXT: Slot[PageContext] = Slot("page_context")


@dataclass(frozen=True)
class AnonymizeRun:
    """A run of the Anonymize page: its study, the session dataset it ran on (None: an embedded sample) and that
    dataset's label."""

    study: Study
    dataset_key: str | None
    label: str


# the last run of the Anonymize page (the Export and Risk pages and the report read it)
LAST_RUN: Slot[AnonymizeRun] = Slot("last_run")

# the Anonymize page
AN_ENGINE: Slot[str] = Slot("an_engine", persistent=True)
AN_ALG: Slot[str] = Slot("an_alg", persistent=True)
AN_OBJ: Slot[str] = Slot("an_obj", persistent=True)
AN_LOCAL_ALG: Slot[str] = Slot("an_local_alg", persistent=True)
AN_LOCAL_OBJ: Slot[str] = Slot("an_local_obj", persistent=True)
AN_TIME: Slot[float] = Slot("an_time", persistent=True)
AN_STEERED: Slot[tuple[str, str]] = Slot("an_steered")  # (algorithm, objective) the objective steered away from
AN_ALG_PENDING: Slot[str] = Slot("an_alg_pending")  # the algorithm the privacy models steer to (before the widget)
AN_MODEL_STEERED: Slot[tuple[str, str]] = Slot("an_model_steered")  # (algorithm, the library's refusal)
AN_PENDING: Slot[AnonymizeRun] = Slot("an_pending")  # the run the page follows in the worker pool
# the privacy-model pickers (a checkbox, then its fields), one per registered model, read by anonymize.chosen_models
# on every page: the checkbox's key is an_FORM, a field's an_FORM_NAME (``PrivacyModelKind.form``)
def model_key(model: PrivacyModelKind) -> str:
    """The widget key of a privacy model's checkbox on the Anonymize page ("an_ld" for ℓ-diversity)."""
    return f"an_{model.form.key}"


def field_key(model: PrivacyModelKind, field: FormField) -> str:
    """The widget key of one field of a privacy model's form ("an_ld_l" for ℓ-diversity's ℓ)."""
    return f"an_{model.form.key}_{field.name}"


def model_picker_keys() -> tuple[str, ...]:
    """Every registered privacy model's checkbox and field keys (kept on every page, ``main.PERSISTENT_SETTINGS``)."""
    return tuple(key for model in PRIVACY_MODELS.values()
                 for key in (model_key(model), *(field_key(model, f) for f in model.form.fields)))


# the Lattice page
LAT_NODE: Slot[str] = Slot("lat_node")  # the open node (its select box)
LAT_CHART: Slot[Any] = Slot("lat_hasse")  # the Hasse diagram's selection event
LAT_CHOICES: Slot[list[str]] = Slot("lat_choices")  # the measures whose chosen node is marked
LAT_SHOW_WORST: Slot[bool] = Slot("lat_worst")  # draw the objective's worst monotonicity edge
LAT_ALG: Slot[str] = Slot("lat_alg", persistent=True)  # the search shown
LAT_OBJ: Slot[str] = Slot("lat_obj", persistent=True)  # its objective
LAT_COLOR: Slot[str] = Slot("lat_color", persistent=True)  # the colouring
LAT_COMPARE: Slot[str] = Slot("lat_compare")  # the node compared with the open one
LAT_VIEW: Slot[str] = Slot("lat_view", persistent=True)  # "Hasse diagram" or "Per height"

# widgets whose stored choice is checked against their options (keep_valid) or kept across pages (keep)
CMP_CAND: Slot[str] = Slot("cmp_cand", persistent=True)  # the Compare page's candidates
CMP_LOCAL: Slot[bool] = Slot("cmp_local", persistent=True)  # its local-engine toggle
CMP_X: Slot[str] = Slot("cmp_x")  # the Pareto axes
CMP_Y: Slot[str] = Slot("cmp_y")
CMP_OBJECTIVE: Slot[str] = Slot("cmp_objective")  # the side-by-side objective
CMP_DEG_ROWS: Slot[list[str]] = Slot("cmp_deg_rows")  # the solutions model degradation runs on
H_COLUMN: Slot[str] = Slot("h_column")  # the Hierarchies page's column of the session's own data
H_SAMPLE_COLUMN: Slot[str] = Slot("h_sample_column")  # its column of a sample
MEA_X: Slot[str] = Slot("mea_x")  # the Measures page's two axes
MEA_Y: Slot[str] = Slot("mea_y")
RISK_UTILITY: Slot[str] = Slot("risk_ru_utility")  # the Risk page's utility axis of risk against utility

# the Compare page: the model-degradation request the page follows (its widgets: above)
CMP_DEG_REQUEST: Slot[tuple] = Slot("cmp_deg_request")

# the Export page
DOWNLOAD_SECRET: Slot[bytes] = Slot("download_secret")  # this session's key for download names
REPORT: Slot[tuple[str, bytes]] = Slot("report_html")  # (config JSON, report bytes) of the last report built

# long work followed by the pages (ui.long_work)
FOLLOWED: Slot[dict[str, Any]] = Slot("long_work_jobs")  # name -> the Job the page follows
CANCELLED: Slot[set[str]] = Slot("long_work_cancelled")  # names whose panel's Cancel was clicked


def cancel_button(name: str) -> Slot[bool]:
    """The Cancel button of the long work ``name`` (its widget key)."""
    return Slot(f"{name}_cancel")


# the session's memos (results on the session's own data never reach the server-wide caches)
RESULTS: Slot[dict[tuple, Any]] = Slot("session_results")  # ui.memo's dual_cache, per session
GEO_POINTS: Slot[tuple[str, str, Any]] = Slot("geo_points")  # the latest uploaded points table, parsed
GEO_MEMO: Slot[Any] = Slot("geo_memo")  # results on the analyst's data or uploaded points
GEO_PROBLEM: Slot[tuple[tuple, Any]] = Slot("geo_problem")  # the latest problem on them, or its error

# the Check page: a table de-identified elsewhere, uploaded there (or the Data page's), and its figures
CHECK_UPLOAD: Slot[Any] = Slot("check_upload")  # the page's upload widget
CHECK_WHICH: Slot[str] = Slot("check_which")  # which table: uploaded on the page, or the Data page's
CHECK_TABLE: Slot[tuple[str, str, Any]] = Slot("check_table")  # the latest upload: (name, SHA-256, frame or error)
CHECK_MEMO: Slot[dict[tuple, Any]] = Slot("check_memo")  # (SHA-256, settings) -> the CheckResult or its error


def check_widget(name: str, sha: str) -> Slot[Any]:
    """A Check page setting of the table ``sha`` (its quasi-identifiers, sensitive attributes, ℓ, threshold)."""
    return Slot(f"check_{name}:{sha}")
