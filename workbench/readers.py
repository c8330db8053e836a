"""Reading tables: CSV/TSV/TXT (separator sniffed, UTF-8 or a legacy encoding named in a note, pyarrow when
the file is well formed, pandas otherwise), Parquet and Excel; every cell as text, an empty cell the value
``""``; a first column without a header read as R's row names; clear errors naming the file, row and column."""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataError

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
    return read_data_file(path, separator)[0]


def read_data_file(path: str | Path, separator: str | None = None) -> tuple[pd.DataFrame, str]:
    """``read_table``, and the SHA-256 of the bytes the table was read from (the provenance's ``file_sha256``:
    the digest of exactly what was read, not of the file as it is at some later time)."""
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
    return read_table_bytes(content, str(p), separator), hashlib.sha256(content).hexdigest()


_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def base_name(name: str) -> str:
    """The file name a client sent with an upload, reduced to its last part: any folder before it is dropped
    (``/`` and ``\\`` both separate, as a browser on Windows may send ``C:\\Users\\...``; a drive such as
    ``C:`` goes too) and control characters are removed; ``""`` when nothing that names a file is left (``""``,
    ``.``, ``..``). The result names the upload in messages, the report and the provenance; it is never a path
    to open (docs/deploy.md)."""
    last = re.split(r"[/\\]", _CONTROL.sub("", str(name)))[-1]
    last = _DRIVE.sub("", last).strip()
    return "" if last in ("", ".", "..") else last


def upload_name(name: str) -> str:
    """``base_name`` of an uploaded file's name; DataError (one line) when nothing that names a file is left."""
    base = base_name(name)
    if not base:
        raise DataError(f"the uploaded file's name {_CONTROL.sub('', str(name))[:80]!r} names no file: rename it "
                        "(e.g. data.csv) and upload it again")
    return base


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
