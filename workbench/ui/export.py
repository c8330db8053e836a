"""Export page: download the last anonymization's release (rows shuffled with the recorded seed and
re-verified before it is produced), its provenance and the config as TOML (loadable by `workbench run`)."""

from __future__ import annotations

import json

import streamlit as st

from workbench.ui.cached import export_files

MIME = {"csv": "text/csv", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "parquet": "application/octet-stream"}


def page() -> None:
    st.header("Export")
    last = st.session_state.get("last_run")
    if last is None:
        st.info("Run an anonymization on the Anonymize page first; its release is exported here.")
        return
    raw = json.loads(last["config"])
    st.write(f"Release of the last run on {last['label']}: {raw['engine']['kind']} / {raw['engine']['algorithm']}, "
             f"k = {raw['privacy']['k']}.")
    fmt = st.radio("Format", ["csv", "xlsx", "parquet"], horizontal=True)
    seed = st.number_input("Shuffle seed (recorded in the provenance)", min_value=0, value=0, step=1)
    raw["release"] = {"seed": int(seed), "format": fmt}
    files = export_files(json.dumps(raw, sort_keys=True), fmt, dataset_key=last["dataset_key"])
    if "error" in files:
        st.error(files["error"])
        return
    st.success("The release passed re-verification from its own table before it was produced.")
    st.download_button("Release", files["release"], file_name=f"release.{fmt}", mime=MIME[fmt])
    st.download_button("Provenance (JSON)", files["provenance"], file_name="provenance.json",
                       mime="application/json")
    st.download_button("Value mappings (CSV)", files["mappings"], file_name="mappings.csv", mime="text/csv",
                       help="per quasi-identifier: each original value, what it was released as, and how many records")
    st.download_button("Config (TOML)", files["config"], file_name="config.toml", mime="application/toml",
                       help="`workbench run config.toml` reproduces this release; the Data page loads it again")
    if files.get("bundle"):
        st.download_button("Config with hierarchy files (zip)", files["bundle"], file_name="config-bundle.zip",
                           mime="application/zip", help="config.toml and hierarchies/*.csv: unpack next to "
                           f"{raw['data'].get('path', 'the data')} and run `workbench run config.toml`")
