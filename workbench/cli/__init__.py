"""The ``workbench`` command: the parser, ``run``, ``measure`` and ``algorithms`` (``compare``, ``explore``, ``risk``,
``report``, ``geo``, ``check``, ``history`` and ``decide`` in their own modules).

Problems with the user's input end with exit status 2 and one line on stderr naming what is wrong. ``run``
warns on stderr (and under ``"warnings"`` in its JSON) when a released column determines a quasi-identifier, and,
with ``--out``, when an earlier release of the same data in the register joined with this one singles people out;
``run --out`` records the release in the register (``workbench.register``) unless ``--no-register``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.wording import out_refusal
from workbench.errors import ArgumentError, OutputError, VerificationError, WorkbenchError

if TYPE_CHECKING:
    from workbench.config import Study
    from workbench.data import Dataset
    from workbench.study import RunResult


OPTION_OF = {"override": "--set", "node": "--node"}  # a value the library names (ArgumentError.what) -> its option


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2
        self.exit(2, f"workbench: {message}\n")


_LEAN = ("run", "measure", "algorithms")  # commands parsed without building (and importing) the others' parsers


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. For a ``command`` (the first argument) of ``_LEAN`` the other commands' parsers
    are left out, and with them the modules that define their choices: that command parses the same."""
    p = _Parser(prog="workbench", description="k-anonymity workbench: de-identify and compare.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="run the configured engine and algorithm")
    run.add_argument("config", type=Path)
    run.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
    run.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    run.add_argument("--out", type=Path, metavar="DIR", help="write DIR/release.csv and DIR/provenance.json")
    run.add_argument("--force", action="store_true",
                     help="replace the release an --out folder already holds (as a whole)")
    run.add_argument("--drop-suppressed", action="store_true",
                     help="leave the suppressed records out of the written release instead of keeping them with * in "
                          "every quasi-identifier (the same as --set release.suppressed=drop)")
    run.add_argument("--trace", type=Path, metavar="FILE", help="write the search trace as JSON")
    run.add_argument("--no-register", action="store_true",
                     help="write the release without recording it in the register (docs/register.md)")
    run.add_argument("--progress", action="store_true",
                     help="draw a progress bar on stderr (drawn anyway when stderr is a terminal)")
    mea = sub.add_parser("measure", help="evaluate lattice nodes")
    mea.add_argument("config", type=Path)
    mea.add_argument("--node", action="append", required=True, metavar="QI=LEVEL,...")
    mea.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
    mea.add_argument("--json", action="store_true", help="print one JSON object per node, one per line")
    lean = command in _LEAN
    if not lean:
        from workbench.compare.nodes import CANDIDATE_SETS

        cmp_ = sub.add_parser("compare", help="score every candidate solution of both engines by every measure")
        cmp_.add_argument("config", type=Path)
        cmp_.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
        cmp_.add_argument("--k", default=None, metavar="K1,K2,...", help="a sweep over k (default: privacy.k)")
        cmp_.add_argument("--max-suppression", default=None, metavar="S1,S2,...",
                          help="a sweep over suppression limits too (fractions; default: privacy.max_suppression)")
        cmp_.add_argument("--candidates", choices=CANDIDATE_SETS, default="k_minimal")
        cmp_.add_argument("--out", type=Path, metavar="DIR", help="write the tables and charts as the folder DIR")
        cmp_.add_argument("--force", action="store_true",
                          help="replace the tables and charts an --out folder already holds (as a whole)")
        cmp_.add_argument("--classifiers", default="zeror,random_forest,bayes_net", metavar="A,B,...",
                          help="model degradation classifiers (when [measures].compare lists degradation)")
        cmp_.add_argument("--jobs", type=int, default=None, metavar="N",
                          help="settings of the sweep run N at a time (engine.jobs; default 1), and model "
                               "degradation's processes (default 2)")
    alg = sub.add_parser("algorithms", help="run several lattice algorithms on one configuration and compare")
    alg.add_argument("config", type=Path)
    alg.add_argument("--algorithms", default=None, metavar="A,B,...", help="default: every lattice algorithm")
    alg.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
    alg.add_argument("--json", action="store_true", help="print one JSON object per algorithm, one per line")
    if lean:
        return p
    from workbench.cli.check import add_check_parser
    from workbench.cli.explore import add_explore_parser
    from workbench.cli.risk import add_risk_parser
    from workbench.geo import cli as geo_cli
    from workbench.report.cli import add_report_parser

    add_risk_parser(sub)
    add_explore_parser(sub)  # workbench explore (cli/explore.py)
    geo_cli.add_parser(sub)  # workbench geo (docs/geography.md)
    add_report_parser(sub)
    add_check_parser(sub)  # workbench check: a table from any tool, no config (cli/check.py)
    from workbench.cli.decide import add_decide_parser
    from workbench.cli.history import add_history_parser

    add_history_parser(sub)  # workbench history: the register's releases (cli/history.py, docs/register.md)
    add_decide_parser(sub)  # workbench decide: the board's decision on one (cli/decide.py)
    return p


def _format_text(summary: dict[str, object]) -> str:
    lines = [f"engine       {summary['engine']} / {summary['algorithm']}",
             f"privacy      k = {summary['k']}, max_suppression = {summary['max_suppression']}"]
    t = summary["transformation"]
    lines.append("node         " + (", ".join(f"{q}={v}" for q, v in t.items()) if isinstance(t, dict) else "-"))
    guarantee = summary.get("guarantee") or ("k-anonymous" if summary["k_anonymous"] else "NOT k-anonymous")
    lines.append(f"guarantee    {guarantee}; {summary['classes']} classes")
    models = summary.get("privacy_models") or {}
    assert isinstance(models, dict)
    for model in models.values():
        lines.append(f"model        {model['description']}: {'holds' if model['holds'] else 'DOES NOT hold'}")
    risk = summary.get("risk")
    if isinstance(risk, dict):
        pro = risk["prosecutor"]
        groups = (f" over {risk['groups']} groups (the classes and the suppressed records as one)"
                  if risk["groups"] != risk["classes"] else "")
        lines.append(f"risk         prosecutor highest {pro['highest']:.4g}, average {pro['average']:.4g}{groups}; "
                     f"sample uniques {risk['sample_uniques']:.4g}")
    lines.append(f"search       {summary['checks']} checks, {summary['seconds']:.3f} s"
                 + (f"; {summary['proof']}" if summary.get("proof") else ""))
    measures = summary["measures"]
    assert isinstance(measures, dict)
    for mid, value in measures.items():
        lines.append(f"  {mid:<12} {value:.10g}")
    return "\n".join(lines)


def _write_release(result: RunResult, out: Path, force: bool = False) -> list[Path]:
    study = result.study
    written = result.release.write(
        out, seed=study.seed, config=dict(study.raw),
        measures={i: s.value for i, s in result.scores.items()},
        suppressed_policy=study.suppressed, name=f"release.{study.release_format}", force=force,
        escape_formulas=study.escape_formulas,
    )
    return list(written.values())


def _check_out(out: Path, force: bool) -> None:
    """Refuse an --out folder that cannot take the release (one line, exit 2)."""
    from workbench.release.output import check_folder

    try:
        check_folder(out, force=force)
    except OutputError as exc:
        raise out_refusal(exc, out) from None


@contextmanager
def _progress_bar(asked: bool) -> Iterator[Callable[[float, str], None] | None]:
    """A tqdm bar on stderr, told ``progress(fraction, text)`` (the share of the lattice decided during a search),
    when asked for or when stderr is a terminal; else no callback."""
    if not (asked or sys.stderr.isatty()):
        yield None
        return
    from workbench.views.display import progress_bar

    with progress_bar("run", file=sys.stderr) as report:
        yield report


def _proof(result: RunResult) -> str:
    r = result.search
    if r is None:
        return ""
    text = "proven optimal" if r.proven_optimal else "not proven optimal"
    return text + (f" ({r.note})" if r.note else "")


def _write_trace(result: RunResult, path: Path) -> Path:
    assert result.search is not None
    trace = result.search.trace.as_dict(tuple(result.dataset.quasi_identifiers))
    trace |= {"algorithm": result.search.algorithm, "optimum": result.search.optimum,
              "proven_optimal": result.search.proven_optimal, "note": result.search.note}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(trace) + "\n", encoding="utf-8")
    except OSError as exc:
        raise WorkbenchError(f"--trace {path}: cannot write the trace: {exc.strerror or exc}") from None
    return path


def _warn(warnings: list[str]) -> None:
    for w in warnings:
        print(f"workbench: warning: {w}", file=sys.stderr)


def measure(study: Study, nodes: Sequence[str], dataset: Dataset | None = None) -> list[RunResult]:
    """Evaluate given lattice nodes (``workbench measure``): release, guarantee and scores, checks 0."""
    import time

    from workbench.objective import check_measures, score_release
    from workbench.release import Release
    from workbench.study import RunResult, evaluator_for, load_dataset
    from workbench.views.lattice import parse_node

    check_measures(study)
    dataset = dataset or load_dataset(study)
    evaluator = evaluator_for(study, dataset)
    names = dataset.quasi_identifiers
    parsed = [parse_node(t, names, evaluator.lattice.heights) for t in nodes]
    out = []
    for node in parsed:
        start = time.perf_counter()
        release = Release.from_node(dataset, node, study.k, study.max_suppression, "measure", evaluator.admissibility)
        scores = score_release(study, release)
        out.append(RunResult(study, dataset, release, scores, None, 0, time.perf_counter() - start))
    return out


def _run_scaled(study: Study, args: argparse.Namespace) -> int:
    """``workbench run`` with engine.backend 'duckdb' or 'dask': the file is read out of core."""
    from workbench.scale import run_scaled

    if args.trace:
        raise WorkbenchError(f"--trace is not available with engine.backend {study.backend!r}")
    register = None
    if args.out and not args.no_register:  # opened first: a release the register cannot take is not written
        from workbench.register.store import open_register

        register = open_register()
    try:
        result = run_scaled(study, args.out, args.force)
    except OutputError as exc:
        raise out_refusal(exc, args.out) from None
    if result.node is None:
        print(f"workbench: no node is k-anonymous for k = {study.k} with max_suppression = "
              f"{study.max_suppression} ({result.n} records)", file=sys.stderr)
        return 1
    summary = result.summary()
    if register is not None and result.files:
        from workbench.register import record_scaled

        recorded, warnings = record_scaled(result, output=str(args.out.resolve()), register=register)
        summary["register"] = recorded.to_dict()
        if warnings:
            summary["warnings"] = warnings
            _warn(warnings)
    if args.json:
        print(json.dumps(summary))
    else:
        guarantee = result.guarantee.describe() if result.guarantee else None
        print(_format_text(summary | ({"guarantee": guarantee} if guarantee else {})))
        for p in result.files.values():
            print(f"wrote        {p}")
        if "register" in summary:
            print(f"registered   release {summary['register']['id']} in {summary['register']['url']}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser(argv[0] if argv else None).parse_args(argv)
    from workbench import study as study_mod
    from workbench.config import load_study

    try:
        if args.command == "check":  # a table from elsewhere: no config to load
            from workbench.cli.check import check_command

            return check_command(args)
        if args.command == "history":  # the register (docs/register.md): no config either
            from workbench.cli.history import history_command

            return history_command(args)
        if args.command == "decide":
            from workbench.cli.decide import decide_command

            return decide_command(args)
        drop = ["release.suppressed=drop"] if getattr(args, "drop_suppressed", False) else []
        study = load_study(args.config, [*args.overrides, *drop])  # one validation path for the flag and --set
        if args.command == "run":
            if args.out:
                _check_out(args.out, args.force)  # before the search, which may take long
            if study.backend != "pandas":  # out of core: DuckDB or Dask (workbench.scale)
                return _run_scaled(study, args)
            dataset = study_mod.load_dataset(study)
            with _progress_bar(args.progress) as progress:  # refuses what every entry point refuses (run_refusal)
                result = study_mod.run(study, dataset, progress=progress)
            warnings = result.warnings
            if result.release is None:
                if args.trace and result.search is not None:
                    _write_trace(result, args.trace)
                _warn(warnings)
                print(f"workbench: no node is k-anonymous for k = {study.k} with max_suppression = "
                      f"{study.max_suppression} ({result.dataset.n} records)", file=sys.stderr)
                return 1
            register = checked = None
            if args.out and not args.no_register:  # checked against the earlier releases of this data first
                from workbench.register import check_release
                from workbench.register.store import open_register

                register = open_register()
                checked = check_release(result, study.raw, register)
                warnings = [*warnings, *checked.warnings]
            summary = result.summary() | ({"warnings": warnings} if warnings else {})
            try:
                paths = _write_release(result, args.out, args.force) if args.out else []
            except OutputError as exc:
                raise out_refusal(exc, args.out) from None
            except OSError as exc:  # e.g. --out names an existing file, or a folder we may not write to
                print(f"workbench: --out {args.out}: cannot write the release: {exc.strerror or exc}",
                      file=sys.stderr)
                return 2
            if register is not None:  # every written release is recorded (docs/register.md)
                from workbench.register import record_release

                recorded = record_release(result, output=str(args.out.resolve()), channel="cli", config=study.raw,
                                          register=register, checked=checked)
                summary["register"] = recorded.to_dict()
            if args.trace:
                paths.append(_write_trace(result, args.trace))
            if summary.get("note"):  # e.g. Flash run with a non-monotone objective: not proven optimal
                print(f"workbench: note: {summary['note']}", file=sys.stderr)
            _warn(warnings)  # after the writes: a status-2 failure stays one line on stderr
            if args.json:
                print(json.dumps(summary | {"attribute_measures": result.attribute_measures()}))
            else:
                guarantee = result.guarantee.describe()
                print(_format_text(summary | {"proof": _proof(result), "guarantee": guarantee}))
                for p in paths:
                    print(f"wrote        {p}")
                if "register" in summary:
                    print(f"registered   release {summary['register']['id']} in {summary['register']['url']}")
            return 0
        if args.command == "compare":
            from workbench.cli.compare import compare_command

            return compare_command(study, args)
        if args.command == "risk":
            from workbench.cli.risk import risk_command

            return risk_command(study, args)
        if args.command == "explore":
            from workbench.cli.explore import explore_command

            return explore_command(study, args)
        if args.command == "geo":
            from workbench.geo import cli as geo_cli

            return geo_cli.run(study, args)
        if args.command == "report":
            from workbench.report.cli import report_command

            return report_command(study, args)
        if args.command == "algorithms":
            names = [a.strip() for a in args.algorithms.split(",") if a.strip()] if args.algorithms else None
            table = study_mod.compare_algorithms(study, names)
            if args.json:
                for row in table.to_dict(orient="records"):
                    print(json.dumps(row))
            else:
                print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
            return 0
        results = measure(study, args.node)
        for i, r in enumerate(results):
            if args.json:
                print(json.dumps(r.summary() | {"attribute_measures": r.attribute_measures()}))
            else:
                print(("\n" if i else "") + _format_text(r.summary() | {"guarantee": r.guarantee.describe()}))
        return 0
    except VerificationError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return 1
    except ArgumentError as exc:  # an override or a node, named by the option it came from
        print(f"workbench: {exc.worded(OPTION_OF.get(exc.what, exc.what))}", file=sys.stderr)
        return 2
    except WorkbenchError as exc:
        print(f"workbench: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
