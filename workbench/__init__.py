"""k-anonymity workbench: de-identify a table with two engines and see what each release costs under every
measure. The names a notebook needs::

    import workbench as wb

    study = wb.load_study("sample_configs/teaching.toml")   # or wb.study_from_dict({...})
    result = wb.run(study)                                  # RunResult: release, guarantee, scores
    result.release.table()                                  # the released table (a Release)
    table, search = wb.lattice_overview(study)              # every lattice node with every measure
    wb.solutions(study, result.dataset)                     # both engines' solutions under every measure
    wb.risk_of_release(result.release).to_dict()            # re-identification risk of the release

Names are imported on first use, so ``import workbench`` (and the ``workbench`` command) stays quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.compare import solutions
    from workbench.config import Study, load_study, study_from_dict
    from workbench.lattice_views import lattice_overview
    from workbench.release import Release
    from workbench.risk import risk_of_node, risk_of_release
    from workbench.samples import load_sample
    from workbench.study import RunResult, compare_algorithms, load_dataset, run

_EXPORTS = {
    "Study": "workbench.config", "load_study": "workbench.config", "study_from_dict": "workbench.config",
    "load_dataset": "workbench.study", "run": "workbench.study", "RunResult": "workbench.study",
    "lattice_overview": "workbench.lattice_views", "compare_algorithms": "workbench.study",
    "solutions": "workbench.compare", "Release": "workbench.release", "load_sample": "workbench.samples",
    "risk_of_release": "workbench.risk", "risk_of_node": "workbench.risk",
}

__all__ = [
    "Release", "RunResult", "Study", "compare_algorithms", "lattice_overview", "load_dataset", "load_sample",
    "load_study", "risk_of_node", "risk_of_release", "run", "solutions", "study_from_dict",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
