"""A privacy model of one's own is one module and one registry entry (docs/architecture.md, "A new privacy model"):
a toy model, "at most N distinct values of a sensitive attribute per class", registered here and found in the config
validation, the CLI's run (its release meets it, checked by brute force from the written table), the Anonymize page's
pickers (its form drawn from its declaration) and the comparison (its rule text names it). Unregistered after."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests._app import people_config
from tests._cli import call
from workbench.config import study_from_dict
from workbench.errors import ConfigError
from workbench.privacy import kind
from workbench.privacy.base import ClassView, Extra, PrivacyModel
from workbench.privacy.registry import PRIVACY_MODELS, register, unregister
from workbench.privacy.sensitive import each_attribute

# ---------------------------------------------------------------------------------------------- the toy model


class AtMostDistinct(PrivacyModel):
    """At most ``most`` distinct values of the sensitive attribute in every class (a toy: merging classes adds
    values, so it is monotone neither with generalization nor with suppression)."""

    id = "toy"
    partition_checkable = True
    monotone_with_suppression = False
    monotone_with_generalization = False

    def __init__(self, extra: Extra, most: int) -> None:
        self.key, self.attribute, self.most = extra.name, extra.name.split(":", 1)[-1], most
        self.extras = (extra,)

    def violating(self, view: ClassView) -> np.ndarray:
        cls, _, _ = view.pairs(self.key)
        return np.bincount(cls, minlength=view.classes) > self.most

    def describe(self) -> str:
        return f"at most {self.most} distinct {self.attribute} per class"

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "attribute": self.attribute, "most": self.most}


def _check(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    return {"attribute": kind.attribute(table, where), "most": kind.at_least_one(table, "most", where)}


def _build_one(spec: kind.PrivacyModelSpec, context: kind.BuildContext, attribute: str, extra: Extra,
               values: list[str]) -> PrivacyModel:
    return AtMostDistinct(extra, int(spec.get("most")))


def _short(table: Mapping[str, Any]) -> str:
    return f"toy{kind.figure(table.get('most', ''))}"


TOY = kind.PrivacyModelKind(
    id="toy", label="toy diversity cap", description="no class holds more than N distinct sensitive values",
    keys={"attribute": kind.ConfigKey((str, list)), "most": kind.ConfigKey((int,), doc="N, at least 1")},
    check=_check, build=each_attribute(_build_one), short=_short, sensitive_key="attribute",
    form=kind.ModelForm(key="toy", label="Toy cap", help="at most N distinct sensitive values per class", fields=(
        kind.FormField("attr", "Attribute", "attribute", key="attribute"),
        kind.FormField("most", "N", "number", key="most", default=2, min_value=1, step=1,
                       cast=lambda v, form: int(v)))))


@pytest.fixture(scope="module", autouse=True)
def toy() -> Iterator[kind.PrivacyModelKind]:
    register(TOY)
    try:
        yield TOY
    finally:
        unregister(TOY.id)


# ---------------------------------------------------------------------------------------------- data and config
QIS = ("age", "sex")
VALUES = ["flu", "asthma", "diabetes", "copd"]


def _people(seed: int = 3, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                         "diagnosis": rng.choice(VALUES, n)})


CONFIG = people_config("""[attributes.diagnosis]
role = "sensitive"
[privacy]
k = 2
max_suppression = 0.5
[privacy.toy]
attribute = "diagnosis"
most = 2
[engine]
algorithm = "exhaustive"
objective = "entropy"
[measures]
compare = ["entropy", "dm"]
""")


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    _people().to_csv(tmp_path / "people.csv", index=False)
    (tmp_path / "study.toml").write_text(CONFIG, encoding="utf-8")
    return tmp_path


def _raw(**toy: Any) -> dict[str, Any]:
    return {"data": {"sample": "teaching"}, "privacy": {"k": 2, "toy": toy}}


# ---------------------------------------------------------------------------------------------- the tests
def test_the_config_validates_the_toy_table_from_its_entry() -> None:
    study = study_from_dict(_raw(attribute="diagnosis", most=3))
    (spec,) = study.privacy_models
    assert (spec.kind, dict(spec.params)) == ("toy", {"attribute": "diagnosis", "most": 3})
    for table, message in (({"attribute": "d", "most": 2, "least": 1}, "unknown key privacy.toy.least; known: "
                                                                       "attribute, most"),
                           ({"attribute": "d", "most": "two"}, "privacy.toy.most must be an integer, got 'two'"),
                           ({"attribute": "d", "most": 0}, "privacy.toy.most must be at least 1, got 0"),
                           ({"most": 2}, "privacy.toy needs 'attribute'")):
        with pytest.raises(ConfigError, match=message):
            study_from_dict(_raw(**table))


def test_an_unregistered_model_is_an_unknown_key() -> None:
    unregister(TOY.id)
    try:
        with pytest.raises(ConfigError, match=r"unknown key privacy\.toy"):
            study_from_dict(_raw(attribute="diagnosis", most=3))
    finally:
        register(TOY)
    with pytest.raises(ValueError, match="already registered"):
        register(TOY)


def _classes(release: pd.DataFrame) -> pd.core.groupby.DataFrameGroupBy:
    kept = release[~(release[list(QIS)] == "*").all(axis=1)]
    return kept.groupby(list(QIS))["diagnosis"]


def test_workbench_run_writes_a_release_that_meets_the_toy_model(folder: Path) -> None:
    out = folder / "release"
    status, stdout, err = call("run", folder / "study.toml", "--json", "--out", out, "--no-register")
    assert status == 0, err
    summary = json.loads(stdout)
    assert summary["privacy_models"]["toy"]["holds"] is True
    assert summary["privacy_models"]["toy"]["description"] == "at most 2 distinct diagnosis per class"
    release = pd.read_csv(out / "release.csv", dtype=str, keep_default_na=False)
    # brute force from the written table: every class of kept records has at least k rows and at most 2 diagnoses,
    # and the suppressed rows are within the limit
    classes = _classes(release)
    assert len(classes) > 0
    assert classes.nunique().max() <= 2 and classes.size().min() >= 2
    suppressed = int((release[list(QIS)] == "*").all(axis=1).sum())
    assert suppressed <= 0.5 * len(release)
    # the same run without the toy model releases a class with more values: the model did the work
    plain = (folder / "study.toml").read_text(encoding="utf-8").replace('[privacy.toy]\nattribute = "diagnosis"\n'
                                                                       'most = 2\n', "")
    (folder / "plain.toml").write_text(plain, encoding="utf-8")
    status, _, err = call("run", folder / "plain.toml", "--out", folder / "plain", "--no-register")
    assert status == 0, err
    unconstrained = pd.read_csv(folder / "plain" / "release.csv", dtype=str, keep_default_na=False)
    assert _classes(unconstrained).nunique().max() > 2


def test_a_pruning_search_is_refused_under_the_toy_model(folder: Path) -> None:
    """The toy model declares itself not monotone, so policy refuses Flash under it (as every registered model)."""
    status, _, err = call("run", folder / "study.toml", "--no-register", "--set", "engine.algorithm=flash")
    assert status == 2 and "at most 2 distinct diagnosis per class is not monotone" in err


def test_the_comparison_names_the_toy_model_in_its_rule(folder: Path) -> None:
    status, _, err = call("compare", folder / "study.toml", "--out", folder / "cmp")
    assert status == 0, err
    optima = pd.read_csv(folder / "cmp" / "optimal_under.csv")
    scopes = " ".join(optima.astype(str).to_numpy().ravel())
    assert "k = 2, at most 2 distinct diagnosis per class, 50 % suppression" in scopes


def test_release_file_names_carry_the_toy_model() -> None:
    from workbench.release.output import release_file_stem

    config = {"data": {"sample": "teaching"}, "privacy": {"k": 2, "toy": {"attribute": "d", "most": 3}}}
    assert release_file_stem(config) == "teaching-k2-toy3"


@pytest.mark.slow  # drives the app (AppTest), as the app's own test modules
def test_the_anonymize_page_draws_the_toy_form_and_runs_it() -> None:
    from streamlit.testing.v1 import AppTest

    from tests._app import goto, ready_own_table
    from workbench.ui.anonymize import chosen_models

    assert chosen_models({"an_toy": True, "an_toy_most": 3}, ["diagnosis"]) == {
        "toy": {"attribute": "diagnosis", "most": 3}}
    assert chosen_models({"an_toy": True}, []) == {}  # no sensitive attribute: not offered
    at: AppTest = ready_own_table("diagnosis", VALUES, '[attributes.diagnosis]\nrole = "sensitive"\n', seed=5, n=80)
    goto(at, "Anonymize").run()
    at.selectbox(key="an_alg").select("flash").run()
    at.slider(key="an_sup").set_value(10.0).run()
    at.checkbox(key="an_toy").check().run()
    assert not at.exception
    assert at.number_input(key="an_toy_most").value == 2 and at.multiselect(key="an_toy_attr").value == ["diagnosis"]
    # not monotone: the page steers Flash to a search optimal for any rule, naming the library's refusal
    assert at.selectbox(key="an_alg").value == "bnb"
    assert any("at most 2 distinct diagnosis per class is not monotone" in i.value for i in at.info)
    at.number_input(key="an_toy_most").set_value(3).run()
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert dict(at.session_state["last_run"].study.raw)["privacy"]["toy"] == {"attribute": "diagnosis",
                                                                                     "most": 3}
    assert any(s.value.startswith("Holds: toy") for s in at.success)


def test_the_lattice_page_names_the_toy_model_by_its_label() -> None:
    from workbench.ui.lattice_marks import colour_label, colour_options

    options = colour_options({"toy": {"attribute": "diagnosis", "most": 3}})
    assert [colour_label(o) for o in options] == [f"{PRIVACY_MODELS['toy'].label} (satisfied or not)",
                                                  "all models (k and every privacy model together)"]


# ---------------------------------------------------------------------------------------------- every entry
def _form_tables(model: kind.PrivacyModelKind, context: kind.FormContext) -> list[dict[str, object]]:
    """The tables a model's form makes for every combination of its choice fields' values (numbers at default)."""
    import itertools

    form = model.form
    choices = [f for f in form.fields if f.widget == "choice"]
    tables = []
    for combination in itertools.product(*(f.options(context) for f in choices)):
        picked = dict(zip((f.name for f in choices), combination, strict=True))
        values = form.values(lambda f, p=picked: p.get(f.name), context)
        tables.append(form.table(values))
    return tables


@pytest.mark.parametrize("model_id", list(PRIVACY_MODELS))
def test_every_entry_s_form_writes_tables_its_config_check_accepts(model_id: str, tmp_path: Path) -> None:
    """Each registered model's form, in every combination of its choices, writes a table of known keys of the
    declared types that its check accepts; each declared choice list is what the check enforces, and each declared
    default is what the check fills in."""
    from workbench.config.privacy import type_ok

    model = PRIVACY_MODELS[model_id]
    context = kind.FormContext(("d", "e"), "research_subset")
    assert model.form.offered(context)
    for table in _form_tables(model, context):
        assert table and set(table) <= set(model.keys), table
        assert all(type_ok(v, model.keys[k].types) for k, v in table.items()), table
        checked = model.check(dict(table), "t", tmp_path)
        for key, spec in model.keys.items():
            if spec.choices and key in table:
                assert checked[key] in spec.choices
                with pytest.raises(ConfigError, match=f"t.{key} 'nonsense' is not one of {', '.join(spec.choices)}"):
                    model.check(dict(table) | {key: "nonsense"}, "t", tmp_path)
            if spec.default is not None and key in checked and key not in table:
                assert checked[key] == spec.default, key
