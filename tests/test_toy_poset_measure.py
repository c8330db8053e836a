"""A new poset kind and a new measure are each one module and one registry entry (docs/architecture.md, "Where new
things go"): a toy poset kind with one parameter and a toy measure with its plain-language text, registered here and
unregistered when each test ends, are found by the config's validation (the parameter checked against its schema), the
CLI (``workbench run`` on the local engine over the toy poset, ``workbench compare`` listing the toy measure), the
app's pickers (AppTest) and the comparison, with no other file changed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

import measures as M
from tests._app import goto, ready_own_table
from tests._cli import call
from workbench import compare
from workbench.config import study_from_dict
from workbench.errors import ConfigError
from workbench.local import POSETS, PosetKind, PosetParameter, register_poset, unregister_poset
from workbench.local.poset_range import RangePoset
from workbench.study import load_dataset

TOY_POSET, TOY_MEASURE = "toy_band", "toy_suppressed"
TOY_LABEL = "numeric ranges, their cost capped at a width (toy)"
TOY_PLAIN = "The share of the records that were suppressed (toy)."
BUILT: list[float | None] = []  # the width each toy poset was built with


def _toy_build(values: list[str], hierarchy: object, width: float | None) -> RangePoset:
    BUILT.append(width)
    return RangePoset.from_values(values, width)


def _teaching(**age: object) -> dict:
    return {"data": {"sample": "teaching"}, "privacy": {"k": 3},
            "attributes": {"date": {"role": "quasi"}, "gender": {"role": "quasi"},
                           "age": {"role": "quasi", "poset": TOY_POSET, **age}},
            "engine": {"kind": "local", "algorithm": "partition", "objective": "vinterbo"},
            "measures": {"compare": ["height", TOY_MEASURE]}}


@pytest.fixture
def toy() -> Iterator[None]:
    """The toy poset kind (one parameter, ``width``) and the toy measure (suppressed share, with a fast path, so it is
    a lattice objective too), unregistered afterwards."""
    register_poset(PosetKind(TOY_POSET, _toy_build, TOY_LABEL, (PosetParameter(
        "width", "number", None, "the widest range that costs 1 (empty: the data's span)", positive=True),)))
    M.register(M.Measure(TOY_MEASURE, "Suppressed share (toy)", "S / n", False, "a test",
                         lambda view: float(view.suppressed.mean()), lambda node: node.suppressed / node.n,
                         meaning=TOY_PLAIN))
    BUILT.clear()
    try:
        yield
    finally:
        unregister_poset(TOY_POSET)
        M.unregister(TOY_MEASURE)
    assert TOY_POSET not in POSETS and TOY_MEASURE not in M.MEASURES


def test_the_config_checks_the_toy_posets_parameter_against_its_schema(toy):
    study = study_from_dict(_teaching(width=5))
    age = next(a for a in study.attributes if a.name == "age")
    assert age.poset == TOY_POSET and age.parameters == {"width": 5.0}
    with pytest.raises(ConfigError, match=r"^config: attributes\.age\.width must be positive, got -1$"):
        study_from_dict(_teaching(width=-1))
    with pytest.raises(ConfigError, match=r"attributes\.age\.width must be an integer or a number, got 'wide'"):
        study_from_dict(_teaching(width="wide"))
    assert study_from_dict(_teaching()).attributes[2].parameter("width") is None  # its default


def test_without_the_toy_registered_its_kind_and_key_are_unknown():
    with pytest.raises(ConfigError, match="unknown key attributes.age.width"):
        study_from_dict(_teaching(width=5))
    with pytest.raises(ConfigError, match=f"poset '{TOY_POSET}' is not one of"):
        study_from_dict(_teaching())


def test_built_in_kinds_cannot_be_replaced_nor_a_parameter_given_another_schema():
    with pytest.raises(ValueError, match="built-in"):
        register_poset(PosetKind("range", _toy_build, TOY_LABEL))
    with pytest.raises(ValueError, match="'max_diff' is another kind's"):
        register_poset(PosetKind(TOY_POSET, _toy_build, TOY_LABEL, (PosetParameter("max_diff", "text"),)))
    assert TOY_POSET not in POSETS


def _covered(originals: list[float], labels: list[str]) -> bool:
    """Can every released label be matched with a distinct original value it contains ("[a, b]" or "a")? Intervals by
    their upper end, each taking the smallest free value at or above its lower end (greedy matching on a line)."""
    spans = sorted(((float(t[1:-1].split(",")[0]), float(t[1:-1].split(",")[1])) if t.startswith("[")
                    else (float(t), float(t)) for t in labels), key=lambda s: s[1])
    free = sorted(originals)
    for lo, hi in spans:
        fit = next((v for v in free if lo <= v <= hi), None)
        if fit is None:
            return False
        free.remove(fit)
    return not free


def test_workbench_run_releases_over_the_toy_poset_with_its_parameter(toy, tmp_path):
    config = tmp_path / "toy.toml"
    config.write_text('[data]\nsample = "teaching"\n[attributes.date]\nrole = "quasi"\n[attributes.gender]\n'
                      f'role = "quasi"\n[attributes.age]\nrole = "quasi"\nposet = "{TOY_POSET}"\nwidth = 5\n'
                      '[privacy]\nk = 3\n[engine]\nkind = "local"\nalgorithm = "partition"\nobjective = "vinterbo"\n',
                      encoding="utf-8")
    status, out, err = call("run", config, "--json", "--out", tmp_path / "out", "--no-register")
    assert status == 0, err
    assert json.loads(out)["k_anonymous"] and BUILT == [5.0]
    release = pd.read_csv(tmp_path / "out" / "release.csv", dtype=str)
    assert release.groupby(["date", "gender", "age"]).size().min() >= 3  # k = 3, counted here
    original = load_dataset(study_from_dict(_teaching(width=5))).frame["age"].astype(float).tolist()
    assert any(label.startswith("[") for label in release.age) and _covered(original, release.age.tolist())
    status, _, err = call("run", config, "--set", "attributes.age.width=0", "--no-register")
    assert status == 2 and "attributes.age.width must be positive, got 0" in err


def test_workbench_compare_lists_the_toy_measure_and_the_comparison_scores_it(toy, tmp_path):
    raw = _teaching(width=5) | {"engine": {"kind": "lattice", "algorithm": "flash", "objective": "height"}}
    raw["privacy"] = {"k": 3, "max_suppression": 0.5}
    study = study_from_dict(raw)
    table = compare.solutions(study, load_dataset(study))
    assert TOY_MEASURE in table.columns and set(table.engine) == {"lattice", "local"}
    n = load_dataset(study).n
    assert np.allclose(table[TOY_MEASURE], table.suppressed / n)  # S / n, from the suppressed records counted
    assert (table.suppressed[table.engine == "lattice"] > 0).any()  # a figure, not only zeros
    config = tmp_path / "toy.toml"
    config.write_text(
        '[data]\nsample = "teaching"\n[attributes.date]\nrole = "quasi"\n[attributes.gender]\nrole = "quasi"\n'
        f'[attributes.age]\nrole = "quasi"\nposet = "{TOY_POSET}"\nwidth = 5\n[privacy]\nk = 3\nmax_suppression = 0.5\n'
        f'[measures]\ncompare = ["height", "{TOY_MEASURE}"]\n', encoding="utf-8")
    status, out, err = call("compare", config)
    assert status == 0, err
    assert TOY_MEASURE in out and 5.0 in BUILT  # the local releases were built over the toy poset


@pytest.mark.slow
def test_the_apps_pickers_offer_the_toy_poset_with_its_field_and_the_toy_measure(toy):
    at = ready_own_table("diagnosis", ["flu", "asthma"], '[attributes.diagnosis]\nrole = "sensitive"\n', seed=3,
                         n=60)
    goto(at, "Hierarchies").run()
    at.selectbox(key="h_column").select("age").run()
    picker = at.selectbox(key="poset:age")
    assert f"{TOY_POSET}: {TOY_LABEL}" in picker.options and not at.exception
    picker.select(TOY_POSET).run()
    width = at.number_input(key=f"poset:age:{TOY_POSET}:width")
    assert width.label == "width" and width.value is None
    width.set_value(-2.0).run()
    assert "width must be positive, got -2" in [e.value for e in at.error]
    at.number_input(key=f"poset:age:{TOY_POSET}:width").set_value(7.0).run()
    assert not at.error
    goto(at, "Anonymize").run()
    assert any(o.startswith("Suppressed share (toy)") for o in at.selectbox(key="an_obj").options)
    at.radio(key="an_engine").set_value("local").run()
    at.selectbox(key="an_local_alg").select("partition").run()
    BUILT.clear()
    at.button[0].click().run()
    assert not at.exception and BUILT and set(BUILT) == {7.0}
    assert at.success and re.search(r"k-anonymous with k = \d+", at.success[0].value)
    goto(at, "Measures").run()
    meanings = next(d.value for d in at.dataframe if "what it means" in d.value.columns).set_index("measure")
    assert meanings.loc[TOY_MEASURE, "what it means"] == TOY_PLAIN


@pytest.mark.slow
def test_a_loaded_config_sets_the_toy_poset_and_its_parameter_in_the_app(toy):
    from streamlit.testing.v1 import AppTest

    from tests._app import APP

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"age": rng.integers(20, 80, 40).astype(str), "sex": rng.choice(["F", "M"], 40)})
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload("people.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    toml = ('[data]\npath = "people.csv"\n[attributes.age]\nrole = "quasi"\n'
            'builder = { kind = "intervals", widths = [10, 20] }\n'
            f'poset = "{TOY_POSET}"\nwidth = 4\n[attributes.sex]\nrole = "quasi"\n'
            'builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }\n')
    at.file_uploader(key="config_upload").upload("people.toml", toml.encode(), "application/toml").run()
    assert not at.exception and not [w.value for w in at.warning if "poset" in w.value]  # applied, no note
    goto(at, "Hierarchies").run()
    at.selectbox(key="h_column").select("age").run()
    assert at.selectbox(key="poset:age").value == TOY_POSET
    assert at.number_input(key=f"poset:age:{TOY_POSET}:width").value == 4.0
