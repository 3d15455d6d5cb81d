"""The end-of-run summary: counts by outcome, pass@1 with its interval, the decision, the
blocks that failed and the slowest ones, and the command for the full report, in a screen."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from agenttest.reporting import build_report, run_summary
from agenttest.stats import wilson_interval

from .conftest import run_cli
from .fixtures.reports.builders import attempt, meta, published_final_2026_07_13, run_end, write

NOW = {"schema_version": "2.5"}


def _run(tmp: Path, verdicts: dict[str, list[str]], seconds: dict[str, int]) -> Path:
    """A run file; each attempt of a block takes ``seconds[block]`` from start to end."""
    records: list[dict[str, Any]] = [meta("r1", [], run_type="exploratory", k_nominal=3, **NOW)]
    for test_id, runs in verdicts.items():
        took = seconds[test_id]
        for run, verdict in enumerate(runs, start=1):
            records.append(
                attempt(
                    test_id,
                    run,
                    verdict,
                    k=len(runs),
                    latency_ms=took * 1000,
                    started_at="2026-12-05T01:00:00+00:00",
                    completed_at=f"2026-12-05T01:{took // 60:02d}:{took % 60:02d}+00:00",
                    **NOW,
                )
            )
    records.append(run_end())
    return write(tmp / "run_agent_20261205_k3.jsonl", records)


def test_the_summary_counts_outcomes_and_gives_pass_at_1_with_its_interval(tmp_path: Path) -> None:
    path = _run(
        tmp_path,
        {
            "L1-A-01": ["PASS", "PASS", "PASS"],
            "L1-B-01": ["PASS", "FAIL", "FAIL"],
            "L1-C-01": ["ERROR", "UNDECIDED", "PASS"],
        },
        {"L1-A-01": 1, "L1-B-01": 90, "L1-C-01": 2},
    )
    report = build_report([path], details=False)
    lines = run_summary(report, path)
    assert lines[0] == "summary: 9 attempt(s): 5 PASS, 2 FAIL, 1 ERROR, 1 UNDECIDED"
    low, high = wilson_interval(5, 7)
    assert lines[1] == (
        f"pass@1: {5 / 7:.1%} (5/7), 95% Wilson interval {low:.1%} to {high:.1%} (exploratory)"
    )
    # the one decision the gates and the checklist read, with its reason
    assert report.decision is not None
    assert f"decision: {report.decision.status}: {report.decision.reason}" in lines
    assert "blocks: 2 of 3 pass their rule; failing: L1-B-01" in lines
    # the slowest first, by the time they took in all
    slowest = next(line for line in lines if line.startswith("slowest blocks: "))
    assert (
        slowest
        == "slowest blocks: L1-B-01 0:04:30 over 3, L1-C-01 6.0s over 3, L1-A-01 3.0s over 3"
    )
    assert "ERROR causes: timeout 1" in lines


def test_the_full_report_command_runs_as_printed(tmp_path: Path) -> None:
    path = _run(tmp_path, {"L1-A-01": ["PASS", "FAIL", "PASS"]}, {"L1-A-01": 1})
    last = run_summary(build_report([path], details=False), path)[-1]
    assert last.startswith("full report: agenttest report ")
    command = shlex.split(last.removeprefix("full report: "))
    done = run_cli(*command[1:])
    assert done.returncode == 0, done.stderr
    assert "<html" in path.with_suffix(".html").read_text(encoding="utf-8")


@pytest.mark.parametrize("verdicts", [["PASS"] * 3, ["FAIL"] * 3])
def test_a_run_that_all_passed_or_all_failed_is_said_so(
    verdicts: list[str], tmp_path: Path
) -> None:
    path = _run(tmp_path, {"L1-A-01": verdicts}, {"L1-A-01": 1})
    lines = run_summary(build_report([path], details=False), path)
    passed = verdicts[0] == "PASS"
    assert (
        lines[0]
        == f"summary: 3 attempt(s): {3 * passed} PASS, {3 * (not passed)} FAIL, 0 ERROR, 0 UNDECIDED"
    )
    assert ("blocks: 1 of 1 pass their rule" in lines) is passed
    assert not any(line.startswith("ERROR causes") for line in lines)


def test_a_big_run_still_fits_a_screen(tmp_path: Path) -> None:
    blocks = {f"L1-T{n:02d}-01": ["FAIL"] * 5 for n in range(30)}
    path = _run(tmp_path, blocks, dict.fromkeys(blocks, 1))
    lines = run_summary(build_report([path], details=False), path)
    assert len(lines) <= 10
    failing = next(line for line in lines if line.startswith("blocks: "))
    assert failing.endswith("L1-T00-01, L1-T01-01, L1-T02-01, L1-T03-01, L1-T04-01 and 25 more")


def test_attempts_no_rate_counts_yet_are_counted_apart(tmp_path: Path) -> None:
    # 436 attempts decided by a judge that is not calibrated: recorded, in no rate
    paths = published_final_2026_07_13(tmp_path)
    lines = run_summary(build_report(paths, details=False), paths[0])
    assert lines[0] == (
        "summary: 436 attempt(s): 0 PASS, 0 FAIL, 0 ERROR, 0 UNDECIDED, "
        "436 out of the rates (unrated or an uncalibrated judge's)"
    )
    assert lines[1] == "pass@1: n/a (no attempt passed or failed)"


def test_not_applicable_attempts_are_counted_and_in_no_rate(tmp_path: Path) -> None:
    path = _run(
        tmp_path,
        {"L1-A-01": ["PASS", "FAIL"], "L1-N-01": ["NOT_APPLICABLE", "NOT_APPLICABLE"]},
        {"L1-A-01": 1, "L1-N-01": 0},
    )
    lines = run_summary(build_report([path], details=False), path)
    assert (
        lines[0] == "summary: 4 attempt(s): 1 PASS, 1 FAIL, 0 ERROR, 0 UNDECIDED, 2 not applicable"
    )
    assert lines[1].startswith("pass@1: 50.0% (1/2), ")
