"""The lattice engine on files larger than memory: ``engine.backend = "duckdb"`` or ``"dask"`` (docs/scale.md).

1. The bottom frequency set comes from one group-by over the file (``workbench.scale.backends``); the raw table is never
   held in memory. Its distinct rows become a small Dataset, integer-encoded as usual, whose rows carry their
   record counts as weights (``NodeEvaluator(weights=...)``), so the search, its checks and the measures' fast
   paths see exactly the frequency sets the in-memory path sees.
2. The release is planned on those distinct rows (each one's released labels, whether its class is suppressed)
   and written by the backend partition by partition, in a seeded shuffled order, into a staging folder.
3. It is verified from the written file alone, read back through the backend: every class of identical released
   rows (``*`` rows aside) has at least k records; the ``*`` rows are the suppressed count, within the limit; no
   row is partly ``*``; and per quasi-identifier, every released label is a label of its hierarchy at the chosen
   level and is carried by exactly as many records as the input has under it. Only then the folder is moved into
   place with ``provenance.json``.

Only k-anonymity with suppression is supported here (no privacy model, no target-based measure).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError, VerificationError
from workbench.grouping import group_rows
from workbench.hierarchy.missing import missing_texts
from workbench.hierarchy.tree import Hierarchy
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.search.result import Limits
from workbench.lattice.tagging import TaggedLattice
from workbench.objective import NodeScorer, check_measures
from workbench.privacy.base import Admissibility
from workbench.readers import _as_text_column
from workbench.release.output import FORMULA_STARTS, MISSING_TOKEN, _formula_like, staged_folder
from workbench.release.verify import SUPPRESSED, Guarantee
from workbench.scale import backends


@dataclasses.dataclass(frozen=True)
class ScaledRun:
    """An out-of-core run: the node, its frequency set's class sizes, the scores and the written folder."""

    study: Study
    node: tuple[int, ...] | None
    quasi_identifiers: tuple[str, ...]
    n: int
    class_sizes: np.ndarray  # kept classes' sizes
    suppressed: int
    scores: dict[str, M.Score]
    checks: int
    seconds: float
    guarantee: Guarantee | None
    files: dict[str, Path]

    def summary(self) -> dict[str, object]:
        """The JSON object of ``workbench run --json``, with the keys the in-memory run has."""
        from workbench.risk import risk_from_histogram
        from workbench.risk.histogram import Histogram

        sizes = self.class_sizes.tolist() + ([self.suppressed] if self.suppressed else [])
        transformation = dict(zip(self.quasi_identifiers, self.node, strict=True)) if self.node else None
        return {"engine": "lattice", "algorithm": self.study.algorithm, "k": self.study.k,
                "max_suppression": self.study.max_suppression, "transformation": transformation,
                "k_anonymous": bool(self.guarantee and self.guarantee.holds),
                "suppressed": self.suppressed if self.node else None,
                "classes": int(self.class_sizes.size) if self.node else None,
                "measures": {i: s.value for i, s in self.scores.items()}, "checks": self.checks,
                "seconds": round(self.seconds, 6), "privacy_models": {}, "backend": self.study.backend,
                "risk": risk_from_histogram(Histogram.of(sizes), classes=int(self.class_sizes.size),
                                            suppressed=self.suppressed).to_dict() if self.node else None}


def frequency_dataset(study: Study, source: backends.Source) -> tuple[Dataset, pd.DataFrame, np.ndarray]:
    """The distinct quasi-identifier rows of the file as a Dataset (text, hierarchies checked and encoded), the
    same rows as the backend read them (to join the release on), and each row's record count."""
    qis = [a.name for a in study.attributes if a.role in (None, "quasi")]
    present = backends.columns(source, study.backend)
    missing = [q for q in qis if q not in present]
    if missing:
        raise ConfigError(f"{study.source}: attribute(s) {', '.join(map(repr, missing))} not among the columns of "
                          f"{source.path}")
    native, counts = backends.group_counts(source, qis, study.backend, study.scheduler)
    text = native.apply(_as_text_column) if len(native) else native.astype(str)
    hierarchies: dict[str, Hierarchy] = {}
    for spec in study.attributes:
        if spec.hierarchy is not None:
            hierarchies[spec.name] = Hierarchy.read_arx(spec.hierarchy)
        elif spec.builder is not None:
            from workbench.hierarchy.builders import build_hierarchy

            values = sorted(text[spec.name].astype(str).unique().tolist())
            hierarchies[spec.name] = build_hierarchy(spec.builder, values, name=f"{spec.name} builder")
    qis = [q for q in qis if q in hierarchies]
    if not qis:
        raise ConfigError(f"{study.source}: no quasi-identifier: give at least one attribute role = \"quasi\"")
    dataset = Dataset.create(text[qis], {q: "quasi" for q in qis}, hierarchies, source=str(source.path))
    return dataset, native[qis], counts


def run_scaled(study: Study, out_dir: Path | None, force: bool = False) -> ScaledRun:
    """Search the lattice on the file's frequency set and, with ``out_dir``, write and verify the release."""
    if study.engine != "lattice" or study.backend == "pandas" or study.data_path is None:
        raise ConfigError(f"{study.source}: run_scaled needs engine.backend 'duckdb' or 'dask' and a data path")
    check_measures(study)
    slow = [i for i in study.compare if M.MEASURES[i].node is None]
    if slow:
        raise ConfigError(f"{study.source}: engine.backend {study.backend!r} scores from frequency sets; "
                          f"measure(s) {', '.join(slow)} need every record in memory")
    source = backends.Source.of(study.data_path, study.separator)
    dataset, native, counts = frequency_dataset(study, source)
    n = int(counts.sum())
    if n < study.k:
        raise ConfigError(f"{n:,} records cannot be made {study.k}-anonymous: k exceeds the number of records")
    columns = tuple(dataclasses.replace(c, weights=counts) for c in dataset.encoded)  # marginals count records
    rule = Admissibility(study.k, study.max_suppression, n)
    evaluator = NodeEvaluator(columns, study.k, study.max_suppression, rule, weights=counts)
    scorer = NodeScorer(evaluator)
    from workbench.policy import time_budget

    time_limit, budget = time_budget(study.algorithm, study.time_limit, evaluator.lattice.size)
    result = ALGORITHMS[study.algorithm].search(TaggedLattice(evaluator), scorer.objective(study.objective),
                                                Limits(time_limit, study.search_seed, prune=True))
    if budget:  # as study.search states it
        result = dataclasses.replace(result, note="; ".join(part for part in (budget, result.note) if part))
    qis = tuple(c.name for c in columns)
    if result.optimum is None:
        return ScaledRun(study, None, qis, n, np.zeros(0, np.int64), 0, {}, result.checks, result.seconds, None, {})
    node = tuple(result.optimum)
    fs = evaluator.frequency_set(node)
    kept = fs.counts >= study.k
    scores = scorer.scores(node, study.compare)
    files: dict[str, Path] = {}
    guarantee = None
    if out_dir is not None:
        plan = _plan(study, dataset, native, counts, node)
        guarantee, files = _write(study, source, dataset, plan, counts, node, out_dir, force,
                                  {i: s.value for i, s in scores.items()})
    return ScaledRun(study, node, qis, n, fs.counts[kept].astype(np.int64), int(fs.counts[~kept].sum()), scores,
                     result.checks, result.seconds, guarantee, files)


def _render(label: str, escape: bool) -> str:
    """A released label as the file holds it: a missing value as ``(missing)``, a formula-like text escaped."""
    if label == "":
        return MISSING_TOKEN
    return "'" + label if escape and _formula_like(label) else label


def _header(name: str, escape: bool) -> str:
    """A column's name as the file's header holds it: formula-like names escaped, as ``output.escape_formulas``
    escapes an in-memory release's header (the Dask path escapes its frames with it)."""
    return "'" + name if escape and _formula_like(name) else name


def _plan(study: Study, dataset: Dataset, native: pd.DataFrame, counts: np.ndarray,
          node: tuple[int, ...]) -> pd.DataFrame:
    """Per distinct quasi-identifier row: its original values (``q_j``, as the backend read them), its released
    labels (``l_j``, ``*`` when suppressed) and whether its class is suppressed (``s``)."""
    columns = dataset.encoded
    level = np.stack([c.level_codes[:, v][c.codes] for c, v in zip(columns, node, strict=True)], axis=1)
    groups = group_rows(level, [c.cardinality(v) for c, v in zip(columns, node, strict=True)], counts,
                        with_inverse=True)
    suppressed = groups.counts[groups.inverse] < study.k
    escape = study.escape_formulas and study.release_format == "csv"
    plan = {f"q_{j}": native[c.name].to_numpy() for j, c in enumerate(columns)}
    for j, (c, v) in enumerate(zip(columns, node, strict=True)):
        labels = np.array([_render(t, escape) for t in c.labels[v]], dtype=object)
        plan[f"l_{j}"] = np.where(suppressed, SUPPRESSED, labels[level[:, j]])
    plan["s"] = suppressed
    return pd.DataFrame(plan)


def _text_sql(column: str, kind: str, escape: bool) -> str:
    """SQL for a non-quasi-identifier column's released text: as read (numbers as text, an integral float
    without its ``.0``), a missing value as ``(missing)``, formula-like text escaped in CSV."""
    ref = f"t.{backends._quote(column)}"
    if kind.startswith(("DOUBLE", "FLOAT", "DECIMAL")):
        text = (f"CASE WHEN {ref} = floor({ref}) THEN CAST(CAST({ref} AS HUGEINT) AS VARCHAR) "
                f"ELSE CAST({ref} AS VARCHAR) END")
    else:
        text = f"CAST({ref} AS VARCHAR)"
    starts = ", ".join(backends._literal(s) for s in FORMULA_STARTS)
    escaped = (f"WHEN left({text}, 1) IN ({starts}) AND NOT regexp_full_match({text}, "
               r"'[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?') THEN '''' || " + text) if escape else ""
    return f"CASE WHEN {ref} IS NULL OR {text} = '' THEN {backends._literal(MISSING_TOKEN)} {escaped} ELSE {text} END"


def shuffle_seed(seed: int, node: tuple[int, ...], columns: list[str], suppressed: str) -> int:
    """The seed of an out-of-core release's row order: the release seed mixed with what makes the release (the
    node, the released columns, the suppression policy), so two releases of one file written with the same seed
    are shuffled independently (Sweeney's unsorted matching joins files by row position), while the same release
    is written the same way. The in-memory writer mixes in the released content itself (``export.row_order``)."""
    text = json.dumps([seed, list(node), columns, suppressed])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


def _write(study: Study, source: backends.Source, dataset: Dataset, plan: pd.DataFrame, counts: np.ndarray,
           node: tuple[int, ...], out_dir: Path, force: bool,
           measures: dict[str, float]) -> tuple[Guarantee, dict[str, Path]]:
    from workbench.scale.write import release_frames

    qis = [c.name for c in dataset.encoded]
    roles = {a.name: a.role for a in study.attributes}
    names = [c for c in backends.columns(source, study.backend) if roles.get(c) != "identifying"]
    escape = study.escape_formulas and study.release_format == "csv"
    name = f"release.{study.release_format}"
    drop = study.suppressed == "drop"
    shuffle = shuffle_seed(study.seed, node, names, study.suppressed)
    with staged_folder(out_dir, force=force) as staging:
        path = staging / name
        if study.backend == "duckdb":
            kinds = _duckdb_types(source)
            select = [(_header(c, escape), f"p.l_{qis.index(c)}" if c in qis else _text_sql(c, kinds[c], escape))
                      for c in names]
            backends.write_release_duckdb(source, path, select, plan, qis, shuffle, drop,
                                          study.release_format == "parquet")
        else:
            frames = release_frames(dataclasses.replace(study, seed=shuffle), source, plan, qis, names, escape,
                                    staging / ".spill")
            backends.write_release_frames(source, path, frames, study.release_format == "parquet")
            shutil.rmtree(staging / ".spill", ignore_errors=True)
        guarantee = verify_file(study, dataset, counts, node, backends.Source(path, path.suffix == ".parquet"))
        if not guarantee.holds:
            raise VerificationError(f"release not written: {guarantee.describe()}")
        provenance = {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "config": dict(study.raw),
                      "input": {"source": str(source.path), "records": int(counts.sum()),
                                "file_sha256": _sha256(source.path)},
                      "engine": "lattice", "algorithm": study.algorithm, "backend": study.backend,
                      "transformation": dict(zip(qis, node, strict=True)), "guarantee": guarantee.as_dict(),
                      "suppressed_records": study.suppressed, "measures": measures, "seed": study.seed,
                      "missing_values": _missing_record(dataset, plan, counts)}
        (staging / "provenance.json").write_text(json.dumps(provenance, indent=2, default=str) + "\n",
                                                 encoding="utf-8")
    return guarantee, {"release": out_dir / name, "provenance": out_dir / "provenance.json"}


def _missing_record(dataset: Dataset, plan: pd.DataFrame, counts: np.ndarray) -> dict[str, object]:
    """The provenance's ``missing_values`` out of core (``export.missing_record``'s fields), for the
    quasi-identifiers, the columns the plan holds: per column the input's missing cells, each text read as
    missing (``workbench.hierarchy.missing``) and the cells the file writes as the token."""
    columns: dict[str, dict[str, object]] = {}
    for j, c in enumerate(dataset.encoded):
        original = pd.Series(plan[f"q_{j}"]).pipe(_as_text_column).to_numpy(dtype=object)
        texts = missing_texts(dataset.hierarchies[c.name])
        mask = np.isin(original, list(texts))
        read = pd.Series(counts[mask]).groupby(original[mask]).sum().sort_values(ascending=False, kind="stable")
        written = int(counts[plan[f"l_{j}"].to_numpy() == MISSING_TOKEN].sum())
        if mask.any() or written:
            columns[c.name] = {"input": int(read.sum()), "read_as_missing": {str(t): int(n) for t, n in read.items()},
                               "written": written}
    return {"token": MISSING_TOKEN, "columns": columns}


def _duckdb_types(source: backends.Source) -> dict[str, str]:
    con = backends._connect()
    rows = con.execute(f"DESCRIBE SELECT * FROM {backends._scan(source)}").fetchall()
    return {r[0]: str(r[1]) for r in rows}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 24), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(study: Study, dataset: Dataset, counts: np.ndarray, node: tuple[int, ...],
                written: backends.Source) -> Guarantee:
    """The guarantee re-checked from the written file alone, read back through the backend (see the module
    docstring); the input enters only through its per-value record counts and the hierarchies."""
    columns = dataset.encoded
    qis = [c.name for c in columns]
    escape = study.escape_formulas and study.release_format == "csv"
    rows, sizes = backends.group_counts(written, [_header(q, escape) for q in qis], study.backend, study.scheduler)
    text = rows.apply(_as_text_column).to_numpy(dtype=object)
    n = int(counts.sum())
    suppressed_rows = (text == SUPPRESSED).all(axis=1)  # a suppressed record is '*' in every quasi-identifier
    # records whose every label at the node is itself '*' (the hierarchies' tops) look suppressed; they are kept
    # when there are at least k of them
    top = np.ones(counts.size, dtype=bool)
    for c, v in zip(columns, node, strict=True):
        top &= (np.asarray(c.labels[v], dtype=object) == SUPPRESSED)[c.level_codes[:, v][c.codes]]
    legit = int(counts[top].sum())
    legit = legit if legit >= study.k else 0
    starred = int(sizes[suppressed_rows].sum())
    if study.suppressed == "mark" and int(sizes.sum()) != n:
        raise VerificationError(f"the released file holds {int(sizes.sum()):,} records, the input {n:,}")
    if study.suppressed == "drop" and starred > legit:
        raise VerificationError("a suppressed record was written although suppressed records are dropped")
    n_suppressed = n - int(sizes[~suppressed_rows].sum()) - min(starred, legit)
    for j, (c, v) in enumerate(zip(columns, node, strict=True)):
        expected: Counter[str] = Counter()
        under = np.bincount(c.level_codes[:, v][c.codes], weights=counts, minlength=c.cardinality(v))
        for label, records in zip(c.labels[v], under.astype(np.int64), strict=True):
            expected[_render(label, escape)] += int(records)
        found: Counter[str] = Counter()
        for label, records in zip(text[~suppressed_rows, j], sizes[~suppressed_rows], strict=True):
            if label not in expected:
                raise VerificationError(f"column {c.name!r}: released value {label!r} is not a level-{v} label "
                                        "of its hierarchy")
            found[label] += int(records)
        wrong = any(found[label] > expected[label] for label in found) if n_suppressed or legit else \
            +found != +expected  # without suppression, exactly the input's records under each label
        if wrong:
            raise VerificationError(f"column {c.name!r}: the released labels are not those of the input's values")
    smallest = min([int(sizes[~suppressed_rows].min())] if (~suppressed_rows).any() else [study.k]
                   + ([starred] if legit and starred < study.k else []))
    limit = Admissibility(study.k, study.max_suppression, int(counts.sum())).limit
    holds = smallest >= study.k and n_suppressed <= limit
    return Guarantee("k-anonymity", study.k, n_suppressed, limit, holds, verified_from="released file")
