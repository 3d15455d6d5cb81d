"""Aggregation semantics: merging, supersession, grades, raters, integrity, memory."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from agenttest.errors import UsageError
from agenttest.reporting import Report, build_report, render
from agenttest.reporting._model import BlockResult

from .conftest import run_cli
from .fixtures.reports.builders import attempt, grade, meta, run_end, write

RULES = "rules@sha256:5e1c0a7d93b2f468"


def _meta(
    run_id: str = "r1", plan: list[dict[str, Any]] | None = None, **over: Any
) -> dict[str, Any]:
    record = meta(run_id, [], tester="alice", **over)
    record["plan"] = plan or []
    return record


def _block(report: Report, test_id: str) -> BlockResult:
    block = report.block(test_id)
    assert block is not None, f"no block {test_id} in the report"
    return block


def _file(tmp: Path, name: str, records: list[dict[str, Any]]) -> Path:
    return write(tmp / name, records)


def test_two_files_of_one_battery_merge(tmp_path: Path) -> None:
    a = _file(
        tmp_path,
        "a.jsonl",
        [_meta("a"), attempt("X", 1, "PASS"), attempt("X", 2, "FAIL"), run_end()],
    )
    b = _file(
        tmp_path,
        "b.jsonl",
        [_meta("b"), attempt("X", 1, "PASS"), attempt("Y", 1, "PASS"), run_end()],
    )
    report = build_report([a, b], details=False)
    x = _block(report, "X")
    assert (x.rate.passed, x.rate.failed, x.rate.n) == (2, 1, 3)  # same slot, different runs
    assert report.overall.rate.n == 4 and len(report.blocks) == 2
    assert report.header.run_ids == ("a", "b")


def test_files_of_different_batteries_are_refused_unless_asked(tmp_path: Path) -> None:
    a = _file(tmp_path, "a.jsonl", [_meta("a"), attempt("X", 1, "PASS")])
    other = {"paths": ["other"], "digest": "sha256:ffffffffffffffff", "overlay": None}
    b = _file(tmp_path, "b.jsonl", [_meta("b", battery=other), attempt("X", 1, "FAIL")])
    with pytest.raises(UsageError, match="different batteries"):
        build_report([a, b])
    merged = build_report([a, b], allow_mixed=True, details=False)
    assert merged.overall.rate.n == 2
    result = run_cli("report", str(a), str(b), "--format", "json")
    assert result.returncode == 2 and "different batteries" in result.stderr
    assert result.stdout == ""


def test_a_later_attempt_supersedes_an_earlier_one(tmp_path: Path) -> None:
    path = _file(tmp_path, "r.jsonl", [
        _meta(),
        attempt("X", 1, "ERROR", started_at="t1"),
        attempt("X", 2, "FAIL", started_at="t2"),
        attempt("X", 1, "PASS", started_at="t3"),  # --retry-errors
        run_end(),
    ])  # fmt: skip
    x = _block(build_report([path], details=False), "X")
    assert (x.rate.passed, x.rate.failed, x.rate.errors) == (1, 1, 0)
    report = build_report([path], details=False)
    assert report.integrity.superseded == 1
    assert report.integrity.errors_by_cause == ()


def test_a_retried_attempt_drops_the_always_fail_hit_of_the_attempt_it_replaces(
    tmp_path: Path,
) -> None:
    # an always-FAIL hit belongs to its attempt: a retry that replaces it takes it away
    hit = [{"rule": "dangerous_command", "criterion": "F1", "evidence": {"turn": 1}}]
    first = attempt("X", 1, "FAIL", started_at="2026-07-13T08:00:00+00:00", critical=hit)
    retry = attempt("X", 1, "FAIL", started_at="2026-07-13T10:00:00+00:00")
    alone = build_report([write(tmp_path / "a.jsonl", [meta("r", []), first])], details=False)
    assert alone.blocks[0].critical == 1  # precondition: the first attempt's hit counts
    both = write(tmp_path / "b.jsonl", [meta("r", []), first, retry])
    report = build_report([both], details=False)
    assert report.integrity.superseded == 1
    assert report.blocks[0].critical == 0 and report.critical == ()


def test_newest_grade_of_each_rater_wins(tmp_path: Path) -> None:
    path = _file(tmp_path, "r.jsonl", [
        _meta(),
        attempt("X", 1, "PASS", rater=RULES),
        attempt("X", 2, "PASS", rater=RULES),
        # written out of time order: the newer grade comes first in the file
        grade("X", 1, "human:bob", "FAIL", "2026-07-14T10:00:00+00:00"),
        grade("X", 1, "human:bob", "PASS", "2026-07-14T09:00:00+00:00"),
        grade("X", 2, "human:bob", "PASS", "2026-07-14T09:00:00+00:00"),
        grade("X", 2, "human:bob", "FAIL", "2026-07-14T11:00:00+00:00"),
        run_end(),
    ])  # fmt: skip
    default = _block(build_report([path], details=False), "X")
    assert (default.rate.passed, default.rate.failed) == (2, 0)  # the attempts' own rater
    bob = build_report([path], rater="human:bob", details=False)
    x = _block(bob, "X")
    assert (x.rate.passed, x.rate.failed) == (0, 2)
    assert bob.agreement.verdict_rater == "human:bob"
    with pytest.raises(UsageError, match="no verdicts by rater"):
        build_report([path], rater="human:nobody")


def test_a_regrade_by_the_same_rater_replaces_the_attempt_verdict(tmp_path: Path) -> None:
    path = _file(tmp_path, "r.jsonl", [
        _meta(),
        attempt("X", 1, "FAIL", rater=RULES),
        grade("X", 1, RULES, "PASS", "2026-07-14T10:00:00+00:00"),
    ])  # fmt: skip
    x = _block(build_report([path], details=False), "X")
    assert (x.rate.passed, x.rate.failed) == (1, 0)


def test_grades_of_a_superseded_attempt_are_ignored(tmp_path: Path) -> None:
    path = _file(tmp_path, "r.jsonl", [
        _meta(),
        attempt("X", 1, "ERROR", started_at="2026-07-13T08:00:00+00:00"),
        grade("X", 1, "human:bob", "FAIL", "2026-07-13T09:00:00+00:00"),  # before the retry
        attempt("X", 1, "PASS", started_at="2026-07-13T10:00:00+00:00"),
        grade("X", 1, "human:ann", "FAIL", "2026-07-13T11:00:00+00:00",
              attempt_started_at="2026-07-13T08:00:00+00:00"),  # names the old attempt
        grade("X", 1, "human:ann", "PASS", "2026-07-13T11:00:00+00:00",
              attempt_started_at="2026-07-13T10:00:00+00:00"),
    ])  # fmt: skip
    report = build_report([path], rater="human:ann", details=False)
    assert _block(report, "X").rate.passed == 1
    assert report.integrity.stale_grades == 2
    with pytest.raises(UsageError):
        build_report([path], rater="human:bob")


def test_torn_line_unknown_ids_missing_attempts_and_errors_by_cause(tmp_path: Path) -> None:
    plan = [{"test_id": "X", "runs": 3}, {"test_id": "Z", "runs": 2}]
    path = _file(tmp_path, "r.jsonl", [
        _meta(plan=plan),
        attempt("X", 1, "PASS"),
        attempt("X", 2, "ERROR", error_cause="busy"),
        attempt("NOPE-01", 1, None),
        attempt("NOPE-01", 2, None),
    ])  # fmt: skip
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"record_type":"attempt","schema_version":"2.0","test_id":"X","ru')
    report = build_report([path])
    i = report.integrity
    assert i.torn_lines == ((str(path), 1, (6,)),)
    assert i.unknown_ids == (("NOPE-01", 2),)
    assert report.block("NOPE-01") is None  # unknown ids are not blocks
    assert i.missing == 3  # X run 3, Z runs 1-2
    assert _block(report, "Z").missing == 2 and _block(report, "Z").rate.n == 0
    assert i.errors_by_cause == (("busy", 1),)
    assert _block(report, "X").rate.errors == 1 and _block(report, "X").rate.n == 1
    text = render(report, "md")
    assert f"{path} line 6".replace("_", "\\_") in text
    assert "NOPE-01 × 2" in text.replace("\\-", "-")
    assert "busy: 1" in text
    assert "has no run\\_end record" in text


def _agreement_file(tmp: Path, judge_matches: int, n: int) -> Path:
    """A human and a judge grade n attempts; the judge agrees on the first judge_matches."""
    records: list[dict[str, Any]] = [_meta()]
    for run in range(1, n + 1):
        human = "PASS" if run % 2 else "FAIL"
        judged = human if run <= judge_matches else ("FAIL" if human == "PASS" else "PASS")
        records.append(attempt("X", run, judged, rater="judge:openvino", k=n))
        records.append(grade("X", run, "human:ann", human, "2026-07-14T10:00:00+00:00"))
    return _file(tmp, f"agree_{judge_matches}_{n}.jsonl", records)


def _kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pe = sum((a.count(label) / n) * (b.count(label) / n) for label in ("PASS", "FAIL"))
    return (po - pe) / (1 - pe)


def test_judge_calibration_against_a_human(tmp_path: Path) -> None:
    good = build_report([_agreement_file(tmp_path, 22, 24)], details=False)
    pair = good.agreement.pairs[0]
    humans = ["PASS" if r % 2 else "FAIL" for r in range(1, 25)]
    judge = [
        h if r <= 22 else ("FAIL" if h == "PASS" else "PASS")
        for r, h in zip(range(1, 25), humans, strict=True)
    ]
    assert pair.n == 24 and pair.kappa == pytest.approx(_kappa(judge, humans))
    low, kappa, high = pair.kappa_low, pair.kappa, pair.kappa_high
    assert low is not None and kappa is not None and high is not None
    assert low <= kappa <= high
    info = {r.name: r for r in good.agreement.raters}
    assert info["judge:openvino"].calibrated is True
    assert info["human:ann"].kind == "human" and info["human:ann"].calibrated is None
    assert good.header.run_type == "published" and good.overall.rate.n == 24

    poor_file = _agreement_file(tmp_path, 14, 24)
    poor = build_report([poor_file], details=False)
    poor_kappa = poor.agreement.pairs[0].kappa
    assert poor_kappa is not None and poor_kappa < 0.6
    assert {r.name: r for r in poor.agreement.raters}["judge:openvino"].calibrated is False
    # the uncalibrated judge's verdicts do not count ...
    assert poor.overall.rate.n == 0 and poor.integrity.uncalibrated_excluded == 24
    # ... unless asked for, and then the report is exploratory
    chosen = build_report([poor_file], rater="judge:openvino", details=False)
    assert chosen.overall.rate.n == 24 and chosen.header.run_type == "exploratory"
    assert chosen.integrity.uncalibrated_verdicts == 24
    human = build_report([poor_file], rater="human:ann", details=False)
    assert human.overall.rate.n == 24 and human.header.run_type == "published"

    few = build_report([_agreement_file(tmp_path, 10, 10)], details=False)
    judge_info = {r.name: r for r in few.agreement.raters}["judge:openvino"]
    assert judge_info.calibrated is False and "only 10" in judge_info.calibration_note


def test_k_below_five_is_exploratory_and_k_five_with_rules_is_published(tmp_path: Path) -> None:
    small = _file(
        tmp_path,
        "k3.jsonl",
        [_meta(k_nominal=3, run_type="exploratory"), attempt("X", 1, "PASS", k=3, rater=RULES)],
    )
    big = _file(tmp_path, "k5.jsonl", [_meta(), attempt("X", 1, "PASS", rater=RULES)])
    assert build_report([small], details=False).header.run_type == "exploratory"
    assert build_report([big], details=False).header.run_type == "published"
    md_small = render(build_report([small]), "md")
    assert md_small.count("EXPLORATORY — not a published result") == 2  # top and bottom
    assert "EXPLORATORY" not in render(build_report([big]), "md")


def test_memory_stays_flat_while_transcripts_grow(tmp_path: Path) -> None:
    """1,000 attempts with 20 kB responses (≈ 21 MB): peak memory a small fraction of it."""
    path = tmp_path / "big.jsonl"
    response = "x" * 20_000
    with path.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(_meta(k_nominal=100)) + "\n")
        for i in range(1000):
            rec = attempt(
                f"B{i % 10:02d}",
                i // 10 + 1,
                "PASS" if i % 3 else "FAIL",
                k=100,
                response=response,
                rater=RULES,
            )
            handle.write(json.dumps(rec) + "\n")
    size = path.stat().st_size
    tracemalloc.start()
    report = build_report([path], details=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert report.overall.rate.n == 1000
    assert size > 20_000_000
    assert peak < size / 10, f"peak {peak} bytes for a {size} byte file"


def _judge_criteria(judge_passed: bool | None, state_passed: bool) -> list[dict[str, Any]]:
    return [
        {"id": "P1", "tag": "STATE", "kind": "pass", "passed": state_passed, "evidence": {}},
        {"id": "P2", "tag": "JUDGE", "kind": "pass", "passed": judge_passed, "evidence": {}},
    ]


def test_a_rules_grader_with_a_judge_only_loses_the_verdicts_the_judge_decided(
    tmp_path: Path,
) -> None:
    rater = "rules+openvino@sha256:5e1c0a7d93b2f468"
    path = _file(tmp_path, "r.jsonl", [
        _meta(),
        # the judge's JUDGE criterion decided these two verdicts
        attempt("WEB", 1, "PASS", rater=rater, criteria=_judge_criteria(True, True)),
        attempt("WEB", 2, "FAIL", rater=rater, criteria=_judge_criteria(False, True)),
        # a STATE criterion failed: FAIL whatever the judge said
        attempt("WEB", 3, "FAIL", rater=rater, criteria=_judge_criteria(True, False)),
        # no JUDGE criterion at all: plain rules
        attempt("CALC", 1, "PASS", rater=rater, criteria=[]),
    ])  # fmt: skip
    report = build_report([path], details=False)
    web, calc = _block(report, "WEB"), _block(report, "CALC")
    assert (web.rate.passed, web.rate.failed, web.excluded) == (0, 1, 2)
    assert (calc.rate.passed, calc.excluded) == (1, 0)
    assert report.header.run_type == "published"  # what counts was decided by rules
    info = {r.name: r for r in report.agreement.raters}[rater]
    assert info.kind == "judge" and info.calibrated is False


def test_report_and_agreement_share_one_calibration_rule(tmp_path: Path) -> None:
    """Two humans rate the same 24 attempts: the judge matches ann exactly and contradicts
    bob on a third of them. Calibration needs κ ≥ 0.6 against every human with enough shared
    attempts, so the judge is uncalibrated -- in the report and in `agreement` alike."""
    from agenttest.rating import rater_agreement

    records: list[dict[str, Any]] = [_meta()]
    for run in range(1, 25):
        verdict = "PASS" if run % 2 else "FAIL"
        bob = verdict if run % 3 else ("FAIL" if verdict == "PASS" else "PASS")
        records.append(attempt("X", run, verdict, rater="judge:openvino", k=24))
        records.append(grade("X", run, "human:ann", verdict, "2026-07-14T10:00:00+00:00"))
        records.append(grade("X", run, "human:bob", bob, "2026-07-14T11:00:00+00:00"))
    path = _file(tmp_path, "two_humans.jsonl", records)
    report = build_report([path], details=False)
    pairs = {(p.a, p.b): p for p in report.agreement.pairs}
    assert any(
        p.kappa == pytest.approx(1.0)
        for k, p in pairs.items()
        if "human:ann" in k and "judge:openvino" in k
    )
    in_report = {r.name: r for r in report.agreement.raters}["judge:openvino"]
    in_agreement = {r.name: r for r in rater_agreement([path]).raters}["judge:openvino"]
    assert in_report.calibrated is False and in_agreement.calibrated is False
    assert "human:bob" in in_report.calibration_note and "human:bob" in in_agreement.note
