"""The local-recoding engine: least-upper-bound recoding over generalization posets (Vinterbo 2002;
Katirai 2006), with Greedy, overlapping Greedy and Partition, and Mondrian's strict multidimensional
partitioning (LeFevre, DeWitt & Ramakrishnan 2006).

``LOCAL_ALGORITHMS`` (id -> its search and what it enforces) and ``POSETS`` (poset kind -> how to build it and
from which ``[attributes.NAME]`` keys) are the engine's registries: the config's allowed values, the study runner's
dispatch and the app's option lists are read from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.local import greedy, greedy_overlapping, mondrian, partition
from workbench.local.lub import LocalResult
from workbench.local.poset_base import read_poset_file
from workbench.local.poset_date_of_birth import DateOfBirthPoset
from workbench.local.poset_multivalue import MultiValuePoset
from workbench.local.poset_power import PowerPoset
from workbench.local.poset_range import RangePoset
from workbench.local.posets import FinitePoset

__all__ = ["BUILT_IN_POSETS", "LOCAL_ALGORITHMS", "MODEL_ENFORCING", "PARAMETER_TYPES", "POSETS", "LocalAlgorithm",
           "PosetKind", "PosetParameter", "poset_parameters", "register_poset", "unregister_poset"]

@dataclass(frozen=True)
class LocalAlgorithm:
    """A registered local algorithm: ``search(problem, k) -> LocalResult``, or ``search(problem, k, models)`` when it
    ``enforces_models``: the class-level privacy models (``PrivacyModel.partition_checkable``: ℓ-diversity,
    t-closeness, β-likeness, δ-disclosure privacy, (α, k)-anonymity, estimated k-map) hold on every class it
    releases. The others release k-anonymity (or k-ambiguity) alone, so the study runner refuses them any privacy
    model (``workbench.policy.local_refusal``). ``compared``: a comparison lists its release by default."""

    id: str
    search: Callable[..., LocalResult]
    citation: str
    enforces_models: bool = False
    compared: bool = False


LOCAL_ALGORITHMS: dict[str, LocalAlgorithm] = {
    spec.id: spec
    for spec in [
        LocalAlgorithm("greedy", greedy.search, "Katirai 2006, Fig. 11, made disjoint", compared=True),
        LocalAlgorithm("greedy_overlapping", greedy_overlapping.search, "Katirai 2006, Fig. 11 as printed "
                       "(k-ambiguity)"),
        LocalAlgorithm("partition", partition.search, "Fischer, in Katirai 2006", compared=True),
        LocalAlgorithm("mondrian", mondrian.search, "LeFevre, DeWitt & Ramakrishnan 2006 (strict multidimensional "
                       "partitioning)", enforces_models=True, compared=True),
    ]
}
"""The local algorithms, in the order the config and the app list them; the first is the default. A new one is
one module and one entry here (docs/architecture.md)."""

MODEL_ENFORCING: tuple[str, ...] = tuple(a for a, spec in LOCAL_ALGORITHMS.items() if spec.enforces_models)
"""The local algorithms that enforce the class-level privacy models (``LocalAlgorithm.enforces_models``)."""


PARAMETER_TYPES: dict[str, tuple[type, ...]] = {"number": (int, float), "text": (str,), "integers": (list,),
                                                "file": (str,)}
"""A poset parameter's type -> the TOML types it accepts: a number, a text, a list of whole numbers, or a file path
(relative to the config's folder)."""


@dataclass(frozen=True)
class PosetParameter:
    """One ``[attributes.NAME]`` key a poset kind reads: its ``type`` (``PARAMETER_TYPES``), ``default`` (given to
    ``build`` when the key is absent), one line of ``help``, and its range: ``choices`` (a text among them),
    ``positive`` (a number, or every whole number of a list, above 0), ``increasing`` (a list in increasing order).
    The config checks a given value against it (``problem``) and the app draws a field from it."""

    name: str
    type: str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] = ()
    positive: bool = False
    increasing: bool = False

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value``, to follow the key's name ("must be ..."), or None when it is allowed."""
        if self.choices and value not in self.choices:
            return "must be " + " or ".join(map(repr, self.choices))
        if self.type == "number" and self.positive and value <= 0:
            return f"must be positive, got {value:g}"
        if self.type == "integers":
            ints = all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            if (not value or not ints or (self.positive and min(value) <= 0)
                    or (self.increasing and list(value) != sorted(set(value)))):
                return "must be " + " ".join(w for w, on in (("increasing", self.increasing),
                                                             ("positive", self.positive)) if on) + " integers"
        return None

    def value(self, raw: Any, base: Path) -> Any:
        """The value ``build`` receives for the config's ``raw`` value: a number as a float, a list as a tuple, a
        file relative to ``base`` (the config's folder)."""
        if self.type == "number":
            return float(raw)
        if self.type == "integers":
            return tuple(raw)
        if self.type == "file":
            return base / raw
        return raw


@dataclass(frozen=True)
class PosetKind:
    """A registered poset kind: ``build(values, hierarchy, **parameters)`` makes the poset of a column's
    distinct values, ``parameters`` declaring the ``[attributes.NAME]`` keys it reads (the config parses and checks
    them, the app draws their fields); ``label`` says what it generalizes to in a few words (the app's picker).
    ``uses_hierarchy``: built from the attribute's hierarchy (tree); ``needs_file``: needs a ``poset_file``;
    ``build`` None: not a quasi-identifier's poset (passthrough releases the column unchanged)."""

    id: str
    build: Callable[..., Any] | None
    label: str
    parameters: tuple[PosetParameter, ...] = ()
    uses_hierarchy: bool = False
    needs_file: bool = False

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    @property
    def from_values(self) -> bool:
        """Built from the column's values, its hierarchy and parameters alone (no file): what the app can offer."""
        return self.build is not None and not self.needs_file


POSET_FILE = PosetParameter("poset_file", "file", help="the poset's edges: a TOML or JSON file (child -> parents)")

POSETS: dict[str, PosetKind] = {
    kind.id: kind
    for kind in [
        PosetKind("tree", lambda values, hierarchy: FinitePoset.from_tree(hierarchy, values),
                  "the hierarchy as a tree (default)", uses_hierarchy=True),
        PosetKind("matrix", lambda values, hierarchy, poset_file: FinitePoset.from_edges(
            read_poset_file(poset_file), values), "any finite poset, from a file of edges (Katirai)", (POSET_FILE,),
            needs_file=True),
        PosetKind("range", lambda values, hierarchy, max_diff: RangePoset.from_values(values, max_diff),
                  "numeric ranges [a, b] (Katirai)",
                  (PosetParameter("max_diff", "number", None, "the widest range that counts as fully generalized "
                                  "(empty: the data's span)", positive=True),)),
        PosetKind("power", lambda values, hierarchy, power_mode: PowerPoset.from_values(values, mode=power_mode),
                  "sets of bits (Katirai's power poset)",
                  (PosetParameter("power_mode", "text", "per_bit", "per_bit: each bit kept or generalized on its "
                                  "own; and: the flags' bitwise AND", choices=PowerPoset.MODES),)),
        PosetKind("date_of_birth", lambda values, hierarchy, base_date, age_bands: DateOfBirthPoset.from_values(
            values, base_date=base_date, age_bands=age_bands), "dates of birth: granularity + age band",
            (PosetParameter("base_date", "text", "2006-01-01", "the date ages are counted at (YYYY-MM-DD)"),
             PosetParameter("age_bands", "integers", (5, 30, 50, 70, 90), "the age bands' upper bounds, in years",
                            positive=True, increasing=True))),
        PosetKind("passthrough", None, "the column unchanged (Katirai's PassThroughPoset)"),
        PosetKind("multivalue", lambda values, hierarchy, poset_file, value_separator: MultiValuePoset.from_values(
            values, edges=read_poset_file(poset_file), separator=value_separator),
            "sets of values in one cell, each over a poset from a file (Katirai)",
            (POSET_FILE, PosetParameter("value_separator", "text", ";", "the text between a cell's values")),
            needs_file=True),
    ]
}
"""Poset kinds (``[attributes.NAME] poset``), in the order the config lists them. A new kind is one module and
one entry here (docs/architecture.md)."""


def poset_parameters() -> dict[str, PosetParameter]:
    """Every registered kind's parameters by key (a key that two kinds read, as ``poset_file``, is one parameter):
    the ``[attributes.NAME]`` keys the config reads besides its own."""
    out: dict[str, PosetParameter] = {}
    for kind in POSETS.values():
        for p in kind.parameters:
            out.setdefault(p.name, p)
    return out


BUILT_IN_POSETS: frozenset[str] = frozenset(POSETS)


def register_poset(kind: PosetKind) -> None:
    """Add a poset kind to ``POSETS``: the config then accepts ``poset = kind.id`` and its parameters' keys, the
    local engine builds it, and the app offers it when it needs no file. The built-in kinds are a contract and cannot
    be replaced, and a parameter key another kind reads must mean the same there (one key, one schema)."""
    if kind.id in BUILT_IN_POSETS:
        raise ValueError(f"poset kind {kind.id!r} is a built-in kind")
    known = poset_parameters()
    clash = [p.name for p in kind.parameters if p.name in known and known[p.name] != p]
    if clash:
        raise ValueError(f"poset kind {kind.id!r}: parameter {clash[0]!r} is another kind's, with another schema")
    POSETS[kind.id] = kind


def unregister_poset(kind_id: str) -> None:
    """Remove a registered poset kind (built-in kinds cannot be removed); an unknown id is ignored."""
    if kind_id in BUILT_IN_POSETS:
        raise ValueError(f"poset kind {kind_id!r} is a built-in kind")
    POSETS.pop(kind_id, None)
