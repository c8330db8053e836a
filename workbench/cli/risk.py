"""``workbench risk``: re-identification risk of the input or of a lattice node's generalized table (prosecutor,
journalist, marketer, sample and population uniques), as text or JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.wording import risk_threshold
from workbench.errors import ArgumentError, WorkbenchError

if TYPE_CHECKING:
    from workbench.config import Study


def add_risk_parser(sub: argparse._SubParsersAction) -> None:
    from workbench.risk import DEFAULT_THRESHOLD

    risk = sub.add_parser("risk", help="re-identification risk of the input or of a lattice node (before suppression)")
    risk.add_argument("config", type=Path)
    risk.add_argument("--node", action="append", default=[], metavar="QI=LEVEL,...",
                      help="a lattice node's generalized table before suppression (default: the input, all levels 0)")
    risk.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
    risk.add_argument("--json", action="store_true", help="print one JSON object (one per --node, one per line)")
    risk.add_argument("--population", type=_population_size, default=None, metavar="N",
                      help="population size, for the population-uniqueness estimates (Pitman, Zayatz, SNB, Dankar)")
    risk.add_argument("--population-table", type=Path, default=None, metavar="FILE",
                      help="a table of the population the data was drawn from (the data's quasi-identifier columns), "
                           "for journalist risk; a delta-presence study's data file is used when not given")
    risk.add_argument("--threshold", type=risk_threshold, default=DEFAULT_THRESHOLD, metavar="T",
                      help=f"a record is at risk when 1/|class| > T (default {DEFAULT_THRESHOLD:g}: classes under 5)")
    risk.add_argument("--combinations", action="store_true",
                      help="which quasi-identifier combinations make records of the input unique")
    risk.add_argument("--attacks", action="store_true",
                      help="run the study and simulate the attacks of Sweeney 2002 and Katirai 2006 on its release")
    risk.add_argument("--against", default=None, metavar="QI=LEVEL,...",
                      help="with --attacks: the second release's node (default: the first other k-minimal node)")


def _population_size(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of people") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: the population size must be at least 1")
    return value


def _percent(share: float | None) -> str:
    """A share as a percentage with four significant digits (``64.66 %``, ``0.0123 %``, ``100 %``)."""
    if share is None:
        return "-"
    return "0 %" if share == 0 else f"{100 * share:.4g} %"


def _format_risk(what: str, r: dict[str, object]) -> str:
    pro, pop, jou = r["prosecutor"], r["population_uniques"], r["journalist"]
    assert isinstance(pro, dict) and isinstance(pop, dict)
    lines = [f"risk of      {what}",
             f"records      {r['records']:,} in {r['classes']:,} equivalence classes" + (
                 f" and {r['suppressed']:,} suppressed records as one group of *: {r['groups']:,} groups"
                 if r["suppressed"] and r["groups"] != r["classes"] else ""),
             f"prosecutor   highest {_percent(pro['highest'])}, average {_percent(pro['average'])}",
             f"at risk      {pro['records_at_risk_count']:,} records ({_percent(pro['records_at_risk'])}) in classes "
             f"whose risk 1/size exceeds {_percent(pro['threshold'])}",
             f"marketer     {_percent(r['marketer'])} of the records re-identified on average",
             "journalist   " + (f"highest {_percent(jou['highest'])}, average {_percent(jou['average'])}"
                                if isinstance(jou, dict) else "- (needs a population table: --population-table FILE)"),
             f"uniques      {_percent(r['sample_uniques'])} of the records are alone in their class"]
    if pop["population_size"] is None:
        lines.append("population   - (give --population N for Pitman, Zayatz, SNB and Dankar's estimates)")
    else:
        lines.append(f"population   {pop['population_size']:,} people, sampling fraction "
                     f"{_percent(pop['sampling_fraction'])}: estimated share of the population that is unique")
        model = pop["dankar_model"]
        chosen = f" ({model})" if model not in (None, "none") else ""
        estimates = [f"{name} {_percent(pop[key]) if pop[key] is not None else 'no estimate (not solved)'}"
                     for name, key in (("Pitman", "pitman"), ("Zayatz", "zayatz"), ("SNB", "snb"))]
        lines.append(f"  {', '.join(estimates)}; Dankar's rule {_percent(pop['dankar'])}{chosen}")
    return "\n".join(lines)


def _risk_population(study: Study, given: int | None) -> int | None:
    """``--population``, else ``[privacy.risk] population`` when the config has one."""
    if given is not None:
        return given
    table = study.raw.get("privacy", {}).get("risk", {})
    value = table.get("population") if isinstance(table, dict) else None
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise WorkbenchError(f"{study.source}: privacy.risk.population must be a positive whole number, got {value!r}")
    return value


def risk_command(study: Study, args: argparse.Namespace) -> int:
    """``workbench risk``: the input (all levels 0) or each ``--node``'s generalized table before suppression."""
    from workbench import risk as risk_mod
    from workbench.study import load_dataset
    from workbench.views.lattice import parse_node

    dataset = load_dataset(study)
    population = _risk_population(study, args.population)
    if population is not None and population < dataset.n:
        raise WorkbenchError(f"--population {population:,} is smaller than the {dataset.n:,} records of the data")
    names = dataset.quasi_identifiers
    table = None
    if args.population_table is not None:
        from workbench.readers import read_table

        table = read_table(args.population_table, study.separator)
        if len(table) < dataset.n:
            raise WorkbenchError(f"{args.population_table}: {len(table):,} records, fewer than the {dataset.n:,} of "
                                 "the data: the population must contain every record of the data")
    targets: list[tuple[str, tuple[int, ...] | None]] = [("input (every quasi-identifier at level 0)", None)]
    if args.node:
        heights = [c.height for c in dataset.encoded]
        targets = []
        for text in args.node:
            node = parse_node(text, names, heights)
            label = ", ".join(f"{q}={v}" for q, v in zip(names, node, strict=True))
            targets.append((f"node {label} (before suppression)", node))
    for i, (what, node) in enumerate(targets):
        if node is None and table is None and dataset.population is None:
            result = risk_mod.risk_of_frame(dataset.frame, names, args.threshold, population)
        else:
            result = risk_mod.risk_of_node(dataset, node, args.threshold, population, population_table=table,
                                             population_name=str(args.population_table))
        summary = result.to_dict()
        if args.json:
            print(json.dumps(summary))
        else:
            print(("\n" if i else "") + _format_risk(what, summary))
    if args.combinations:
        from workbench.risk.combinations import unique_combinations

        table = unique_combinations(dataset.frame, names)
        if args.json:
            print(json.dumps({"unique_combinations": table.to_dict(orient="records")}))
        else:
            print("\nunique on   (records alone in their class on these quasi-identifiers; only here: on none of "
                  "their parts)\n" + table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.attacks:
        _attacks(study, dataset, args)
    elif args.against:
        raise WorkbenchError("--against names the second release of --attacks; add --attacks")
    return 0


def _attacks(study: Study, dataset: object, args: argparse.Namespace) -> None:
    """``--attacks``: the study's release attacked (``workbench.risk.attack_checks``), as text or one JSON object."""
    from workbench.risk.attack_checks import check_attacks
    from workbench.study import run
    from workbench.views.lattice import parse_node

    result = run(study, dataset)  # type: ignore[arg-type]
    if result.release is None:
        raise WorkbenchError("--attacks: the study finds no release to attack")
    against = None
    if args.against:
        try:
            against = parse_node(args.against, result.dataset.quasi_identifiers,
                                 [c.height for c in result.dataset.encoded])
        except ArgumentError as exc:  # the node of --against, not of --node
            raise WorkbenchError(exc.worded("--against")) from None
    checks = check_attacks(study, result.dataset, result.release, against).to_dict()
    if args.json:
        print(json.dumps({"attacks": checks}))
    else:
        print("\n" + format_attacks(checks, result.release.transformation))


def format_attacks(c: dict, node: dict[str, int] | None) -> str:
    """The attacks as lines of text (``AttackChecks.to_dict()``)."""
    from workbench.risk.attack_checks import NO_SECOND

    k, rare = c["k"], c["rare_values"]
    shown = ", ".join(f"{v['attribute']} {v['value']!r} ({v['records']})" for v in rare["values"][:6])
    more = f" and {len(rare['values']) - 6} more" if len(rare["values"]) > 6 else ""
    release = ", ".join(f"{q}={v}" for q, v in node.items()) if node else "the local release"
    lines = [f"attacks      on the release of {release} (k = {k})",
             f"rare values  {len(rare['values'])} value(s) held by fewer than {k} records, in {rare['records']:,} "
             f"records" + (f": {shown}{more}" if shown else "")]
    if c["second_release"] is None:
        lines.append(f"second       not checked: {NO_SECOND}")
    else:
        comp, same, two = c["complementary_release"], c["unsorted_matching_same_seed"], c["unsorted_matching_two_seeds"]
        lines += [f"second       the release of {c['second_release']}",
                  f"complement.  joined on the record: {comp['below_k']:,} of {comp['records']:,} records in classes "
                  f"below {comp['k']} ({comp['unique']:,} alone)",
                  f"unsorted     both files written with seed {c['seed']}: {same['linked']:,} of {same['rows']:,} rows "
                  f"pair the same record; {same['reidentified']:,} re-identified (joined class below {same['k']})",
                  f"             with seeds {c['seed']} and {c['seed'] + 1}: {two['linked']:,} rows pair the same "
                  f"record; {two['reidentified']:,} re-identified"]
    m = c["matching_attack"]
    if m is None:
        lines.append(f"matching     not checked: {c['matching_note']}")
    else:
        lines.append(f"matching     people with fewer than {m['k']} consistent released rows: {m['below_k_before']:,}; "
                     f"after keeping one-to-one assignments: {m['below_k']:,} ({m['unique']:,} with one)")
    return "\n".join(lines)
