"""CLI for the lattice searches: every algorithm id runs, --trace writes the trace, 'algorithms' compares."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT
from workbench.cli import main
from workbench.lattice.search import ALGORITHMS

TEACHING = str(ROOT / "sample_configs" / "teaching.toml")
REGISTRY = str(ROOT / "sample_configs" / "registry.toml")


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_run_accepts_every_algorithm_and_writes_its_trace(tmp_path, capsys, algorithm):
    trace_path = tmp_path / "trace.json"
    code = main(["run", REGISTRY, "--set", f"engine.algorithm={algorithm}", "--json", "--trace", str(trace_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["algorithm"] == algorithm and out["k_anonymous"]
    trace = json.loads(trace_path.read_text())
    assert trace["algorithm"] == algorithm and trace["checks"] == out["checks"]
    assert trace["optimum"] == [out["transformation"][q] for q in trace["quasi_identifiers"]]
    checked = [e["node"] for e in trace["events"] if e["action"] == "check"]
    assert len(checked) == trace["lattice_checks"] == len({tuple(n) for n in checked})
    assert out["checks"] == trace["lattice_checks"] + trace["subset_checks"]  # every evaluation
    assert trace["subset_checks"] == 0 or algorithm == "incognito"
    assert {e["action"] for e in trace["events"]} <= {"check", "predicted", "pruned"}
    spec = ALGORITHMS[algorithm]  # an optimal search proves its node; a heuristic may, only when it exhausts its queue
    assert trace["proven_optimal"] if spec.optimal else (not trace["proven_optimal"] or spec.default_time_limit)


def test_algorithms_command_compares(capsys):
    assert main(["algorithms", TEACHING, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["algorithm"] for r in rows] == list(ALGORITHMS)
    for r in rows:
        assert r["relative_loss_pct"] >= 100.0 - 1e-9
        if ALGORITHMS[r["algorithm"]].optimal:
            assert r["relative_loss_pct"] == pytest.approx(100.0) and r["proven_optimal"]
    assert main(["algorithms", TEACHING, "--algorithms", "exhaustive,ola"]) == 0
    text = capsys.readouterr().out
    assert "relative_loss_pct" in text and "ola" in text and "datafly" not in text


def test_algorithms_command_rejects_unknown(capsys):
    assert main(["algorithms", TEACHING, "--algorithms", "exhaustive,magic"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "magic" in err[0]
