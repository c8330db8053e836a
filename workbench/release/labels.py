"""Released labels as table columns: one pandas Categorical per quasi-identifier (a small code per record into
one string per distinct label), with the suppressed records' cells marked ``*``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.release.verify import SUPPRESSED


def label_column(codes: np.ndarray, labels: Sequence[str]) -> pd.Categorical:
    """Released labels as a pandas Categorical: per record a small integer code into ``labels`` (one string per
    distinct label, not one per cell)."""
    return pd.Categorical.from_codes(codes, categories=pd.Index(list(labels), dtype=object), validate=False)


def marked_labels(labels: pd.Series, suppressed: np.ndarray) -> pd.Series:
    """A column of released labels with the suppressed records' cells set to ``*``; a Categorical stays one
    (``*`` added to its labels), anything else becomes text cells."""
    if isinstance(labels.dtype, pd.CategoricalDtype):
        values = labels.cat.codes.to_numpy()
        categories = list(labels.cat.categories)
        if SUPPRESSED not in categories:
            categories.append(SUPPRESSED)
        marked = np.where(suppressed, categories.index(SUPPRESSED), values).astype(values.dtype, copy=False)
        return pd.Series(label_column(marked, categories), index=labels.index, name=labels.name)
    return pd.Series(np.where(suppressed, SUPPRESSED, labels.to_numpy(dtype=object)), index=labels.index,
                     name=labels.name)
