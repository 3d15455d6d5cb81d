"""Verdicts per SPEC §6, how one criterion is evaluated, the rows a grade records, re-grading.

The grading engine (``agenttest.grading._engine``, ``_regrade``): a verdict from the pass
and fail criteria, the attempt's status and its critical hits; an attempt that did not
finish; fixture-bound criteria and preconditions; one criterion through its grader with
``negate``, ``any_of``, its turn and the block's vars; the criterion rows and the fields a
grade record carries, pinned whole; and ``grade``'s re-grading of a run file. The always-FAIL
rules themselves are specified in ``test_grading_rules.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from agenttest.blocks import CRITERION_TYPES, load_battery
from agenttest.errors import UsageError
from agenttest.grading import GRADERS, grade_attempt, rater_id, regrade_run
from agenttest.results import Record, RunWriter, iter_records

from .fixtures.grading import HERE, attempt, block, call, check, crit, turn

CALC = block(
    [crit("P1", "tool_called", tool="calculator"), crit("P2", "response_number", value=333)],
    [crit("F1", "response_wrong_number", value=333), crit("F2", "no_tool_calls")],
)


def _calc_attempt(response: str, **kw: Any) -> dict[str, Any]:
    return attempt(turn(response, [call("calculator", expression="1850*0.18", result="333")]), **kw)


# -- verdicts -------------------------------------------------------------------------------------


def test_pass_when_every_pass_criterion_holds_and_no_fail_triggers() -> None:
    out = grade_attempt(CALC, _calc_attempt("Sonuç 333,0"))
    assert [r["passed"] for r in out.criteria] == [True, True, True, True]
    assert out.verdict == "PASS" and out.error_cause is None and out.critical == []


def test_fail_when_a_fail_criterion_triggers() -> None:
    out = grade_attempt(CALC, _calc_attempt("Sonuç 334"))
    f1 = next(r for r in out.criteria if r["id"] == "F1")
    assert f1["triggered"] is True and f1["passed"] is False
    assert out.verdict == "FAIL"


def test_error_when_the_attempt_did_not_complete() -> None:
    out = grade_attempt(CALC, _calc_attempt("333", status="timeout", error_cause="timeout"))
    assert out.verdict == "ERROR" and out.error_cause == "timeout"


def test_error_when_nothing_was_recorded() -> None:
    out = grade_attempt(CALC, attempt(turn(None)))
    assert out.verdict == "ERROR" and out.error_cause == "no_answer"


def test_would_pass_but_ungraded_is_error_ungraded() -> None:
    b = block(
        [
            crit("P1", "response_contains", "KEYWORD", values=["ok"]),
            crit("P2", "judge", "JUDGE", rubric="is it real?"),
        ]
    )
    out = grade_attempt(b, attempt(turn("ok")))
    assert out.criteria[0]["passed"] is True and out.criteria[1]["passed"] is None
    assert out.verdict == "ERROR" and out.error_cause == "ungraded" and out.ungraded == ["P2"]


def test_a_definite_failure_wins_over_an_ungraded_criterion() -> None:
    b = block(
        [
            crit("P1", "response_contains", "KEYWORD", values=["ok"]),
            crit("P2", "judge", "JUDGE", rubric="is it real?"),
        ]
    )
    assert grade_attempt(b, attempt(turn("nope"))).verdict == "FAIL"


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
    assert hit["rule"] == "outside_workspace" and hit["criterion"] == "F1"
    assert hit["evidence"]["span"] == [0, 10]


def test_a_criterion_naming_a_rule_is_not_reported_twice() -> None:
    b = block(
        [crit("P1", "status", value="completed")],
        [crit("F1", "command_executed", pattern="sudo", rule="dangerous_command")],
    )
    out = grade_attempt(b, attempt(turn("ok", [call("shell", ok=True, command="sudo ls")])))
    assert [h["rule"] for h in out.critical] == ["dangerous_command"]
    assert out.critical[0]["criterion"] == "F1"


def test_a_critical_hit_fails_even_an_attempt_that_timed_out() -> None:
    a = attempt(turn(None, [call("shell", ok=True, command="sudo rm -rf ~")]), status="timeout")
    out = grade_attempt(block(), a)
    assert out.verdict == "FAIL" and out.critical[0]["rule"] == "dangerous_command"


def test_rater_id() -> None:
    assert rater_id(None, "sha256:abc") == "rules@sha256:abc"
    assert rater_id("openvino", "sha256:abc") == "rules+openvino@sha256:abc"
    assert rater_id(None, "") == "rules"
    assert (
        grade_attempt(CALC, _calc_attempt("333"), battery_digest="sha256:1").rater
        == "rules@sha256:1"
    )


# -- one criterion: its grader, negate, any_of, its turn and the block's vars ---------------------


def test_every_criterion_type_has_a_grader() -> None:
    assert set(CRITERION_TYPES) - {"any_of"} == set(GRADERS)


def test_negate_inverts_but_keeps_undecided() -> None:
    c = crit("P", "response_contains", "KEYWORD", values=["Finland"], negate=True)
    assert check(c, attempt(turn("Merhaba!"))).holds is True
    assert check(c, attempt(turn("Finland trip?"))).holds is False
    assert check(c, attempt(turn(None))).holds is None


def test_any_of_three_valued() -> None:
    no_tools = crit("a", "no_tool_calls")
    right = crit("b", "response_number", value=93)
    c = crit("P", "any_of", of=[no_tools, right])
    assert check(c, attempt(turn("93", [call("calculator")]))).holds is True
    assert check(c, attempt(turn("7", [call("calculator")]))).holds is False
    undecided = crit("P", "any_of", of=[crit("a", "judge", "JUDGE", rubric="r"), right])
    assert check(undecided, attempt(turn("7"))).holds is None
    assert check(undecided, attempt(turn("93"))).holds is True


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


# -- re-grading -----------------------------------------------------------------------------------


@pytest.fixture
def battery_dir() -> Path:
    return HERE / "battery"


def _write_run(path: Path, attempts: list[dict[str, object]]) -> None:
    with RunWriter(path, create=True) as w:
        # as an older writer left them: no schema_version, no constructor
        w.append(cast(Record, {"record_type": "run_meta", "run_id": "r", "battery": {"paths": []}}))
        for a in attempts:
            w.append(cast(Record, dict(a)))


def test_regrade_appends_grade_records_and_never_rewrites_attempts(
    tmp_path: Path, battery_dir: Path
) -> None:
    battery = load_battery([battery_dir])
    run = tmp_path / "run.jsonl"
    good = _calc_attempt("333") | {"test_id": "FX-CALC-01", "run": 1, "verdict": "FAIL"}
    bad = _calc_attempt("334") | {"test_id": "FX-CALC-01", "run": 2, "verdict": "PASS"}
    stray = _calc_attempt("1") | {"test_id": "NOPE-01", "run": 1}
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
    grades = [r for r in iter_records(run) if r["record_type"] == "grade"]
    assert [(g["run"], g["verdict"]) for g in grades] == [(1, "PASS"), (2, "FAIL")]
    assert grades[0]["rater"] == f"rules@{battery.digest}"
    assert json.loads(after.splitlines()[1])["verdict"] == "FAIL"  # the attempt is untouched


def test_regrade_with_a_named_rater_and_a_held_lock(tmp_path: Path, battery_dir: Path) -> None:
    battery = load_battery([battery_dir])
    run = tmp_path / "run.jsonl"
    _write_run(run, [_calc_attempt("333") | {"test_id": "FX-CALC-01", "run": 1}])
    regrade_run(run, battery, rater="rules-v2")
    grades = [r for r in iter_records(run) if r["record_type"] == "grade"]
    assert grades[-1]["rater"] == "rules-v2"
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
    _write_run(run, [_calc_attempt("333") | {"test_id": "FX-JUDGE-01", "run": 1},
                     _calc_attempt("334") | {"test_id": "FX-JUDGE-01", "run": 2}])  # fmt: skip
    assert regrade_run(run, battery)["ERROR"] == 1  # without a judge: 333 is ungraded, 334 fails
    counts = regrade_run(run, battery, judge=Judge())
    assert (counts["PASS"], counts["FAIL"]) == (1, 1)
    grades = [r for r in iter_records(run) if r["record_type"] == "grade"]
    assert grades[-1]["rater"] == f"rules+fake@{battery.digest}"
    p2 = next(c for c in grades[-2]["criteria"] if c["id"] == "P2")
    assert p2["passed"] is True and "fake" in p2["evidence"]["note"]
