"""The Anonymize page, as st.navigation runs it (``workbench/ui/main.py`` has chosen the dataset)."""

from workbench.ui import anonymize, state

anonymize.page(state.current_source())
