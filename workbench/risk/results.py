"""The records of a risk analysis: the group-size histogram every risk figure is computed from (ARX
``RiskModelHistogram``), and the prosecutor/journalist summary and the full result (``workbench risk --json``).
The figures themselves are computed in ``workbench.risk``.

Two counts, never one name for both: ``classes`` are the equivalence classes of the records that are not
suppressed (``Release.classes``); ``groups`` are the groups the risk figures are computed over, which are those
classes plus, after suppression, the suppressed records as one more group of ``*`` (docs/privacy.md)."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.risk.uniqueness import PopulationUniques


# ---------------------------------------------------------------------------------------------- result
@dataclass(frozen=True)
class RiskSummary:
    """Prosecutor or journalist risk (ARX ``RiskModelSampleSummary.RiskSummary``)."""

    highest: float
    average: float
    records_at_risk: float  # share of the records
    records_at_risk_count: int
    threshold: float

    def to_dict(self) -> dict[str, float | int]:
        return {"highest": self.highest, "average": self.average, "records_at_risk": self.records_at_risk,
                "records_at_risk_count": self.records_at_risk_count, "threshold": self.threshold}


@dataclass(frozen=True)
class RiskResult:
    """Re-identification risk of one table. ``to_dict()`` gives the JSON of ``workbench risk --json``.

    ``records``: the records the figures are over. ``classes``: the equivalence classes of the records that are
    not suppressed (``Release.classes``). ``suppressed``: the suppressed records (0 before suppression).
    ``groups``: the groups the figures are computed over (the average prosecutor risk is groups / records):
    ``classes``, plus one when suppressed records are counted as one group of ``*`` (which a kept class released
    as ``*`` in every quasi-identifier joins); equal to ``classes`` when nothing is suppressed or the suppressed
    records are left out."""

    records: int
    classes: int
    prosecutor: RiskSummary
    journalist: RiskSummary | None
    marketer: float
    sample_uniques: float
    population_uniques: PopulationUniques | None
    suppressed: int
    groups: int

    def to_dict(self) -> dict[str, object]:
        pop = self.population_uniques
        return {
            "records": self.records,
            "classes": self.classes,
            "suppressed": self.suppressed,
            "groups": self.groups,
            "prosecutor": self.prosecutor.to_dict(),
            "journalist": self.journalist.to_dict() if self.journalist else None,
            "marketer": self.marketer,
            "sample_uniques": self.sample_uniques,
            "population_uniques": pop.to_dict() if pop else {
                "pitman": None, "zayatz": None, "snb": None, "dankar": None, "dankar_model": None,
                "population_size": None, "sampling_fraction": None},
        }
