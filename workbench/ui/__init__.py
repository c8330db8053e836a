"""The Streamlit workbench: thin pages over the library (the only package importing streamlit/altair)."""

import workbench as _wb

_wb.load_server_measures()  # installed measures and the server config's plugins, once per process (docs/measures.md)
