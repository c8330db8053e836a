"""The session's own data, typed (``state``'s companion): the uploaded table's workspace and its memos, the
session's Dataset, the Dataset box's choice and a loaded config. Nothing here reaches another session."""

from __future__ import annotations

from typing import Any

from workbench.ui.state import Slot

WORKSPACE: Slot[dict[str, Any]] = Slot("workspace")  # the uploaded table with its roles, hierarchies and posets
UPLOAD: Slot[Any] = Slot("data_upload")  # the upload widget's file
READS: Slot[dict[tuple, Any]] = Slot("upload_reads")  # (sha, name) -> the parsed latest upload or its error
TABLES: Slot[dict[str, dict[str, Any]]] = Slot("upload_settings")  # sha -> the settings of each table uploaded
RESTORED: Slot[str] = Slot("upload_restored")  # the name of a table uploaded before, its settings restored
HIERARCHIES: Slot[dict[tuple, Any]] = Slot("hierarchy_memo")  # (sha, column, choice) -> (hierarchy, error)
PROBLEM: Slot[str] = Slot("dataset_problem")  # why the session's table cannot be made a Dataset
DATASETS: Slot[dict[str, Any]] = Slot("session_datasets")  # dataset_key -> Dataset (only the latest)
HINTS: Slot[dict[tuple, str]] = Slot("local_engine_hints")  # (config, dataset key) -> the local engine's time
VALIDATED: Slot[Any] = Slot("validation_memo")  # (data key, hierarchy content) -> its validation report

# the Dataset box
DATASET: Slot[str] = Slot("dataset")  # its choice: a sample's name or "uploaded"
PENDING_DATASET: Slot[str] = Slot("pending_dataset")  # chosen by an upload or a loaded config, for the next run
OWN_READY: Slot[bool] = Slot("own_ready")  # the session's own data was ready when the box was drawn

# a loaded config
CONFIG_LOADED: Slot[str] = Slot("config_loaded")  # the SHA-256 of the config applied
CONFIG_NOTES: Slot[list[str]] = Slot("config_notes")  # its warnings, kept across the reruns a load triggers


def role_widget(role: str, sha: str) -> Slot[Any]:
    """The widget listing the columns of ``role`` of the table ``sha`` (the target's is a single column)."""
    return Slot(f"role:{role}:{sha}")

# saved projects (ui/projects.py, the Data page)
PROJECT_KEY = "pj_key"  # the project key of a session without a signed-in user
PROJECT_NAME = "pj_name"  # the name a project is saved under
PROJECT_STORE_DATA = "pj_store"  # "store the data too"
PROJECT_CHOICE = "pj_choice"  # the saved project to reopen
PROJECT_PENDING: Slot[dict[str, Any]] = Slot("project_pending")  # a reopened project waiting for its data file
PROJECT_BYTES: Slot[tuple[str, bytes]] = Slot("project_bytes")  # (SHA-256, bytes) of the table, if stored with projects
PROJECT_NOTE: Slot[str] = Slot("project_note")  # what the last reopen did, said after the rerun it needs
