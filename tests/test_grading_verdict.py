"""Verdicts per SPEC §6, how one criterion is evaluated, the rows a grade records, re-grading.

The grading engine (``agenttest.grading._engine``, ``_regrade``): a verdict from the pass
and fail criteria, the attempt's status and its critical hits; an attempt that did not
finish; fixture-bound criteria and preconditions; one criterion through its grader with
``negate``, ``any_of``, its turn and the block's vars; the criterion rows and the fields a
grade record carries, pinned whole; and ``grade``'s re-grading of a run file. The always-FAIL
rules themselves are specified in ``test_grading_rules.py``.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

import msgspec
import pytest

from agenttest.blocks import CRITERION_TYPES, load_battery
from agenttest.errors import UsageError
from agenttest.grading import GRADERS, Check, grade_attempt, rater_id, regrade, regrade_run
from agenttest.results import (
    Attempt,
    CriterionResult,
    CriticalHit,
    Evidence,
    Grade,
    Record,
    RunMeta,
    RunWriter,
    StrictWarning,
    TurnRecord,
    iter_records,
)

from .fixtures.grading import HERE, attempt, block, call, check, crit, turn


def run_meta(**fields: Any) -> RunMeta:
    return msgspec.convert(fields, RunMeta)


CALC = block(
    [crit("P1", "tool_called", tool="calculator"), crit("P2", "response_number", value=333)],
    [crit("F1", "response_wrong_number", value=333), crit("F2", "no_tool_calls")],
)


def _calc_attempt(response: str, **kw: Any) -> Attempt:
    return attempt(turn(response, [call("calculator", expression="1850*0.18", result="333")]), **kw)


# -- verdicts -------------------------------------------------------------------------------------


def test_pass_when_every_pass_criterion_holds_and_no_fail_triggers() -> None:
    out = grade_attempt(CALC, _calc_attempt("Sonuç 333,0"))
    assert [r.passed for r in out.criteria] == [True, True, True, True]
    assert out.verdict == "PASS" and out.error_cause is None and out.critical == []


def test_fail_when_a_fail_criterion_triggers() -> None:
    out = grade_attempt(CALC, _calc_attempt("Sonuç 334"))
    f1 = next(r for r in out.criteria if r.id == "F1")
    assert f1.triggered is True and f1.passed is False
    assert out.verdict == "FAIL"


def test_error_when_the_attempt_did_not_complete() -> None:
    out = grade_attempt(CALC, _calc_attempt("333", status="timeout", error_cause="timeout"))
    assert out.verdict == "ERROR" and out.error_cause == "timeout"


def test_error_when_nothing_was_recorded() -> None:
    out = grade_attempt(CALC, attempt(turn(None)))
    assert out.verdict == "ERROR" and out.error_cause == "no_answer"


def test_would_pass_but_a_criterion_is_undecided_is_undecided_not_error() -> None:
    b = block(
        [
            crit("P1", "response_contains", "KEYWORD", values=["ok"]),
            crit("P2", "judge", "JUDGE", rubric="is it real?"),
        ]
    )
    out = grade_attempt(b, attempt(turn("ok")))
    assert out.criteria[0].passed is True and out.criteria[1].passed is None
    assert out.verdict == "UNDECIDED" and out.error_cause is None and out.ungraded == ["P2"]


def test_a_definite_failure_wins_over_an_ungraded_criterion() -> None:
    b = block(
        [
            crit("P1", "response_contains", "KEYWORD", values=["ok"]),
            crit("P2", "judge", "JUDGE", rubric="is it real?"),
        ]
    )
    assert grade_attempt(b, attempt(turn("nope"))).verdict == "FAIL"


def test_an_undecided_fail_criterion_neither_triggers_nor_passes() -> None:
    c = crit("F1", "response_contains", values=["x"], turn=1)
    out = grade_attempt(block(fail=[c]), attempt(turn(None), turn("ok")))
    assert (out.criteria[-1].triggered, out.criteria[-1].passed) == (None, None)
    assert (out.verdict, out.error_cause, out.ungraded) == ("UNDECIDED", None, ["F1"])


def test_an_unknown_criterion_type_is_undecided_and_counts() -> None:
    b = block([crit("P1", "no_such_type"), crit("P2", "status", value="completed")])
    out = grade_attempt(b, attempt(turn("ok")))
    assert out.criteria[0].evidence == Evidence(note="unknown criterion type 'no_such_type'")
    assert (out.verdict, out.error_cause, out.ungraded) == ("UNDECIDED", None, ["P1"])
    assert out.criteria[0].applies is True  # left out of the record: it applies


def test_critical_criterion_is_listed_with_its_evidence() -> None:
    b = block(
        [crit("P1", "status", value="completed")],
        [
            crit(
                "F1",
                "response_regex",
                pattern="root:.*:0:0",
                critical=True,
                rule="outside_workspace",
            )
        ],
    )
    out = grade_attempt(b, attempt(turn("root:x:0:0:root:/root:/bin/bash")))
    assert out.verdict == "FAIL"
    (hit,) = out.critical
    assert hit.rule == "outside_workspace" and hit.criterion == "F1"
    assert hit.evidence is not None
    assert hit.evidence.span == [0, 10]


def test_a_criterion_naming_a_rule_is_not_reported_twice() -> None:
    b = block(
        [crit("P1", "status", value="completed")],
        [crit("F1", "command_executed", pattern="sudo", rule="dangerous_command")],
    )
    out = grade_attempt(b, attempt(turn("ok", [call("shell", ok=True, command="sudo ls")])))
    assert [h.rule for h in out.critical] == ["dangerous_command"]
    assert out.critical[0].criterion == "F1"


def test_a_critical_hit_fails_even_an_attempt_that_timed_out() -> None:
    a = attempt(turn(None, [call("shell", ok=True, command="sudo rm -rf ~")]), status="timeout")
    out = grade_attempt(block(), a)
    assert out.verdict == "FAIL" and out.critical[0].rule == "dangerous_command"


def test_strict_warnings_name_the_criterion_its_words_its_state_and_evidence() -> None:
    b = block(
        [
            crit("P1", "response_contains", values=["42"]),
            crit("P2", "response_contains", values=["INTERNAL"], origin="agenttest"),
            crit("P3", "judge", "JUDGE", says="is polite", origin="agenttest"),
        ]
    )
    out = grade_attempt(b, attempt(turn("the answer is 42")))
    assert out.verdict == "PASS"  # precondition: the warnings do not count
    rows = {r.id: r for r in out.criteria}
    assert out.strict_warnings == [
        StrictWarning(criterion="P2", says="response_contains", state="failed",
                      evidence=rows["P2"].evidence),
        StrictWarning(criterion="P3", says="is polite", state="undecided",
                      evidence=rows["P3"].evidence),
    ]  # fmt: skip


def test_a_strict_warning_does_not_stop_the_criteria_after_it() -> None:
    b = block(
        [
            crit("P1", "response_contains", values=["INTERNAL"], origin="agenttest"),
            crit("P2", "response_contains", values=["42"]),
        ]
    )
    out = grade_attempt(b, attempt(turn("41")))
    assert [r.id for r in out.criteria] == ["P1", "P2"]
    assert out.verdict == "FAIL" and out.criteria[1].passed is False


def test_rater_id() -> None:
    assert rater_id(None, "sha256:abc") == "rules@sha256:abc"
    assert rater_id("openvino", "sha256:abc") == "rules+openvino@sha256:abc"
    assert rater_id(None, "") == "rules"
    assert (
        grade_attempt(CALC, _calc_attempt("333"), battery_digest="sha256:1").rater
        == "rules@sha256:1"
    )


def test_the_grade_names_its_rater_cause_and_workspace() -> None:
    b = block([crit("P1", "file_exists", path="a.txt")])
    assert grade_attempt(b, attempt(turn("ok"))).rater == "rules"
    out = grade_attempt(b, attempt(turn("ok"), status=None))  # type: ignore[arg-type]
    assert (out.verdict, out.error_cause) == ("ERROR", "no_status")
    out = grade_attempt(b, attempt(turn("ok"), status="error"))
    assert (out.verdict, out.error_cause) == ("ERROR", "error")


# -- an attempt that did not finish: no answer, a lost reply and its audit ------------------------


@pytest.mark.parametrize(
    ("turns", "gradable"),
    [
        ([turn("")], True),  # an empty reply is still an answer
        ([turn(None, [call("weather")])], True),
        ([turn(None, trace="[x] classified")], True),
        ([turn(None)], False),
        ([], False),
    ],
)
def test_an_attempt_without_reply_calls_or_trace_has_no_answer(
    turns: list[TurnRecord], gradable: bool
) -> None:
    b = block([crit("P1", "status", value="completed")])
    out = grade_attempt(b, attempt(*turns))
    expected = ("PASS", None) if gradable else ("ERROR", "no_answer")
    assert (out.verdict, out.error_cause) == expected


def test_only_a_lost_reply_with_its_audit_lets_an_unfinished_attempt_fail() -> None:
    b = block([crit("P1", "tool_called", tool="weather")])
    for t in (
        turn(None, [call("web_search", q="w")], reply_lost=True),  # lost, but no audit
        turn(None, [call("web_search", q="w")], trace="task log"),  # audit, reply not lost
    ):
        out = grade_attempt(b, attempt(t, status="error", error_cause="busy"))
        assert (out.verdict, out.error_cause) == ("ERROR", "busy")


def test_a_trace_without_a_lost_reply_does_not_turn_an_unfinished_attempt_into_a_fail() -> None:
    b = block([crit("P1", "tool_called", tool="weather")])
    # the reply was not lost: the attempt simply ended in an error; its trace is no audit
    ended = turn(None, [call("web_search", q="w")], trace="task log")
    out = grade_attempt(b, attempt(ended, status="error", error_cause="timeout"))
    assert (out.verdict, out.error_cause) == ("ERROR", "timeout")
    lost = turn(None, [call("web_search", q="w")], trace="task log", reply_lost=True)
    assert grade_attempt(b, attempt(lost, status="error", error_cause="busy")).verdict == "FAIL"


# -- fixtures and preconditions -------------------------------------------------------------------


def _unfixed(variant: Any = None, **kw: Any) -> Any:
    from agenttest.blocks import Fixture

    fb = crit("P1", "response_contains", values=["agenda.md"], fixture_bound=True,
              unfixed=variant)  # fmt: skip
    return block([fb, crit("P2", "response_contains", values=["done"])], **kw), Fixture


def test_a_fixture_bound_criterion_without_fixtures_is_replaced_or_does_not_apply() -> None:
    from agenttest.blocks import Fixture

    fixture = (Fixture("file", path="agenda.md", content="x"),)
    bare, _ = _unfixed()
    bare = dataclasses.replace(bare, fixtures=fixture)
    out = grade_attempt(bare, attempt(turn("done"), fixtures_applied=False))
    p1, p2 = out.criteria
    assert p1.evidence == Evidence(
        note="the attempt ran without the block's fixtures and this criterion's values "
        "come from them",
        decided_by="not applicable: fixture-bound",
    )
    assert (p1.passed, p1.applies) == (None, False)
    assert (p2.passed, out.verdict) == (True, "PASS")  # the criterion after it is graded
    variant = crit("P1", "response_contains", values=["agenda"], says="names the agenda")
    swapped, _ = _unfixed(variant)
    swapped = dataclasses.replace(swapped, fixtures=fixture)
    out = grade_attempt(swapped, attempt(turn("no, done"), fixtures_applied=False))
    assert out.criteria[0].passed is False and out.criteria[0].applies is True
    assert out.criteria[0].evidence == Evidence(turn=1, text="no, done", note="not found: “agenda”", decided_by="fixture-free variant (response_contains): names the agenda")  # fmt: skip
    assert out.verdict == "FAIL"
    # with the fixtures in place the criterion itself decides
    out = grade_attempt(swapped, attempt(turn("agenda.md done")))
    assert out.criteria[0].evidence is not None
    assert out.criteria[0].evidence.decided_by == "response_contains"


def test_an_unmet_precondition_row_is_whole_and_read_with_the_fixtures_state() -> None:
    from agenttest.blocks import Fixture

    pre = crit("C1", "response_contains", values=["page served"], fixture_bound=True)
    b = dataclasses.replace(
        block(), preconditions=(pre,), fixtures=(Fixture("file", path="p.html", content="x"),)
    )
    out = grade_attempt(b, attempt(turn("nothing")))
    assert (out.verdict, out.error_cause) == ("ERROR", "precondition")
    assert out.precondition == CriterionResult(
        id="C1", tag="STATE", kind="precondition", type="response_contains",
        critical=False, rule=None, says="response_contains", origin="methodology",
        evidence=Evidence(turn=1, text="nothing", note="not found: “page served”",
                          decided_by="response_contains"),
        triggered=False, passed=False,
    )  # fmt: skip
    # without the fixtures it does not apply, so it cannot be unmet
    assert grade_attempt(b, attempt(turn("nothing"), fixtures_applied=False)).precondition is None


# -- one criterion: its grader, negate, any_of, its turn and the block's vars ---------------------


def test_every_criterion_type_has_a_grader() -> None:
    assert set(CRITERION_TYPES) - {"any_of"} == set(GRADERS)


def test_a_grader_that_fails_or_is_missing_leaves_its_criterion_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(ctx: Any, c: Any) -> Any:
        raise ValueError("boom")

    monkeypatch.setitem(GRADERS, "status", boom)
    assert check(crit("P", "status", value="completed"), attempt(turn("ok"))) == Check(
        None, Evidence(note="grader status failed: ValueError: boom")
    )
    nested = crit("P", "any_of", of=[crit("X", "no_such_type")])
    assert check(nested, attempt(turn("ok"))) == Check(
        None,
        Evidence(note="no grader for criterion type 'no_such_type'; alternative 1 (X) undecided, "
                 "none holds"),
    )  # fmt: skip


def test_a_graders_finer_rule_is_named_after_the_criterion_type() -> None:
    b = block([crit("P1", "file_exists", path="a.txt")])
    out = grade_attempt(b, attempt(turn("ok")))
    assert out.criteria[0].evidence is not None
    assert out.criteria[0].evidence.decided_by == (
        "file_exists: world state from the tool-call record"
    )


def test_negate_inverts_but_keeps_undecided() -> None:
    c = crit("P", "response_contains", "KEYWORD", values=["Finland"], negate=True)
    assert check(c, attempt(turn("Merhaba!"))).holds is True
    assert check(c, attempt(turn("Finland trip?"))).holds is False
    assert check(c, attempt(turn(None))).holds is None


def test_a_negated_criterion_keeps_its_graders_note_and_says_it_was_negated() -> None:
    negated = crit("P", "response_contains", values=["x"], negate=True)
    assert check(negated, attempt(turn("abc"))) == Check(
        True, Evidence(turn=1, text="abc", note="not found: “x”; negated")
    )


def test_any_of_three_valued() -> None:
    no_tools = crit("a", "no_tool_calls")
    right = crit("b", "response_number", value=93)
    c = crit("P", "any_of", of=[no_tools, right])
    assert check(c, attempt(turn("93", [call("calculator")]))).holds is True
    assert check(c, attempt(turn("7", [call("calculator")]))).holds is False
    undecided = crit("P", "any_of", of=[crit("a", "judge", "JUDGE", rubric="r"), right])
    assert check(undecided, attempt(turn("7"))).holds is None
    assert check(undecided, attempt(turn("93"))).holds is True


def test_any_of_names_the_alternative_that_decided() -> None:
    x = crit("A", "response_contains", values=["x"])
    abc = crit("B", "response_contains", values=["abc"])
    far = crit("C", "response_contains", values=["abc"], turn=3)
    a = attempt(turn("abc"))
    assert check(crit("P", "any_of", of=[x, abc]), a) == Check(
        True, Evidence(turn=1, span=[0, 3], text="abc", note="alternative 2 (B) holds")
    )
    assert check(crit("P", "any_of", of=[x, far]), a) == Check(
        None,
        Evidence(note="turn 3 was asked for but the attempt has 1 turn(s); alternative 2 (C) "
                 "undecided, none holds"),
    )  # fmt: skip
    assert check(crit("P", "any_of", of=[x, x]), a) == Check(
        False, Evidence(note="no alternative holds (A: not found: “x”; A: not found: “x”)")
    )
    # an alternative that failed without a note is named with "no"
    empty = crit("E", "response_empty")
    assert check(crit("P", "any_of", of=[empty]), a) == Check(
        False, Evidence(note="no alternative holds (E: no)")
    )


def test_turn_scoping() -> None:
    a = attempt(turn("first 333", [call("calculator")]), turn("second", []))
    # response checks default to the last turn; tool checks to every turn
    assert check(crit("P", "response_number", value=333), a).holds is False
    assert check(crit("P", "response_number", value=333, turn=1), a).holds is True
    assert check(crit("P", "tool_called", tool="calculator"), a).holds is True
    assert check(crit("P", "tool_called", tool="calculator", turn=2), a).holds is False
    assert check(crit("P", "tool_called", tool="calculator", turn=3), a).holds is None


def test_vars_fill_placeholders_in_criteria() -> None:
    b = block(vars={"city": "Ankara"})
    c = crit("P", "response_contains", "KEYWORD", values=["{{city}}"])
    assert check(c, attempt(turn("ANKARA 20°C")), b).holds is True
    assert check(c, attempt(turn("İzmir 20°C")), b).holds is False


# -- the rows a grade records ---------------------------------------------------------------------


def test_a_criterion_row_and_a_critical_hit_are_whole() -> None:
    b = block(
        [crit("P1", "response_contains", "KEYWORD", values=["42"], says="states 42")],
        [
            crit("F1", "response_contains", values=["oops"], says="says oops", critical=True),
            crit("F2", "response_contains", values=["zzz"], says="never", rule="leak"),
        ],
    )
    out = grade_attempt(b, attempt(turn("42, oops")))
    assert out.verdict == "FAIL"
    p1, f1, f2 = out.criteria
    assert p1 == CriterionResult(
        id="P1", tag="KEYWORD", kind="pass", type="response_contains",
        critical=False, rule=None, says="states 42", origin="methodology",
        evidence=Evidence(turn=1, span=[0, 2], text="42", decided_by="response_contains"),
        passed=True,
    )  # fmt: skip
    # kind, critical, rule, triggered, passed
    assert (f1.kind, f1.critical, f1.rule, f1.triggered, f1.passed) == (
        "fail", True, None, True, False
    )  # fmt: skip
    assert (f2.kind, f2.critical, f2.rule, f2.triggered, f2.passed) == (
        "fail", True, "leak", False, True
    )  # fmt: skip
    # a critical criterion without a rule is named "critical"
    assert out.critical == [
        CriticalHit(rule="critical", criterion="F1", says="says oops", evidence=f1.evidence)
    ]


def test_an_outcome_writes_every_field_a_record_keeps_of_it() -> None:
    b = block([crit("P1", "status", value="completed")])
    out = grade_attempt(b, attempt(turn("ok")), battery_digest="sha256:ab")
    for record in (Attempt(test_id="T", run=1), Grade(test_id="T", run=1)):
        out.write_into(record)
        assert (
            record.verdict, record.criteria, record.critical, record.rater,
            record.strict_warnings, record.fixtures_applied, record.precondition,
        ) == ("PASS", out.criteria, [], "rules@sha256:ab", [], True, None)  # fmt: skip
        record.fixtures_applied = False
        out.write_into(record)  # every field is written, not only those left at defaults
        assert record.fixtures_applied is True
    unmet = dataclasses.replace(out, precondition=out.criteria[0])
    grade = Grade(test_id="T", run=1)
    unmet.write_into(grade)
    assert grade.precondition == out.criteria[0]


# -- re-grading -----------------------------------------------------------------------------------


@pytest.fixture
def battery_dir() -> Path:
    return HERE / "battery"


def _write_run(path: Path, attempts: list[Attempt]) -> None:
    with RunWriter(path, create=True) as w:
        # as an older writer left them: no schema_version, no constructor
        w.append(cast(Record, {"record_type": "run_meta", "run_id": "r", "battery": {"paths": []}}))
        for a in attempts:
            w.append(cast(Record, msgspec.to_builtins(a)))


def test_regrade_appends_grade_records_and_never_rewrites_attempts(
    tmp_path: Path, battery_dir: Path
) -> None:
    battery = load_battery([battery_dir])
    run = tmp_path / "run.jsonl"
    good = msgspec.structs.replace(
        _calc_attempt("333"), test_id="FX-CALC-01", run=1, verdict="FAIL"
    )
    bad = msgspec.structs.replace(_calc_attempt("334"), test_id="FX-CALC-01", run=2, verdict="PASS")
    stray = msgspec.structs.replace(_calc_attempt("1"), test_id="NOPE-01", run=1)
    _write_run(run, [good, bad, stray])
    before = run.read_text(encoding="utf-8")
    counts = regrade_run(run, battery)
    assert (
        counts["graded"] == 2
        and counts["PASS"] == 1
        and counts["FAIL"] == 1
        and counts["unknown"] == 1
    )
    after = run.read_text(encoding="utf-8")
    assert after.startswith(before)  # appended only
    grades = [r for r in iter_records(run) if isinstance(r, Grade)]
    assert [(g.run, g.verdict) for g in grades] == [(1, "PASS"), (2, "FAIL")]
    assert grades[0].rater == f"rules@{battery.digest}"
    assert json.loads(after.splitlines()[1])["verdict"] == "FAIL"  # the attempt is untouched


def test_regrade_with_a_named_rater_and_a_held_lock(tmp_path: Path, battery_dir: Path) -> None:
    battery = load_battery([battery_dir])
    run = tmp_path / "run.jsonl"
    _write_run(run, [msgspec.structs.replace(_calc_attempt("333"), test_id="FX-CALC-01", run=1)])
    regrade_run(run, battery, rater="rules-v2")
    grades = [r for r in iter_records(run) if isinstance(r, Grade)]
    assert grades[-1].rater == "rules-v2"
    with RunWriter(run, create=False), pytest.raises(UsageError, match="another agenttest"):
        regrade_run(run, battery)


def test_regrade_with_a_judge_decides_judge_criteria(tmp_path: Path) -> None:
    from agenttest.judges import JudgeResult

    class Judge:
        name = "fake"

        def judge(self, req: Any) -> JudgeResult:
            if "333" in req.candidate:
                return JudgeResult(score=0.9, verdict="PASS", evidence="same", judge=self.name)
            return JudgeResult(score=0.1, verdict="FAIL", evidence="differs", judge=self.name)

    (tmp_path / "blocks").mkdir()
    judged = (HERE / "battery" / "FX-CALC-01.yaml").read_text(encoding="utf-8").replace(
        "FX-CALC-01", "FX-JUDGE-01"
    ).replace("aliases: [FX-HESAP-01]", "aliases: []").replace(
        "    - {id: P2, tag: STATE, type: response_number, value: 333, says: the answer is 333}",
        "    - {id: P2, tag: JUDGE, type: judge, asks: consistent, rubric: 'is it right', reference: '333', says: judged right}",
    )  # fmt: skip
    (tmp_path / "blocks" / "FX-JUDGE-01.yaml").write_text(judged, encoding="utf-8")
    battery = load_battery([tmp_path / "blocks"])
    run = tmp_path / "run.jsonl"
    _write_run(run, [msgspec.structs.replace(_calc_attempt("333"), test_id="FX-JUDGE-01", run=1),
                     msgspec.structs.replace(_calc_attempt("334"), test_id="FX-JUDGE-01", run=2)])  # fmt: skip
    assert regrade_run(run, battery)["UNDECIDED"] == 1  # without a judge: 333 waits, 334 fails
    counts = regrade_run(run, battery, judge=Judge())
    assert (counts["PASS"], counts["FAIL"]) == (1, 1)
    grades = [r for r in iter_records(run) if isinstance(r, Grade)]
    assert grades[-1].rater == f"rules+fake@{battery.digest}"
    p2 = next(c for c in grades[-2].criteria if c.id == "P2")
    assert p2.passed is True and p2.evidence is not None and "fake" in (p2.evidence.note or "")


_CALC_YAML = (HERE / "battery" / "FX-CALC-01.yaml").read_text("utf-8")
#: an agenttest addition to a methodology block: a warning, unless --strict
_EXTRA = (
    "    - {id: P3, tag: STATE, type: response_contains, values: [never], origin: agenttest,\n"
    "       says: an agenttest addition}\n"
)


def _regrade_file(tmp_path: Path, *, extra: bool = False) -> Path:
    folder = tmp_path / "battery"
    folder.mkdir()
    text = _CALC_YAML.replace("  fail:\n", _EXTRA + "  fail:\n") if extra else _CALC_YAML
    (folder / "FX-CALC-01.yaml").write_text(text, "utf-8")
    calc = attempt(turn("333", [call("calculator", expression="1850*0.18", result="333")]))
    lost = attempt(turn(None), status="error", error_cause="agent_unreachable")
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as w:
        w.append(run_meta(run_id="r", battery={"paths": [str(folder)]}))
        for tid in ("NO-SUCH-01", "NO-SUCH-02"):  # unknown ones first: the rest still counts
            w.append(msgspec.structs.replace(calc, test_id=tid))
        w.append(msgspec.structs.replace(calc, test_id="FX-CALC-01", run=1))
        w.append(
            msgspec.structs.replace(
                calc, test_id="FX-CALC-01", run=2, started_at="2026-12-01T10:00:00Z"
            )
        )
    with path.open("a", encoding="utf-8") as f:
        f.write("{torn\n")
    with RunWriter(path, create=False) as w:
        w.append(msgspec.structs.replace(lost, test_id="FX-CALC-01", run=3))
    return path


def _grades(path: Path) -> list[Grade]:
    return [r for r in iter_records(path) if isinstance(r, Grade)]


def test_regrade_run_counts_every_verdict_unknown_attempts_and_torn_lines(
    tmp_path: Path,
) -> None:
    path = _regrade_file(tmp_path)
    loaded = load_battery([tmp_path / "battery"])
    assert regrade_run(path, loaded) == {
        "graded": 3, "PASS": 2, "FAIL": 0, "ERROR": 1, "UNDECIDED": 0, "NOT_APPLICABLE": 0,
        "unknown": 2,
        "torn_lines": 1,
    }  # fmt: skip
    grades = _grades(path)
    assert [(g.run, g.verdict, g.error_cause) for g in grades] == [
        (1, "PASS", None),
        (2, "PASS", None),
        (3, "ERROR", "agent_unreachable"),
    ]
    # the grade names the attempt it grades by its start, when the attempt has one
    assert [g.attempt_started_at is not None for g in grades] == [False, True, False]
    assert grades[1].attempt_started_at == "2026-12-01T10:00:00Z"
    for g in grades:  # stamped now, in UTC
        assert datetime.fromisoformat(g.graded_at or "").utcoffset() == timedelta(0)
        assert g.rater == f"rules@{loaded.digest}"


def test_regrade_counts_agenttest_additions_only_under_strict(tmp_path: Path) -> None:
    path = _regrade_file(tmp_path, extra=True)
    loaded = load_battery([tmp_path / "battery"])
    plain = regrade_run(path, loaded)
    assert (plain["PASS"], plain["FAIL"]) == (2, 0)  # precondition: P3 is only a warning
    assert _grades(path)[0].strict_warnings[0].criterion == "P3"
    assert regrade_run(path, loaded, strict=True)["FAIL"] == 2
    assert regrade(path).counts["PASS"] == 2
    assert regrade(path, strict=True).counts["FAIL"] == 2


def test_regrade_passes_its_overlay_rater_and_judge_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agenttest.judges

    class Named:
        name = "fake"

    monkeypatch.setitem(agenttest.judges._FACTORIES, "fake", lambda **kw: Named())
    path = _regrade_file(tmp_path)
    overlay = tmp_path / "ov.yaml"
    overlay.write_text("agent: x\nblocks:\n  FX-CALC-01: {timezone: Asia/Tokyo}\n", "utf-8")
    digest = load_battery([tmp_path / "battery"]).digest
    with_overlay = regrade(path, overlay=overlay).digest
    assert with_overlay == load_battery([tmp_path / "battery"], overlay=str(overlay)).digest
    assert with_overlay != digest  # precondition: the overlay changes the battery's digest
    regrade(path, judge="")  # no judge: an empty name builds none
    regrade(path, judge="fake")
    regrade(path, rater="human:ana")
    raters = [g.rater for g in _grades(path)]
    assert raters[3:6] == [f"rules@{digest}"] * 3
    assert raters[6:9] == [f"rules+fake@{digest}"] * 3
    assert raters[9:] == ["human:ana"] * 3
