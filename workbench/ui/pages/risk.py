"""The Risk page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import risk, state

risk.page(state.current_source())
