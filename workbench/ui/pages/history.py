"""The History page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import history, state

history.page(state.current_source())
