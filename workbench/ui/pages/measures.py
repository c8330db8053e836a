"""The Measures page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import measures_page, state

measures_page.page(state.current_source())
