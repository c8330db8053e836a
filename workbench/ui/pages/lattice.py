"""The Lattice page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import lattice, state

lattice.page(state.current_source())
