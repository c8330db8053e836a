"""k-anonymity workbench: de-identify a table with two engines and see what each release costs under every
measure. The names a notebook needs::

    import workbench as wb

    study = wb.load_study("sample_configs/teaching.toml")   # or wb.study_from_dict({...})
    result = wb.run(study)                                  # RunResult: release, guarantee, scores
    result.release.table()                                  # the released table (a Release)
    table, search = wb.lattice_overview(study)              # every lattice node with every measure
    wb.explore(study).as_dict()                             # each measure's monotonicity, optimum, Kendall τ
    wb.solutions(study, result.dataset)                     # both engines' solutions under every measure
    wb.risk_of_release(result.release).to_dict()            # re-identification risk of the release
    wb.comparison(study, result=result)                     # the alternatives, the chosen release marked
    wb.build_report(study, result).write("report")          # the ethics-board report (report.html)
    wb.check_file("delivered.csv", ["age", "zip"], ["diagnosis"]).figures()  # a table de-identified elsewhere

    @wb.measure(id="my_precision", monotone=True)           # a measure of your own (docs/measures.md)
    def my_precision(view) -> float: ...

In Jupyter, a Release, RunResult, risk result and Comparison show as tables; ``with wb.progress_bar() as p:``
gives a ``progress`` callback drawn as a bar for the long calls (run, comparison, sweep, add_degradation).

Names are imported on first use, so ``import workbench`` (and the ``workbench`` command) stays quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.audit import check_file, check_table
    from workbench.compare import solutions, sweep
    from workbench.compare.alternatives import Comparison, comparison
    from workbench.compare.degradation import add_degradation
    from workbench.config import Study, load_server_measures, load_study, study_from_dict
    from workbench.experiments.el_emam_2009 import el_emam_comparison
    from workbench.release import Release
    from workbench.report import Report, build_report
    from workbench.risk import risk_of_node, risk_of_release
    from workbench.samples import load_sample
    from workbench.study import RunResult, compare_algorithms, load_dataset, run
    from workbench.user_measure import measure, registered_within, unregister_measure, user_measures
    from workbench.views.display import progress_bar
    from workbench.views.exploration import Exploration, explore
    from workbench.views.lattice import lattice_overview

_EXPORTS = {
    "Study": "workbench.config", "load_study": "workbench.config", "study_from_dict": "workbench.config",
    "load_dataset": "workbench.study", "run": "workbench.study", "RunResult": "workbench.study",
    "lattice_overview": "workbench.views.lattice", "compare_algorithms": "workbench.study",
    "solutions": "workbench.compare", "Release": "workbench.release", "load_sample": "workbench.samples",
    "risk_of_release": "workbench.risk", "risk_of_node": "workbench.risk",
    "sweep": "workbench.compare", "add_degradation": "workbench.compare.degradation",
    "comparison": "workbench.compare.alternatives", "Comparison": "workbench.compare.alternatives",
    "build_report": "workbench.report", "Report": "workbench.report", "progress_bar": "workbench.views.display",
    "el_emam_comparison": "workbench.experiments.el_emam_2009",
    "measure": "workbench.user_measure", "unregister_measure": "workbench.user_measure",
    "user_measures": "workbench.user_measure", "registered_within": "workbench.user_measure",
    "load_server_measures": "workbench.config",
    "explore": "workbench.views.exploration", "Exploration": "workbench.views.exploration",
    "check_table": "workbench.audit", "check_file": "workbench.audit",
}

__all__ = [
    "Comparison", "Exploration", "Release", "Report", "RunResult", "Study", "add_degradation", "build_report",
    "check_file", "check_table", "compare_algorithms", "comparison", "el_emam_comparison", "explore",
    "lattice_overview", "load_dataset", "load_sample", "load_server_measures", "load_study", "measure",
    "progress_bar", "registered_within", "risk_of_node", "risk_of_release", "run", "solutions", "study_from_dict",
    "sweep", "unregister_measure", "user_measures",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _register_display() -> None:
    """In a running IPython (Jupyter), show the workbench's results as tables (``workbench.views.display``)."""
    import sys

    if "IPython" in sys.modules:
        from workbench.views.display import register

        register()


_register_display()
