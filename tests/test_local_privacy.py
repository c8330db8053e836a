"""The local engine and every other non-lattice-search path under privacy models besides k.

Mondrian (LeFevre, DeWitt & Ramakrishnan 2006) enforces ℓ-diversity, t-closeness, β-likeness, δ-disclosure privacy
and (α, k)-anonymity: a cut is allowable only when every side holds k records and each model. Its releases are
checked here by checkers written from the models' definitions, not the library's model code: ℓ-diversity from
Machanavajjhala et al. (2007, Defs. 4.1 and 4.2: at least ℓ distinct values; entropy −Σ p log p ≥ log ℓ; recursive
r₁ < c (r_ℓ + … + r_m)), t-closeness from Li, Li & Venkatasubramanian (2007, §4: the earth mover's distance to the
whole table's distribution at most t; equal ground distance ½ Σ |p − q|, ordered (1/(m − 1)) Σ_i |Σ_{j≤i} (p_j −
q_j)|, and the hierarchical one solved here as the transportation problem itself, a linear programme over the ground
distances, the height of two values' lowest common ancestor over the hierarchy's), β-likeness from Cao & Karras
(2012, Defs. 2 and 3: (p − q)/q ≤ β, enhanced ≤ min(β, −ln q)), δ-disclosure privacy from Brickell & Shmatikov
(2008, Def. 4, on the values present, as ARX: |log2(p/q)| < δ), (α, k)-anonymity from Wong et al. (2006: no value's
share above α). They run on small random tables and on the embedded Adult with occupation sensitive, with a check
that Mondrian stopped only where no cut it tries was allowable (so a release of one class, which satisfies
everything, cannot pass for a correct one).

The other local algorithms, Mondrian with the models it cannot enforce, the geography engine's own aggregation and
the out-of-core backends refuse with one line naming the model and the engine; the refusal is one policy function
reached from the CLI, the Python API, the comparison and the app.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

from tests._cli import call
from workbench import compare
from workbench.config import load_study, study_from_dict
from workbench.errors import ConfigError, VerificationError
from workbench.local import LOCAL_ALGORITHMS, MODEL_ENFORCING
from workbench.local import greedy as greedy_search
from workbench.local.setup import local_setup
from workbench.objective import local_weigh
from workbench.policy import local_refusal, local_rule, privacy_refusal
from workbench.release import Release
from workbench.study import load_dataset, local_release, run

ROOT = Path(__file__).resolve().parents[1]
ADULT_PRIVACY = ROOT / "sample_configs" / "adult_privacy.toml"
LOCAL = ["engine.kind=local", "engine.objective=vinterbo"]

# the random tables: age (a range poset), zone (a tree z -> A/B/C -> *), s (sensitive, numbers whose text order is
# not their numeric order, with a hierarchy value -> low/mid/high -> L/H -> *)
ZONES = {f"z{i}": "ABC"[i // 2] for i in range(6)}
SENSITIVE = ["1", "2", "5", "10", "20"]
S_LEVEL1 = {"1": "low", "2": "low", "5": "mid", "10": "high", "20": "high"}
S_LEVEL2 = {"low": "L", "mid": "H", "high": "H"}
S_PATH = {v: [v, S_LEVEL1[v], S_LEVEL2[S_LEVEL1[v]], "*"] for v in SENSITIVE}  # leaf to root, height 3


# ---------------------------------------------------------------------------------------------- the checkers
def _shares(counts: Counter, values: list[str]) -> np.ndarray:
    total = sum(counts.values())
    return np.array([counts.get(v, 0) / total for v in values])


def _emd(p: np.ndarray, q: np.ndarray, ground: np.ndarray) -> float:
    """The earth mover's distance from p to q: the least Σ f_ij d_ij moving p's mass onto q's (Li et al. 2007,
    Def. 3), as a linear programme over the flows f_ij ≥ 0 with Σ_j f_ij = p_i and Σ_i f_ij = q_j."""
    m = len(p)
    rows = np.zeros((2 * m, m * m))
    for i in range(m):
        rows[i, i * m:(i + 1) * m] = 1  # out of i
        rows[m + i, i::m] = 1  # into i
    out = linprog(ground.ravel(), A_eq=rows, b_eq=np.concatenate([p, q]), bounds=(0, None), method="highs")
    assert out.success
    return float(out.fun)


def _hierarchical_ground(values: list[str], path: dict[str, list[str]]) -> np.ndarray:
    """Li et al.'s hierarchical ground distance: the height of the lowest common ancestor over the height."""
    height = len(next(iter(path.values()))) - 1
    d = np.zeros((len(values), len(values)))
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            d[i, j] = next(h for h in range(height + 1) if path[a][h] == path[b][h]) / height
    return d


def _numeric_order(values: list[str]) -> list[str]:
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def holds(model: dict, counts: Counter, whole: Counter, path: dict[str, list[str]] | None = None,
          margin: float = 1e-9) -> bool:
    """Does a class with sensitive-value ``counts`` satisfy ``model`` (a ``[privacy.MODEL]`` table with its kind), in
    a table whose sensitive values are ``whole``? ``margin`` > 0 leans towards "holds" (to forgive rounding),
    < 0 towards "does not" (for "this cut would have been allowable")."""
    total = sum(counts.values())
    if model["kind"] in ("beta_likeness", "delta_disclosure", "alpha_k"):
        n = sum(whole.values())
        for v, c in counts.items():
            p, q = c / total, whole[v] / n
            if model["kind"] == "alpha_k" and p > model["alpha"] + margin:
                return False
            if model["kind"] == "delta_disclosure" and abs(math.log2(p / q)) >= model["delta"] - margin:
                return False
            if model["kind"] == "beta_likeness":
                bound = model["beta"] if model.get("variant", "basic") == "basic" else min(model["beta"], -math.log(q))
                if (p - q) / q > bound + margin:
                    return False
        return True
    if model["kind"] == "l_diversity":
        ell = model["l"]
        if model["variant"] == "distinct":
            return len(counts) >= ell
        if model["variant"] == "entropy":
            entropy = -sum(c / total * math.log(c / total) for c in counts.values())
            return entropy >= math.log(ell) - margin
        r = sorted(counts.values(), reverse=True)
        return r[0] < model["c"] * sum(r[int(ell) - 1:])  # integers and c: no rounding in the way
    values = _numeric_order(list(whole))
    p, q = _shares(counts, values), _shares(whole, values)
    if model["variant"] == "equal":
        distance = 0.5 * float(np.abs(p - q).sum())
    elif model["variant"] == "ordered":
        distance = float(np.abs(np.cumsum(p - q)).sum()) / (len(values) - 1)
    else:
        assert path is not None
        distance = _emd(p, q, _hierarchical_ground(values, path))
    return distance <= model["t"] + 10 * margin


def classes_of(release: Release, sensitive: str) -> list[tuple[np.ndarray, Counter]]:
    """The released table's classes (identical released quasi-identifier rows): each one's records (input rows)
    and its sensitive values, read from the released table itself."""
    table = release.table()
    qis = release.quasi_identifiers
    return [(group.index.to_numpy(), Counter(group[sensitive].astype(str)))
            for _, group in table.groupby(qis, sort=False)]


def assert_release_holds(release: Release, models: list[dict], sensitive: str, path: dict | None = None) -> None:
    whole = Counter(release.dataset.frame[sensitive].astype(str))
    classes = classes_of(release, sensitive)
    assert all(len(rows) >= release.k for rows, _ in classes)
    for model in models:
        broken = [counts for _, counts in classes if not holds(model, counts, whole, path)]
        assert not broken, (model, len(broken), broken[:3])


# ---------------------------------------------------------------------------------------------- random tables
def _random_study(tmp_path: Path, seed: int, models: dict[str, dict], k: int) -> tuple:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 90))
    weights = rng.dirichlet(np.ones(len(SENSITIVE)) * 0.8)  # skewed sensitive distributions
    frame = pd.DataFrame({"age": rng.integers(20, 45, n).astype(str),
                          "zone": rng.choice(list(ZONES), n),
                          "s": rng.choice(SENSITIVE, n, p=weights)})
    frame.to_csv(tmp_path / "d.csv", index=False)
    raw = {"data": {"path": "d.csv"},
           "attributes": {"age": {"role": "quasi", "poset": "range"},
                          "zone": {"role": "quasi", "builder": {"kind": "groupings", "levels": [ZONES]}},
                          "s": {"role": "sensitive", "builder": {"kind": "groupings",
                                                                "levels": [S_LEVEL1, S_LEVEL2]}}},
           "privacy": {"k": k, **{kind: {"attribute": "s", **table} for kind, table in models.items()}},
           "engine": {"kind": "local", "algorithm": "mondrian", "objective": "vinterbo"},
           "measures": {"compare": ["loss"]}}
    return study_from_dict(raw, base_dir=tmp_path), frame


def _lower_median(values: np.ndarray) -> int:
    ordered = np.sort(values)
    return int(ordered[(len(ordered) + 1) // 2 - 1])


def _candidate_cuts(frame: pd.DataFrame, rows: np.ndarray) -> list[list[np.ndarray]]:
    """The cuts Mondrian tries on a partition (LeFevre et al. Fig. 4): a numeric attribute at the lower median
    (≤ against >, then < against ≥), a categorical one into the children of its values' lowest common ancestor."""
    ages = frame.loc[rows, "age"].astype(int).to_numpy()
    median = _lower_median(ages)
    cuts = [[rows[ages <= median], rows[ages > median]], [rows[ages < median], rows[ages >= median]]]
    zones = frame.loc[rows, "zone"].to_numpy()
    groups = {ZONES[z] for z in zones}
    child = zones if len(groups) == 1 else np.array([ZONES[z] for z in zones])  # below A, B or C, or below *
    if len(set(child)) > 1:
        cuts.append([rows[child == c] for c in sorted(set(child))])
    return [cut for cut in cuts if all(len(side) for side in cut)]


MODEL_CASES = {
    "distinct": {"l_diversity": {"variant": "distinct", "l": 2}},
    "entropy": {"l_diversity": {"variant": "entropy", "l": 1.7}},
    "recursive": {"l_diversity": {"variant": "recursive", "l": 2, "c": 2.5}},
    "equal": {"t_closeness": {"variant": "equal", "t": 0.2345}},
    "hierarchical": {"t_closeness": {"variant": "hierarchical", "t": 0.2345}},
    "ordered": {"t_closeness": {"variant": "ordered", "t": 0.1789}},
    "entropy+ordered": {"l_diversity": {"variant": "entropy", "l": 1.5},
                        "t_closeness": {"variant": "ordered", "t": 0.3456}},
    "basic-beta": {"beta_likeness": {"variant": "basic", "beta": 0.8765}},
    "enhanced-beta": {"beta_likeness": {"variant": "enhanced", "beta": 0.8765}},
    "delta-disclosure": {"delta_disclosure": {"delta": 1.2345}},
    "alpha-k": {"alpha_k": {"alpha": 0.6543}},
    "beta+alpha": {"beta_likeness": {"beta": 1.5}, "alpha_k": {"alpha": 0.7}},
}


@pytest.mark.parametrize("case", list(MODEL_CASES))
def test_mondrian_releases_satisfy_the_models_on_random_tables(tmp_path, case):
    """On 12 random tables per model: the release of Mondrian satisfies k and the model in every class, by the
    checker from the definition; Mondrian stopped only where no cut it tries was allowable (by the same checker,
    leaning the other way); and a table whose whole breaks the model is refused in one line naming it."""
    cuts_seen = refused = 0
    for seed in range(12):
        k = 2 + seed % 3
        study, frame = _random_study(tmp_path, 1000 * seed + len(case), MODEL_CASES[case], k)
        models = [{"kind": kind, **table} for kind, table in MODEL_CASES[case].items()]
        dataset = load_dataset(study)
        whole = Counter(frame["s"])
        if not all(holds(m, whole, whole, S_PATH, margin=-1e-9) for m in models):
            with pytest.raises(ConfigError, match=r"'mondrian' \(local engine\) cannot enforce .*whole table"):
                local_release(study, dataset)
            refused += 1
            continue
        release, _ = local_release(study, dataset)
        assert_release_holds(release, models, "s", S_PATH)
        assert release.verify().holds and all(release.verify().models.values())
        classes = classes_of(release, "s")
        cuts_seen += len(classes) > 1
        for rows, _ in classes:  # minimal among the cuts Mondrian tries (LeFevre et al. §4)
            for cut in _candidate_cuts(frame, rows):
                allowable = all(len(side) >= k and all(
                    holds(m, Counter(frame.loc[side, "s"]), whole, S_PATH, margin=-1e-9) for m in models)
                                for side in cut)
                assert not allowable, (seed, rows.tolist(), [s.tolist() for s in cut])
    assert cuts_seen >= 3  # the tables are cut, not released as one class
    assert refused < 12


def test_mondrian_without_models_is_unchanged_by_the_rule(tmp_path):
    """No model: the same partitions as plain k-anonymous Mondrian (the rule adds nothing), on random tables."""
    from workbench.local import mondrian

    for seed in range(5):
        study, _ = _random_study(tmp_path, seed, {}, 2 + seed % 3)
        dataset = load_dataset(study)
        _, problem = local_setup(study, dataset, local_weigh(study, dataset))
        plain = mondrian.partitions(problem, study.k)
        ruled = mondrian.partitions(problem, study.k, ())
        assert [p.tolist() for p in plain] == [p.tolist() for p in ruled]


# ---------------------------------------------------------------------------------------------- Adult
def _adult(overrides: list[str]):
    return load_study(ADULT_PRIVACY, [*LOCAL, "engine.algorithm=mondrian", *overrides])


def _adult_models(study) -> list[dict]:
    return [{"kind": spec.kind, **dict(spec.params)} for spec in study.privacy_models]


def test_mondrian_on_adult_with_entropy_diversity_and_hierarchical_closeness():
    """sample_configs/adult_privacy.toml on the local engine: entropy-3-diversity and 0.2-closeness (hierarchical
    distance over the occupation hierarchy) hold in every released class, by the checkers."""
    study = _adult([])
    result = run(study)
    hierarchy = result.dataset.hierarchies["occupation"]
    path = {row[0]: list(row) for row in hierarchy.rows}
    assert_release_holds(result.release, _adult_models(study), "occupation", path)
    assert result.guarantee.holds and result.release.classes > 1
    assert {m["holds"] for m in result.summary()["privacy_models"].values()} == {True}


@pytest.mark.parametrize("models, age", [
    ({"l_diversity": {"variant": "recursive", "l": 3, "c": 3}, "t_closeness": {"variant": "equal", "t": 0.3}},
     "range"),
    ({"l_diversity": {"variant": "distinct", "l": 4}, "t_closeness": {"variant": "ordered", "t": 0.2}}, "tree"),
], ids=["recursive+equal", "distinct+ordered"])
def test_mondrian_on_adult_with_other_variants(models, age):
    ages = {"age": {"poset": "range"}} if age == "range" else {}
    raw = {"data": {"sample": "adult"}, "attributes": {"occupation": {"role": "sensitive"}, **ages},
           "privacy": {"k": 5, **{kind: {"attribute": "occupation", **table} for kind, table in models.items()}},
           "engine": {"kind": "local", "algorithm": "mondrian", "objective": "vinterbo"},
           "measures": {"compare": ["loss"]}}
    study = study_from_dict(raw)
    result = run(study)
    assert_release_holds(result.release, _adult_models(study), "occupation")
    assert result.guarantee.holds and result.release.classes > 10


# ---------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("algorithm", [a for a in LOCAL_ALGORITHMS if a not in MODEL_ENFORCING])
def test_every_other_local_algorithm_refuses_a_privacy_model_in_one_line(algorithm, tmp_path):
    """Through the CLI (exit 2, one line on stderr, nothing written) and the Python API (the same line)."""
    out = tmp_path / "out"
    status, stdout, stderr = call("run", ADULT_PRIVACY, "--set", f"engine.algorithm={algorithm}",
                                  *[a for o in LOCAL for a in ("--set", o)], "--out", out)
    assert status == 2 and stdout == ""
    assert len(stderr.strip().splitlines()) == 1
    line = stderr.strip()
    assert f"engine.algorithm {algorithm!r} (local engine) cannot enforce" in line
    assert "entropy-3-diversity (shannon) of occupation" in line and "0.2-closeness" in line
    assert "use 'mondrian' or the lattice engine" in line
    assert not out.exists()
    study = load_study(ADULT_PRIVACY, [*LOCAL, f"engine.algorithm={algorithm}"])
    with pytest.raises(ConfigError) as caught:
        run(study)
    assert str(caught.value) in line and "\n" not in str(caught.value)


@pytest.mark.parametrize("table, named", [
    ("[privacy.risk]\nmodel = \"average\"\nthreshold = 0.1\n", "average re-identification risk <= 0.1"),
    ("[privacy.risk]\nmodel = \"sample_uniqueness\"\nthreshold = 0.05\n", "sample uniqueness <= 0.05"),
])
def test_mondrian_refuses_a_risk_threshold(tmp_path, table, named):
    config = tmp_path / "c.toml"
    config.write_text("[data]\nsample = \"adult\"\n[privacy]\nk = 5\n" + table
                      + "[engine]\nkind = \"local\"\nalgorithm = \"mondrian\"\nobjective = \"vinterbo\"\n")
    status, _, stderr = call("run", config)
    assert status == 2 and len(stderr.strip().splitlines()) == 1
    assert f"engine.algorithm 'mondrian' (local engine) cannot enforce {named}; use the lattice engine" in stderr


def test_mondrian_refuses_delta_presence():
    status, _, stderr = call("run", ROOT / "sample_configs" / "adult_delta_presence.toml",
                             "--set", "engine.algorithm=mondrian", *[a for o in LOCAL for a in ("--set", o)])
    assert status == 2 and len(stderr.strip().splitlines()) == 1
    assert "'mondrian' (local engine) cannot enforce δ-presence" in stderr and "lattice engine" in stderr


def test_mondrian_refuses_a_table_that_breaks_the_model_as_a_whole():
    """Adult has 14 occupations: 15-diversity fails on the whole table, so no partition can hold it."""
    status, _, stderr = call("run", ADULT_PRIVACY, *[a for o in LOCAL for a in ("--set", o)],
                             "--set", "engine.algorithm=mondrian", "--set", "privacy.l_diversity.l=15")
    assert status == 2 and len(stderr.strip().splitlines()) == 1
    assert "cannot enforce entropy-15-diversity (shannon) of occupation: the whole table (30,162 records" in stderr


def test_the_refusal_is_one_policy_the_app_asks_too():
    """``policy.privacy_refusal`` (what the app's Anonymize page asks) gives the run's own line, for each engine."""
    study = load_study(ADULT_PRIVACY, [*LOCAL, "engine.algorithm=partition"])
    dataset = load_dataset(study)
    line = privacy_refusal(study, dataset, "partition")
    assert line == local_refusal(local_rule(study, dataset), "partition", dataset)
    with pytest.raises(ConfigError, match="cannot enforce"):
        local_release(study, dataset)
    assert privacy_refusal(study, dataset, "mondrian") is None
    assert privacy_refusal(load_study(ADULT_PRIVACY), dataset, "bnb") is None  # the lattice engine enforces all


# ---------------------------------------------------------------------------------------------- verification
def test_a_local_release_that_breaks_its_model_is_never_written(tmp_path):
    """Greedy's k-anonymous release carrying the configured models: ``verify`` checks each, finds them broken, and
    writing refuses in one line (nothing on disk)."""
    study = load_study(ADULT_PRIVACY, [*LOCAL, "engine.algorithm=greedy", "data.rows=3000"])
    dataset = load_dataset(study)
    columns, problem = local_setup(study, dataset, local_weigh(study, dataset))
    release = Release.from_local(dataset, columns, greedy_search.search(problem, study.k), study.k,
                                 local_rule(study, dataset))
    guarantee = release.verify()
    assert not guarantee.holds and guarantee.models and not any(guarantee.models.values())
    assert release.smallest_class() >= study.k  # k holds: the models are what fails
    with pytest.raises(VerificationError, match="DOES NOT hold"):
        release.write(tmp_path / "out", seed=1)
    assert not (tmp_path / "out").exists()


def test_provenance_lists_every_model_of_a_local_release(tmp_path):
    out = tmp_path / "out"
    status, _, stderr = call("run", ADULT_PRIVACY, *[a for o in LOCAL for a in ("--set", o)],
                             "--set", "engine.algorithm=mondrian", "--out", out)
    assert status == 0, stderr
    guarantee = json.loads((out / "provenance.json").read_text())["guarantee"]
    assert guarantee["holds"] is True and guarantee["privacy_models"] == {
        "entropy-3-diversity (shannon) of occupation": True,
        "0.2-closeness (hierarchical distance) of occupation": True}


# ---------------------------------------------------------------------------------------------- comparison
def test_compare_leaves_refused_local_algorithms_out_with_the_reason(tmp_path):
    study, _ = _random_study(tmp_path, 7, {"l_diversity": {"variant": "distinct", "l": 2}}, 2)
    dataset = load_dataset(study)
    refused = compare.local_refusals(study, dataset, compare.COMPARED_LOCAL_ALGORITHMS)
    assert set(refused) == {"greedy", "partition"}
    assert all(f"{a!r} (local engine) cannot enforce distinct-2-diversity of s" in r for a, r in refused.items())
    table = compare.local_solutions(study, dataset)
    assert table.algorithm.tolist() == ["mondrian"]


def test_cli_compare_notes_the_algorithms_it_leaves_out(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[data]\nsample = \"teaching\"\n[attributes.age]\nrole = \"sensitive\"\n"
                      "[privacy]\nk = 2\nmax_suppression = 0.3\n[privacy.l_diversity]\nattribute = \"age\"\n"
                      "variant = \"distinct\"\nl = 2\n[engine]\nalgorithm = \"exhaustive\"\nobjective = \"loss\"\n"
                      "[measures]\ncompare = [\"loss\"]\n")
    status, stdout, stderr = call("compare", config)
    assert status == 0, stderr
    notes = [line for line in stderr.splitlines() if line.startswith("workbench: note: left out of the comparison")]
    assert len(notes) == 2 and all("distinct-2-diversity of age" in n for n in notes)
    solutions = stdout.split("\n\n")[0].splitlines()  # the solutions table, before the optima
    local = [line.split() for line in solutions if " local " in line]
    assert [row[2] for row in local] == ["mondrian"]


# ---------------------------------------------------------------------------------------------- other engines
def _geo_config(tmp_path: Path) -> Path:
    text = (ROOT / "sample_configs" / "registry_geo.toml").read_text()
    text = text.replace("[privacy]\nk = 5\n", "[privacy]\nk = 5\nmax_suppression = 0.1\n[privacy.l_diversity]\n"
                        "attribute = \"high_cost\"\nvariant = \"distinct\"\nl = 2\n")
    text = text.replace("[data]\nsample = \"registry\"\n", "[data]\nsample = \"registry\"\nrows = 4000\n"
                        "[attributes.high_cost]\nrole = \"sensitive\"\n")
    config = tmp_path / "geo.toml"
    config.write_text(text)
    return config


def test_the_geography_engine_refuses_a_model_and_its_lattice_mode_enforces_it(tmp_path):
    config = _geo_config(tmp_path)
    status, stdout, stderr = call("geo", config, "--out", tmp_path / "out")
    assert status == 2 and stdout == "" and len(stderr.strip().splitlines()) == 1
    assert "the geography engine's aggregation enforces k alone and cannot enforce [privacy.l_diversity]" in stderr
    assert not (tmp_path / "out").exists()
    status, stdout, stderr = call("geo", config, "--set", "geo.lattice=true", "--set", "engine.algorithm=exhaustive",
                                  "--json", "--out", tmp_path / "lat")
    assert status == 0, stderr
    summary = json.loads(stdout)
    assert summary["lattice"]["privacy_models"]["l_diversity"]["holds"] is True
    table = pd.read_csv(tmp_path / "lat" / "release.csv", dtype=str, keep_default_na=False)
    qis = ["postal_code", "sex", "ethnicity"]
    kept = table[(table[qis] != "*").any(axis=1)]
    assert (kept.groupby(qis)["high_cost"].nunique() >= 2).all()  # distinct 2-diversity, from the written file
    guarantee = json.loads((tmp_path / "lat" / "provenance.json").read_text())["guarantee"]
    assert guarantee["privacy_models"] == {"distinct-2-diversity of high_cost": True}


@pytest.mark.parametrize("backend", ["duckdb", "dask"])
def test_the_out_of_core_backends_refuse_a_model_in_one_line(tmp_path, backend):
    pd.DataFrame({"a": ["1", "2"], "s": ["x", "y"]}).to_csv(tmp_path / "d.csv", index=False)
    config = tmp_path / "c.toml"
    config.write_text("[data]\npath = \"d.csv\"\n[attributes.a]\nrole = \"quasi\"\nbuilder = { kind = \"groupings\", "
                      "levels = [] }\n[attributes.s]\nrole = \"sensitive\"\n[privacy]\nk = 2\n"
                      "[privacy.l_diversity]\nattribute = \"s\"\nvariant = \"distinct\"\nl = 2\n"
                      f"[engine]\nbackend = \"{backend}\"\n")
    status, _, stderr = call("run", config)
    assert status == 2 and len(stderr.strip().splitlines()) == 1
    assert f"engine.backend {backend!r} needs k-anonymity alone" in stderr and "[privacy.l_diversity]" in stderr
