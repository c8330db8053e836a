"""The Check page, as st.navigation runs it (it works on a table of its own, not on the chosen dataset)."""

from workbench.ui import check

check.page()
