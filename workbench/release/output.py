"""Writing a release safely: a whole release folder or nothing, and CSV cells that a spreadsheet cannot run.

``write_folder`` writes every file of a release into a temporary folder beside the target, checks that what is on
disk is byte for byte what was verified, and only then moves the folder into place: on any failure (a full disk,
a file-size limit, a file it may not write) the target is left as it was. A folder that already holds a release is
replaced as a whole (``force``), never file by file, so no stale file of an earlier release stays beside the new one;
and the replacement is whole too: when the earlier release's files cannot be removed (a folder of another user's
files), they are put back, the new release is withdrawn and the write fails, so no earlier release lingers in a
hidden folder beside a command that said it succeeded.

``escape_formulas`` applies OWASP's rule for CSV injection: a text cell beginning with ``=``, ``+``, ``-``, ``@``,
tab or carriage return gets a leading apostrophe, so a spreadsheet shows it as text instead of evaluating it;
numbers such as ``-3`` or ``+1.5`` stay numbers. ``table_csv`` is the one writer of every CSV file the workbench
produces (the release, the value mappings, the tables of ``workbench compare``, the region map, the tables the Risk
page offers), escaping by default.

``mark_missing`` writes every missing value (an empty cell) as the token ``(missing)``, the label the hierarchy
builders give it, so a reader such as ``pandas.read_csv`` keeps it as a value instead of NaN (which a group-by
drops).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import hmac
import io
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from workbench.errors import OutputError
from workbench.hierarchy.missing import MISSING
from workbench.privacy.registry import PRIVACY_MODELS

MISSING_TOKEN = MISSING  # how an exported file writes a missing value (an empty cell): "(missing)"

RELEASE_FILES = frozenset({"release.csv", "release.parquet", "release.xlsx", "provenance.json", "mappings.csv",
                           "region_map.csv", "report.html", "report.pdf", "alternatives.csv",
                           "check.html"})  # geo writes region_map.csv; the report the next three; check --report last
COMPARE_FILES = frozenset({"solutions.csv", "normalized.csv", "rank_agreement.csv", "optimal_under.csv",
                           "risk_utility.csv", "pareto.html", "risk_utility.html", "rank_agreement.html",
                           "sweep.html"})  # workbench compare --out
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
FORMULA_RULE = ("text cells beginning with =, +, -, @, tab or carriage return are prefixed with ' (OWASP CSV "
                "injection); numbers such as -3 stay as they are")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def check_folder(out_dir: str | Path, *, force: bool = False) -> None:
    """Raise OutputError unless ``out_dir`` can take a release: new, empty, or (with ``force``) holding only the
    files of an earlier release (or of ``workbench compare --out``) in a folder the user may remove them from."""
    out = Path(out_dir)
    try:
        if out.exists() and not out.is_dir():
            raise OutputError(out, " is a file, not a folder")
        held = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
        foreign = [n for n in held if n not in RELEASE_FILES | COMPARE_FILES or (out / n).is_symlink()
                   or not (out / n).is_file()]
    except OSError as exc:
        raise OutputError(out, f": cannot look into the folder: {exc.strerror or exc}") from None
    if not held:
        return
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise OutputError(out, f" holds files that are not a release ({shown}); choose a new or empty folder")
    if not force:
        raise OutputError(out, f" already holds a release ({', '.join(held)})", replaceable=True)
    if not os.access(out, os.W_OK | os.X_OK):  # a first look; staged_folder's removal is the proof
        raise OutputError(out, ": may not remove the earlier release's files (the folder is not writable); "
                          "nothing was replaced")


def _umask() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_folder(out_dir: str | Path, files: Mapping[str, bytes], *, force: bool = False) -> dict[str, Path]:
    """Write ``files`` (name -> bytes) as the folder ``out_dir``, all or nothing (see the module docstring).
    Returns the path of each file. Raises OutputError (see ``check_folder``) or OSError; the target is then
    unchanged and no temporary file is left behind."""
    with staged_folder(out_dir, force=force) as staging:
        for name, data in files.items():
            with open(staging / name, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        for name, data in files.items():  # what is on disk is what was verified, byte for byte
            if hashlib.sha256((staging / name).read_bytes()).digest() != hashlib.sha256(data).digest():
                raise OSError(f"{name} on disk differs from the verified release")
    return {name: Path(out_dir) / name for name in files}


@contextlib.contextmanager
def staged_folder(out_dir: str | Path, *, force: bool = False) -> Iterator[Path]:
    """A temporary folder beside ``out_dir`` to write a release into (files too large to hold in memory are
    written there directly, then verified from disk); when the block ends without an exception it replaces
    ``out_dir`` as a whole (``check_folder``'s rules), otherwise it is removed and the target left as it was."""
    check_folder(out_dir, force=force)
    target = Path(out_dir).absolute()
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=parent))
    try:
        yield staging
        os.chmod(staging, 0o777 & ~_umask())
        if target.is_dir():  # an empty folder, or an earlier release (force): replaced as a whole
            retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=parent))
            os.rmdir(retired)
            os.rename(target, retired)
            try:
                os.rename(staging, target)
            except OSError:
                os.rename(retired, target)
                raise
            try:
                trash = _empty_folder(retired, parent)
            except OSError as exc:  # the earlier release stays where it was, whole; the new one is withdrawn
                os.rename(target, staging)
                os.rename(retired, target)
                raise OutputError(target, f": cannot remove the earlier release ({exc.strerror or exc}); it is left "
                                  "as it was and nothing was written") from None
            try:
                shutil.rmtree(trash)  # our own folder now: its entries are ours to delete
            except OSError as exc:
                raise OutputError(target, f": the release is written, but the earlier release's files could not be "
                                  f"deleted from {trash} ({exc.strerror or exc})") from None
        else:
            os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _fsync_dir(parent)


def _empty_folder(folder: Path, parent: Path) -> Path:
    """Remove ``folder`` (a release: files only) by moving its entries into a new folder of our own beside it, and
    return that folder, for the caller to delete. Moving an entry out needs the same permission as deleting it
    (write access to ``folder``, and ownership of the file in a sticky folder) but can be undone: on a failure every
    entry moved goes back and OSError is raised, ``folder`` as it was."""
    trash = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".trash", dir=parent))
    moved: list[str] = []
    try:
        for name in sorted(os.listdir(folder)):
            os.rename(folder / name, trash / name)
            moved.append(name)
        os.rmdir(folder)
    except OSError:
        for name in reversed(moved):
            os.rename(trash / name, folder / name)
        os.rmdir(trash)
        raise
    return trash


def table_csv(table: pd.DataFrame, *, escape: bool = True, index: bool = False) -> bytes:
    """The table as CSV bytes (``DataFrame.to_csv``'s format), the one way the workbench writes a CSV file: with
    ``escape`` (the default; a release's ``release.escape_formulas`` may turn it off) every formula-like text cell and
    column name is neutralized (``escape_formulas``); ``index`` writes the row labels as the first column."""
    if index:
        table = table.reset_index(names=table.index.name if table.index.name is not None else "")
    return csv_bytes(escape_formulas(table)[0] if escape else table)


def _distinct_texts(values: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """A text column as (codes, distinct values): a Categorical's own, else hashed (``pd.factorize``, a missing
    cell as a value of its own); None for a column that is not text (numbers stay numbers)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        categories = values.cat.categories
        if not (categories.dtype == object or pd.api.types.is_string_dtype(categories)):
            return None
        codes = values.cat.codes.to_numpy().astype(np.int64)
        distinct = categories.to_numpy(dtype=object)
        if (codes < 0).any():
            codes = np.where(codes < 0, len(distinct), codes)
            distinct = np.append(distinct, None)
        return codes, distinct
    if not (values.dtype == object or pd.api.types.is_string_dtype(values)):
        return None
    codes, distinct = pd.factorize(values, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64), np.asarray(distinct, dtype=object)


def _recode(values: pd.Series, change: Callable[[object], object | None]) -> tuple[pd.Series, int]:
    """``values`` with ``change`` applied to each distinct text (None: unchanged), and how many cells changed. A
    Categorical stays one; any other column becomes a column of text cells."""
    found = _distinct_texts(values)
    if found is None:
        return values, 0
    codes, distinct = found
    new = [change(v) for v in distinct]
    changed = np.array([v is not None for v in new], dtype=bool)
    if not changed.any():
        return values, 0
    cells = int(np.bincount(codes, minlength=len(distinct))[changed].sum())
    texts = np.array([n if n is not None else v for v, n in zip(distinct, new, strict=True)], dtype=object)
    if isinstance(values.dtype, pd.CategoricalDtype):
        remap, categories = pd.factorize(texts)  # two labels may become one
        out = pd.Categorical.from_codes(remap[codes], categories=pd.Index(categories, dtype=object), validate=False)
        return pd.Series(out, index=values.index, name=values.name), cells
    return pd.Series(texts[codes], index=values.index, name=values.name), cells


def _formula_like(text: str) -> bool:
    return text[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(text)


def escape_formulas(table: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The table with every formula-like text cell (and column name) prefixed with ``'``, and how many cells were
    changed. Cells that are numbers (``-3``, ``+1.5``, ``-2e3``) are kept as they are. Each distinct text is
    looked at once."""
    out = table.copy()
    changed = 0
    for column in out.columns:
        values, cells = _recode(out[column], lambda v: "'" + str(v) if v is not None and v == v
                                and _formula_like(str(v)) else None)
        if cells:
            out[column] = values
            changed += cells
    renamed = {c: f"'{c}" for c in out.columns
               if isinstance(c, str) and c[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(c)}
    return out.rename(columns=renamed), changed + len(renamed)


def mark_missing(table: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The table with every missing text cell (``""`` or None) written as ``MISSING_TOKEN``, and how many cells
    were changed. Each distinct text is looked at once."""
    out = table.copy()
    changed = 0
    for column in out.columns:
        values, cells = _recode(out[column], lambda v: MISSING_TOKEN if v is None or v != v or str(v) == ""
                                else None)
        if cells:
            out[column] = values
            changed += cells
    return out, changed


def _csv_fields(values: list[object]) -> list[str]:
    """Cells as ``DataFrame.to_csv`` writes them: through the csv module with pandas' dialect (``,``, ``"``
    doubled, minimal quoting, line terminator ``\\n``), a missing cell empty."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    out = []
    for v in values:
        if v is None or v != v:
            out.append("")
            continue
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(["x", str(v)])  # two fields: a lone empty field is written as ""
        out.append(buffer.getvalue()[2:-1])
    return out


def csv_bytes(table: pd.DataFrame, block: int = 1_000_000) -> bytes:
    """The table as ``table.to_csv(index=False)`` writes it, byte for byte, for a table of text columns: each
    distinct text rendered once, the rows joined by pyarrow in blocks of ``block`` rows. Other tables (numbers,
    one column) go through ``to_csv``."""
    found = [_distinct_texts(table[c]) for c in table.columns]
    if len(table.columns) < 2 or any(f is None for f in found) or not all(isinstance(c, str) for c in table.columns):
        return table.to_csv(index=False).encode("utf-8")
    import pyarrow as pa
    import pyarrow.compute as pc

    dictionaries = [pa.array(_csv_fields(list(distinct)), type=pa.large_string()) for _, distinct in found]
    parts = [(",".join(_csv_fields(list(table.columns))) + "\n").encode("utf-8")]
    for start in range(0, len(table), block):
        columns = [pa.DictionaryArray.from_arrays(pa.array(codes[start:start + block], type=pa.int32()), d)
                   .dictionary_decode() for (codes, _), d in zip(found, dictionaries, strict=True)]
        lines = pc.binary_join_element_wise(*columns, pa.scalar(",", pa.large_string()))  # last: the separator
        data = pc.binary_join_element_wise(lines, pa.scalar("", pa.large_string()), pa.scalar("\n", pa.large_string()))
        parts.append(_string_bytes(data))
    return b"".join(parts)


def _string_bytes(array: object) -> bytes:
    """The concatenated values of a pyarrow large_string array (its data buffer between the first and last
    offsets)."""
    offsets_buffer, data_buffer = array.buffers()[1], array.buffers()[2]
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[array.offset:array.offset + len(array) + 1]
    if not len(array):
        return b""
    return data_buffer.slice(int(offsets[0]), int(offsets[-1] - offsets[0])).to_pybytes()


def download_name(file_name: str, content: bytes, key: bytes) -> str:
    """``file_name`` with a keyed digest of the whole ``content`` before its suffix (``release-<16 hex>.csv``).

    Streamlit identifies a download by its length, mimetype, file name and, above 1 MiB, only the first, middle
    and last 64 KiB of its bytes: two analysts' near-identical exports under one name would share one URL, and one
    would download the other's file. Keyed with a secret of the analyst's session, the name differs whenever the
    content or the session differs, and cannot be derived from the content alone, so neither can the URL."""
    path = Path(file_name)
    digest = hmac.new(key, content, hashlib.sha256).hexdigest()[:16]
    return f"{path.stem}-{digest}{path.suffix}"


NAME_LIMIT = 60  # characters of a name part (a dataset's name, a column's)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}


def safe_name(text: object, fallback: str = "data", limit: int = NAME_LIMIT) -> str:
    """``text`` (an uploaded file's or a column's name) as part of a file name that is safe on any system and in
    any shell: accents dropped, every run of characters other than ASCII letters, digits, ``.``, ``_`` and ``-``
    (path separators, spaces, quotes, control characters) one ``-``, no leading or trailing dot or dash (no hidden
    file, no ``..``, nothing read as an option), not a device name of Windows, at most ``limit`` characters;
    ``fallback`` when nothing is left."""
    plain = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    name = _UNSAFE.sub("-", plain)[:limit].strip(".-")
    if not name:
        return fallback
    head, dot, tail = name.partition(".")
    return f"{head}_{dot}{tail}" if head.upper() in _RESERVED else name  # COM1.csv is a device too


def _figure(value: object) -> str:
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def dataset_stem(data: Mapping[str, Any]) -> str:
    """A dataset's name for file names (``safe_name``): a config's ``[data]`` table, an embedded sample's name or
    the data file's name without its folder and suffix (``wages1985.csv``: ``wages1985``)."""
    name = data.get("sample") or PurePosixPath(str(data.get("path") or "").replace("\\", "/")).stem
    return safe_name(name)


def release_file_stem(config: Mapping[str, Any]) -> str:
    """The start of a release's file names: its dataset (an embedded sample's name, or the data file's name without
    its suffix) and the rule it meets, ``wages1985-k5``, ``registry-k5-l3``, ``adult-k10-t0.2`` (``safe_name``);
    ``config`` is a study config as a mapping (``[data]``, ``[privacy]`` and its model tables)."""
    privacy = config.get("privacy", {})
    rule = [f"k{_figure(privacy.get('k', ''))}"]
    rule += [model.short(privacy[kind]) for kind, model in PRIVACY_MODELS.items()
             if isinstance(privacy.get(kind), Mapping)]
    return f"{dataset_stem(config.get('data', {}))}-{safe_name('-'.join(rule), fallback='rule')}"
