"""One rule everywhere: every registered privacy model × every engine and algorithm, on small random tables.

Like scikit-learn's checks over every registered estimator: for each configured rule (k with a privacy model, within a
suppression limit) and each engine that can run it (every lattice search of ``ALGORITHMS``, every local algorithm of
``LOCAL_ALGORITHMS``, the DuckDB and Dask backends), ``workbench run --out`` either refuses with one line or writes a
release that meets k, the suppression limit and the model, checked here from the written CSV by checkers written
from the models' definitions (Machanavajjhala et al. 2007 for ℓ-diversity; Li, Li & Venkatasubramanian 2007 for
t-closeness; Cao & Karras 2012 for β-likeness; Brickell & Shmatikov 2008 for δ-disclosure privacy; Wong et al. 2006
for (α, k)-anonymity; Nergiz, Atzori & Clifton 2007 for δ-presence; Sweeney 2001 and El Emam & Dankar 2008 for k-map;
El Emam 2013 for the risk thresholds), never the library's own model code. The comparison's optimum under each
measure equals exhaustive search's under the same rule, and the figures the run, the comparison and the written
provenance report for one release are the same.

A new privacy model or engine is covered once it is registered: the registries are read, and a registry entry
without a case or a checker here fails ``test_every_registered_model_and_engine_is_covered``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import measures as M
from tests._cli import call
from tests._examples import fast_loop
from tests._random_tables import random_hierarchy
from workbench import compare
from workbench.compare.optima import lattice_optima
from workbench.config import load_study
from workbench.config.checks import BACKENDS
from workbench.lattice.search import ALGORITHMS
from workbench.local import LOCAL_ALGORITHMS
from workbench.privacy.registry import PRIVACY_MODELS
from workbench.study import load_dataset, run, search

K = 2
MAX_SUPPRESSION = 0.2
SEEDS = (3,) if fast_loop() else (3, 11)  # the fast loop: one random table per case

# one case per model and variant: the [privacy.MODEL] table (``s`` is the sensitive attribute)
MODEL_CASES: dict[str, tuple[str, dict[str, object]]] = {
    "distinct-l": ("l_diversity", {"attribute": "s", "variant": "distinct", "l": 2}),
    "entropy-l": ("l_diversity", {"attribute": "s", "variant": "entropy", "l": 1.8}),
    "recursive-cl": ("l_diversity", {"attribute": "s", "variant": "recursive", "l": 2, "c": 3}),
    "equal-t": ("t_closeness", {"attribute": "s", "variant": "equal", "t": 0.45}),
    "hierarchical-t": ("t_closeness", {"attribute": "s", "variant": "hierarchical", "t": 0.4}),
    "ordered-t": ("t_closeness", {"attribute": "s", "variant": "ordered", "t": 0.35}),
    "two-attributes-l": ("l_diversity", {"attribute": ["s", "s2"], "variant": "distinct", "l": 2}),
    "basic-beta": ("beta_likeness", {"attribute": "s", "variant": "basic", "beta": 1.2}),
    "enhanced-beta": ("beta_likeness", {"attribute": "s", "variant": "enhanced", "beta": 1.2}),
    "two-attributes-beta": ("beta_likeness", {"attribute": ["s", "s2"], "beta": 1.5}),
    "delta-disclosure": ("delta_disclosure", {"attribute": "s", "delta": 3.0}),
    "alpha-k": ("alpha_k", {"attribute": "s", "alpha": 0.65}),
    "alpha-k-value": ("alpha_k", {"attribute": "s", "alpha": 0.6, "k": 3, "values": ["0"]}),
    "delta-presence": ("delta_presence", {"subset": "subset.csv", "delta_min": 0.0, "delta_max": 0.8}),
    "k-map-table": ("k_map", {"k": 3, "subset": "subset.csv"}),
    "k-map-estimated": ("k_map", {"k": 5, "population": 10000, "estimator": "poisson", "significance": 0.01}),
    "k-map-zero-truncated": ("k_map", {"k": 4, "population": 120, "estimator": "zero_truncated_poisson",
                                       "significance": 0.05}),
    "average-risk": ("risk", {"model": "average", "threshold": 0.4}),
    "sample-uniqueness": ("risk", {"model": "sample_uniqueness", "threshold": 0.1}),
}

# engine id -> the [engine] keys that select it
ENGINES: dict[str, dict[str, object]] = {
    **{f"lattice-{a}": {"kind": "lattice", "algorithm": a, "objective": "loss",
                        **({"time_limit": 30.0} if spec.anytime else {}),
                        **({"allow_non_monotone": True} if spec.requires_monotone else {})}
       for a, spec in ALGORITHMS.items()},
    **{f"local-{a}": {"kind": "local", "algorithm": a, "objective": "vinterbo"} for a in LOCAL_ALGORITHMS},
    **{f"backend-{b}": {"kind": "lattice", "algorithm": "exhaustive", "objective": "loss", "backend": b}
       for b in BACKENDS if b != "pandas"},
}
# a run of these must never be refused: they are optimal for any rule (exhaustive, bnb) or enforce the class-level
# models judged on a class's own records (Mondrian)
PARTITION_CHECKABLE = ("l_diversity", "t_closeness", "beta_likeness", "delta_disclosure", "alpha_k")
NEVER_REFUSED = {("lattice-exhaustive", m) for m in MODEL_CASES} | {("lattice-bnb", m) for m in MODEL_CASES} | {
    ("local-mondrian", m) for m in MODEL_CASES
    if MODEL_CASES[m][0] in PARTITION_CHECKABLE or (MODEL_CASES[m][0] == "k_map" and "population" in MODEL_CASES[m][1])}


# ---------------------------------------------------------------------------------------------- the tables
def _table(seed: int, folder: Path) -> tuple[pd.DataFrame, dict[str, list[tuple[str, ...]]]]:
    """A random table: two or three quasi-identifiers with random tree hierarchies, a numeric sensitive attribute
    ``s`` (0..4, with a two-level hierarchy), an insensitive column and a second sensitive attribute ``s2`` (a, b, c);
    written as data.csv, the hierarchies and a research subset (every other row)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 70))
    frame, rows = {}, {}
    for j in range(int(rng.integers(2, 4))):
        h = random_hierarchy(rng, f"q{j}", int(rng.integers(2, 6)), int(rng.integers(1, 3)))
        rows[f"q{j}"] = list(h.rows)
        frame[f"q{j}"] = [h.values[i] for i in rng.integers(0, len(h.values), size=n)]
    frame["s"] = [str(v) for v in rng.choice(5, size=n, p=[0.35, 0.25, 0.2, 0.12, 0.08])]
    rows["s"] = [(str(v), "low" if v < 2 else "high", "*") for v in range(5)]
    frame["other"] = [str(i % 7) for i in range(n)]
    frame["s2"] = [str(v) for v in rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])]
    df = pd.DataFrame(frame)
    df.to_csv(folder / "data.csv", index=False)
    df.iloc[::2].to_csv(folder / "subset.csv", index=False)
    for name, hrows in rows.items():
        (folder / f"{name}.csv").write_text("\n".join(";".join(r) for r in hrows) + "\n")
    return df, rows


def _config(folder: Path, df: pd.DataFrame, model: str, engine: str) -> Path:
    kind, params = MODEL_CASES[model]
    lines = ['[data]', 'path = "data.csv"', '']
    for q in (c for c in df.columns if c.startswith("q")):
        lines += [f'[attributes.{q}]', 'role = "quasi"', f'hierarchy = "{q}.csv"', '']
    lines += ['[attributes.s]', 'role = "sensitive"', 'hierarchy = "s.csv"', '',
              '[attributes.s2]', 'role = "sensitive"', '',
              '[privacy]', f'k = {K}', f'max_suppression = {MAX_SUPPRESSION}', '', f'[privacy.{kind}]']
    lines += [f"{key} = {json.dumps(value)}" for key, value in params.items()] + ['', '[engine]']
    lines += [f"{key} = {json.dumps(value)}" for key, value in ENGINES[engine].items()]
    lines += ['', '[measures]', 'compare = ["loss", "dm"]']
    path = folder / f"{model}-{engine}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------------------------------------- the checkers
def _generalize(value: str, rows: list[tuple[str, ...]], level: int) -> str:
    return next(r[level] for r in rows if r[0] == value)


def _emd_equal(p: Counter, q: Counter) -> float:
    values = set(p) | set(q)
    return 0.5 * sum(abs(p[v] - q[v]) for v in values)


def _emd_ordered(p: Counter, q: Counter) -> float:
    order = [str(v) for v in range(5)]
    running, total = 0.0, 0.0
    for v in order:
        running += p[v] - q[v]
        total += abs(running)
    return total / (len(order) - 1)


def _emd_hierarchical(p: Counter, q: Counter, rows: list[tuple[str, ...]]) -> float:
    """Li et al. 2007, §5: per inner node N at level h, cost h/H · min(positive, negative extra of its children)."""
    height = len(rows[0]) - 1
    extra = {(0, r[0]): p[r[0]] - q[r[0]] for r in rows}
    cost = 0.0
    for level in range(1, height + 1):
        children: dict[str, list[float]] = {}
        for (lv, node), e in extra.items():
            if lv == level - 1:
                parent = next(r[level] for r in rows if r[level - 1] == node)
                children.setdefault(parent, []).append(e)
        for parent, es in children.items():
            pos, neg = sum(e for e in es if e > 0), -sum(e for e in es if e < 0)
            cost += level / height * min(pos, neg)
            extra[(level, parent)] = sum(es)
    return cost


def _poisson_pmf(j: int, lam: float) -> float:
    return math.exp(-lam) * lam ** j / math.factorial(j)


def _derived_k(k: int, n: int, population: float, estimator: str, significance: float) -> int:
    """k-map's k' (El Emam & Dankar 2008's D3/D4, in ARX's ``KMap`` loops): with λ = n / population · k, the Poisson
    loop stops at the first c whose P(X ≤ c) reaches 1 − significance and gives c + 2; the zero-truncated loop sums
    P(X = j) / (1 − P(X = 0)) for j = 1, 2, ... and gives one past the last j summed; both stop when their counter
    reaches k; then at most n and at most k."""
    lam, target = n / population * k, 1 - significance
    if estimator == "poisson":
        c = 0
        while True:
            if sum(_poisson_pmf(j, lam) for j in range(c + 1)) >= target or c + 1 >= k:
                return min(k, n, c + 2)
            c += 1
    total, j = 0.0, 1
    while True:
        total += _poisson_pmf(j, lam) / (1 - _poisson_pmf(0, lam))
        if total >= target or j + 1 >= k:
            return min(k, n, j + 1)
        j += 1


def _population_counts(folder: Path, hierarchies: dict[str, list[tuple[str, ...]]],
                       node: dict[str, int]) -> Counter:
    """The population table's (data.csv's) records per class of ``node``."""
    population = pd.read_csv(folder / "data.csv", dtype=str)
    qis = list(node)
    general = pd.DataFrame({q: [_generalize(v, hierarchies[q], node[q]) for v in population[q]] for q in qis})
    return Counter(map(tuple, general[qis].to_numpy()))


def _check_model(model: str, classes: list[pd.DataFrame], data: pd.DataFrame, released: pd.DataFrame,
                 hierarchies: dict[str, list[tuple[str, ...]]], node: dict[str, int] | None, folder: Path) -> None:
    """Assert the model of ``model`` holds on the kept classes of a release of ``data`` (the released table)."""
    kind, params = MODEL_CASES[model]
    table_share = Counter({v: c / len(data) for v, c in Counter(data.s).items()})
    for cls in classes:
        counts = Counter(cls.s)
        share = Counter({v: c / len(cls) for v, c in counts.items()})
        if model == "distinct-l":
            assert len(counts) >= params["l"], cls
        elif model == "entropy-l":
            entropy = -sum(p * math.log(p) for p in share.values())
            assert entropy >= math.log(float(params["l"])) - 1e-12, cls
        elif model == "recursive-cl":
            r = sorted(counts.values(), reverse=True)
            ell = int(params["l"])
            assert len(r) >= ell and r[0] < float(params["c"]) * sum(r[ell - 1:]), cls
        elif model == "equal-t":
            assert _emd_equal(share, table_share) <= float(params["t"]) + 1e-12, cls
        elif model == "ordered-t":
            assert _emd_ordered(share, table_share) <= float(params["t"]) + 1e-12, cls
        elif model == "hierarchical-t":
            assert _emd_hierarchical(share, table_share, hierarchies["s"]) <= float(params["t"]) + 1e-12, cls
        elif model == "two-attributes-l":
            assert len(counts) >= 2 and len(Counter(cls.s2)) >= 2, cls
        elif kind == "beta_likeness":  # Cao & Karras Def. 2 and 3: (p − q) / q ≤ β, enhanced ≤ min(β, −ln q)
            for column in ([params["attribute"]] if isinstance(params["attribute"], str) else params["attribute"]):
                whole = Counter(data[column])
                for v, c in Counter(cls[column]).items():
                    q = whole[v] / len(data)
                    gain = (c / len(cls) - q) / q
                    bound = float(params["beta"]) if params.get("variant", "basic") == "basic" \
                        else min(float(params["beta"]), -math.log(q))
                    assert gain <= bound + 1e-12, (column, v, cls)
        elif kind == "delta_disclosure":  # Brickell & Shmatikov Def. 4 on the values present (ARX): |log2(p/q)| < δ
            for v, p in share.items():
                assert abs(math.log2(p / table_share[v])) < float(params["delta"]) + 1e-12, (v, cls)
        elif kind == "alpha_k":  # Wong et al. 2006: k records, and the share of the (chosen) sensitive values ≤ α
            chosen = params.get("values") or list(share)
            assert max([share[v] for v in chosen] + [0.0]) <= float(params["alpha"]) + 1e-12, cls
            assert len(cls) >= int(params.get("k", K)), cls
        elif model in ("k-map-estimated", "k-map-zero-truncated"):
            derived = _derived_k(int(params["k"]), len(data), float(params["population"]), str(params["estimator"]),
                                 float(params["significance"]))
            assert len(cls) >= derived, (derived, cls)
    if model == "k-map-table":  # every released class matches k records of the population table
        assert node is not None, "k-map against a population table is defined on a lattice node's classes"
        sizes = _population_counts(folder, hierarchies, node)
        for cls in classes:
            assert sizes[tuple(cls[list(node)].iloc[0])] >= int(params["k"]), cls
    if kind == "delta_presence":  # every released class: δ = subset records / population records in the class
        assert node is not None, "δ-presence is defined on a lattice node's classes"
        qis = list(node)
        sizes = _population_counts(folder, hierarchies, node)
        for cls in classes:
            key = tuple(cls[qis].iloc[0])
            delta = len(cls) / sizes[key]
            assert float(params["delta_min"]) - 1e-12 <= delta <= float(params["delta_max"]) + 1e-12, (key, delta)
    if kind == "risk":
        sizes = np.array([len(c) for c in classes])
        records = int(sizes.sum())
        if records:
            value = sizes.size / records if params["model"] == "average" else (sizes == 1).sum() / records
            assert value <= float(params["threshold"]) + 1e-12


def _check_release(folder: Path, out: Path, data: pd.DataFrame, model: str,
                   hierarchies: dict[str, list[tuple[str, ...]]], node: dict[str, int] | None,
                   local: bool = False) -> None:
    """The release's classes meet k, the limit and the model; a local release suppresses nothing (its rows of * in
    every quasi-identifier are a class generalized to the top, checked as any other)."""
    released = pd.read_csv(out / "release.csv", dtype=str, keep_default_na=False)
    qis = [c for c in data.columns if c.startswith("q")]
    top = node is not None and all({r[node[q]] for r in hierarchies[q]} == {"*"} for q in qis)  # one class of *
    starred = (released[qis] == "*").all(axis=1) & (not local) & (not top)
    suppressed = int(starred.sum())
    assert suppressed <= math.floor(MAX_SUPPRESSION * len(data) + 1e-9)
    kept = released[~starred]
    classes = [g for _, g in kept.groupby(qis, sort=False)]
    assert all(len(c) >= K for c in classes)
    _check_model(model, classes, data, released, hierarchies, node, folder)
    provenance = json.loads((out / "provenance.json").read_text())
    guarantee = provenance["guarantee"]
    assert guarantee["holds"] is True and len(guarantee.get("privacy_models", {})) == 1, guarantee
    assert all(guarantee["privacy_models"].values())


def _is_refusal(status: int, err: str) -> bool:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    return status == 2 and len(lines) == 1 and lines[0].startswith("workbench:") and "Traceback" not in err


# ---------------------------------------------------------------------------------------------- the suite
def test_every_registered_model_and_engine_is_covered():
    assert {kind for kind, _ in MODEL_CASES.values()} == set(PRIVACY_MODELS)
    assert {e.split("-", 1)[1] for e in ENGINES if e.startswith("lattice-")} == set(ALGORITHMS)
    assert {e.split("-", 1)[1] for e in ENGINES if e.startswith("local-")} == set(LOCAL_ALGORITHMS)
    assert {e.split("-", 1)[1] for e in ENGINES if e.startswith("backend-")} == set(BACKENDS) - {"pandas"}


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("model", list(MODEL_CASES))
def test_every_engine_meets_every_model_or_refuses(tmp_path: Path, model: str, engine: str):
    for seed in SEEDS:
        folder = tmp_path / str(seed)
        folder.mkdir()
        data, hierarchies = _table(seed, folder)
        config = _config(folder, data, model, engine)
        out = folder / "out"
        status, stdout, err = call("run", config, "--out", out, "--json")
        if status == 1:  # no node meets the rule: nothing is written
            assert not out.exists() and "no node" in err
            continue
        if status != 0:
            assert _is_refusal(status, err), (status, err)
            assert (engine, model) not in NEVER_REFUSED, err
            assert not out.exists()
            return
        summary = json.loads(stdout)
        assert summary["k_anonymous"] is True
        assert all(m["holds"] for m in summary["privacy_models"].values())
        _check_release(folder, out, data, model, hierarchies, summary.get("transformation"),
                       local=engine.startswith("local-"))


@pytest.mark.parametrize("model", list(MODEL_CASES))
def test_comparison_optimum_is_exhaustive_searchs_under_the_whole_rule(tmp_path: Path, model: str):
    """``compare.lattice_optima`` under every lattice measure equals exhaustive search's optimum with the same rule
    (k, the model, the suppression limit), node and value."""
    for seed in SEEDS:
        folder = tmp_path / str(seed)
        folder.mkdir()
        data, _ = _table(seed, folder)
        study = load_study(_config(folder, data, model, "lattice-exhaustive"))
        ds = load_dataset(study)
        ids = [m for m in M.LATTICE_MEASURES]
        optima = lattice_optima(study, ds, ids).set_index("measure")
        for m in ids:
            reference = search(replace(study, objective=m), ds, "exhaustive")
            if reference.optimum is None:
                assert m not in optima.index
                continue
            label = ",".join(f"{q}={v}" for q, v in zip(ds.quasi_identifiers, reference.optimum, strict=True))
            sign = -1.0 if M.MEASURES[m].higher_is_better else 1.0
            assert sign * optima.loc[m].value == pytest.approx(reference.value, rel=1e-9, abs=1e-12), (m, seed)
            assert optima.loc[m].solution == label, (m, seed)
            assert optima.loc[m].searched.startswith("every node admissible under k = 2, "), optima.loc[m].searched


def _stated(model: str, data: pd.DataFrame, study_k: int) -> list[str]:
    """What the words of ``model``'s promise must state, written here from the config's parameters and the table: the
    factor, share or size each model's definition bounds (Cao & Karras's 1 + β, Brickell & Shmatikov's 2^δ, Wong et
    al.'s α, k-map's k' by ``_derived_k``, δ-presence's bounds), and the attribute it protects."""
    kind, params = MODEL_CASES[model]
    attributes = [params["attribute"]] if isinstance(params.get("attribute"), str) else params.get("attribute", [])
    stated = [f"{a} = " if params.get("values") else f"of {a}" for a in attributes]  # (α, k) on chosen values
    if kind == "beta_likeness":
        stated.append(f"at most {1 + float(params['beta']):g} times as common as in the whole table")
    elif kind == "delta_disclosure":
        factor = f"{2 ** float(params['delta']):.3g}"
        stated += [f"less than {factor} times as common", f"more than 1/{factor} as common"]
    elif kind == "alpha_k":
        stated += [f"more than {100 * float(params['alpha']):g} % of a group",
                   f"at least {int(params.get('k', study_k))} records"]
    elif model in ("k-map-estimated", "k-map-zero-truncated"):
        derived = _derived_k(int(params["k"]), len(data), float(params["population"]), str(params["estimator"]),
                             float(params["significance"]))
        stated += [f"at least {int(params['k']):,} people", f"at least {derived} records"]
    elif model == "k-map-table":
        stated += [f"at least {int(params['k']):,} people",
                   f"({len(data):,} people, of whom {len(data.iloc[::2]):,} are in the data)"]
    elif kind == "delta_presence":
        stated.append(f"between {100 * float(params['delta_min']):g} % and {100 * float(params['delta_max']):g} %")
    elif kind == "t_closeness":
        stated.append(f"t = {float(params['t']):g}")
    elif kind == "risk":
        stated.append(f"{100 * float(params['threshold']):g} %")
    return stated


@pytest.mark.parametrize("model", list(MODEL_CASES))
def test_every_model_is_promised_in_plain_words_on_the_reports_first_page(tmp_path: Path, model: str):
    """The report's first page says what each privacy model promises in words, not by its technical name: the words
    are not the model's name, and they state the bound the model's definition sets, computed here from the config.
    (That the release meets the bound is the conformance test above.)"""
    from workbench.report import build_summary

    folder = tmp_path / "t"
    folder.mkdir()
    data, _ = _table(SEEDS[0], folder)
    study = load_study(_config(folder, data, model, "lattice-exhaustive"))
    result = run(study)
    assert result.release is not None  # every model has a release on this table
    promises = build_summary(study, result).guarantee
    named = list(result.privacy_models().values())
    assert len(named) == 1
    promise = next(p for p in promises if p.name == named[0]["description"])
    assert promise.words != promise.name and promise.holds is True
    for text in _stated(model, data, study.k):
        assert text in promise.words, (text, promise.words)


@pytest.mark.parametrize("model", ["entropy-l", "hierarchical-t", "average-risk"])
def test_one_release_reports_the_same_figures_everywhere(tmp_path: Path, model: str):
    """The run's JSON, the solutions table's row of its node, the written provenance and the report's facts give the
    same measures, suppression and verdict; the report's optimum is the comparison's."""
    from workbench.report.facts import gather

    data, _ = _table(SEEDS[0], tmp_path)
    config = _config(tmp_path, data, model, "lattice-exhaustive")
    status, stdout, err = call("run", config, "--out", tmp_path / "out", "--json")
    assert status == 0, err
    summary = json.loads(stdout)
    provenance = json.loads((tmp_path / "out" / "provenance.json").read_text())
    study = load_study(config)
    result = run(study)
    table = compare.solutions(study, result.dataset, "all", local_algorithms=())
    label = ",".join(f"{q}={v}" for q, v in summary["transformation"].items())
    row = table[table.solution == label].iloc[0]
    assert bool(row.meets_rule) and row.rule_failures == ""
    assert int(row.suppressed) == summary["suppressed"] == provenance["guarantee"]["suppressed"]
    for m in ("loss", "dm"):
        assert row[m] == pytest.approx(summary["measures"][m], rel=1e-12)
    assert provenance["guarantee"]["privacy_models"] == {d["description"]: d["holds"]
                                                         for d in summary["privacy_models"].values()}
    facts = gather(study, result, "workbench report")
    costs = facts.costs.set_index("id")
    for m in ("loss", "dm"):
        assert costs.loc[m, "value"] == pytest.approx(summary["measures"][m], rel=1e-12)
    assert facts.release["suppressed"] == summary["suppressed"]
    assert [(d["description"], d["holds"]) for d in facts.privacy["models"]] == \
        [(d["description"], d["holds"]) for d in summary["privacy_models"].values()]
    chosen = facts.alternatives["optimal_under"]
    optima = lattice_optima(study, result.dataset, ["loss", "dm"]).set_index("measure")
    for m in ("loss", "dm"):
        row = chosen[(chosen.measure == m) & (chosen.algorithm == "optimum")].iloc[0]
        assert (row.solution, row.value) == (optima.loc[m].solution, optima.loc[m].value)
        assert row.scope == optima.loc[m].searched and "every node admissible under k = 2" in row.scope
    table = facts.alternatives["table"]
    assert table[table.chosen].meets_rule.all()


def test_the_api_refuses_what_the_cli_refuses(tmp_path: Path, monkeypatch):
    """An exhaustive search over a 390,625-node lattice (8 quasi-identifiers of height 4): the CLI, the report
    command and ``wb.run`` refuse it with the same sentence; Flash runs, with a time limit or under the default
    budget, which its note states."""
    import workbench as wb
    from workbench.errors import ConfigError

    rng = np.random.default_rng(5)
    lines = ['[data]', 'path = "data.csv"', '']
    frame = {}
    for j in range(8):
        h = random_hierarchy(rng, f"q{j}", 16, 4)
        (tmp_path / f"q{j}.csv").write_text(h.to_arx())
        frame[f"q{j}"] = [h.values[i] for i in rng.integers(0, 16, size=60)]
        lines += [f'[attributes.q{j}]', 'role = "quasi"', f'hierarchy = "q{j}.csv"', '']
    pd.DataFrame(frame).to_csv(tmp_path / "data.csv", index=False)
    lines += ['[privacy]', 'k = 2', 'max_suppression = 0.1', '', '[engine]', 'algorithm = "exhaustive"',
              'objective = "height"']
    config = tmp_path / "big.toml"
    config.write_text("\n".join(lines) + "\n")
    status, _, err = call("run", config)
    assert status == 2 and "390,625 lattice nodes" in err and "stop at a time limit" in err
    with pytest.raises(ConfigError) as refused:
        wb.run(wb.load_study(config))
    assert f"workbench: {refused.value}" == err.strip()
    status, _, report_err = call("report", config, "--out", tmp_path / "report")
    assert status == 2 and report_err == err
    timed = wb.load_study(config, ["engine.algorithm=flash", "engine.time_limit=1"])
    assert wb.run(timed).release is not None
    from workbench import policy

    monkeypatch.setattr(policy, "DEFAULT_TIME_LIMIT", 1.0)
    untimed = wb.run(wb.load_study(config, ["engine.algorithm=flash"]))
    assert untimed.release is not None and "default budget of 1 s" in untimed.search.note


# ---------------------------------------------------------------------------------------------- the geography engine
GEO_MODELS = ("distinct-l", "equal-t", "average-risk")
GEO_ROWS = 1500


def _geo_config(folder: Path, model: str, method: str) -> Path:
    """The embedded registry's geography config (its first ``GEO_ROWS`` admissions) with the model on high_cost."""
    kind, params = MODEL_CASES[model]
    root = Path(__file__).resolve().parents[1]
    text = (root / "sample_configs" / "registry_geo.toml").read_text()
    table = "".join(f"{key} = {json.dumps('high_cost' if key == 'attribute' else value)}\n"
                    for key, value in params.items())
    text = text.replace("[privacy]\nk = 5\n", f"[privacy]\nk = 5\nmax_suppression = 0.1\n[privacy.{kind}]\n{table}")
    text = text.replace('[data]\nsample = "registry"\n', f'[data]\nsample = "registry"\nrows = {GEO_ROWS}\n'
                        '[attributes.high_cost]\nrole = "sensitive"\n')
    text = text.replace('method = "vbas"', f'method = "{method}"')
    path = folder / "geo.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("method", ["vbas", "geoleader"])
@pytest.mark.parametrize("model", GEO_MODELS)
def test_the_geography_engine_meets_every_model_or_refuses(tmp_path: Path, model: str, method: str):
    """The geography engine's own aggregation and its lattice mode (``geo.lattice``): refused in one line, or the
    written release meets k = 5, the limit and the model, checked from release.csv."""
    from workbench.geo.config import METHOD_LABELS
    from workbench.samples import load_sample

    assert method in METHOD_LABELS and set(METHOD_LABELS) == {"vbas", "geoleader"}
    config = _geo_config(tmp_path, model, method)
    data = load_sample("registry").frame.iloc[:GEO_ROWS].rename(columns={"high_cost": "s"})
    qis = ["postal_code", "sex", "ethnicity"]
    for mode, extra in (("aggregation", []), ("lattice", ["--set", "geo.lattice=true",
                                                          "--set", "engine.algorithm=exhaustive"])):
        out = tmp_path / mode
        status, _, err = call("geo", config, *extra, "--out", out)
        if status != 0:
            assert _is_refusal(status, err), (mode, err)
            assert mode == "aggregation", err  # the lattice mode enforces every model
            continue
        released = pd.read_csv(out / "release.csv", dtype=str, keep_default_na=False).rename(columns={"high_cost": "s"})
        starred = (released[qis] == "*").all(axis=1)
        assert int(starred.sum()) <= math.floor(0.1 * GEO_ROWS)
        classes = [g for _, g in released[~starred].groupby(qis, sort=False)]
        assert all(len(c) >= 5 for c in classes)
        _check_model(model, classes, data, released, {}, None, tmp_path)
        guarantee = json.loads((out / "provenance.json").read_text())["guarantee"]
        assert guarantee["holds"] and all(guarantee["privacy_models"].values()), guarantee
