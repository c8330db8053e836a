"""Released columns that give a quasi-identifier back.

Generalizing a quasi-identifier protects nothing if another released column determines it: a district's
centroid coordinates released beside a masked postal code tell every reader the district the mask hides.
A column C *determines* quasi-identifier Q at hierarchy level l when every value of C occurs with one
level-l value of Q only (a functional dependency C -> Q_l in the data) and level l still distinguishes
records (more than one distinct value). Then any release that generalizes Q to a level at or below l
releases Q_l anyway, through C. The guard reports, for every released non-quasi-identifier column
(insensitive, sensitive or target; identifying columns are dropped from releases), the lowest such level
below the hierarchy's top. A column whose values are all distinct is left out: it determines every column
trivially, and ``workbench.data.profile`` already warns that it identifies records.

Vectorized: per pair of columns, one grouping of the records' (C, Q) codes (``workbench.grouping``), then
one grouping of the distinct pairs per level.

Columns can also give a quasi-identifier back together (``combined_determinations``): in the 1985 Current
Population Survey wage sample (534 rows) age = education + experience + 6 in all rows but one, so releasing
both columns unchanged releases every age. The combined guard looks, within a time budget, for small
combinations of released columns (one, two, three) that give a quasi-identifier back in at least
``threshold`` of the rows (``NEAR_EXACT``, 99 %):

- a *near-exact functional dependency* of a level of Q on the combination (an approximate dependency in
  the sense of Kivinen and Mannila 1995, "Approximate inference of functional dependencies from
  relations", with their g3 error at most 1 - threshold): the rows whose combination of values occurs in
  more than one row and carries that combination's most common level-l value. A combination seen in one
  row only determines anything, so its rows are no evidence: a near-unique column or combination (more
  than 1 - threshold of its rows unique) is never flagged as a dependency, the counterpart of the exact
  guard leaving out a column whose values are all distinct;
- a *linear formula* of whole-number columns: Q = a·x + b·y + k (a, b in {±1, ±2}; one or two columns) or
  ±x ± y ± z + k, with a whole constant k, holding in at least ``threshold`` of the rows. A near-unique
  column may take part (total = wage + bonus is no trivial relation). Each candidate is screened on a fixed
  sample of ``SAMPLE_ROWS`` rows (since threshold > 1/2, the constant of a relation is the median of
  Q - a·x - b·y; by Hoeffding's inequality (1963) a relation that holds in a share ``threshold`` of all rows
  passes the screen but with probability under 1e-9), then verified on every row. A formula gives Q's
  original values back (level 0).

A level whose most common value covers ``threshold`` of the rows, and a released column whose most common
value does, are left out (anything determines a near-constant, and a near-constant column adds nothing to a
combination). Only combinations that add something are reported: none holding a column or smaller
combination that already gives the same quasi-identifier back at the same or a lower level. The search runs
the cheap checks first and stops at its budget (``BUDGET_SECONDS``), saying how far it got
(``CombinedSearch.note``).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from workbench.data import Dataset
from workbench.grouping import distinct_rows, group_rows

RELEASED_ROLES = ("insensitive", "sensitive", "target")
NEAR_EXACT = 0.99  # share of the rows in which a combination must give the quasi-identifier back
BUDGET_SECONDS = 1.0  # the combined search stops after this long and says how far it got
MAX_COLUMNS = 3  # the largest combination of released columns searched
COEFFICIENTS = (1, -1, 2, -2)  # of each column in a formula of one or two columns; three columns: 1 and -1
SAMPLE_ROWS = 512  # rows each formula is screened on before it is verified on every row
_MISS = 1e-9  # the screen's chance of losing a formula that holds (Hoeffding)
_WHOLE = r"^\s*[+-]?[0-9]{1,15}(\.0*)?\s*$"  # a whole number, exact as a float
_NUMBER = r"^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$"


@dataclass(frozen=True)
class Determination:
    """Released ``column`` (of ``role``) determines ``quasi_identifier`` at hierarchy ``level`` (0 = the
    original values), whose ``distinct`` values (> 1) it therefore reveals; ``example``: one level-l label."""

    column: str
    role: str
    quasi_identifier: str
    level: int
    distinct: int
    example: str

    def describe(self) -> str:
        shown = "its values" if self.level == 0 else f"e.g. {self.example!r}"
        return f"{self.quasi_identifier!r} at level {self.level} ({self.distinct} distinct values, {shown})"


def _level_table(dataset: Dataset, qi: str) -> tuple[np.ndarray, np.ndarray, list[list[str]], int]:
    """Record codes, code -> level codes, labels per level, and the highest level to check (below the top;
    level 0 only for a quasi-identifier generalized by a poset of its own, which has no hierarchy)."""
    if qi in dataset.hierarchies:
        col = dataset.encoded_column(qi)
        return col.codes, col.level_codes, [list(x) for x in col.labels], col.height - 1
    codes, uniques = pd.factorize(dataset.frame[qi], sort=True)
    return codes.astype(np.int64), np.arange(len(uniques))[:, None], [[str(u) for u in uniques]], 0


def _codes(dataset: Dataset, column: str) -> tuple[np.ndarray, int, pd.Index]:
    """A column's values as int64 codes, its number of distinct values, and the values."""
    codes, values = pd.factorize(dataset.frame[column])
    return codes.astype(np.int64), len(values), pd.Index(values)


def determinations(dataset: Dataset, codes: Mapping[str, tuple[np.ndarray, int, pd.Index]] | None = None
                   ) -> list[Determination]:
    """Every (released non-quasi-identifier column, quasi-identifier) pair where the column determines the
    quasi-identifier at some level below its hierarchy's top, at the lowest such level; in column order.
    ``codes``: the released columns' ``_codes``, when the caller has them already."""
    n = dataset.n
    released = [c for c, r in dataset.roles.items() if r in RELEASED_ROLES]
    quasi = [(q, *_level_table(dataset, q)) for q in dataset.quasi_identifiers]
    out: list[Determination] = []
    for column in released:
        c_codes, m, _ = codes[column] if codes is not None else _codes(dataset, column)
        if m >= n:  # all values distinct: a trivial dependency (profile() warns about such columns)
            continue
        for qi, q_codes, level_codes, labels, top in quasi:
            pairs, _ = distinct_rows(np.stack([c_codes, q_codes], axis=1), [m, level_codes.shape[0]])
            for level in range(top + 1):
                distinct = len(labels[level])
                if distinct <= 1:
                    break  # and every level above has one value too
                generalized = level_codes[pairs[:, 1], level]
                if group_rows(np.stack([pairs[:, 0], generalized], axis=1), [m, distinct]).size == m:
                    out.append(Determination(column, dataset.roles[column], qi, level, distinct,
                                             labels[level][0]))
                    break  # the lowest level; it determines every level above as well
    return out


@dataclass(frozen=True)
class Relation:
    """Released ``columns`` (with their ``roles``) give quasi-identifier ``quasi_identifier`` back at hierarchy
    ``level`` (``distinct`` values > 1, e.g. ``example``) in ``rows`` of the ``n`` rows: ``kind`` "formula" (the
    quasi-identifier's values are ``sum(coefficients[i] * columns[i]) + constant``; level 0) or "determines"
    (a near-exact functional dependency: ``rows`` are those whose combination occurs more than once and
    carries its most common level-l value)."""

    kind: str
    columns: tuple[str, ...]
    roles: tuple[str, ...]
    quasi_identifier: str
    level: int
    distinct: int
    example: str
    rows: int
    n: int
    coefficients: tuple[int, ...] = ()
    constant: int = 0

    def formula(self) -> str:
        """``education + experience + 6``; ``2024 - birth_year``; ``2·a - b``."""
        def term(c: int, name: str) -> str:
            return name if abs(c) == 1 else f"{abs(c)}·{name}"

        pairs = list(zip(self.coefficients, self.columns, strict=True))
        plus = [term(c, x) for c, x in pairs if c > 0]
        minus = [term(c, x) for c, x in pairs if c < 0]
        text = " + ".join(plus) if plus else str(self.constant)
        text += "".join(f" - {t}" for t in minus)
        if plus and self.constant:
            text += f" + {self.constant}" if self.constant > 0 else f" - {-self.constant}"
        return text

    def describe(self) -> str:
        """One line: what gives what back, in how many rows, and what to do."""
        named = ", ".join(repr(c) for c in self.columns)
        roles = "/".join(dict.fromkeys(self.roles))
        share = f"{self.rows:,} of {self.n:,} rows"
        if self.kind == "formula":
            head = (f"quasi-identifier {self.quasi_identifier!r} can be recomputed from {self.formula()} ({share}; "
                    f"{named}: {roles}, released unchanged)")
        else:
            shown = "its values" if self.level == 0 else f"e.g. {self.example!r}"
            together = "together determine" if len(self.columns) > 1 else "determines"
            head = (f"{named} ({roles}, released unchanged) {together} quasi-identifier {self.quasi_identifier!r} at "
                    f"level {self.level} ({self.distinct} distinct values, {shown}) in {share}")
        which = "the column" if len(self.columns) == 1 else "one of them"
        what = "its values" if self.kind == "formula" else "that level"
        return (head + f": a release reveals {what} even where it generalizes or suppresses the "
                f"quasi-identifier. Mark {which} identifying (dropped from releases), drop it, or make it a "
                "quasi-identifier")


@dataclass(frozen=True)
class CombinedSearch:
    """What ``combined_determinations`` found, and how far it got: ``checked[s]`` of ``total[s]`` combinations
    of ``s + 1`` released columns (every formula and dependency of a combination checked), in ``seconds``."""

    relations: tuple[Relation, ...]
    checked: tuple[int, ...]
    total: tuple[int, ...]
    seconds: float
    budget: float

    @property
    def complete(self) -> bool:
        return self.checked == self.total

    def note(self) -> str | None:
        """None when every combination was checked; else which were not, as a warning line."""
        if self.complete:
            return None
        names = ("single columns", "pairs", "triples")
        parts = [f"{c:,} of {t:,} {names[s] if s < len(names) else f'combinations of {s + 1}'}"
                 for s, (c, t) in enumerate(zip(self.checked, self.total, strict=True))]
        return (f"the check for released columns that give a quasi-identifier back together stopped at its "
                f"{self.budget:g} s budget after checking " + ", ".join(parts)
                + " of released columns; combinations not checked may still give one back")


@dataclass
class _Released:
    """A released column for the combined search: codes, number of values, rows whose value is unique, and its
    values as numbers when every value that is a number is whole and at least ``threshold`` of rows have one."""

    name: str
    role: str
    codes: np.ndarray
    m: int
    counts: np.ndarray
    unique_rows: int
    number: np.ndarray | None


@dataclass
class _Quasi:
    """A quasi-identifier for the combined search: the levels worth checking (more than one value and none
    covering ``threshold`` of the rows), each as (level, per-row code, distinct values, an example label),
    and its original values as numbers (None when not all whole numbers)."""

    name: str
    levels: list[tuple[int, np.ndarray, int, str]]
    number: np.ndarray | None


def _numbers(codes: np.ndarray, values: Sequence[str] | pd.Index, need: int) -> np.ndarray | None:
    """Per row, the value as a float (NaN when it is no number), or None when a value is a number with a
    fraction (or an exponent) or fewer than ``need`` rows hold a whole number. Vectorized over the distinct
    values with Arrow's string kernels: 300,000 distinct texts take tens of milliseconds."""
    text = pa.array(values if isinstance(values, pd.Index) else list(values), type=pa.large_string())
    try:  # the usual case, every value a plain whole number: one cast
        table = pc.cast(text, pa.int64()).to_numpy(zero_copy_only=False).astype(np.float64)
        whole = np.abs(table) < 1e15
    except pa.ArrowInvalid:
        whole = pc.match_substring_regex(text, _WHOLE).to_numpy(zero_copy_only=False)
        table = pc.cast(pc.utf8_trim_whitespace(pc.if_else(pa.array(whole), text, "0")), pa.float64()).to_numpy()
    if not whole.all() and np.any(pc.match_substring_regex(text, _NUMBER).to_numpy(zero_copy_only=False) & ~whole):
        return None
    table = np.where(whole, table, np.nan)
    number = table[codes]
    return number if int(np.count_nonzero(whole[codes])) >= need else None


def _screen(threshold: float, s: int, n: int) -> float:
    """The share of a sample of ``s`` of the ``n`` rows that a property holding in ``threshold`` of all rows
    reaches but with probability ``_MISS`` (Hoeffding's inequality); ``threshold`` when the sample is every row."""
    return threshold if s >= n else threshold - math.sqrt(math.log(1 / _MISS) / (2 * s))


def _combine(keys: np.ndarray, space: int, codes: np.ndarray, m: int, n: int
             ) -> tuple[np.ndarray, int, np.ndarray]:
    """The combination of a key (in ``[0, space)``) and a column's codes: dense codes, their count, and how
    many rows each has."""
    joined = keys * m + codes  # space and m are at most n: no overflow
    if space * m <= 4 * n + 1024:
        counts = np.bincount(joined, minlength=space * m)
        present = counts > 0
        rank = np.cumsum(present) - 1
        return rank[joined], int(rank[-1]) + 1, counts[present]
    dense, uniques = pd.factorize(joined)
    dense = dense.astype(np.int64)
    return dense, len(uniques), np.bincount(dense, minlength=len(uniques))


def _majority_rows(g: np.ndarray, mg: int, repeated: np.ndarray, q: np.ndarray, distinct: int, n: int) -> int:
    """Rows whose group ``g`` occurs more than once (``repeated[g]``) and carries its group's most common ``q``."""
    space = mg * distinct
    if space <= 4 * n + 1024:
        top = np.bincount(g * distinct + q, minlength=space).reshape(mg, distinct).max(axis=1)
        return int(top[repeated].sum())
    keys, counts = np.unique(g * distinct + q, return_counts=True)  # sorted: each group's keys are adjacent
    groups = keys // distinct
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    top = np.maximum.reduceat(counts, starts)
    return int(top[repeated[groups[starts]]].sum())


def _prepare(dataset: Dataset, threshold: float, codes: Mapping[str, tuple[np.ndarray, int, pd.Index]],
             sample: np.ndarray, deadline: float, clock: Callable[[], float]
             ) -> tuple[list[_Released], list[_Quasi], bool]:
    """The released columns that are not near-constant and the quasi-identifiers with a level worth checking;
    False when the deadline passed before every column was read."""
    n = dataset.n
    need = math.ceil(threshold * n - 1e-9)
    quasi = []
    for name in dataset.quasi_identifiers:
        q_codes, level_codes, labels, top = _level_table(dataset, name)
        levels = []
        for level in range(top + 1):
            per_row = level_codes[q_codes, level] if level else q_codes
            counts = np.bincount(per_row, minlength=len(labels[level]))
            if len(labels[level]) <= 1 or int(counts.max()) >= need:
                break  # one value covers the threshold here, and at every level above
            levels.append((level, per_row, len(labels[level]), labels[level][0]))
        if levels:
            number = _numbers(q_codes, labels[0], need) if levels[0][0] == 0 else None
            quasi.append(_Quasi(name, levels, number))
    released = []
    for name, role in dataset.roles.items():
        if role not in RELEASED_ROLES:
            continue
        if clock() > deadline:
            return released, quasi, False
        c_codes, m, values = codes[name]
        counts = np.bincount(c_codes, minlength=m)
        if int(counts.max()) >= need:
            continue  # near-constant: it adds nothing to a combination
        number = None
        seen, inverse = np.unique(c_codes[sample], return_inverse=True)  # first a cheap look at the sample
        if _numbers(inverse, values[seen], math.ceil(_screen(threshold, len(sample), n) * len(sample))) is not None:
            number = _numbers(c_codes, values, need)
        released.append(_Released(name, role, c_codes, m, counts, int(np.count_nonzero(counts == 1)), number))
    return released, quasi, True


def _formula_candidates(size: int, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """Every combination of ``size`` of ``columns`` numeric columns (indices) with every coefficient vector."""
    combos = np.array(list(itertools.combinations(range(columns), size)), dtype=np.int64).reshape(-1, size)
    coefficients = np.array(list(itertools.product(COEFFICIENTS if size <= 2 else (1, -1), repeat=size)),
                            dtype=np.float64).reshape(-1, size)
    return (np.repeat(combos, len(coefficients), axis=0), np.tile(coefficients, (len(combos), 1)))


def _formulas(size: int, numeric: list[_Released], quasi: list[_Quasi], sample: np.ndarray, need: int, n: int,
              threshold: float, past_deadline: Callable[[], bool]
              ) -> tuple[list[tuple[tuple[int, ...], _Quasi, tuple[int, ...], int, int]], bool]:
    """The formulas of ``size`` numeric columns that hold for a quasi-identifier in at least ``need`` rows:
    (column indices into ``numeric``, quasi-identifier, coefficients, constant, rows), the best per
    combination and quasi-identifier; and False when the deadline passed before every one was checked."""
    if len(numeric) < size:
        return [], True
    combos, coefficients = _formula_candidates(size, len(numeric))
    on_sample = np.stack([c.number[sample] for c in numeric])  # type: ignore[index]
    s = len(sample)
    screen = _screen(threshold, s, n)
    out = {}
    chunk = max(1, 2**22 // (s * size))
    for qi in (q for q in quasi if q.number is not None):
        assert qi.number is not None
        for lo in range(0, len(combos), chunk):
            if past_deadline():
                return list(out.values()), False
            idx, coef = combos[lo:lo + chunk], coefficients[lo:lo + chunk]
            rest = qi.number[sample][None, :] - np.einsum("ks,ksr->kr", coef, on_sample[idx])
            middle = np.partition(rest, s // 2, axis=1)[:, s // 2]
            passed = np.flatnonzero((rest == middle[:, None]).sum(axis=1) >= screen * s)
            for k in passed:
                columns = tuple(int(i) for i in idx[k])
                rest_all = qi.number - sum(float(c) * numeric[i].number for c, i in zip(coef[k], columns,
                                                                                          strict=True))
                constant = np.partition(rest_all, n // 2)[n // 2]
                rows = int(np.count_nonzero(rest_all == constant))
                key = (columns, qi.name)
                if rows >= need and (key not in out or rows > out[key][4]):
                    out[key] = (columns, qi, tuple(int(c) for c in coef[k]), int(constant), rows)
    return list(out.values()), True


def combined_determinations(dataset: Dataset, threshold: float = NEAR_EXACT, budget: float = BUDGET_SECONDS,
                            max_columns: int = MAX_COLUMNS, known: Sequence[Determination] | None = None,
                            codes: Mapping[str, tuple[np.ndarray, int, pd.Index]] | None = None,
                            clock: Callable[[], float] = time.perf_counter) -> CombinedSearch:
    """The combinations of up to ``max_columns`` released columns that give a quasi-identifier back in at least
    ``threshold`` of the rows (see the module's docstring), until ``budget`` seconds have passed: first the
    formulas (cheap: screened on a sample, all candidates of one size at once) of one and two columns, the
    near-exact dependencies of single columns, the formulas of three columns, then the dependencies of pairs
    and of triples. ``known``: the exact single-column
    ``determinations`` (computed when not given), which are not reported again. Nothing is reported that a
    smaller combination gives back at the same or a lower level."""
    if not 0.5 < threshold <= 1:
        raise ValueError(f"threshold must be in (0.5, 1], got {threshold}")
    start = clock()
    deadline = start + budget
    n = dataset.n
    need = math.ceil(threshold * n - 1e-9)
    released_names = [c for c, r in dataset.roles.items() if r in RELEASED_ROLES]
    codes = codes if codes is not None else {c: _codes(dataset, c) for c in released_names}
    known = determinations(dataset, codes) if known is None else known
    rng = np.random.default_rng(0)
    sample = np.arange(n) if n <= SAMPLE_ROWS else np.sort(rng.choice(n, SAMPLE_ROWS, replace=False))
    released, quasi, prepared = _prepare(dataset, threshold, codes, sample, deadline, clock)
    sizes = range(1, max_columns + 1)
    total = tuple(math.comb(len(released_names) if not prepared else len(released), s) for s in sizes)
    checked = [0] * len(total)
    # the lowest level each (combination, quasi-identifier) gives back, for minimality
    found: dict[tuple[frozenset[str], str], int] = {(frozenset([d.column]), d.quasi_identifier): d.level
                                                   for d in known}

    def bound(columns: tuple[str, ...], qi: str, proper: bool = False) -> int:
        """Levels below this one are worth checking for the combination: no subset (``proper``: no smaller
        one) gives them back."""
        subsets = (frozenset(s) for k in range(1, len(columns) + proper * -1 + 1)
                   for s in itertools.combinations(columns, k))
        return min((found.get((s, qi), 1 << 30) for s in subsets), default=1 << 30)

    relations: list[Relation] = []
    numeric = [c for c in released if c.number is not None]

    def formulas(s: int) -> bool:
        """The formulas of ``s`` columns; False when the deadline passed before every one was checked."""
        found_here, finished = _formulas(s, numeric, quasi, sample, need, n, threshold, lambda: clock() > deadline)
        for idx, qi, coefficients, constant, rows in found_here:
            columns = tuple(numeric[i].name for i in idx)
            if bound(columns, qi.name) > 0:
                found[(frozenset(columns), qi.name)] = 0
                relations.append(Relation("formula", columns, tuple(numeric[i].role for i in idx), qi.name, 0,
                                          qi.levels[0][2], qi.levels[0][3], rows, n, coefficients, constant))
        return finished

    last: tuple[tuple[int, ...], np.ndarray, int] = ((), np.zeros(0, dtype=np.int64), 0)  # reused by its triples

    def dependencies(s: int) -> bool:
        """The near-exact dependencies of ``s`` columns, counted in ``checked``; False when the deadline passed
        before every combination was checked."""
        nonlocal last
        for combo in itertools.combinations(range(len(released)), s):
            if clock() > deadline:
                return False
            checked[s - 1] += 1
            members = [released[i] for i in combo]
            if any(c.unique_rows > n - need for c in members):
                continue  # near-unique: its combinations determine anything trivially
            names = tuple(c.name for c in members)
            if s == 1:
                g, mg, sizes_of = members[0].codes, members[0].m, members[0].counts
            else:  # combinations come in order: the last one's first s - 1 columns are often these
                if last[0] != combo[:-1]:
                    last = (combo[:-1], members[0].codes, members[0].m)
                    for c in members[1:-1]:
                        last = (combo[:-1], *_combine(last[1], last[2], c.codes, c.m, n)[:2])
                g, mg, sizes_of = _combine(last[1], last[2], members[-1].codes, members[-1].m, n)
            repeated = sizes_of > 1
            if n - int(sizes_of[repeated].sum()) > n - need:
                continue  # near-unique combination
            for qi in quasi:
                limit = bound(names, qi.name)
                levels = [lv for lv in qi.levels if lv[0] < limit]
                coarsest = _majority_rows(g, mg, repeated, levels[-1][1], levels[-1][2], n) if levels else 0
                if coarsest < need:
                    continue  # not even the coarsest level: none below it either
                for level, per_row, distinct, example in levels:
                    rows = coarsest if level == levels[-1][0] else _majority_rows(g, mg, repeated, per_row,
                                                                                  distinct, n)
                    if rows >= need:
                        found[(frozenset(names), qi.name)] = level
                        relations.append(Relation("determines", names, tuple(c.role for c in members), qi.name,
                                                  level, distinct, example, rows, n))
                        break
        return True

    # cheap first: the formulas of one and two columns, then per size the dependencies and the formulas two
    # columns larger (three columns' formulas, all screened at once, before the many pairs' dependencies)
    steps = [(formulas, 1), (formulas, 2)] + [step for s in sizes for step in ((dependencies, s), (formulas, s + 2))]
    for step, s in steps if prepared else ():
        if s <= max_columns and not step(s):
            break
    # a formula of two or three columns found before a smaller combination's dependency: not reported
    relations = [r for r in relations if bound(r.columns, r.quasi_identifier, proper=True) > r.level]
    return CombinedSearch(tuple(relations), tuple(checked), total, round(clock() - start, 6), budget)


def dependency_warnings(dataset: Dataset, budget: float = BUDGET_SECONDS) -> list[str]:
    """One warning per released column that determines a quasi-identifier (see ``determinations``), then one
    per combination of released columns that gives one back (``combined_determinations``, within ``budget``
    seconds), and a last one when that search stopped before checking every combination."""
    released = [c for c, r in dataset.roles.items() if r in RELEASED_ROLES]
    codes = {c: _codes(dataset, c) for c in released}
    single = determinations(dataset, codes)
    by_column: dict[str, list[Determination]] = {}
    for d in single:
        by_column.setdefault(d.column, []).append(d)
    out = [f"{column!r} ({found[0].role}, released unchanged) determines quasi-identifier "
           + "; ".join(d.describe() for d in found)
           + ": a release reveals that level even where it generalizes or suppresses the quasi-identifier. "
           "Mark the column identifying (dropped from releases), drop it, or make it a quasi-identifier"
           for column, found in by_column.items()]
    combined = combined_determinations(dataset, budget=budget, known=single, codes=codes)
    note = combined.note()
    return out + [r.describe() for r in combined.relations] + ([note] if note else [])
