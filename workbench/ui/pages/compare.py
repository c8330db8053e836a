"""The Compare page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import compare_page, state

compare_page.page(state.current_source())
