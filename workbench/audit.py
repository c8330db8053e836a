"""Measuring a table de-identified by any tool (``workbench check``, the app's Check page): how anonymous is it,
whatever produced it?

Given a table and the columns an attacker may know (the quasi-identifiers), and optionally the sensitive
attributes, every figure a review board asks of a file an outside contractor de-identified:

- k (Sweeney 2002): the size of the smallest equivalence class (records with equal quasi-identifier values);
- per sensitive attribute S, over the classes: α of (α, k)-anonymity (Wong, Li, Fu & Wang, KDD 2006), the largest
  share of one value of S in a class; distinct, entropy and recursive (c, ℓ)-diversity (Machanavajjhala et al.,
  TKDD 2007); t-closeness with equal and, for a numeric S, ordered ground distance (Li, Li & Venkatasubramanian,
  ICDE 2007); basic and enhanced β-likeness (Cao & Karras, PVLDB 2012); δ-disclosure privacy (Brickell &
  Shmatikov, KDD 2008);
- prosecutor risk (highest, average over the records, records at risk) and sample uniques (El Emam & Dankar 2008;
  ARX's ``RiskModelSampleSummary``).

The figures follow pyCANON's definitions (Sáinz-Pardo Díaz & López García, "A Python library to check the level of
anonymity of a dataset", Scientific Data 9, 785, 2022), computed by the workbench's own code: the ℓ-diversity and
t-closeness of ``workbench.privacy`` and the risk of ``workbench.risk``. Where pyCANON's figure is not what the
model's paper defines, the workbench follows the paper and says so (docs/privacy.md#checking-a-table-from-elsewhere):
recursive (c, ℓ)-diversity ranks the counts from the most frequent value down, entropy ℓ is not rounded down, the
average prosecutor risk is over records, not classes, and the classes are found from the values, never from the
frame's index.

The table is read as text, as every table the workbench reads (``workbench.readers``); a missing value (an empty
cell or ``(missing)``, ``workbench.hierarchy.missing``) is one value of its own. A row with ``*`` in every
quasi-identifier is a suppressed record (how the workbench and ARX write one): it is counted and left out of every
figure, the sensitive distribution of the table too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataError
from workbench.grouping import group_rows
from workbench.hierarchy.missing import MISSING, as_one_missing_value
from workbench.privacy.base import ClassView, Extra
from workbench.privacy.beta_likeness import relative_gains
from workbench.privacy.l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from workbench.privacy.t_closeness import EqualDistanceTCloseness, OrderedDistanceTCloseness, natural_order
from workbench.readers import read_table
from workbench.release.verify import SUPPRESSED
from workbench.risk import DEFAULT_THRESHOLD, prosecutor_risk, record_risks, sample_uniques
from workbench.risk.histogram import Histogram
from workbench.risk.results import RiskSummary

__all__ = ["CheckResult", "SensitiveCheck", "check_file", "check_table"]


@dataclass(frozen=True)
class SensitiveCheck:
    """The figures of one sensitive attribute over the equivalence classes of the kept records."""

    attribute: str
    values: int  # distinct values among the kept records (a missing value is one of them)
    missing: int  # kept records whose value is missing
    numeric: bool  # every value is a number (no missing value): t_ordered is measured
    alpha: float
    l_distinct: int
    l_entropy: float
    ell: int  # the ℓ of recursive (c, ℓ)-diversity
    l_recursive_c: float  # inf when some class has fewer than ℓ distinct values
    t_equal: float
    t_ordered: float | None
    beta_basic: float
    beta_enhanced: float
    beta_enhanced_holds: bool
    delta_disclosure: float

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "attribute": self.attribute, "values": self.values, "missing": self.missing, "numeric": self.numeric,
            "alpha": self.alpha, "l_distinct": self.l_distinct, "l_entropy": self.l_entropy,
            "l_recursive": {"l": self.ell, "c": _finite(self.l_recursive_c)},
            "t_equal": self.t_equal, "t_ordered": self.t_ordered,
            "beta_basic": self.beta_basic, "beta_enhanced": self.beta_enhanced,
            "beta_enhanced_holds": self.beta_enhanced_holds, "delta_disclosure": self.delta_disclosure}
        return out


@dataclass(frozen=True)
class CheckResult:
    """Every figure of one table (``check_table``). ``to_dict()`` is ``workbench check --json``; ``figures()`` one
    row per figure with its meaning in plain words, as the CLI, the app and the report show them."""

    source: str
    quasi_identifiers: tuple[str, ...]
    records: int  # rows of the table
    suppressed: int  # rows with * in every quasi-identifier, left out of every figure
    classes: int  # equivalence classes of the kept records
    k: int
    prosecutor: RiskSummary
    sample_uniques: float  # share of the kept records alone in their class
    missing: dict[str, int]  # per quasi-identifier: kept records whose value is missing
    sensitive: tuple[SensitiveCheck, ...] = ()
    ell: int | None = None  # the ℓ of recursive (c, ℓ)-diversity asked for (None: each attribute's distinct ℓ)
    sha256: str | None = None  # the file's SHA-256, when the table was read from a file
    class_sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)

    @property
    def kept(self) -> int:
        """The records the figures are over: those not suppressed."""
        return self.records - self.suppressed

    @property
    def sample_unique_records(self) -> int:
        return int((self.class_sizes == 1).sum())

    def record_risks(self) -> pd.DataFrame:
        """Per class size: the records with risk 1/size (``workbench.risk.record_risks``)."""
        return record_risks(self.class_sizes)

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "quasi_identifiers": list(self.quasi_identifiers), "records": self.records,
                "suppressed": self.suppressed, "kept": self.kept, "classes": self.classes, "k": self.k,
                "prosecutor": self.prosecutor.to_dict(), "sample_uniques": self.sample_uniques,
                "sample_unique_records": self.sample_unique_records, "missing": dict(self.missing),
                "sensitive": [s.to_dict() for s in self.sensitive], "sha256": self.sha256}

    def command(self) -> str:
        """The ``workbench check`` command that measures the same file the same way."""
        import shlex

        parts = ["workbench", "check", self.source, "--quasi", ",".join(self.quasi_identifiers)]
        if self.sensitive:
            parts += ["--sensitive", ",".join(s.attribute for s in self.sensitive)]
        if self.ell is not None:
            parts += ["--ell", str(self.ell)]
        if self.prosecutor.threshold != DEFAULT_THRESHOLD:
            parts += ["--threshold", f"{self.prosecutor.threshold:g}"]
        return shlex.join(parts)

    def figures(self) -> pd.DataFrame:
        """One row per figure: ``attribute`` (blank for the quasi-identifiers' figures), ``figure`` (its JSON
        name), ``value`` (as text) and ``meaning`` (what the value says about this table, in plain words)."""
        rows = _table_rows(self) + [row for s in self.sensitive for row in _sensitive_rows(s)]
        return pd.DataFrame(rows, columns=["attribute", "figure", "value", "meaning"])

    def text(self) -> str:
        """The figures as ``workbench check`` prints them."""
        head = [f"check of    {self.source}",
                f"quasi       {', '.join(self.quasi_identifiers)}",
                f"records     {self.records:,}, {self.suppressed:,} suppressed (* in every quasi-identifier) and left "
                f"out: the figures are over {self.kept:,} records in {self.classes:,} equivalence classes"]
        rows = [(f"{row.attribute}: {row.figure}" if row.attribute else row.figure, row.value, row.meaning)
                for row in self.figures().itertuples(index=False)]
        width = max([28, *(len(label) for label, _, _ in rows)])  # a long attribute name widens the column
        lines = [f"{label:<{width}} {value:<14} {meaning}" for label, value, meaning in rows]
        return "\n".join(head + [""] + lines)


def _finite(value: float) -> float | None:
    return None if not math.isfinite(value) else value


def _share(value: float) -> str:
    return "0 %" if value == 0 else f"{100 * value:.4g} %"


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "none"
    return f"{value:.4g}"


def _table_rows(r: CheckResult) -> list[tuple[str, str, str, str]]:
    p = r.prosecutor
    rows = [
        ("", "k", f"{r.k:,}",
         f"the smallest equivalence class holds {r.k:,} record(s): every record shares its quasi-identifier values "
         f"with at least {r.k - 1:,} other(s) (k-anonymity)"),
        ("", "prosecutor_highest", _share(p.highest),
         "1/k: the chance of re-identifying a record of the smallest class, for an attacker who knows the person "
         "is in the file"),
        ("", "prosecutor_average", _share(p.average),
         f"the chance averaged over the records (1/its class size per record; = classes / records = "
         f"{r.classes:,} / {r.kept:,}), not over the classes"),
        ("", "records_at_risk", f"{p.records_at_risk_count:,} ({_share(p.records_at_risk)})",
         f"records whose class is so small that their risk 1/size exceeds {_share(p.threshold)}"),
        ("", "sample_uniques", f"{r.sample_unique_records:,} ({_share(r.sample_uniques)})",
         "records alone in their class: unique in the file on the quasi-identifiers"),
    ]
    for column, count in r.missing.items():
        if count:
            rows.append((column, "missing", f"{count:,}",
                         f"records whose {column} is missing: read as one value of its own, {MISSING}"))
    return rows


def _sensitive_rows(s: SensitiveCheck) -> list[tuple[str, str, str, str]]:
    a = s.attribute
    rows = [
        (a, "alpha", _share(s.alpha),
         f"in the worst class {_share(s.alpha)} of the records share one value of {a}: an attacker who finds a "
         f"person's class guesses their {a} right at most this often ((α, k)-anonymity)"),
        (a, "l_distinct", f"{s.l_distinct:,}",
         f"every class holds at least {s.l_distinct:,} distinct value(s) of {a} (distinct ℓ-diversity); "
         f"{s.values:,} in the whole file"),
        (a, "l_entropy", _num(s.l_entropy),
         f"the least diverse class is as diverse as {_num(s.l_entropy)} equally frequent values of {a} "
         "(entropy ℓ-diversity: every class's entropy is at least log ℓ)"),
        (a, "l_recursive_c", _num(s.l_recursive_c),
         (f"recursive (c, ℓ = {s.ell})-diversity holds for every c above this: in every class the most frequent "
          f"value of {a} is less frequent than c times the values from the {_ordinal(s.ell)} most frequent on")
         if math.isfinite(s.l_recursive_c) else
         f"recursive (c, ℓ = {s.ell})-diversity holds for no c: some class has fewer than {s.ell} distinct values"),
        (a, "t_equal", _num(s.t_equal),
         f"the largest distance between a class's distribution of {a} and the file's (t-closeness, Earth "
         "Mover's Distance with every two values equally far: 0 the same, 1 nothing in common)"),
        (a, "t_ordered", _num(s.t_ordered),
         (f"the same with the values of {a} in numeric order (a class of only low values is far from the file)")
         if s.t_ordered is not None else
         f"not measured: {a} is not numeric in every record"),
        (a, "beta_basic", _num(s.beta_basic),
         f"the largest relative gain (q − p) / p of a value of {a} in a class (q) over its share in the file (p) "
         "(basic β-likeness): what finding a person's class teaches an attacker about a rare value"),
        (a, "beta_enhanced", _num(s.beta_enhanced),
         "pyCANON's enhanced β-likeness figure, the largest over the values of min(β, −ln p); the gains stay "
         + ("within each value's bound −ln p, so enhanced β-likeness holds for β = beta_basic" if s.beta_enhanced_holds
            else "above a value's bound −ln p in some class, so enhanced β-likeness holds for no β")),
        (a, "delta_disclosure", _num(s.delta_disclosure),
         f"the largest |ln(q / p)| over the values of {a} present in a class (δ-disclosure privacy): how far "
         "a class's share of a value strays from the file's, either way (natural log, as pyCANON; the δ of the "
         f"workbench's and ARX's model is in base 2: {_num(s.delta_disclosure / math.log(2))})"),
    ]
    if s.missing:
        rows.append((a, "missing", f"{s.missing:,}",
                     f"records whose {a} is missing: one value of its own, {MISSING}"))
    return rows


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ---------------------------------------------------------------------------------------------- measuring
def _columns(frame: pd.DataFrame, names: Sequence[str], what: str, source: str) -> list[str]:
    out = []
    columns = [str(c) for c in frame.columns]
    for name in names:
        if name not in columns:
            shown = ", ".join(map(repr, columns[:20])) + (f" and {len(columns) - 20} more" if len(columns) > 20 else "")
            raise DataError(f"{source}: {what} {name!r} is not a column of the table; its columns are {shown}")
        if name in out:
            raise DataError(f"{source}: {what} {name!r} is named twice")
        out.append(name)
    return out


def _text(column: pd.Series) -> pd.Series:
    """A column as text, a null as ``""`` (a table from the readers is text already)."""
    if column.hasnans:
        column = column.astype(object).where(column.notna(), "")
    if not (isinstance(column.dtype, pd.StringDtype) or pd.api.types.infer_dtype(column, skipna=True) == "string"):
        column = column.astype(str)
    return column


def _coded(column: pd.Series) -> tuple[np.ndarray, list[str], int]:
    """A kept column's codes (its values in text order), its values, and how many of its cells are missing: every
    missing text (``""``, ``(missing)``) read as the one value ``""`` (``workbench.hierarchy.missing``)."""
    codes, uniques = pd.factorize(as_one_missing_value(column), sort=True)
    labels = [str(v) for v in uniques]
    missing = int(np.count_nonzero(codes == labels.index(""))) if "" in labels else 0
    return codes.astype(np.int64), labels, missing


def _sensitive(attribute: str, column: pd.Series, class_index: np.ndarray, classes: int,
               ell: int | None) -> SensitiveCheck:
    """The figures of one sensitive attribute from its kept values and each kept record's class."""
    codes, labels, missing = _coded(column)
    extra = Extra(f"sensitive:{attribute}", codes, len(labels))
    view = ClassView.from_records(class_index, classes, [extra])
    cls, val, cnt = view.pairs(extra.name)
    q = cnt / view.sizes[cls]  # each value's share in each class it is present in
    p_all = np.bincount(extra.codes, minlength=extra.cardinality) / extra.codes.size  # shares in the file
    p = p_all[val]
    distinct = int(DistinctLDiversity(extra, 1).distinct(view).min())
    entropy_bits = EntropyLDiversity(extra, 1.0).entropy(view)
    ell = distinct if ell is None else int(ell)
    c = float(RecursiveCLDiversity(extra, ell, 1.0).ratio(view).max())
    t_equal = float(EqualDistanceTCloseness(extra, 1.0).distance(view).max())
    numeric = _all_numbers(labels)
    t_ordered = float(OrderedDistanceTCloseness(extra, 1.0, natural_order(labels)).distance(view).max()) \
        if numeric else None
    gain = relative_gains(cls, val, cnt, view.sizes, p_all)  # β-likeness's own definition (privacy.beta_likeness)
    beta = float(gain.max())
    bounds = -np.log(p_all)
    per_value = np.full(extra.cardinality, -np.inf)
    np.maximum.at(per_value, val, gain)  # each value's largest gain over the classes
    return SensitiveCheck(
        attribute=attribute, values=len(labels), missing=missing, numeric=numeric,
        alpha=float(q.max()), l_distinct=distinct, l_entropy=float(2.0 ** float(entropy_bits.min())), ell=ell,
        l_recursive_c=c, t_equal=t_equal, t_ordered=t_ordered, beta_basic=beta,
        beta_enhanced=float(np.minimum(beta, bounds).max()),
        beta_enhanced_holds=bool((per_value <= bounds + 1e-12).all()),
        delta_disclosure=float(np.abs(np.log(q / p)).max()))


def _all_numbers(values: list[str]) -> bool:
    """Is every value a finite number (t_ordered's order is then numeric)?"""
    try:
        return bool(values) and all(math.isfinite(float(v)) for v in values)
    except ValueError:
        return False


def check_table(frame: pd.DataFrame, quasi_identifiers: Sequence[str], sensitive: Sequence[str] = (),
                ell: int | None = None, threshold: float = DEFAULT_THRESHOLD, source: str = "the table") -> CheckResult:
    """Every figure of ``frame`` over its ``quasi_identifiers`` (and each ``sensitive`` attribute): see the module.
    ``ell``: the ℓ of recursive (c, ℓ)-diversity (default: the table's distinct ℓ, as pyCANON). ``threshold``: a
    record is at risk when 1/|class| exceeds it. ``source`` names the table in messages. The frame's index plays
    no part. Raises DataError naming the table and the column for a column it does not have, a column named as
    both, and a table whose every row is suppressed."""
    if not quasi_identifiers:
        raise DataError(f"{source}: name the quasi-identifiers (the columns an attacker may know)")
    qis = _columns(frame, quasi_identifiers, "quasi-identifier", source)
    sens = _columns(frame, sensitive, "sensitive attribute", source)
    both = [c for c in sens if c in qis]
    if both:
        raise DataError(f"{source}: column {both[0]!r} is named both a quasi-identifier and a sensitive attribute")
    if ell is not None and (int(ell) != ell or ell < 1):
        raise DataError(f"ℓ of recursive (c, ℓ)-diversity must be a whole number of at least 1, not {ell}")
    if not 0.0 < threshold <= 1.0:
        raise DataError(f"the risk threshold must be in (0, 1], not {threshold}")
    text = {c: _text(frame[c]) for c in [*qis, *sens]}
    suppressed = np.logical_and.reduce([(text[c] == SUPPRESSED).to_numpy(dtype=bool) for c in qis])
    kept = ~suppressed
    if not kept.any():
        raise DataError(f"{source}: every one of its {len(frame):,} rows is suppressed (* in every "
                        "quasi-identifier): there is nothing to measure")
    if not kept.all():
        text = {c: column[kept] for c, column in text.items()}
    coded = {c: _coded(text[c]) for c in qis}
    codes = np.stack([coded[c][0] for c in qis], axis=1)
    groups = group_rows(codes, [len(coded[c][1]) for c in qis], with_inverse=True)
    assert groups.inverse is not None
    sizes = groups.counts.astype(np.int64)
    hist = Histogram.of(sizes)
    checks = [_sensitive(a, text[a], groups.inverse, groups.size, ell) for a in sens]
    return CheckResult(
        source=source, quasi_identifiers=tuple(qis), records=len(frame), suppressed=int(suppressed.sum()),
        classes=groups.size, k=int(sizes.min()), prosecutor=prosecutor_risk(hist, threshold),
        sample_uniques=sample_uniques(hist), missing={c: coded[c][2] for c in qis},
        sensitive=tuple(checks), ell=None if ell is None else int(ell), class_sizes=sizes)


def check_file(path: str | Path, quasi_identifiers: Sequence[str], sensitive: Sequence[str] = (),
               ell: int | None = None, threshold: float = DEFAULT_THRESHOLD) -> CheckResult:
    """``check_table`` of a CSV/TSV/TXT, Excel or Parquet file read by ``workbench.readers.read_table`` (encodings,
    separators and missing values as everywhere in the workbench)."""
    import hashlib

    frame = read_table(path)
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    result = check_table(frame, quasi_identifiers, sensitive, ell, threshold, source=str(path))
    return replace(result, sha256=digest.hexdigest())
