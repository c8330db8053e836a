"""Generalization hierarchies: the tree (``tree.py``: ARX's file format, validation, levels) and the builders
that make one from a column (``builders.py``: masking, dates, groupings and the dispatch; ``intervals.py``;
``suggest.py``: suggestions; ``values.py``: what they share) and what is a missing value (``missing.py``)."""

from workbench.hierarchy.builders import BUILDER_KINDS, build_hierarchy, groupings_from_table
from workbench.hierarchy.missing import MISSING, count_missing, missing_cells, missing_placement, missing_texts
from workbench.hierarchy.suggest import suggest_spec
from workbench.hierarchy.tree import Hierarchy
from workbench.hierarchy.values import DATE_LEVELS, NOT_A_NUMBER, numeric_profile

__all__ = ["BUILDER_KINDS", "DATE_LEVELS", "MISSING", "NOT_A_NUMBER", "Hierarchy", "build_hierarchy", "count_missing",
           "groupings_from_table", "missing_cells", "missing_placement", "missing_texts", "numeric_profile",
           "suggest_spec"]
