"""Datasets: reading tables, attribute roles and the integer encoding of quasi-identifiers.

Every cell is read as text, and an empty cell is the value ``""``: a missing value is explicit, so the
hierarchy of a quasi-identifier must have a row for it, or the error names the rows that lack one.
The user's file and DataFrame are never modified: a Dataset keeps its own read-only copy.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from measures import ColumnDomain
from workbench.errors import DataError, HierarchyError
from workbench.hierarchy.tree import Hierarchy

ROLES = ("quasi", "sensitive", "insensitive", "identifying", "target")
TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
SUFFIXES = (*TEXT_SUFFIXES, ".parquet", ".xlsx", ".xls")
_SNIFF_DELIMITERS = ",;\t|"


def _as_text(value: object) -> str:
    """Canonical text of a cell from a typed file: missing -> "", 39.0 -> "39"."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime.date):  # Excel dates come as datetime.datetime, Parquet's as pd.Timestamp
        value = pd.Timestamp(value)
        return value.date().isoformat() if value == value.normalize() else value.isoformat()
    return str(value)


def _as_text_column(column: pd.Series) -> pd.Series:
    """``_as_text`` over a column without a Python call per cell: a column of text (the usual case: text files
    are read as text) only has its missing cells replaced, and is kept in its own (compact) string dtype; a typed
    column (numbers, dates, booleans: Parquet, Excel) is converted value by distinct value."""
    if isinstance(column.dtype, pd.StringDtype):
        return column.fillna("") if column.hasnans else column
    if column.dtype != object and not isinstance(column.dtype, pd.CategoricalDtype):
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        texts = np.array([*(_as_text(u) for u in uniques), ""], dtype=object)
        return pd.Series(texts[codes], index=column.index, name=column.name)  # code -1 (missing) -> ""
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):
        return column.astype(object).where(column.notna(), "")
    return column.map(_as_text)  # mixed Python objects (Excel): 1, 1.0 and True must not be merged


def _sniff_separator(sample: str) -> str:
    try:
        return csv.Sniffer().sniff(sample, delimiters=_SNIFF_DELIMITERS).delimiter
    except csv.Error:
        first = sample.splitlines()[0] if sample else ""
        counts = {d: first.count(d) for d in _SNIFF_DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        if counts[best] == 0:
            return ","  # a single column
        return best


def read_table(path: str | Path, separator: str | None = None) -> pd.DataFrame:
    """Read CSV/TSV (separator given or sniffed), Parquet or Excel as a table of text cells.

    Raises DataError naming the file for a missing, unreadable, empty or malformed file.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise DataError(f"{p}: unsupported file type {suffix or '(none)'}; use one of {', '.join(SUFFIXES)}")
    if not p.exists():
        raise DataError(f"data file not found: {p}")
    if not p.is_file():
        raise DataError(f"data path is not a file: {p}")
    try:
        content = p.read_bytes()
    except OSError as exc:  # e.g. a file the user may not read
        raise DataError(f"cannot read data file {p}: {exc.strerror or exc}") from None
    return read_table_bytes(content, str(p), separator)


def read_table_bytes(content: bytes, name: str, separator: str | None = None) -> pd.DataFrame:
    """Read a table held in memory (an upload; nothing is written to disk); ``name`` gives its type by its
    suffix and names it in messages. Same rules and errors as ``read_table``."""
    suffix = Path(name).suffix.lower()
    if suffix not in SUFFIXES:
        raise DataError(f"{name}: unsupported file type {suffix or '(none)'}; use one of {', '.join(SUFFIXES)}")
    if not content:
        raise DataError(f"{name}: the file is empty")
    try:
        if suffix in TEXT_SUFFIXES:
            frame = _read_text(content, name, separator)
        elif suffix == ".parquet":
            frame = pd.read_parquet(io.BytesIO(content)).apply(_as_text_column)
        else:
            frame = _with_header(pd.read_excel(io.BytesIO(content), header=None, dtype=object,
                                               keep_default_na=False, na_values=[]).map(_as_text))
    except DataError:
        raise
    except Exception as exc:  # the readers raise many types; the user needs the file and the reason
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"{name}: cannot read as {suffix[1:]}: {reason}") from None
    encoding = frame.attrs.get("encoding")
    frame = _checked(frame, name)
    if encoding is not None:
        frame.attrs["encoding"] = encoding
    return frame


ROW_NAMES = "row names"  # the name given to a first column without a header (R's row names)


LEGACY_ENCODINGS = ("cp1252", "latin-1")  # what spreadsheets on Windows write when they do not write UTF-8
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # never in a text table, often in binary


def decode_text(raw: bytes, name: str) -> tuple[str, str]:
    """The text of a table file and its encoding: UTF-8 (with or without a byte-order mark), else Windows-1252
    or Latin-1 when that reads as text without control characters (binary files do not). Raises DataError
    naming the first byte UTF-8 cannot decode otherwise."""
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    for encoding in LEGACY_ENCODINGS:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        if not _CONTROL.search(text):
            return text, encoding
    raise DataError(f"{name}: not UTF-8 text (byte {first_bad} cannot be decoded), nor Windows-1252 or "
                    "Latin-1 text") from None


def encoding_note(frame: pd.DataFrame, name: str) -> str | None:
    """A line saying which encoding a table read by ``read_table`` was decoded with, when it was not UTF-8."""
    encoding = frame.attrs.get("encoding")
    if encoding in (None, "utf-8"):
        return None
    return (f"{name} is not UTF-8: it was read as {encoding} (check accented letters in the first rows); "
            "save it as UTF-8 to be sure")


def _read_text(raw: bytes, name: str, separator: str | None) -> pd.DataFrame:
    if b"\x00" in raw[:65536]:
        raise DataError(f"{name}: not a text table (it contains NUL bytes)")
    text, encoding = decode_text(raw, name)
    if not text.strip():
        raise DataError(f"{name}: the file is empty")
    sep = separator or ("\t" if name.lower().endswith(".tsv") else _sniff_separator(text[:65536]))
    fast = _read_text_arrow(raw if encoding == "utf-8" and not raw.startswith(b"\xef\xbb\xbf") else
                            text.encode("utf-8"), text, sep)
    if fast is not None:
        fast.attrs["encoding"] = encoding
        return fast
    try:
        # header=None: pandas would rename a duplicate name 'a' to 'a.1', and would silently take the first
        # column as the index when every data row has more fields than the header
        frame = _with_header(pd.read_csv(io.StringIO(text), sep=sep, header=None, dtype=str, keep_default_na=False,
                                         na_values=[], engine="python" if len(sep) > 1 else "c"))
    except pd.errors.ParserError as exc:
        raise DataError(f"{name}: malformed table: {str(exc).strip().splitlines()[0]}") from None
    frame.attrs["encoding"] = encoding
    return frame


def _read_text_arrow(data: bytes, text: str, sep: str) -> pd.DataFrame | None:
    """The table read by pyarrow's multithreaded CSV reader, every cell as text (no value is converted or read as
    missing), for a well-formed table: as many fields in every row as in the first. None (and the caller reads
    it with pandas, whose messages name the bad row) for anything else: one column, a ragged row, a separator of
    more than one character, a first row longer than 64 KiB, a quote character, a carriage return outside a CRLF
    line end."""
    if len(sep) != 1 or sep in '"\r\n' or b'"' in data or data.count(b"\r") != data.count(b"\r\n"):
        return None  # quoting and lone carriage returns are read by pandas, whose rules the tests pin down
    head = text[:65536]
    try:
        first = next(csv.reader(io.StringIO(head), delimiter=sep))
    except (csv.Error, StopIteration):
        return None
    if len(first) < 2:  # pandas skips a one-column table's whitespace-only lines as blank
        return None
    if len(head) == 65536 and len(",".join(first)) > 60000:
        return None
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = [f"f{i}" for i in range(len(first))]
    try:
        table = pcsv.read_csv(
            io.BytesIO(data),
            read_options=pcsv.ReadOptions(column_names=names),
            parse_options=pcsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=True, escape_char=False,
                                            newlines_in_values=True, ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(column_types={n: pa.string() for n in names}, null_values=[],
                                                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    frame = table.to_pandas()
    return _with_header(frame.astype(str))


def _with_header(raw: pd.DataFrame) -> pd.DataFrame:
    """The first row of a table read without a header becomes the column names, exactly as written."""
    if len(raw) == 0:
        return raw
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = ["" if v is None or v != v else str(v) for v in raw.iloc[0]]
    return frame


def _checked(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    if frame.shape[1] == 0:
        raise DataError(f"{source}: no columns")
    if len(frame) == 0:
        raise DataError(f"{source}: no data rows (only a header)")
    names = [str(c) for c in frame.columns]
    dupes = sorted({c for c in names if names.count(c) > 1})
    if dupes:
        raise DataError(f"{source}: duplicate column name(s): {', '.join(dupes)}")
    row_names = len(names) > 1 and not names[0].strip() and ROW_NAMES not in names
    if row_names:  # R's write.csv writes the row names first, under an empty header
        names[0] = ROW_NAMES
    unnamed = [c if c.strip() else f"column {i + 1}" for i, c in enumerate(names)
               if c.startswith("Unnamed:") or not c.strip()]
    if unnamed:
        raise DataError(f"{source}: column(s) without a header name: {', '.join(unnamed)}")
    frame.columns = names
    out = frame.astype(str)
    out.attrs["row_names"] = row_names
    return out


def row_names_note(frame: pd.DataFrame, name: str) -> str | None:
    """A line saying that the table's first column had no header and was named ``ROW_NAMES``."""
    if not frame.attrs.get("row_names"):
        return None
    return (f"{name}: the first column has no header (R's write.csv writes the row names there); it is read as "
            f"{ROW_NAMES!r}. If it names people, it is identifying.")


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """A quasi-identifier as integer codes (El Emam 2009 / Issa 2009 ch. 5: integer-encode once).

    ``codes[i]`` = compact code of record i's original value (0..m-1, in hierarchy row order);
    ``level_codes[o, l]`` = code of value o's level-l ancestor among ``labels[l]``.
    """

    name: str
    codes: np.ndarray
    level_codes: np.ndarray
    labels: tuple[tuple[str, ...], ...]
    shares: tuple[np.ndarray, ...] | None = None  # per level: ARX domain-share numerator of each label
    share_domain: int | None = None  # their denominator (Hierarchy.domain_shares)
    weights: np.ndarray | None = None  # per row of ``codes``: how many records it stands for (a frequency set's)

    def __post_init__(self) -> None:
        for attr in ("codes", "level_codes"):
            getattr(self, attr).setflags(write=False)

    @property
    def height(self) -> int:
        return self.level_codes.shape[1] - 1

    @cached_property
    def code_space(self) -> tuple[np.ndarray, np.ndarray]:
        """The column-wide code space of all levels: each level's offset in it, and every code's leaf count
        (how many original values it covers)."""
        sizes = [self.cardinality(lv) for lv in range(self.height + 1)]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        leaf_count = np.concatenate([np.bincount(self.level_codes[:, lv], minlength=sizes[lv])
                                     for lv in range(self.height + 1)])
        return offsets, leaf_count

    @cached_property
    def counts(self) -> np.ndarray:
        """Records per original value."""
        if self.weights is not None:
            return np.bincount(self.codes, weights=self.weights, minlength=self.level_codes.shape[0]).astype(np.int64)
        return np.bincount(self.codes, minlength=self.level_codes.shape[0])

    def cardinality(self, level: int) -> int:
        return len(self.labels[level])

    def column_domain(self) -> ColumnDomain:
        """The measures' per-column marginals (lattice fast path), with the hierarchy's domain shares."""
        return ColumnDomain(self.name, self.level_codes, self.counts, self.shares, self.share_domain)


@dataclass(frozen=True, eq=False)
class Population:
    """The table a research subset was drawn from (δ-presence, Nergiz et al. 2007): the data file's rows, and
    which of them the subset is (``rows[i]``: the population row of the subset's row i)."""

    frame: pd.DataFrame
    rows: np.ndarray
    source: str = "population"

    @property
    def n(self) -> int:
        return len(self.frame)


@dataclass(frozen=True, eq=False)
class Dataset:
    """A table with attribute roles and one hierarchy per quasi-identifier.

    Build it with ``Dataset.create``, which validates everything and copies the frame. ``population``: when the
    table is a research subset (δ-presence), the table it was drawn from.
    """

    frame: pd.DataFrame
    roles: Mapping[str, str]
    hierarchies: Mapping[str, Hierarchy]
    source: str = "data"
    warnings: tuple[str, ...] = field(default=())
    population: Population | None = None

    @classmethod
    def create(
        cls,
        frame: pd.DataFrame,
        roles: Mapping[str, str],
        hierarchies: Mapping[str, Hierarchy],
        source: str = "data",
        without_hierarchy: Collection[str] = (),
        population: Population | None = None,
    ) -> Dataset:
        """Validate roles and hierarchies against the frame; raise DataError/HierarchyError on problems.

        Columns not in ``roles`` are insensitive. The order of ``roles`` is the quasi-identifier order.
        ``without_hierarchy``: quasi-identifiers generalized by a poset of their own (local engine), which
        need no hierarchy. ``population``: the table the frame's rows were drawn from (δ-presence); the
        hierarchies must cover its values too.
        """
        if len(frame) == 0:
            raise DataError(f"{source}: no data rows")
        frame = frame.apply(_as_text_column)  # a new frame, same text as read_table: NaN -> "", 20.0 -> "20"
        unknown = [a for a in roles if a not in frame.columns]
        if unknown:
            raise DataError(
                f"{source}: unknown attribute(s) {', '.join(map(repr, unknown))}; "
                f"the columns are {', '.join(map(repr, frame.columns))}"
            )
        bad = {a: r for a, r in roles.items() if r not in ROLES}
        if bad:
            a, r = next(iter(bad.items()))
            raise DataError(f"attribute {a!r}: unknown role {r!r}; use one of {', '.join(ROLES)}")
        full_roles = {c: roles.get(c, "insensitive") for c in frame.columns}
        ordered = {a: full_roles[a] for a in roles} | {c: r for c, r in full_roles.items() if c not in roles}
        warnings: list[str] = []
        problems: list[str] = []
        for a in (a for a, r in ordered.items() if r == "quasi"):
            if a not in hierarchies and a in without_hierarchy:
                continue
            if a not in hierarchies:
                problems.append(f"quasi-identifier {a!r} has no hierarchy")
                continue
            h = hierarchies[a]
            report = h.validate()
            warnings.extend(report.warnings)
            problems.extend(report.errors)
            if h.rows:  # coverage too, so that every problem is reported at once
                problems.extend(_coverage_problems(frame[a], h, a))
                if population is not None and a in population.frame.columns:
                    problems.extend(f"population: {p}" for p in _coverage_problems(
                        population.frame[a].astype(str), h, a))
        if problems:
            raise HierarchyError("; ".join(problems), problems)
        return cls(frame=frame, roles=ordered, hierarchies=dict(hierarchies), source=source,
                   warnings=tuple(warnings), population=population)

    @property
    def n(self) -> int:
        return len(self.frame)

    def attributes(self, role: str) -> list[str]:
        return [a for a, r in self.roles.items() if r == role]

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.attributes("quasi")

    @cached_property
    def encoded(self) -> tuple[EncodedColumn, ...]:
        """The quasi-identifiers as integer codes, in quasi-identifier order."""
        return tuple(self.encoded_column(a) for a in self.quasi_identifiers)

    @cached_property
    def _encoded_columns(self) -> dict[str, EncodedColumn]:
        return {}

    def encoded_column(self, attribute: str) -> EncodedColumn:
        """One quasi-identifier that has a hierarchy, as integer codes (computed once)."""
        if attribute not in self._encoded_columns:
            self._encoded_columns[attribute] = self._encode(attribute)
        return self._encoded_columns[attribute]

    def _encode(self, attribute: str) -> EncodedColumn:
        h = self.hierarchies[attribute]
        inverse, uniques = pd.factorize(self.frame[attribute])  # hashing, no per-cell Python; "" is a value
        uniques = [str(u) for u in uniques]
        order = {v: i for i, v in enumerate(h.values)}
        present = sorted(uniques, key=order.__getitem__)  # hierarchy row order
        where = {v: i for i, v in enumerate(present)}
        rank = np.array([where[v] for v in uniques], dtype=np.int64)
        level_codes, labels = h.level_matrix(present)
        shares, domain = h.domain_shares(labels)
        return EncodedColumn(
            name=attribute,
            codes=rank[inverse],
            level_codes=level_codes,
            labels=tuple(tuple(lv) for lv in labels),
            shares=shares,
            share_domain=domain,
        )


def _coverage_problems(column: pd.Series, h: Hierarchy, attribute: str) -> list[str]:
    """Rows whose value has no hierarchy row, named by value and 1-based data row."""
    covered = set(h.values)
    missing = sorted({str(v) for v in column.unique()} - covered)  # distinct values only: one pass, hashed
    if not missing:
        return []
    values = column.to_numpy(dtype=str)
    parts = []
    for v in missing[:5]:
        rows = (np.flatnonzero(values == v) + 1).tolist()
        shown = ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
        label = "an empty cell (missing value)" if v == "" else repr(v)
        parts.append(f"{label} in data row{'s' if len(rows) > 1 else ''} {shown}")
    more = f"; and {len(missing) - 5} more value(s)" if len(missing) > 5 else ""
    return [f"column {attribute!r}: hierarchy {h.name!r} has no row for {'; '.join(parts)}{more}"]


# column names of common demographic quasi-identifiers (Sweeney 2002: ZIP code, sex and date of birth identify
# most people; El Emam 2009 adds age, and health data ethnicity and race)
QUASI_NAMES = re.compile(r"(age|sex|gender|dob|(date_?of_?)?birth(_?date|day)?|birth_?year|year_?of_?birth|zip(_?code)?"
                         r"|post(al)?_?code|postcode|ethnicity|race)", re.IGNORECASE)


def suggest_roles(frame: pd.DataFrame) -> dict[str, str]:
    """Roles to start from for a new table: a column with a different value in every record identifies (it is
    marked identifying, as ``profile`` would warn); a column named like a common demographic quasi-identifier
    (``QUASI_NAMES``: age, sex, gender, date of birth, ZIP or postal code, ethnicity, race) is quasi, in table
    order; every other column insensitive. The analyst reviews and changes them."""
    roles = {}
    for column in frame.columns:
        unique = len(frame) > 1 and frame[column].nunique() == len(frame)
        roles[column] = "identifying" if unique else "quasi" if QUASI_NAMES.fullmatch(column.strip()) \
            else "insensitive"
    return roles


def profile(frame: pd.DataFrame, roles: Mapping[str, str], k: int) -> tuple[pd.DataFrame, list[str]]:
    """Per column: role, distinct values, missing (empty) values and values occurring fewer than k times;
    plus warnings for identifying columns left in and quasi-identifier values rarer than k."""
    rows, warnings = [], []
    for column in frame.columns:
        counts = frame[column].value_counts()
        role = roles.get(column, "insensitive")
        rare = int((counts < k).sum())
        rows.append({"column": column, "role": role, "distinct values": int(counts.size),
                     "missing values": int((frame[column] == "").sum()), f"values seen < {k} times": rare})
        if role == "identifying":
            warnings.append(f"{column!r} is identifying: it is dropped from every release")
        elif role == "quasi" and rare:
            warnings.append(f"{column!r}: {rare} value(s) occur fewer than {k} times; they will need "
                            "generalization or suppression")
        elif role in ("insensitive", "sensitive") and counts.size == len(frame) and len(frame) > 1:
            warnings.append(f"{column!r} is unique for every record but is not marked identifying: it would "
                            "identify patients if released")
    return pd.DataFrame(rows), warnings
