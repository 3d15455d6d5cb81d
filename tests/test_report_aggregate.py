"""Aggregation: how the report reads run files into slots, grades and tallies.

The report's one pass over its run files (``reporting/_aggregate.py``, ``_tally.py``),
specified twice over: whole reports built from small run files (what a reader sees), and
the :class:`Aggregator` read in process with its tables, counts, keys and messages asserted
whole (the tests written against the survivors of ``python tools/mutation.py aggregate``;
each is paid again by every mutant it reaches). Every record the Aggregator tests write
passes the reader's checks (``_add`` pins that), so what they exercise is the aggregate, not
the reader's refusals.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agenttest.errors import UsageError
from agenttest.reporting import Report, build_report, render
from agenttest.reporting._aggregate import Aggregator, judge_decided, judge_mode
from agenttest.reporting._model import BlockResult
from agenttest.reporting._slots import (
    ALWAYS,
    ERROR,
    FAIL,
    NEVER,
    PASS,
    PER_RECORD,
    UNDECIDED,
    UNKNOWN,
    Decision,
    GradeEntry,
    PlanInfo,
    RunFile,
    Slot,
    SlotKey,
    TokenCounts,
)
from agenttest.results import Attempt, CriterionResult, CriticalHit

from .conftest import run_cli
from .fixtures.reports.builders import attempt, grade, meta, run_end, write

RULES = "rules@sha256:5e1c0a7d93b2f468"  # the builders' default rater
MIXED = "rules+openvino@sha256:5e1c0a7d93b2f468"
JUDGE = "judge:openvino"
NONE: frozenset[str] = frozenset()
AT = "2026-07-14T10:00:00+00:00"
HIT = [{"rule": "security-test-failed", "auto": True}]  # as a run file holds it
HIT_READ = [CriticalHit(rule="security-test-failed", auto=True)]  # as the aggregate keeps it


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


def _add(agg: Aggregator, path: Path) -> RunFile:
    run = agg.add(path)
    assert run.notes.invalid == [] and run.notes.torn_lines == []  # the reader kept every line
    return run


def _read(tmp: Path, *records: dict[str, Any], name: str = "r.jsonl", **options: Any) -> Aggregator:
    agg = Aggregator(**options)
    _add(agg, write(tmp / name, [meta("r", []), *records]))
    return agg


def _planned(run_id: str, plan: list[dict[str, Any]], **over: Any) -> dict[str, Any]:
    return {**meta(run_id, []), "plan": plan, **over}


def _without(record: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key not in keys}


def _criterion(tag: str, passed: bool | None) -> dict[str, Any]:
    return {"id": f"{tag}1", "tag": tag, "kind": "pass", "passed": passed, "evidence": {}}


# -- reading run files: files merged, batteries kept apart, what a file says about itself ---------


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


def _battery(digest: str) -> dict[str, Any]:
    return {"paths": ["b"], "digest": digest, "overlay": None}


def test_files_of_two_batteries_are_refused_whole_unless_mixed_is_allowed(tmp_path: Path) -> None:
    first = write(tmp_path / "a.jsonl", [meta("a", [], battery=_battery(""))])
    second = write(tmp_path / "b.jsonl", [meta("b", [], battery=_battery("sha256:bbbb"))])
    third = write(tmp_path / "c.jsonl", [meta("c", [], battery=_battery("sha256:cccc"))])
    same = write(tmp_path / "d.jsonl", [meta("d", [], battery=_battery("sha256:bbbb"))])
    agg = Aggregator()
    for path in (first, second, same):  # a file without a digest is compared with no one
        _add(agg, path)
    with pytest.raises(UsageError) as caught:
        agg.add(third)
    assert str(caught.value) == (
        f"run files come from different batteries: {second} (sha256:bbbb) and {third} "
        "(sha256:cccc). Report them separately, compare them with `agenttest compare`, or "
        "merge anyway with --allow-mixed."
    )
    assert [f.run_id for f in agg.files] == ["a", "b", "d"]  # the refused file is not added
    late = Aggregator()
    _add(late, first)
    _add(late, third)  # the first file with a digest is the one compared with
    with pytest.raises(UsageError, match="different batteries"):
        late.add(second)
    mixed = Aggregator(allow_mixed=True)
    for path in (second, third):
        _add(mixed, path)
    assert [f.run_id for f in mixed.files] == ["b", "c"]


def test_an_empty_file_is_refused_by_name(tmp_path: Path) -> None:
    path = write(tmp_path / "empty.jsonl", [])
    with pytest.raises(UsageError) as caught:
        Aggregator().add(path)
    assert str(caught.value) == f"{path}: empty run file (no run_meta record)"


def test_a_file_without_a_run_id_is_filed_by_its_position(tmp_path: Path) -> None:
    agg = Aggregator()
    _add(agg, write(tmp_path / "a.jsonl", [meta("a", []), attempt("X", 1, "PASS")]))
    _add(agg, write(tmp_path / "b.jsonl", [meta("", []), attempt("X", 1, "FAIL")]))
    assert [f.run_id for f in agg.files] == ["a", "file2"]
    assert sorted(agg.slots) == [("a", "X", 1), ("file2", "X", 1)]
    assert agg.slots[("file2", "X", 1)].file == 1


def test_run_file_facts_and_the_records_it_does_not_know(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [
        meta("r", []),
        attempt("X", 1, "PASS", completed_at="2026-07-13T09:00:00+00:00"),
        meta("again", []),  # a second run_meta is not a new run
        attempt("X", 2, "PASS", completed_at="2026-07-13T10:00:00+00:00"),
        grade("X", 1, "human:ann", "PASS", AT),
        {"record_type": "note", "schema_version": "2.0"},  # a type this version does not know
        run_end(),
    ])  # fmt: skip
    agg = Aggregator()
    run = _add(agg, path)
    assert run is agg.files[0] and (run.path, run.run_id) == (str(path), "r")
    assert run.notes.path == str(path)  # the reader's notes name the file they are about
    assert (run.attempts, run.last_completed_at) == (2, "2026-07-13T10:00:00+00:00")
    assert run.run_end is not None and run.run_end.reason == "completed"
    assert agg.unknown_records == 2  # each one counted
    run = _add(agg, write(tmp_path / "bare.jsonl", [meta("bare", [])]))
    assert (run.attempts, run.last_completed_at, run.run_end) == (0, None, None)


def test_the_collector_is_paused_while_reading_and_restored(tmp_path: Path) -> None:
    seen: list[bool] = []

    class Sink:
        def attempt(self, key: tuple[str, str, int], rec: Attempt) -> None:
            seen.append(gc.isenabled())

    path = write(tmp_path / "r.jsonl", [meta("r", []), attempt("X", 1, "PASS")])
    was = gc.isenabled()
    try:
        gc.enable()
        Aggregator(sinks=[Sink()]).add(path)
        assert seen == [False] and gc.isenabled() is True
        gc.disable()  # a caller that paused it keeps it paused
        Aggregator(sinks=[Sink()]).add(path)
        assert seen == [False, False] and gc.isenabled() is False
        gc.enable()
        with pytest.raises(UsageError):
            Aggregator().add(write(tmp_path / "empty.jsonl", []))
        assert gc.isenabled() is True  # restored on the way out of a refused file too
    finally:
        (gc.enable if was else gc.disable)()


def test_every_attempt_reaches_every_sink_under_its_slot_key(tmp_path: Path) -> None:
    got: list[tuple[str, tuple[str, str, int], str | None]] = []

    class Sink:
        def __init__(self, name: str) -> None:
            self.name = name

        def attempt(self, key: tuple[str, str, int], rec: Attempt) -> None:
            got.append((self.name, key, rec.verdict))

    path = write(tmp_path / "r.jsonl", [
        meta("r", []), attempt("X", 1, "PASS"), grade("X", 1, "human:a", "FAIL", AT),
        attempt("Y", 2, "FAIL", agent="b"),
    ])  # fmt: skip
    agg = Aggregator(sinks=(Sink("a"), Sink("b")))
    agg.add(path)
    # the slot key of a --parity attempt carries its agent, as the aggregator's own does
    assert got == [
        ("a", ("r", "X", 1), "PASS"),
        ("b", ("r", "X", 1), "PASS"),
        ("a", ("r@b", "Y", 2), "FAIL"),
        ("b", ("r@b", "Y", 2), "FAIL"),
    ]
    assert [key for _, key, _ in got[::2]] == list(agg.slots)
    assert got[0][1] is next(iter(agg.slots))  # the aggregator's own tuple, not a copy


# -- slots: what the tally keeps of each attempt --------------------------------------------------


def test_a_slot_keeps_what_the_tally_needs_of_its_attempt(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS", latency_ms=1234, started_at="s1"),
        attempt("X", 2, "ERROR", latency_ms=None, error_cause="busy", started_at="s2"),
        attempt("Y", 1, "FAIL", rater=JUDGE, started_at="s3"),
        {**attempt("Y", 2, None, started_at="s4"), "rater": None},
        attempt("Y", 3, "PASS", agent="b", started_at="s5"),
    )
    assert agg.slots == {
        ("r", "X", 1): Slot(PASS, 1234, None, RULES, 0, 1, hash("s1"), False),
        ("r", "X", 2): Slot(ERROR, None, "busy", RULES, 0, 2, hash("s2"), False),
        ("r", "Y", 1): Slot(FAIL, 1000, None, JUDGE, 0, 3, hash("s3"), True),
        ("r", "Y", 2): Slot(UNKNOWN, 1000, None, "unknown", 0, 4, hash("s4"), False),
        ("r@b", "Y", 3): Slot(PASS, 1000, None, RULES, 0, 5, hash("s5"), False),
    }
    assert (agg.files[0].attempts, agg.malformed, agg.unknown_records) == (5, 0, 0)


def test_the_error_cause_falls_back_to_the_status_then_unspecified(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "ERROR", error_cause="busy", status="timeout"),
        attempt("X", 2, "ERROR", error_cause=None, status="error"),
        attempt("X", 3, "ERROR", error_cause="", status="timeout"),
        attempt("X", 4, "ERROR", error_cause="busy"),
        grade("X", 4, "human:ann", "ERROR", AT),  # neither a cause nor a status
        grade("X", 4, "human:bob", "ERROR", AT, status="skipped"),
    )
    causes = [agg.slots[("r", "X", n)].cause for n in (1, 2, 3, 4)]
    assert causes == ["busy", "error", "timeout", "busy"]
    assert agg.tally(None, NONE)["X"].causes == Counter(busy=2, error=1, timeout=1)
    graded = agg.grades[("r", "X", 4)]
    assert (graded["human:ann"].cause, graded["human:bob"].cause) == ("unspecified", "skipped")
    assert agg.tally("human:ann", NONE)["X"].causes == Counter(unspecified=1)


def test_a_rules_and_judge_rater_is_judged_per_attempt(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS", rater=MIXED, criteria=[_criterion("JUDGE", True)]),
        attempt("X", 2, "FAIL", rater=MIXED, criteria=[_criterion("STATE", False)]),
        attempt("X", 3, "PASS", rater=MIXED, criteria=[_criterion("JUDGE", True)]),
    )
    assert [agg.slots[("r", "X", n)].judged for n in (1, 2, 3)] == [True, False, True]


def test_tier_and_k_of_a_block_come_from_the_plan_then_its_attempts(tmp_path: Path) -> None:
    plan = [{"test_id": "P", "runs": 2, "tier": "L2"}, {"test_id": "Q", "runs": 1}]
    agg = Aggregator()
    _add(agg, write(tmp_path / "r.jsonl", [
        _planned("r", plan),
        attempt("P", 1, "PASS", tier="L9", k=3),  # the plan named the tier first
        attempt("Q", 1, "PASS", tier="L3", k=2),  # a tier where the plan named none
        attempt("Q", 2, "PASS", tier="L4", k=4),  # a known tier stays, a larger k counts
        attempt("Q", 3, "PASS", tier="L5", k=1),  # a smaller k changes nothing
        attempt("S", 1, "PASS", tier="L1", k=2),  # not in the plan
        attempt("S", 2, "PASS", tier="L5", k=3),
    ]))  # fmt: skip
    assert agg.tests == {"P": ["L2", 3], "Q": ["L3", 4], "S": ["L1", 3]}


def test_a_block_without_a_k_on_its_attempts_keeps_k_0(tmp_path: Path) -> None:
    # `k` is optional on an attempt: without it a block's k stays 0 (not 1, not None) and its
    # tier still comes from the attempt; a block's only attempt gives its k by itself
    agg = Aggregator()
    _add(agg, write(tmp_path / "r.jsonl", [
        _planned("r", [{"test_id": "P", "runs": 1}]),  # a plan without a tier
        _without(attempt("P", 1, "PASS", tier="L2"), "k"),
        attempt("Q", 1, "PASS", k=3),  # the block's only attempt
        _without(attempt("R", 1, "PASS"), "k"),  # a block's first attempt without k
        attempt("T", 1, "PASS", k=2),
        _without(attempt("T", 2, "PASS", tier="L4"), "k"),  # a known tier, no k: no change
    ]))  # fmt: skip
    assert agg.tests == {"P": ["L2", 0], "Q": ["L1", 3], "R": ["L1", 0], "T": ["L1", 2]}


def test_token_counts_of_an_attempt(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS", cost_tokens=30, usage={"input_tokens": 10, "output_tokens": 5}),
        attempt("X", 2, "PASS", usage={"input_tokens": 10, "output_tokens": 5}),
        attempt("X", 3, "PASS", usage={"input_tokens": 10}),
        attempt("X", 4, "PASS", cost_tokens=0),
        attempt("X", 5, "PASS", usage={"output_tokens": 2}),
        attempt("X", 6, "PASS"),
        attempt("X", 7, "PASS", usage={}),
        name="a.jsonl",
    )
    _add(agg, write(tmp_path / "b.jsonl", [meta("s", []), attempt("X", 1, "PASS", cost_tokens=7)]))
    assert agg.usage == {
        ("r", "X", 1): TokenCounts(30, 10, 5, 0),
        ("r", "X", 2): TokenCounts(15, 10, 5, 0),
        ("r", "X", 3): TokenCounts(None, 10, None, 0),
        ("r", "X", 4): TokenCounts(0, None, None, 0),
        ("r", "X", 5): TokenCounts(None, None, 2, 0),
        ("s", "X", 1): TokenCounts(7, None, None, 1),
    }


# -- supersession: a retry replaces its slot and what belonged to the attempt it replaces ---------


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


def test_a_retry_replaces_the_slot_and_drops_what_belonged_to_the_old_attempt(
    tmp_path: Path,
) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "FAIL", started_at="s1", critical=HIT, cost_tokens=10),
        grade("X", 1, "human:ann", "FAIL", AT, critical=HIT),
        grade("X", 1, "human:bob", "PASS", AT),
        attempt("X", 2, "FAIL", started_at="s1", critical=HIT),  # another slot keeps its hit
        attempt("X", 1, "ERROR", started_at="s2"),
        grade("X", 1, "human:cy", "FAIL", AT),
        attempt("X", 1, "PASS", started_at="s3"),  # a second retry of the slot
    )
    assert agg.slots[("r", "X", 1)].code is PASS
    assert (agg.superseded, agg.stale_grades) == (2, 3)
    assert agg.grades == {} and agg.usage == {}
    assert agg.critical == {(("r", "X", 2), RULES): HIT_READ}


def test_a_retry_without_token_counts_drops_the_old_counts(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS", started_at="s1", cost_tokens=30),
        attempt("X", 2, "PASS", started_at="s2", cost_tokens=40),
        attempt("X", 1, "PASS", started_at="s3"),
    )
    assert agg.usage == {("r", "X", 2): TokenCounts(40, None, None, 0)}


def test_the_same_attempt_read_twice_keeps_its_grades(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "FAIL", started_at="s1"),
        grade("X", 1, "human:ann", "PASS", AT),
        attempt("X", 1, "FAIL", started_at="s1"),  # the same attempt again (a copied file)
    )
    assert (agg.superseded, agg.stale_grades) == (0, 0)
    assert agg.slots[("r", "X", 1)].ordinal == 3  # the copy is the slot now
    assert agg.verdicts(("r", "X", 1)) == {RULES: FAIL, "human:ann": PASS}


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


# -- grades: the newest grade of each rater, kept per slot ----------------------------------------


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


def test_a_grade_entry_keeps_its_time_verdict_cause_and_place(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS"),
        grade("X", 1, "human:ann", "ERROR", AT, error_cause="unclear"),
        grade("X", 1, JUDGE, "FAIL", AT),
        grade("X", 1, MIXED, "PASS", AT, criteria=[_criterion("JUDGE", True)]),
        grade("X", 1, "human:bob", "ERROR", "not a time", status="skipped"),
        # a human's verdict is the human's, whatever a JUDGE criterion in it says
        grade("X", 1, "human:cy", "PASS", AT, criteria=[_criterion("JUDGE", True)]),
    )
    stamp = 1784023200.0  # 2026-07-14T10:00:00Z
    assert agg.grades[("r", "X", 1)] == {
        "human:ann": GradeEntry(stamp, ERROR, "unclear", 0, 2, False),
        JUDGE: GradeEntry(stamp, FAIL, None, 0, 3, True),
        MIXED: GradeEntry(stamp, PASS, None, 0, 4, True),
        "human:bob": GradeEntry(None, ERROR, "skipped", 0, 5, False),
        "human:cy": GradeEntry(stamp, PASS, None, 0, 6, False),
    }


def test_of_two_grades_the_later_time_wins_and_ties_go_to_the_later_line(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS"),
        attempt("X", 2, "PASS"),
        attempt("X", 3, "PASS"),
        grade("X", 1, "human:ann", "FAIL", AT),
        grade("X", 1, "human:ann", "PASS", AT),  # a tie: the later line
        grade("X", 2, "human:ann", "FAIL", "2026-07-14T10:00:01+00:00"),
        grade("X", 2, "human:ann", "PASS", AT),  # older: ignored
        grade("X", 3, "human:ann", "FAIL", "not a time"),
        grade("X", 3, "human:ann", "PASS", AT),  # a time against none: by position
    )
    codes = {n: agg.grades[("r", "X", n)]["human:ann"].code for n in (1, 2, 3)}
    assert codes == {1: PASS, 2: FAIL, 3: PASS}
    later = _read(
        tmp_path,
        attempt("X", 1, "PASS"),
        grade("X", 1, "human:ann", "FAIL", AT),
        grade("X", 1, "human:ann", "PASS", "not a time"),  # none against a time: by position
        name="later.jsonl",
    )
    assert later.grades[("r", "X", 1)]["human:ann"].code is PASS


def test_a_grade_of_a_replaced_attempt_or_without_a_rater_is_not_kept(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS", started_at="s2"),
        grade("X", 1, "human:ann", "FAIL", AT, attempt_started_at="s1"),
        grade("X", 1, "human:bob", "FAIL", AT, attempt_started_at="s2"),
        grade("X", 1, "", "FAIL", AT),
        grade("Y", 1, "human:ann", "FAIL", AT, attempt_started_at="s9"),  # no attempt to compare
        grade("X", 1, "", "PASS", AT),
    )
    assert (agg.stale_grades, agg.malformed) == (1, 2)
    assert set(agg.grades) == {("r", "X", 1), ("r", "Y", 1)}
    assert set(agg.grades[("r", "X", 1)]) == {"human:bob"}
    assert agg.orphan_grades() == 1  # Y 1 has no attempt


def test_a_grade_without_a_verdict_is_unknown(tmp_path: Path) -> None:
    # `verdict` is optional on a grade record: the rater left the attempt undecided
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS"),
        _without(grade("X", 1, "human:ann", "PASS", AT), "verdict"),
    )
    stamp = 1784023200.0  # 2026-07-14T10:00:00Z
    assert agg.grades == {
        ("r", "X", 1): {"human:ann": GradeEntry(stamp, UNKNOWN, None, 0, 2, False)}
    }
    t = agg.tally("human:ann", NONE)["X"]
    assert (t.passed, t.failed, t.errors, t.unknown, t.other) == (0, 0, 0, 1, 0)


def test_orphan_grades_count_each_rater_of_a_slot_without_an_attempt(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS"),
        grade("X", 1, "human:ann", "PASS", AT),
        grade("Y", 1, "human:ann", "FAIL", AT),  # Y 1 has no attempt: two raters graded it
        grade("Y", 1, "human:bob", "FAIL", AT),
    )
    assert agg.orphan_grades() == 2


def test_a_newer_grade_without_hits_clears_the_raters_hits(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "FAIL", critical=HIT),
        grade("X", 1, "human:ann", "FAIL", AT, critical=HIT),
        grade("X", 1, "human:bob", "FAIL", AT, critical=HIT),
        grade("X", 1, "human:bob", "PASS", "2026-07-14T11:00:00+00:00", critical=[]),
    )
    key = ("r", "X", 1)
    assert agg.critical == {(key, RULES): HIT_READ, (key, "human:ann"): HIT_READ}
    tally = agg.tally("human:ann", NONE)["X"]
    assert (tally.failed, tally.critical) == (1, [(key, "human:ann")])
    assert agg.tally("human:bob", NONE)["X"].critical == []


# -- which verdict counts: the rater chosen, judges, calibration, --strict ------------------------


def _decide(agg: Aggregator, key: SlotKey, rater: str | None, unsure: frozenset[str]) -> Any:
    return agg.decide(key, agg.slots[key], rater, unsure)


def test_which_verdict_decides_a_slot(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "FAIL", rater=JUDGE),
        grade("X", 1, "human:ann", "ERROR", AT, error_cause="unclear"),
        attempt("X", 2, "ERROR", error_cause="busy"),
        grade("X", 2, RULES, "PASS", AT),
    )
    one, two = ("r", "X", 1), ("r", "X", 2)
    judge = frozenset({JUDGE})
    assert _decide(agg, one, None, NONE) == Decision(FAIL, None, JUDGE, False, False, False)
    assert _decide(agg, one, None, judge) == Decision(FAIL, None, JUDGE, False, True, True)
    assert _decide(agg, one, JUDGE, judge) == Decision(FAIL, None, JUDGE, False, True, False)
    assert _decide(agg, one, "human:ann", judge) == Decision(
        ERROR, "unclear", "human:ann", True, False, False
    )
    assert _decide(agg, one, "human:bob", NONE) is None
    # the attempt's own rater graded it again: the grade decides
    assert _decide(agg, two, None, NONE) == Decision(PASS, None, RULES, True, False, False)
    assert _decide(agg, two, "human:ann", NONE) is None


def test_judge_mode_of_each_kind_of_rater() -> None:
    assert judge_mode(JUDGE) is ALWAYS
    assert judge_mode(MIXED) is PER_RECORD
    assert judge_mode("rules+openvino") is PER_RECORD
    for rater in (RULES, "rules", "human:ann", "harness", "unknown"):
        assert judge_mode(rater) is NEVER, rater


def _attempt_of(criteria: Any, critical: Any) -> Attempt:
    """An attempt record built by hand: its criteria and hits typed where they are objects,
    anything else (a string, None) left as it is, as a caller could pass it."""

    def typed(items: Any, kind: type[Any]) -> Any:
        if items is None:
            return None
        return [msgspec.convert(i, kind) if isinstance(i, dict) else i for i in items]

    return Attempt(
        test_id="X",
        run=1,
        criteria=typed(criteria, CriterionResult),
        critical=typed(critical, CriticalHit),
    )


def test_the_judge_decides_only_when_nothing_else_failed() -> None:
    def decided(*criteria: Any, critical: Any = ()) -> bool:
        return judge_decided(_attempt_of(list(criteria), list(critical)))

    assert decided(_criterion("JUDGE", True)) is True
    assert decided(_criterion("JUDGE", False), _criterion("STATE", True)) is True
    # an undecided JUDGE criterion decided nothing, before or after a decided one
    assert decided(_criterion("JUDGE", None)) is False
    assert decided(_criterion("JUDGE", True), _criterion("JUDGE", None)) is True
    assert decided(_criterion("JUDGE", None), _criterion("JUDGE", True)) is True
    # another criterion failed: FAIL whatever the judge said, before or after it
    assert decided(_criterion("STATE", False), _criterion("JUDGE", True)) is False
    assert decided(_criterion("JUDGE", True), _criterion("STATE", False)) is False
    # a criterion that did not decide is not a failure
    assert decided(_criterion("STATE", None), _criterion("JUDGE", True)) is True
    # what is not a criterion or a hit is skipped, and the reading goes on after it
    assert decided("junk", _criterion("JUDGE", True)) is True
    assert decided(_criterion("JUDGE", True), critical=["junk", {"auto": False}]) is True
    # an always-FAIL rule that fired on its own decided the FAIL
    assert decided(_criterion("JUDGE", True), critical=[{"rule": "r", "auto": True}]) is False
    assert decided(_criterion("JUDGE", True), critical=["junk", {"auto": True}]) is False
    assert judge_decided(Attempt(test_id="X", run=1)) is False
    assert judge_decided(_attempt_of(None, None)) is False


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


def test_strict_counts_the_warnings_of_attempts_and_grades(tmp_path: Path) -> None:
    failed = {"criterion": "P3", "state": "failed"}
    records = (
        attempt("X", 1, "PASS", strict_warnings=[failed]),
        grade("X", 1, "human:ann", "PASS", AT, strict_warnings=[failed]),
    )
    plain, strict = _read(tmp_path, *records), _read(tmp_path, *records, strict=True)
    key = ("r", "X", 1)
    assert plain.verdicts(key) == {RULES: PASS, "human:ann": PASS}
    assert strict.verdicts(key) == {RULES: FAIL, "human:ann": FAIL}
    ungraded = _read(tmp_path, attempt("X", 1, "PASS", strict_warnings=[failed]), strict=True)
    assert ungraded.verdicts(key) == {RULES: FAIL}


def test_a_pass_strict_leaves_undecided_awaits_a_rating_and_is_no_error(tmp_path: Path) -> None:
    """With --strict an undecided warning turns a PASS into UNDECIDED, as the grader's own
    --strict does: awaiting a rating, counted apart from ERROR (whose causes stay the
    harness's and the transport's)."""
    undecided = {"criterion": "P3", "state": "undecided"}
    records = (
        attempt("X", 1, "PASS", strict_warnings=[undecided]),
        attempt("X", 2, "PASS"),
        grade("X", 2, "human:ann", "PASS", AT, strict_warnings=[undecided]),
        attempt("X", 3, "ERROR", error_cause="busy", strict_warnings=[undecided]),
    )
    plain = _read(tmp_path, *records)
    assert plain.tally(None, NONE)["X"].causes == Counter(busy=1)  # precondition
    strict = _read(tmp_path, *records, strict=True)
    assert [strict.slots[("r", "X", n)].code for n in (1, 2, 3)] == [UNDECIDED, PASS, ERROR]
    assert [strict.slots[("r", "X", n)].cause for n in (1, 2, 3)] == [None, None, "busy"]
    assert strict.grades[("r", "X", 2)]["human:ann"].code == UNDECIDED
    tally = strict.tally(None, NONE)["X"]
    assert (tally.causes, tally.undecided, tally.errors) == (Counter(busy=1), 1, 1)
    by_ann = strict.tally("human:ann", NONE)["X"]
    assert (by_ann.causes, by_ann.undecided) == (Counter(), 1)
    path = write(tmp_path / "s.jsonl", [meta("r", []), *records])
    report = build_report([path], battery=None, strict=True, details=False)
    assert report.integrity.errors_by_cause == (("busy", 1),)
    (block,) = report.blocks
    assert (block.undecided, block.rate.errors) == (1, 1)


# -- tallies: a block's counts under each choice of rater -----------------------------------------


def test_the_tally_of_one_block_under_each_choice_of_rater(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "PASS", latency_ms=100),
        attempt("X", 2, "FAIL", latency_ms=200, critical=HIT),
        attempt("X", 3, "ERROR", error_cause="busy", latency_ms=300),
        attempt("X", 4, None, latency_ms=400),
        attempt("X", 6, "PASS", latency_ms=None),
        attempt("X", 7, "PASS", latency_ms=700, rater=JUDGE),
        attempt("X", 8, "FAIL", latency_ms=800, rater=JUDGE),
        grade("X", 1, "human:ann", "FAIL", AT),
    )
    t = agg.tally(None, frozenset({JUDGE}))["X"]
    assert (t.test_id, t.tier, t.k) == ("X", "L1", 5)
    counts = (t.passed, t.failed, t.errors, t.unknown, t.other, t.unrated)
    assert counts == (2, 1, 1, 1, 0, 0)
    assert (t.excluded, t.uncalibrated, t.uncalibrated_by) == (2, 0, {JUDGE})
    assert t.awaiting == [(("r", "X", 7), JUDGE, False), (("r", "X", 8), JUDGE, False)]
    assert t.failing == [(("r", "X", 2), RULES, False)]
    assert t.latencies == [100.0, 200.0] and {type(x) for x in t.latencies} == {float}
    assert t.critical == [(("r", "X", 2), RULES)]
    assert t.causes == Counter(busy=1)
    chosen = agg.tally(JUDGE, frozenset({JUDGE}))["X"]
    assert (chosen.passed, chosen.failed, chosen.unrated) == (1, 1, 5)
    assert (chosen.uncalibrated, chosen.excluded, chosen.uncalibrated_by) == (2, 0, {JUDGE})
    assert chosen.latencies == [700.0, 800.0]
    assert chosen.failing == [(("r", "X", 8), JUDGE, False)]
    ann = agg.tally("human:ann", frozenset({JUDGE}))["X"]
    assert (ann.failed, ann.unrated, ann.failing) == (1, 6, [(("r", "X", 1), "human:ann", True)])
    calibrated = agg.tally(None, NONE)["X"]
    assert (calibrated.passed, calibrated.failed, calibrated.excluded) == (3, 2, 0)
    assert calibrated.uncalibrated_by == set()


def test_a_graded_slot_is_tallied_through_its_grade_by_default(tmp_path: Path) -> None:
    agg = _read(
        tmp_path,
        attempt("X", 1, "FAIL", rater=JUDGE),
        grade("X", 1, JUDGE, "PASS", AT),
        grade("X", 1, "human:ann", "FAIL", AT),
        attempt("X", 2, "ERROR"),
        grade("X", 2, "human:ann", "FAIL", AT),
    )
    t = agg.tally(None, frozenset({JUDGE}))["X"]
    assert (t.passed, t.failed, t.errors, t.excluded) == (0, 0, 1, 1)
    assert t.awaiting == [(("r", "X", 1), JUDGE, True)]
    assert t.causes == Counter(timeout=1)


def test_a_block_of_the_plan_without_attempts_is_tallied_empty(tmp_path: Path) -> None:
    agg = Aggregator()
    _add(agg, write(tmp_path / "r.jsonl", [_planned("r", [{"test_id": "P", "runs": 2,
                                                            "tier": "L2"}])]))  # fmt: skip
    (t,) = agg.tally(None, NONE).values()
    assert (t.test_id, t.tier, t.k, t.passed, t.failed) == ("P", "L2", 0, 0, 0)


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


# -- integrity: torn lines, unknown ids, missing and skipped attempts, the plan -------------------


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


def test_missing_attempts_per_block_and_file_with_the_first_gaps(tmp_path: Path) -> None:
    plan = [{"test_id": "X", "runs": 4}, {"test_id": "Y", "runs": 3}, {"test_id": "Z", "runs": 1}]
    path = write(tmp_path / "r.jsonl", [
        _planned("r", plan),
        attempt("X", 1, "PASS"),
        attempt("X", 3, "PASS"),
        attempt("X", 9, "PASS"),  # beyond the plan: not a planned attempt recorded
        attempt("Y", 2, "PASS", decided={"skipped": [3, 7]}),
        attempt("Z", 1, "PASS"),
    ])  # fmt: skip
    agg = Aggregator()
    _add(agg, path)
    missing = agg.missing(examples=2)
    f = str(path)
    assert missing.by_test == Counter(X=2, Y=1) and missing.by_file == Counter({f: 3})
    assert missing.examples == [("r", "X", 2), ("r", "X", 4)]
    assert (missing.planned[f], missing.recorded[f], missing.skipped[f]) == (8, 4, 1)
    assert missing.planned_by_test == Counter(X=4, Y=3, Z=1)
    assert missing.total == 3
    assert agg.missing().examples == [("r", "X", 2), ("r", "X", 4), ("r", "Y", 1)]
    assert agg.missing(examples=0).examples == []


def test_missing_counts_add_up_over_files_and_name_only_blocks_with_gaps(
    tmp_path: Path,
) -> None:
    a = write(tmp_path / "a.jsonl", [
        _planned("a", [{"test_id": "X", "runs": 3}, {"test_id": "Z", "runs": 1}]),
        attempt("X", 1, "PASS"),
        attempt("Z", 1, "PASS"),  # Z is complete: no gap to name
    ])  # fmt: skip
    b = write(tmp_path / "b.jsonl", [_planned("b", [{"test_id": "X", "runs": 2}]),
                                     attempt("X", 2, "PASS")])  # fmt: skip
    c = write(tmp_path / "c.jsonl", [_planned("c", [{"test_id": "Z", "runs": 1}]),
                                     attempt("Z", 1, "PASS")])  # fmt: skip
    agg = Aggregator()
    for path in (a, b, c):
        _add(agg, path)
    missing = agg.missing()
    assert dict(missing.by_test) == {"X": 3}
    assert dict(missing.by_file) == {str(a): 2, str(b): 1}
    assert dict(missing.planned_by_test) == {"X": 5, "Z": 2}
    assert missing.examples == [("a", "X", 2), ("a", "X", 3), ("b", "X", 1)]


def test_missing_names_the_first_ten_gaps_by_default(tmp_path: Path) -> None:
    agg = Aggregator()
    _add(agg, write(tmp_path / "r.jsonl", [_planned("r", [{"test_id": "X", "runs": 12}])]))
    assert agg.missing().examples == [("r", "X", n) for n in range(1, 11)]
    assert agg.missing().total == 12


def test_missing_attempts_of_a_parity_run_are_per_agent(tmp_path: Path) -> None:
    parity = [{"label": "a"}, {"label": "b"}, {"label": 3}, {"name": "c"}]
    path = write(tmp_path / "r.jsonl", [
        _planned("r", [{"test_id": "X", "runs": 2}], parity=parity),
        attempt("X", 1, "PASS", agent="a"),
        attempt("X", 2, "PASS", agent="a"),
        attempt("X", 1, "PASS", agent="b"),
    ])  # fmt: skip
    agg = Aggregator()
    _add(agg, path)
    missing = agg.missing()
    assert missing.examples == [("r@b", "X", 2)]
    assert (missing.planned[str(path)], missing.recorded[str(path)]) == (4, 3)
    other = Aggregator()
    _add(other, write(tmp_path / "p.jsonl", [_planned("p", [{"test_id": "X", "runs": 1}],
                                                      parity=[{"label": 3}])]))  # fmt: skip
    assert other.missing().examples == [("p", "X", 1)]


def test_attempts_until_decided_skipped(tmp_path: Path) -> None:
    plan = [{"test_id": "X", "runs": 5}, {"test_id": "Y", "runs": 2}]
    path = write(tmp_path / "r.jsonl", [
        _planned("r", plan),
        attempt("X", 1, "PASS"),
        attempt("X", 2, "PASS", decided={"skipped": [3, 4, 5]}),
        attempt("Y", 1, "PASS", decided={"skipped": []}),
    ])  # fmt: skip
    agg = Aggregator()
    _add(agg, path)
    assert agg.skipped == {("r", "X"): {3, 4, 5}, ("r", "Y"): set()}
    early = (agg.decided_early("X"), agg.decided_early("Y"), agg.decided_early("Z"))
    assert early == (True, False, False)
    missing = agg.missing()
    f = str(path)
    assert (missing.total, missing.skipped[f], missing.recorded[f], missing.planned[f]) == (
        1,
        3,
        3,
        7,
    )
    assert missing.examples == [("r", "Y", 2)]


def test_a_decided_note_without_skipped_runs_is_not_malformed(tmp_path: Path) -> None:
    """`skipped` is optional in a `decided` note (a 2.1 attempt may leave it out): such an
    attempt skipped nothing and is counted. The report used to count it as a malformed
    record and say "1 attempt/grade record(s) without test_id or run were skipped"."""
    decided = {"passed": True, "after": 1, "k": 5}
    records = [meta("r", []), attempt("X", 1, "PASS", decided=decided)]
    agg = Aggregator()
    _add(agg, write(tmp_path / "r.jsonl", [*records, attempt("X", 2, "PASS", decided=decided)]))
    assert (agg.malformed, agg.skipped, agg.decided_early("X")) == (0, {}, False)
    assert agg.tally(None, NONE)["X"].passed == 2
    path = write(tmp_path / "s.jsonl", [*records, run_end()])
    report = build_report([path], battery=None, details=False)
    assert not [n for n in report.integrity.notes if "were skipped" in n]


def test_plan_info_merges_the_details_the_plans_record(tmp_path: Path) -> None:
    first = [{"test_id": "X", "runs": 2, "tier": "L1", "title": "T", "owasp": ["ASI01"]}]
    second = [{"test_id": "X", "runs": 3}, {"test_id": "Y", "runs": 1, "tier": "L2"}]
    agg = Aggregator()
    _add(agg, write(tmp_path / "a.jsonl", [_planned("a", first)]))
    _add(agg, write(tmp_path / "b.jsonl", [_planned("b", second)]))
    assert agg.plan_info() == {
        "X": PlanInfo(tier="L1", title="T", owasp=["ASI01"], runs=3),
        "Y": PlanInfo(runs=1, tier="L2"),
    }


# -- memory: one streaming pass -------------------------------------------------------------------


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
