"""Streamlit entry point: `make run` (or `streamlit run app.py`)."""

from workbench.ui.main import main

main()
