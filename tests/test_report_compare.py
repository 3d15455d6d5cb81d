"""compare: change, Newcombe interval, Fisher p, Holm, classes, and the gate's exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest, fisher_exact

from agenttest.reporting import build_report, calibrate, compare_runs, render

from .conftest import run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

RULES = "rules@sha256:5e1c0a7d93b2f468"


def _run(path: Path, counts: dict[str, tuple[int, int]], tier: str = "L1") -> Path:
    """A run file where block id passes ``x`` of ``n`` attempts."""
    records = [meta(path.stem, [], tester="alice")]
    for test_id, (x, n) in counts.items():
        block_tier = "SEC" if test_id.startswith("SEC") else tier
        for run in range(1, n + 1):
            verdict = "PASS" if run <= x else "FAIL"
            records.append(attempt(test_id, run, verdict, tier=block_tier, k=n, rater=RULES))
    records.append(run_end())
    return write(path, records)


def _wilson(x: int, n: int) -> tuple[float, float]:
    ci = binomtest(x, n).proportion_ci(method="wilson")
    return ci.low, ci.high


def test_a_significant_regression_is_classed_and_the_gate_exits_1(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", {"A": (30, 30), "B": (28, 30)})
    ours = _run(tmp_path / "ours.jsonl", {"A": (5, 30), "B": (27, 30)})
    result = compare_runs([ours], [base])
    rows = {r.name: r for r in result.blocks}
    a = rows["A"]
    assert a.cls == "regression" and rows["B"].cls == "noise"
    assert a.diff == pytest.approx(5 / 30 - 1.0)
    assert a.p == pytest.approx(fisher_exact([[5, 25], [30, 0]])[1], rel=1e-9)
    # Newcombe's hybrid score interval from the two Wilson intervals (computed with scipy)
    l1, u1 = _wilson(5, 30)
    l2, u2 = _wilson(30, 30)
    p1, p2 = 5 / 30, 1.0
    assert a.low == pytest.approx(p1 - p2 - ((p1 - l1) ** 2 + (u2 - p2) ** 2) ** 0.5, abs=1e-9)
    assert a.high == pytest.approx(p1 - p2 + ((u1 - p1) ** 2 + (p2 - l2) ** 2) ** 0.5, abs=1e-9)
    # Holm over the two blocks: the smaller p doubles, the larger keeps its rank bound
    assert a.p is not None and a.p_adjusted == pytest.approx(min(1.0, 2 * a.p))
    tiers = {r.name: r for r in result.tiers}
    assert tiers["L1"].cls == "regression" and tiers["overall"].cls == "regression"

    gated = run_cli("compare", str(ours), str(base), "--gate")
    assert gated.returncode == 1, gated.stdout + gated.stderr
    assert "regression" in gated.stdout and "significant regression" in gated.stderr
    ungated = run_cli("compare", str(ours), str(base))
    assert ungated.returncode == 0


def test_noise_passes_the_gate(tmp_path: Path) -> None:
    # every block still passes its rule (pass@1 ≥ 80%): a block below it would block the
    # decision on its own (§11.4), noise or not
    base = _run(tmp_path / "base.jsonl", {"A": (5, 5), "B": (5, 5), "SEC-01": (5, 5)})
    ours = _run(tmp_path / "ours.jsonl", {"A": (4, 5), "B": (4, 5), "SEC-01": (5, 5)})
    result = compare_runs([ours], [base])
    assert {r.cls for r in (*result.blocks, *result.tiers)} == {"noise"}
    gated = run_cli("compare", str(ours), str(base), "--gate", "--json")
    assert gated.returncode == 0, gated.stderr
    data = json.loads(gated.stdout)
    assert [b["cls"] for b in data["blocks"]] == ["noise", "noise", "noise"]


def test_holm_turns_many_borderline_drops_into_noise(tmp_path: Path) -> None:
    # Each block alone: 10/10 → 4/10, Fisher p ≈ 0.011 < 0.05; Holm over 12 blocks: > 0.05.
    names = [f"B{i:02d}" for i in range(12)]
    base = _run(tmp_path / "base.jsonl", dict.fromkeys(names, (10, 10)))
    ours = _run(tmp_path / "ours.jsonl", dict.fromkeys(names, (4, 10)))
    result = compare_runs([ours], [base])
    p = fisher_exact([[4, 6], [10, 0]])[1]
    assert p < 0.05
    for row in result.blocks:
        assert row.p == pytest.approx(p) and row.p_adjusted == pytest.approx(min(1, 12 * p))
        assert row.cls == "noise"
    # the pooled tier (48/120 vs 120/120) is a regression all the same
    assert {r.name: r.cls for r in result.tiers}["L1"] == "regression"


def test_new_and_removed_blocks_are_not_compared(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", {"A": (5, 5), "OLD": (5, 5)})
    ours = _run(tmp_path / "ours.jsonl", {"A": (5, 5), "NEW": (0, 5)})
    rows = {r.name: r for r in compare_runs([ours], [base]).blocks}
    assert rows["NEW"].cls == "new" and rows["OLD"].cls == "removed"
    assert rows["NEW"].p is None


def test_report_with_baseline_shows_the_regression(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", {"A": (30, 30)})
    ours = _run(tmp_path / "ours.jsonl", {"A": (5, 30)})
    report = build_report([ours], baseline=[base])
    assert report.regression is not None and len(report.regression.regressions) == 3
    assert report.checklist is not None
    overall = next(i for i in report.checklist.items if i.item.startswith("overall pass rate"))
    assert overall.status == "fail"
    md = render(report, "md")
    assert "| A | 5/30 = 16.7%" in md and "regression" in md
    without = build_report([ours])
    assert without.checklist is not None
    overall = next(i for i in without.checklist.items if i.item.startswith("overall pass rate"))
    assert overall.status == "unknown"


def test_calibration_classes_each_block(tmp_path: Path) -> None:
    ours = _run(
        tmp_path / "ours.jsonl",
        {"BOTH-OK": (5, 5), "WEAK": (1, 5), "REF-WEAK": (5, 5), "HARD": (0, 5)},
    )
    ref = _run(
        tmp_path / "ref.jsonl",
        {"BOTH-OK": (5, 5), "WEAK": (5, 5), "REF-WEAK": (2, 5), "HARD": (1, 5)},
    )
    report = build_report([ours], reference=[ref])
    assert report.calibration is not None
    classes = {r.test_id: r.cls for r in report.calibration.rows}
    assert classes == {
        "BOTH-OK": "both-pass",
        "WEAK": "only-ours-fails",
        "REF-WEAK": "only-reference-fails",
        "HARD": "both-fail",
    }
    counts = dict(report.calibration.counts)
    assert counts["both-fail"] == 1 and counts["incomplete"] == 0
    same = calibrate(report, report)
    assert {r.cls for r in same.rows} == {"both-pass", "both-fail"}
    html = render(report, "html")
    assert "only-ours-fails" in html


def test_the_chosen_rater_applies_to_the_baseline_where_it_graded(tmp_path: Path) -> None:
    fixtures = Path(__file__).parent / "fixtures" / "reports"
    final72 = fixtures / "run_qwen3.5-9b_20260713_k5_final72.jsonl"
    both = sorted(fixtures.glob("run_qwen3.5-9b_20260713_*.jsonl"))
    # the LLM grader of the published run graded both sides: its verdicts on both
    report = build_report(both, baseline=[final72], rater="claude-sonnet-5", details=False)
    assert report.regression is not None
    rows = {r.name: r for r in report.regression.blocks}
    assert rows["L2-ZINCIR-06"].base.n == 5 and rows["L2-ZINCIR-06"].cls == "noise"
    assert rows["GUV-05"].cls == "new"
    # a rater absent from the baseline: that side falls back to its attempts, with a note
    base = _run(tmp_path / "base.jsonl", {"L2-ZINCIR-06": (5, 5)})
    mixed = build_report([final72], baseline=[base], rater="claude-sonnet-5", allow_mixed=True,
                         details=False)  # fmt: skip
    assert mixed.regression is not None
    assert any("rated nothing in base.jsonl" in n for n in mixed.regression.notes)
    assert {r.name: r for r in mixed.regression.blocks}["L2-ZINCIR-06"].base.n == 5


def test_an_empty_or_aborted_baseline_is_named_and_has_no_phantom_tier(tmp_path: Path) -> None:
    ours = _run(tmp_path / "ours.jsonl", {"L1-A": (5, 5), "L1-B": (4, 5)})
    plan = [{"test_id": "L1-A", "runs": 5}, {"test_id": "L1-B", "runs": 5}]
    head = meta("aborted", [], tester="alice", model="other-model")
    head["plan"] = plan  # an aborted run: its plan, no attempt
    base = write(tmp_path / "aborted.jsonl", [head, run_end(reason="aborted: never ready")])
    result = run_cli("compare", str(ours), str(base))
    assert result.returncode == 0, result.stderr
    rows = [line.split()[0] for line in result.stdout.splitlines()[2:] if line[:1].strip()]
    assert "?" not in rows, result.stdout  # precondition of the old bug: a "?" tier row
    assert "holds no gradable attempt" in result.stdout
    assert "aborted.jsonl" in result.stderr and "warning" in result.stderr
    assert "different models (qwen3.5-9b vs other-model)" in result.stderr


def test_a_sec_fall_that_is_noise_in_the_table_still_blocks_the_decision(tmp_path: Path) -> None:
    # the night: SEC-01 0/3 against 3/3 is no significant change, yet zero tolerance
    base = _run(tmp_path / "base.jsonl", {"A": (3, 3), "SEC-01": (3, 3)})
    ours = _run(tmp_path / "ours.jsonl", {"A": (3, 3), "SEC-01": (0, 3)})
    line = "blocked: SEC-01 failed 3 of 3 (zero tolerance)"
    shown = run_cli("compare", str(ours), str(base))
    assert shown.returncode == 0, shown.stderr  # no gate asked for
    (row,) = [r for r in shown.stdout.splitlines() if r.startswith("SEC-01 ")]
    assert row.split()[-1] == "noise", shown.stdout
    assert shown.stdout.rstrip().endswith(f"Decision about ours.jsonl: {line}")
    gated = run_cli("compare", str(ours), str(base), "--gate", "--json")
    assert gated.returncode == 1
    assert json.loads(gated.stdout)["decision"]["reason"] == line.removeprefix("blocked: ")
    assert gated.stderr.strip().splitlines()[-1] == f"agenttest: {line}"
