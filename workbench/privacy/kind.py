"""What a privacy model is to the rest of the workbench: one ``PrivacyModelKind`` per ``[privacy.MODEL]`` table,
registered in ``workbench.privacy.registry.PRIVACY_MODELS``. An entry holds the model's id, its label and a
plain-language description, its config schema (keys, their types, choices and defaults, and which key names
sensitive attributes) with the check of the table's values, the builder that makes the model from a validated
table and the dataset, the app's form (a declarative list of fields the Anonymize page draws), and the short text
of release file names. The config, the builder, the app's pickers, the Lattice page and the release's file names
read the entries, so a new model is one module and one registry entry.

Whether the lattice searches may prune under a model is the built model's own declaration
(``PrivacyModel.monotone_with_suppression`` and ``monotone_with_generalization``, which may depend on the
configured variant: entropy ℓ-diversity with Grassberger's estimator is not monotone, with Shannon's it is), and
``policy.admissibility_refusal`` reads it from the built models; ``partition_checkable`` says whether Mondrian may
enforce it.

The helpers below check one key of a table; each raises a one-line ``ConfigError`` naming it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.errors import ConfigError

if TYPE_CHECKING:
    from workbench.data import Dataset
    from workbench.privacy.base import PrivacyModel
    from workbench.privacy.delta_presence import PopulationCounts


@dataclass(frozen=True)
class PrivacyModelSpec:
    """One validated ``[privacy.MODEL]`` table: ``kind`` is the table's name, ``params`` its keys with defaults
    filled in (``subset`` resolved against the config's folder, or ``"research_subset"`` for an embedded
    sample's own research subset)."""

    kind: str
    params: Mapping[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)


@dataclass(frozen=True)
class ConfigKey:
    """One key of a ``[privacy.MODEL]`` table: the TOML types it accepts, its choices (none: any value of those
    types), its default when the table leaves it out (None: required or optional without one), and what it is."""

    types: tuple[type, ...]
    choices: tuple[str, ...] = ()
    default: Any = None
    doc: str = ""


SENSITIVE_ATTRIBUTES = ConfigKey((str, list), doc="the sensitive attribute, or a list of them")
"""The ``attribute`` key of every model on sensitive attributes (``sensitive_key``): one name, or a list, each
checked."""


@dataclass(frozen=True)
class BuildContext:
    """What a builder gets besides the spec: the dataset, the study's k (for a model with a k of its own that
    defaults to it) and the research subset's population counts, shared by the models on a population table."""

    dataset: Dataset
    k: int = 1
    counts: PopulationCounts | None = None


@dataclass(frozen=True)
class FormContext:
    """What the app's form of a model depends on: the dataset's sensitive attributes and the research subset an
    embedded sample releases (None without one)."""

    sensitive: tuple[str, ...] = ()
    subset: str | None = None


Values = Mapping[str, Any]  # a form's values by field name


@dataclass(frozen=True)
class FormField:
    """One field of a model's form on the Anonymize page.

    ``name`` is the field's own name (the app's widget key is made from it); ``key`` the config key it fills (None:
    a field that only steers the others). ``widget``: ``"number"``, ``"choice"`` (``choices``, or ``choices_of``
    for choices that depend on the ``FormContext``), ``"attribute"`` (one or more of the dataset's sensitive
    attributes, a list, the first by default; the table gets one name, or a list of several, each checked) or
    ``"subset"`` (not drawn: the research subset of the ``FormContext``). ``when``: the
    field is shown (and fills its key) only when it returns True for the form's values. ``cast`` turns the widget's
    value into the config's (it sees the other values too)."""

    name: str
    label: str
    widget: str
    key: str | None = None
    default: Any = None
    choices: tuple[str, ...] = ()
    choices_of: Callable[[FormContext], tuple[str, ...]] | None = None
    min_value: float | None = None
    max_value: float | None = None
    step: float | None = None
    format: str | None = None
    help: str | None = None
    when: Callable[[Values], bool] | None = None
    cast: Callable[[Any, Values], Any] | None = None

    def options(self, context: FormContext) -> tuple[str, ...]:
        """The values a choice or attribute field offers."""
        if self.widget == "attribute":
            return context.sensitive
        return self.choices_of(context) if self.choices_of is not None else self.choices

    def initial(self, context: FormContext) -> Any:
        """The value of a field never touched: its default (an attribute field: the first sensitive attribute, as a
        list of one; the subset: the context's)."""
        if self.widget == "subset":
            return context.subset
        if self.widget == "attribute":
            return list(context.sensitive[:1])
        return self.default


def chosen_attributes(value: Any, offered: Sequence[str]) -> list[str]:
    """An attribute field's value as the offered attributes it names, in its order and once each: a list of names,
    or one name (as a setting saved when the field took one attribute); anything else names none."""
    names = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else []
    return [name for name in dict.fromkeys(names) if isinstance(name, str) and name in offered]


@dataclass(frozen=True)
class ModelForm:
    """A model's picker: a checkbox (``label``, ``help``) and, when it is ticked, the fields, four to a row. The
    form is offered when ``offered`` says so for the dataset (default: when it has a sensitive attribute). ``key``:
    a short name the app makes its widget keys from (the checkbox ``an_KEY``, a field ``an_KEY_NAME``)."""

    key: str
    fields: tuple[FormField, ...]
    label: str
    help: str
    offered: Callable[[FormContext], bool] = lambda context: bool(context.sensitive)

    def shown(self, values: Values) -> list[FormField]:
        """The fields shown for these values (their ``when`` holds)."""
        return [f for f in self.fields if f.when is None or f.when(values)]

    def values(self, read: Callable[[FormField], Any], context: FormContext) -> dict[str, Any]:
        """Every field's value, by name: ``read`` gives the analyst's (None when never set), replaced by the
        field's initial value when absent or no longer offered (an attribute field: the offered attributes it
        names, ``chosen_attributes``, or the initial one when it names none)."""
        out: dict[str, Any] = {}
        for f in self.fields:
            value = read(f)
            if f.widget == "attribute":
                value = chosen_attributes(value, f.options(context)) or f.initial(context)
            else:
                offered = f.options(context) if f.widget == "choice" else None
                if value is None or f.widget == "subset" or (offered is not None and value not in offered):
                    value = f.initial(context)
            out[f.name] = value
        return out

    def table(self, values: Values) -> dict[str, object]:
        """The ``[privacy.MODEL]`` table the form's values make (the shown fields that fill a key; an attribute
        field's one attribute as its name, several as a list)."""
        out: dict[str, object] = {}
        for f in self.shown(values):
            if f.key is None:
                continue
            value = values[f.name]
            if f.cast is not None:
                value = f.cast(value, values)
            elif f.widget == "attribute":
                value = value[0] if len(value) == 1 else list(value)
            out[f.key] = value
        return out


@dataclass(frozen=True)
class PrivacyModelKind:
    """One privacy model's registry entry (``workbench.privacy.registry.PRIVACY_MODELS``).

    ``id``: the ``[privacy.ID]`` table's name; ``label``: its name for people ("ℓ-diversity"); ``description``:
    what it promises, in plain words; ``keys``: the table's keys; ``check(table, where, base)``: the table's values
    checked (ranges, keys that go together) into the spec's params with defaults filled in, raising ``ConfigError``
    naming ``where``; ``build(spec, context)``: the model on the dataset, with the checks that need the data;
    ``sensitive_key``: the key naming the sensitive attribute(s) it protects, one or a list each checked (None: a
    model on the quasi-identifiers); ``form``: the app's picker; ``short(table)``: the rule's part of a release's
    file names ("l3", "t0.2"); ``citation``: where it comes from."""

    id: str
    label: str
    description: str
    keys: Mapping[str, ConfigKey]
    check: Callable[[dict[str, Any], str, Path], dict[str, Any]]
    build: Callable[[PrivacyModelSpec, BuildContext], PrivacyModel]
    form: ModelForm
    short: Callable[[Mapping[str, Any]], str]
    sensitive_key: str | None = None
    citation: str = ""


# --------------------------------------------------------------------------------------- the checks of one key
def required(table: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise ConfigError(f"{where} needs '{key}'")
    return table[key]


def choice(table: Mapping[str, Any], key: str, options: Sequence[str], default: str | None, where: str) -> str:
    value = table.get(key, default) if default is not None else required(table, key, where)
    if value not in options:
        raise ConfigError(f"{where}.{key} {value!r} is not one of {', '.join(options)}")
    return value


def only_for(table: Mapping[str, Any], key: str, allowed: bool, what: str, where: str) -> None:
    if key in table and not allowed:
        raise ConfigError(f"{where}.{key} applies to {what} only")


def attribute(table: Mapping[str, Any], where: str) -> str | list[str]:
    """``attribute``: one sensitive attribute, or a non-empty list of distinct ones (each checked)."""
    value = required(table, "attribute", where)
    if isinstance(value, str):
        return value
    if not value or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}.attribute must be a column name or a non-empty list of column names, got {value!r}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{where}.attribute names a column twice: {value!r}")
    return list(value) if len(value) > 1 else value[0]


def attributes_of(value: str | Sequence[str]) -> list[str]:
    """The sensitive attributes an ``attribute`` key names (one, or a list)."""
    return [value] if isinstance(value, str) else list(value)


def fraction(table: Mapping[str, Any], key: str, where: str) -> float:
    value = float(required(table, key, where))
    if not 0.0 < value <= 1.0:
        raise ConfigError(f"{where}.{key} must be in (0, 1], got {value}")
    return value


def positive(table: Mapping[str, Any], key: str, where: str) -> float:
    value = float(required(table, key, where))
    if not value > 0 or value == float("inf"):
        raise ConfigError(f"{where}.{key} must be a positive number, got {value}")
    return value


def at_least_one(table: Mapping[str, Any], key: str, where: str) -> int:
    """A whole number at least 1 (k)."""
    value = required(table, key, where)
    if not value >= 1:
        raise ConfigError(f"{where}.{key} must be at least 1, got {value}")
    return int(value)


def people(table: Mapping[str, Any], key: str, where: str) -> float:
    """A population size: a number of people, at least 1."""
    size = required(table, key, where)
    if not size >= 1:
        raise ConfigError(f"{where}.{key} must be a number of people (at least 1), got {size}")
    return float(size)


def research_subset(value: str, base: Path) -> str | Path:
    """A ``subset`` key: the embedded sample's own research subset, or a file beside the config."""
    return value if value == "research_subset" else base / value


def figure(value: Any) -> str:
    """A number as a release's file name writes it: 0.2, 3, 1e-05 (``release.output.release_file_stem``)."""
    return f"{value:g}" if isinstance(value, int | float) else str(value)
