"""Writing a release safely: a whole release folder or nothing, and CSV cells that a spreadsheet cannot run.

``write_folder`` writes every file of a release into a temporary folder beside the target, checks that what is on
disk is byte for byte what was verified, and only then moves the folder into place: on any failure (a full disk,
a file-size limit, a file it may not write) the target is left as it was. A folder that already holds a release is
replaced as a whole (``force``), never file by file, so no stale file of an earlier release stays beside the new one.

``escape_formulas`` applies OWASP's rule for CSV injection: a text cell beginning with ``=``, ``+``, ``-``, ``@``,
tab or carriage return gets a leading apostrophe, so a spreadsheet shows it as text instead of evaluating it;
numbers such as ``-3`` or ``+1.5`` stay numbers.

``mark_missing`` writes every missing value (an empty cell) as the token ``(missing)``, the label the hierarchy
builders give it, so a reader such as ``pandas.read_csv`` keeps it as a value instead of NaN (which a group-by
drops).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from workbench.errors import OutputError
from workbench.hierarchy.builders import MISSING

MISSING_TOKEN = MISSING  # how an exported file writes a missing value (an empty cell): "(missing)"

RELEASE_FILES = frozenset({"release.csv", "release.parquet", "release.xlsx", "provenance.json", "mappings.csv",
                           "region_map.csv", "report.html", "report.pdf"})  # geo and report write the last three
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
FORMULA_RULE = ("text cells beginning with =, +, -, @, tab or carriage return are prefixed with ' (OWASP CSV "
                "injection); numbers such as -3 stay as they are")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def check_folder(out_dir: str | Path, *, force: bool = False) -> None:
    """Raise OutputError unless ``out_dir`` can take a release: new, empty, or (with ``force``) holding only the
    files of an earlier release."""
    out = Path(out_dir)
    try:
        if out.exists() and not out.is_dir():
            raise OutputError(f"{out} is a file, not a folder")
        held = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
        foreign = [n for n in held if n not in RELEASE_FILES or (out / n).is_symlink() or not (out / n).is_file()]
    except OSError as exc:
        raise OutputError(f"{out}: cannot look into the folder: {exc.strerror or exc}") from None
    if not held:
        return
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise OutputError(f"{out} holds files that are not a release ({shown}); choose a new or empty folder")
    if not force:
        raise OutputError(f"{out} already holds a release ({', '.join(held)}); give --force to replace it as a "
                          "whole, or choose a new or empty folder")


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
    check_folder(out_dir, force=force)
    out = Path(out_dir)
    target = out.absolute()
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=parent))
    try:
        for name, data in files.items():
            with open(staging / name, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        for name, data in files.items():  # what is on disk is what was verified, byte for byte
            if hashlib.sha256((staging / name).read_bytes()).digest() != hashlib.sha256(data).digest():
                raise OSError(f"{name} on disk differs from the verified release")
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
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _fsync_dir(parent)
    return {name: out / name for name in files}


def escape_formulas(table: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The table with every formula-like text cell (and column name) prefixed with ``'``, and how many cells were
    changed. Cells that are numbers (``-3``, ``+1.5``, ``-2e3``) are kept as they are."""
    out = table.copy()
    changed = 0
    for column in out.columns:
        values = out[column]
        if not (values.dtype == object or pd.api.types.is_string_dtype(values)):
            continue  # a numeric column holds numbers only
        text = values.astype(str)
        risky = text.str[:1].isin(FORMULA_STARTS) & ~text.str.fullmatch(_NUMBER.pattern)
        if risky.any():
            out[column] = values.where(~risky, "'" + text)
            changed += int(risky.sum())
    renamed = {c: f"'{c}" for c in out.columns
               if isinstance(c, str) and c[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(c)}
    return out.rename(columns=renamed), changed + len(renamed)


def mark_missing(table: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The table with every missing text cell (``""`` or None) written as ``MISSING_TOKEN``, and how many cells
    were changed."""
    out = table.copy()
    changed = 0
    for column in out.columns:
        values = out[column]
        if not (values.dtype == object or pd.api.types.is_string_dtype(values)):
            continue
        empty = values.isna() | (values.astype(str) == "")
        if empty.any():
            out[column] = values.where(~empty, MISSING_TOKEN)
            changed += int(empty.sum())
    return out, changed


def download_name(file_name: str, content: bytes, key: bytes) -> str:
    """``file_name`` with a keyed digest of the whole ``content`` before its suffix (``release-<16 hex>.csv``).

    Streamlit identifies a download by its length, mimetype, file name and, above 1 MiB, only the first, middle
    and last 64 KiB of its bytes: two analysts' near-identical exports under one name would share one URL, and one
    would download the other's file. Keyed with a secret of the analyst's session, the name differs whenever the
    content or the session differs, and cannot be derived from the content alone, so neither can the URL."""
    path = Path(file_name)
    digest = hmac.new(key, content, hashlib.sha256).hexdigest()[:16]
    return f"{path.stem}-{digest}{path.suffix}"
