"""ARX's optima under risk thresholds (``TestAnonymizationRiskBased``, arx-deidentifier/arx,
src/test/org/deidentifier/arx/test/TestAnonymizationRiskBased.java): Adult with its nine attributes as
quasi-identifiers in ARX's column order, 4 % suppression, and average re-identification risk, sample uniqueness or
population uniqueness (Dankar, Zayatz, Pitman, SNB) as the only privacy model; ARX's expected transformation and
information loss transcribed from the file, found by branch-and-bound.

ARX's metrics map to measure ids: ``createPrecomputedEntropyMetric(0.1)`` = entropy_nm,
``createPrecomputedLossMetric(0.1)`` = loss. The population is ARX's ``Region.USA`` (317,238,626 people) and the
solver ARX's test configuration (``ARXSolverConfiguration.create().setDeterministic(true).iterationsPerTry(15)``:
``solver_iterations = 15``). The values depend on which records are suppressed, so they check ARX's order of
suppression (smallest classes first; among classes of one size, the Loss metric's per-class loss, then the first
record) and ARX's binary search for how many (``workbench.privacy.base.Admissibility._enforce``).

Sample uniqueness runs by default; the others take ten seconds or more each and run with ``WORKBENCH_ARX_ALL=1``
(marked ``slow``); ARX's score of the average-risk optimum is checked by default at its node."""

from __future__ import annotations

import os

import pytest

from workbench import study as S
from workbench.config import study_from_dict

ALL = os.environ.get("WORKBENCH_ARX_ALL") == "1"
LONG = [pytest.mark.slow, pytest.mark.skipif(not ALL, reason="ten seconds or more; WORKBENCH_ARX_ALL=1 runs it")]
ARX_ORDER = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
             "salary-class")
USA = 317_238_626  # ARXPopulationModel.Region.USA


def _population(estimator: str) -> dict:
    return {"model": "population_uniqueness", "threshold": 0.0001, "estimator": estimator, "population": USA,
            "solver_iterations": 15}


# index in ARX's list, risk threshold, metric, ARX's node (ARX_ORDER), ARX's value
CASES = [
    pytest.param({"model": "average", "threshold": 0.01}, "entropy_nm", (1, 0, 1, 1, 3, 2, 2, 1, 1),
                 314637.8461904862, id="RiskBased#0 average risk 0.01", marks=LONG),
    pytest.param({"model": "sample_uniqueness", "threshold": 0.01}, "loss", (0, 3, 0, 0, 1, 1, 1, 1, 0),
                 0.1606952725863784, id="RiskBased#1 sample uniqueness 0.01"),
    pytest.param(_population("dankar"), "entropy_nm", (0, 0, 1, 1, 1, 2, 1, 0, 0), 144298.1603344462,
                 id="RiskBased#2 population uniqueness (Dankar)", marks=LONG),
    pytest.param(_population("zayatz"), "loss", (0, 3, 0, 0, 1, 1, 1, 1, 0), 0.16078200456326086,
                 id="RiskBased#3 population uniqueness (Zayatz)", marks=LONG),
    pytest.param(_population("pitman"), "entropy_nm", (0, 0, 1, 1, 1, 2, 1, 0, 0), 144298.1603344462,
                 id="RiskBased#4 population uniqueness (Pitman)", marks=LONG),
    pytest.param(_population("snb"), "loss", (0, 3, 0, 0, 2, 1, 1, 1, 0), 0.17599055898432758,
                 id="RiskBased#5 population uniqueness (SNB)", marks=LONG),
]


@pytest.fixture(scope="module")
def adult9():
    return S.load_dataset(study_from_dict({"data": {"sample": "adult9"}}))


@pytest.mark.parametrize(("risk", "measure", "node", "value"), CASES)
def test_arx_risk_based_optimum(adult9, risk, measure, node, value) -> None:
    """ARX's optimum node and its information loss (relative 1e-9)."""
    assert tuple(adult9.quasi_identifiers) == ARX_ORDER
    study = study_from_dict({"data": {"sample": "adult9"},
                             "privacy": {"k": 1, "max_suppression": 0.04, "risk": risk},
                             "engine": {"algorithm": "bnb", "objective": measure}, "measures": {"compare": [measure]}})
    result = S.search(study, adult9)
    assert result.optimum == node
    assert result.value == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize(("risk", "measure", "node", "suppressed", "value"), [
    pytest.param({"model": "average", "threshold": 0.01}, "entropy_nm", (1, 0, 1, 1, 3, 2, 2, 1, 1), 608,
                 314637.8461904862, id="average risk: first record"),
    pytest.param({"model": "sample_uniqueness", "threshold": 0.01}, "loss", (0, 3, 0, 0, 1, 1, 1, 1, 0), 1059,
                 0.1606952725863784, id="sample uniqueness: per-class loss, then first record"),
])
def test_the_order_of_suppression_decides_the_score(adult9, risk, measure, node, suppressed, value) -> None:
    """At ARX's optimum, the threshold suppresses some of the classes of one size (608 records for average risk,
    among them some of the classes of 14; 1,059 of the 1,350 unique records for sample uniqueness): which ones
    changes the score. ARX's order (for the Loss metric, lowest per-class loss first; then first record) gives
    ARX's value, for the node's frequency set and for its release alike; the classes in the order of their codes
    do not."""
    from workbench.lattice.evaluate import NodeEvaluator
    from workbench.objective import NodeScorer, score_release
    from workbench.privacy.build import admissibility_for
    from workbench.release import Release

    study = study_from_dict({"data": {"sample": "adult9"}, "privacy": {"k": 1, "max_suppression": 0.04, "risk": risk},
                             "engine": {"algorithm": "bnb", "objective": measure}, "measures": {"compare": [measure]}})
    scores = {}
    for order in ("arx", "codes"):
        rule = admissibility_for(study, adult9)
        if order == "codes":
            rule.first_suppressed = lambda view, classes, take: classes[:take]  # type: ignore[method-assign]
        evaluator = NodeEvaluator(adult9.encoded, 1, 0.04, rule)
        outcome = evaluator.outcome(evaluator.frequency_set(node))
        assert outcome.admissible and outcome.suppressed == suppressed
        scores[order] = NodeScorer(evaluator).scores(node, [measure])[measure].value
        if order == "arx":  # the release of the node suppresses the same records, cell by cell
            release = Release.from_node(adult9, node, 1, 0.04, "bnb", rule)
            assert int(release.suppressed.sum()) == suppressed and release.verify().holds
            assert score_release(study, release)[measure].value == pytest.approx(value, rel=1e-9)
    assert scores["arx"] == pytest.approx(value, rel=1e-12)
    assert scores["codes"] != pytest.approx(value, rel=1e-6)


def test_solver_iterations_is_checked_and_reaches_the_estimator() -> None:
    """``solver_iterations`` (ARX's iterationsPerTry) belongs to population uniqueness and is at least 1; it is
    the threshold's, reported with it, and ARX's 1000 when not given."""
    from workbench.errors import ConfigError
    from workbench.privacy.build import models_for

    def study(risk: dict):
        return study_from_dict({"data": {"sample": "adult9"}, "privacy": {"max_suppression": 0.04, "risk": risk}})

    with pytest.raises(ConfigError, match=r"privacy\.risk\.solver_iterations applies to model = "
                                          r"'population_uniqueness' only"):
        study({"model": "average", "threshold": 0.01, "solver_iterations": 15})
    with pytest.raises(ConfigError, match=r"privacy\.risk\.solver_iterations must be at least 1, got 0"):
        study(_population("pitman") | {"solver_iterations": 0})
    dataset = S.load_dataset(study({"model": "average", "threshold": 0.01}))
    (model,) = models_for(study(_population("pitman")), dataset)
    assert model.solver_iterations == 15 and model.as_dict()["solver_iterations"] == 15
    arx_default = {key: value for key, value in _population("pitman").items() if key != "solver_iterations"}
    (default,) = models_for(study(arx_default), dataset)
    assert default.solver_iterations == 1000  # ARXSolverConfiguration's default
