"""The Data page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import data_page, state

data_page.page(state.current_source(), state.current_dataset())
