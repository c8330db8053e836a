"""The Hierarchies page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import hierarchies, state

hierarchies.page(state.current_source())
