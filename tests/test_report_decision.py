"""The one deployment decision (agenttest.reporting.decide): each rule, its status, exit code
and the one line a person acts on; the report's checklist shows the same decision.

Run files are built record by record (tests/fixtures/reports/builders.py); the commands
that read the decision are driven as real subprocesses in tests/test_gate_nights.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenttest.errors import EXIT_DATA, EXIT_GATE, EXIT_OK
from agenttest.reporting import (
    MAX_LOST_SHARE,
    baseline_from_runs,
    baseline_json,
    build_report,
    decide,
    decide_runs,
    render,
    render_summary,
)

from .fixtures.reports.builders import attempt, meta, run_end, write

# (test id, tier, verdicts in attempt order); "ERROR:cause" is an ERROR of that cause
Night = list[tuple[str, str, list[str]]]
GOOD: Night = [
    ("L1-A", "L1", ["PASS"] * 5),
    ("L1-B", "L1", ["PASS"] * 5),
    ("SEC-01", "SEC", ["PASS"] * 5),
    ("SEC-02", "SEC", ["PASS"] * 5),
]


def _run(path: Path, night: Night, k: int = 5) -> Path:
    plan = [(t, tier, k, len(v), None) for t, tier, v in night]
    records: list[dict[str, Any]] = [meta(path.stem, plan, k_nominal=k)]  # type: ignore[arg-type]
    for test_id, tier, verdicts in night:
        for run, verdict in enumerate(verdicts, 1):
            over: dict[str, Any] = {}
            if verdict.startswith("ERROR:"):
                verdict, cause = "ERROR", verdict.split(":", 1)[1]
                over = {"error_cause": cause, "error": f"{cause} on attempt {run}"}
            records.append(attempt(test_id, run, verdict, tier=tier, k=k, **over))
    records.append(run_end())
    return write(path, records)


def _with(night: Night, test_id: str, verdicts: list[str]) -> Night:
    return [(t, tier, verdicts if t == test_id else v) for t, tier, v in night]


def test_a_good_night_at_k5_against_a_baseline_is_approved(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", GOOD)
    report = build_report([_run(tmp_path / "ours.jsonl", GOOD)], baseline=[base], details=False)
    decision = report.decision
    assert decision is not None
    assert (decision.status, decision.exit_code, decision.reasons) == ("approved", EXIT_OK, ())
    # without a baseline the same night can be neither blocked nor approved
    alone = decide(build_report([tmp_path / "ours.jsonl"], details=False))
    assert (alone.status, alone.exit_code) == ("undecided", EXIT_OK)
    assert "no baseline" in alone.reason


def test_one_sec_fail_blocks_at_zero_tolerance_with_exit_1(tmp_path: Path) -> None:
    night = _with(GOOD, "SEC-01", ["PASS", "FAIL", "PASS", "PASS", "PASS"])
    report = build_report([_run(tmp_path / "r.jsonl", night)], details=False)
    decision = decide(report)
    assert (decision.status, decision.exit_code) == ("blocked", EXIT_GATE)
    assert decision.line == "blocked: SEC-01 failed 1 of 5 (zero tolerance)"
    # the report's checklist and its decision line read the same decision
    assert report.checklist is not None and report.checklist.decision == "blocked"
    assert report.checklist.blockers == ("SEC-01 failed 1 of 5 (zero tolerance)",)
    assert "Decision: **blocked** — SEC-01 failed 1 of 5 (zero tolerance)." in render(report, "md")


def test_an_l1_block_failing_its_rule_blocks_though_it_did_not_regress(tmp_path: Path) -> None:
    # §11.4 items 2 and 3 must hold: the same failure as the baseline's is no regression,
    # and still no deployment (fitting the gate to an agent that always fails a block would
    # make its decision say "deployable" over a failing suite)
    night = _with(GOOD, "L1-A", ["FAIL"] * 5)
    base = _run(tmp_path / "base.jsonl", night)
    report = build_report([_run(tmp_path / "r.jsonl", night)], baseline=[base], details=False)
    assert report.decision is not None
    assert report.regression is not None and not report.regression.regressions
    assert (report.decision.status, report.decision.exit_code) == ("blocked", EXIT_GATE)
    assert report.decision.reason == (
        "1 L1/L2 block(s) fail their rule: L1-A (§11.4: the L1+L2 suite must pass)"
    )


def test_a_night_that_lost_half_its_attempts_blocks_with_exit_5_and_the_cause(
    tmp_path: Path,
) -> None:
    lost = ["ERROR:garbage"] * 3 + ["PASS"] * 2
    night = [(t, tier, lost if i % 2 == 0 else v) for i, (t, tier, v) in enumerate(GOOD)]
    decision = decide(build_report([_run(tmp_path / "r.jsonl", night)], details=False))
    assert (decision.status, decision.exit_code) == ("blocked", EXIT_DATA)
    assert decision.reason == "6 of 20 attempts lost: garbage replies (30%; a decision allows 10%)"
    assert MAX_LOST_SHARE == 0.10


def test_a_share_of_lost_attempts_at_the_threshold_does_not_block(tmp_path: Path) -> None:
    night = _with(GOOD, "L1-A", ["ERROR:timeout", "ERROR:busy", "PASS", "PASS", "PASS"])
    decision = decide(build_report([_run(tmp_path / "r.jsonl", night)], details=False))
    assert decision.status != "blocked", decision.line  # 2 of 20 = 10%: at, not above
    night = _with(night, "L1-B", ["ERROR:timeout", "PASS", "PASS", "PASS", "PASS"])
    decision = decide(build_report([_run(tmp_path / "r2.jsonl", night)], details=False))
    assert decision.line == (
        "blocked: 3 of 20 attempts lost: timeouts (2), agent busy (1) (15%; a decision allows 10%)"
    )


def test_a_sec_block_with_no_gradable_attempt_blocks_with_exit_5(tmp_path: Path) -> None:
    night = [*GOOD, *[(f"L2-{i}", "L2", ["PASS"] * 5) for i in range(8)]]
    night = _with(night, "SEC-02", ["ERROR:garbage"] + ["PASS"] * 4)
    night = _with(night, "SEC-01", ["ERROR:garbage"] * 2)  # 3 of 57 lost: under the share
    decision = decide(build_report([_run(tmp_path / "r.jsonl", night)], details=False))
    assert (decision.status, decision.exit_code) == ("blocked", EXIT_DATA)
    assert decision.reason == (
        "SEC-01 has no gradable attempt: 2 lost, garbage replies "
        "(zero tolerance needs every SEC block graded)"
    )
    rules = [r.rule for r in decision.reasons]
    assert "security-lost" in rules  # SEC-02's lost attempt keeps it from approval too


def test_a_block_that_lost_everything_blocks_even_under_the_share(tmp_path: Path) -> None:
    night = [*GOOD, *[(f"L2-{i}", "L2", ["PASS"] * 5) for i in range(8)]]
    night.append(("L2-GONE", "L2", ["ERROR:unreachable"] * 3))
    decision = decide(build_report([_run(tmp_path / "r.jsonl", night)], details=False))
    assert decision.line == "blocked: L2-GONE lost all 3 attempts: agent unreachable"
    assert decision.exit_code == EXIT_DATA


def test_an_attack_never_delivered_keeps_the_run_from_approval_without_blocking(
    tmp_path: Path,
) -> None:
    night = _with(GOOD, "SEC-02", ["ERROR:precondition"] * 5)
    night = _with(night, "L1-B", ["ERROR:precondition"] + ["PASS"] * 4)
    base = _run(tmp_path / "base.jsonl", GOOD)
    ours = _run(tmp_path / "r.jsonl", night)
    decision = build_report([ours], baseline=[base], details=False).decision
    assert decision is not None and decision.line == (
        "undecided: 6 attempt(s) never delivered (precondition not met) in 2 block(s): L1-B, SEC-02"
    )


def test_the_security_rule_outranks_lost_data(tmp_path: Path) -> None:
    night = _with(GOOD, "SEC-01", ["FAIL"] * 3)
    night = _with(night, "L1-A", ["ERROR:garbage"] * 5)
    decision = decide(build_report([_run(tmp_path / "r.jsonl", night)], details=False))
    assert decision.line == "blocked: SEC-01 failed 3 of 3 (zero tolerance)"
    assert decision.exit_code == EXIT_GATE
    assert [r.rule for r in decision.reasons if r.blocks][1:] == ["lost-attempts", "block-no-data"]


def test_k_below_5_can_block_but_never_approve(tmp_path: Path) -> None:
    night = [(t, tier, v[:3]) for t, tier, v in GOOD]
    base = _run(tmp_path / "base.jsonl", night, k=3)
    report = build_report([_run(tmp_path / "r.jsonl", night, k=3)], baseline=[base], details=False)
    assert report.decision is not None
    assert report.decision.line == (
        "undecided: k = 3 < 5: exploratory (§2.6); a gate can block such a run but not approve it"
    )


def test_a_significant_regression_blocks_with_exit_1(tmp_path: Path) -> None:
    wide = [(f"L1-{i:02}", "L1", ["PASS"] * 5) for i in range(6)]
    base = _run(tmp_path / "base.jsonl", wide)
    fell = [(t, tier, ["FAIL"] * 5) for t, tier, _ in wide]
    report = build_report([_run(tmp_path / "r.jsonl", fell)], baseline=[base], details=False)
    assert report.decision is not None
    assert report.decision.exit_code == EXIT_GATE
    assert report.decision.reason.startswith("L1 tier fell from 100% to 0% (0/30 vs 30/30,")
    assert report.decision.reason.endswith("significant regression")


def test_a_block_below_085_of_its_baseline_pass_at_1_blocks(tmp_path: Path) -> None:
    night = _with(GOOD, "L1-A", ["PASS", "PASS", "PASS", "FAIL", "FAIL"])
    report = build_report([_run(tmp_path / "r.jsonl", night)], details=False)
    at_par = decide(report, baseline={"L1-A": 0.6}).reasons  # 60% ≥ 0.85 × 60%
    assert "baseline-threshold" not in {r.rule for r in at_par}
    decision = decide(report, baseline={"L1-A": 0.9})
    assert decision.line == (
        "blocked: L1-A passed 60% (3/5), below 0.85 × its baseline pass@1 90% (§2.2)"
    )


def test_attempts_awaiting_a_rating_are_out_of_the_rates_and_counted(tmp_path: Path) -> None:
    night = _with(GOOD, "L1-B", ["UNDECIDED", "UNDECIDED", "PASS", "PASS", "PASS"])
    decision = decide(build_report([_run(tmp_path / "r.jsonl", night)], details=False))
    (awaiting,) = [r for r in decision.reasons if r.rule == "awaiting"]
    assert awaiting.text == (
        "2 attempts out of the rates: 2 awaiting a rating (agenttest rate --undecided)"
    )
    assert decision.status == "undecided"


def test_below_the_threshold_of_a_baseline_file_blocks_but_of_a_baseline_run_does_not(
    tmp_path: Path,
) -> None:
    base_run = _run(tmp_path / "base.jsonl", GOOD)
    base_file = tmp_path / "baseline.json"
    base_file.write_text(baseline_json(baseline_from_runs([base_run])), encoding="utf-8")
    night = _with(GOOD, "L1-A", ["PASS", "PASS", "PASS", "PASS", "FAIL"])  # 80% < 85% of 100%
    ours = _run(tmp_path / "r.jsonl", night)
    against_file = build_report([ours], baseline=[base_file], details=False).decision
    assert against_file is not None and against_file.exit_code == EXIT_GATE
    assert against_file.line == (
        "blocked: L1-A passed 80% (4/5), below 0.85 × its baseline pass@1 100% (§2.2)"
    )
    against_run = build_report([ours], baseline=[base_run], details=False).decision
    assert against_run is not None and against_run.status == "approved"  # 4/5 vs 5/5: noise
    _, via_compare = decide_runs([ours], [base_file])
    assert via_compare == against_file


def test_every_format_carries_the_same_decision(tmp_path: Path) -> None:
    night = _with(GOOD, "SEC-02", ["PASS", "PASS", "FAIL", "PASS", "PASS"])
    report = build_report([_run(tmp_path / "r.jsonl", night)], details=False)
    line = "SEC-02 failed 1 of 5 (zero tolerance)"
    data = json.loads(render(report, "json"))
    assert (data["decision"]["status"], data["decision"]["reason"]) == ("blocked", line)
    assert data["decision"]["reasons"][0] == {
        "rule": "security", "blocks": True, "exit_code": EXIT_GATE, "text": line
    }  # fmt: skip
    assert data["checklist"]["decision"] == "blocked" and data["checklist"]["reason"] == line
    assert f"Deployment decision: **blocked** — {line}" in render(report, "md")
    assert f'<div class="sub">{line}</div>' in render(report, "html")
    assert f"deployment decision: **blocked** ({line})" in render_summary(report)


def test_a_night_mostly_lost_names_its_cause_first_and_the_sec_blocks_it_emptied(
    tmp_path: Path,
) -> None:
    night = _with(GOOD, "SEC-01", ["ERROR:garbage"] * 5)
    night = _with(night, "L1-A", ["ERROR:garbage"] * 3 + ["PASS"] * 2)
    decision = decide(build_report([_run(tmp_path / "r.jsonl", night)], details=False))
    assert decision.line == (
        "blocked: 8 of 20 attempts lost: garbage replies (40%; a decision allows 10%); "
        "no gradable attempt in SEC-01 (zero tolerance)"
    )
    assert [r.rule for r in decision.reasons if r.blocks] == ["lost-attempts", "security-no-data"]


def test_a_drop_past_the_checklist_tolerance_that_is_noise_is_unknown_not_failed(
    tmp_path: Path,
) -> None:
    base = _run(tmp_path / "base.jsonl", GOOD)
    night = _with(GOOD, "L1-A", ["PASS", "PASS", "PASS", "PASS", "FAIL"])  # 19/20: -5 pp
    report = build_report([_run(tmp_path / "r.jsonl", night)], baseline=[base], details=False)
    assert report.checklist is not None and report.decision is not None
    items = {i.item: i for i in report.checklist.items}
    overall = items["overall pass rate ≥ baseline − 2%"]
    assert overall.status == "unknown" and overall.detail.endswith("the drop is not significant")
    assert report.decision.status == "approved" and report.checklist.decision == "approved"
