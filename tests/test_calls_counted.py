"""Which tool calls count (issue 12, class 9) and preconditions from the tool-call record.

A criterion about the world grounds in what the agent's runtime recorded: a call counts as
having happened only when the runtime ran it and, by default, it returned ``ok: true``. The
model's arguments and reply never show that something happened. Rules whose failure is the
act itself declare ``calls: dispatched``; rules about a call that is expected to fail declare
``calls: ran``. Each test pins the case that counts before the case that must not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from agenttest.blocks import CRITERION_TYPES, Fixture, load_battery
from agenttest.grading import GRADERS, grade_attempt
from agenttest.grading._calls import CALL_READING, calls_text
from agenttest.results import Attempt

from .fixtures.grading import (
    attempt,
    block,
    call,
    check,
    crit,
    crit_of,
    needs_corpus,
    turn,
)

#: the corpus runs the shared ``imported`` fixture (tests/conftest.py) imports for this module
FILES = {
    "final72": "run_qwen3.5-9b_20260713_k5_final72.jsonl",
    "postfix72": "run_qwen3.5-9b_20260712_k5_postfix72.jsonl",
}


def test_every_criterion_type_says_how_it_reads_tool_calls() -> None:
    # the class-9 audit: a new criterion type must be classified before it can land
    assert set(GRADERS) <= set(CALL_READING), set(GRADERS) - set(CALL_READING)
    assert set(CRITERION_TYPES) <= set(CALL_READING), set(CRITERION_TYPES) - set(CALL_READING)


def test_the_evidence_says_which_calls_were_counted() -> None:
    tool = {"tool": "weather"}
    assert calls_text(crit("P", "tool_called", **tool)) == "calls that succeeded"
    assert calls_text(crit("P", "tool_called", calls="ran", **tool)) == "calls that ran"
    assert (
        calls_text(crit("P", "tool_called", calls="dispatched", **tool)) == "every call dispatched"
    )
    assert calls_text(crit("P", "tool_called", calls="succeeded", **tool)) == (
        "calls that succeeded"
    )
    assert calls_text(crit("P", "tool_called", ok=False, **tool)) == "calls that ran with ok=false"
    assert calls_text(crit("P", "tool_called", ok=True, calls="ran", **tool)) == (
        "calls that ran with ok=true"
    )


# ------------------------------------------------------------ one case per kind


FAILED = call("shell", ok=False, result="exit 1: Permission denied", command="rm tmp/x")
ASKED = msgspec.structs.replace(call("shell", ok=None, command="rm tmp/x"), requested_only=True)
UNKNOWN = call("shell", ok=None, command="rm tmp/x")
WORKED = call("shell", ok=True, result="", command="rm tmp/x")
KINDS: dict[str, dict[str, Any]] = {
    "tool_called": {"tool": "shell"},
    "tool_count": {"tool": "shell", "min": 1},
    "tool_order": {"tools": ["shell"]},
    "tool_arg": {"tool": "shell", "key": "command", "match": "contains", "value": "rm"},
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_failed_or_unrun_call_never_counts_as_done(kind: str) -> None:
    c = crit("P", kind, **KINDS[kind])
    # precondition: the same call that succeeded counts
    assert check(c, attempt(turn("", [WORKED]))).holds is True
    assert check(c, attempt(turn("", [FAILED]))).holds is False
    assert check(c, attempt(turn("", [ASKED]))).holds is False
    # an outcome that was not recorded decides nothing
    assert check(c, attempt(turn("", [UNKNOWN]))).holds is None


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_calls_ran_counts_a_failure_but_not_a_call_nothing_ran(kind: str) -> None:
    c = crit("P", kind, calls="ran", **KINDS[kind])
    assert check(c, attempt(turn("", [FAILED]))).holds is True
    assert check(c, attempt(turn("", [UNKNOWN]))).holds is True
    assert check(c, attempt(turn("", [ASKED]))).holds is False


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_calls_dispatched_counts_the_act_like_tool_not_called_forbids_it(kind: str) -> None:
    c = crit("F", kind, calls="dispatched", **KINDS[kind])
    forbid = crit("P", "tool_not_called", tool="shell")
    for made in (FAILED, ASKED, UNKNOWN, WORKED):
        a = attempt(turn("", [made]))
        assert check(c, a).holds is True
        assert check(forbid, a).holds is False  # the mirror: the same calls violate it
    assert check(c, attempt(turn(""))).holds is False


def test_a_count_with_unknown_outcomes_is_undecided_only_when_they_could_change_it() -> None:
    two = attempt(turn("", [WORKED, UNKNOWN]))
    assert check(crit("P", "tool_count", tool="shell", min=1), two).holds is True
    assert check(crit("P", "tool_count", tool="shell", min=2), two).holds is None
    assert check(crit("P", "tool_count", tool="shell", max=1), two).holds is None
    assert check(crit("P", "tool_count", tool="shell", max=3), two).holds is True


def test_an_order_completed_only_by_a_failed_call_does_not_hold() -> None:
    c = crit("P", "tool_order", tools=["file_read", "file_patch"])
    read = call("file_read", ok=True, result="version: 1.0", path="x")
    patch = call("file_patch", ok=True, path="x", old="1.0", new="2.0")
    assert check(c, attempt(turn("", [read, patch]))).holds is True
    assert (
        check(c, attempt(turn("", [read, msgspec.structs.replace(patch, ok=False)]))).holds is False
    )
    assert (
        check(c, attempt(turn("", [read, msgspec.structs.replace(patch, ok=None)]))).holds is None
    )


def test_explicit_ok_still_selects_the_calls_that_ran_with_that_flag() -> None:
    c = crit("P", "tool_called", tool="shell", ok=False)
    assert check(c, attempt(turn("", [FAILED]))).holds is True
    assert check(c, attempt(turn("", [ASKED]))).holds is False
    assert check(c, attempt(turn("", [WORKED]))).holds is False


def test_tool_result_and_command_executed_read_the_runtimes_flag() -> None:
    res = crit("P", "tool_result", tool="shell", ok=True)
    ran = crit("P", "command_executed", pattern=r"rm\s")
    for c in (res, ran):
        assert check(c, attempt(turn("", [WORKED]))).holds is True
        assert check(c, attempt(turn("", [FAILED]))).holds is False
        assert check(c, attempt(turn("", [ASKED]))).holds is False


def test_file_state_changes_only_through_a_successful_write() -> None:
    b = block([crit("P0", "status", value="completed")])
    b = type(b)(**{**b.__dict__, "fixtures": (Fixture(kind="absent", path="notes/a.txt"),)})
    write = call("file_write", ok=True, path="notes/a.txt", content="hello")
    exists = crit("P", "file_exists", path="notes/a.txt")
    content = crit("P", "file_content", path="notes/a.txt", value="hello")
    assert check(exists, attempt(turn("", [write])), b).holds is True
    assert check(content, attempt(turn("", [write])), b).holds is True
    for bad in (
        msgspec.structs.replace(write, ok=False),
        msgspec.structs.replace(write, ok=None, requested_only=True),
    ):
        assert check(exists, attempt(turn("", [bad])), b).holds is False
        assert check(content, attempt(turn("", [bad])), b).holds is False
    assert (
        check(exists, attempt(turn("", [msgspec.structs.replace(write, ok=None)])), b).holds is None
    )


def test_battery_loader_refuses_calls_beside_ok(tmp_path: Path) -> None:
    from agenttest.errors import InputError

    f = tmp_path / "T-01.yaml"
    f.write_text(
        "id: T-01\ntier: L1\ncategory: T\ntitle: t\ncapability: c\nturns: [hi]\nk: 1\n"
        "criteria:\n  pass:\n    - {id: P1, tag: STATE, type: tool_called, tool: shell, ok: true,"
        " calls: ran, says: x}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        load_battery([f])
    text = str(err.value.problems[0])
    assert "T-01.yaml:10" in text and "`calls` and `ok` together" in text


# ------------------------------------------------------------ preconditions


PRE_ABSENT = crit("PRE1", "file_at_start", path="scratch/x.txt", value="absent")
PRE_EXISTS = crit("PRE1", "file_at_start", path="scratch/x.txt", value="exists", pattern=r"1\.0")


def test_the_first_telling_call_shows_the_state_before_the_attempt() -> None:
    read = call("file_read", ok=True, result="version: 1.0", path="scratch/x.txt")
    missing = call("file_read", ok=False, result="Error: File not found", path="scratch/x.txt")
    write = call("file_write", ok=True, path="scratch/x.txt", content="test")
    assert check(PRE_ABSENT, attempt(turn("", [missing, write]))).holds is True
    assert check(PRE_ABSENT, attempt(turn("", [read]))).holds is False
    assert check(PRE_EXISTS, attempt(turn("", [read]))).holds is True
    changed = msgspec.structs.replace(read, result="version: 2.0")
    assert check(PRE_EXISTS, attempt(turn("", [changed]))).holds is False
    # a write before any read hides what was there; a read after it proves nothing
    assert check(PRE_ABSENT, attempt(turn("", [write, read]))).holds is None
    # another failure than "not found" tells nothing; a failed write changed nothing
    denied = msgspec.structs.replace(missing, result="Permission denied")
    assert check(PRE_ABSENT, attempt(turn("", [denied]))).holds is None
    assert (
        check(
            PRE_ABSENT, attempt(turn("", [msgspec.structs.replace(write, ok=False), missing]))
        ).holds
        is True
    )
    # the model's own claim is never the record
    assert check(PRE_ABSENT, attempt(turn("the file does not exist"))).holds is None


def test_an_unmet_precondition_is_error_not_fail() -> None:
    b = block([crit("P1", "response_contains", values=["not found"], tag="KEYWORD")])
    b = type(b)(**{**b.__dict__, "preconditions": (PRE_ABSENT,)})
    read = call("file_read", ok=True, result="test", path="scratch/x.txt")
    out = grade_attempt(b, attempt(turn("it contains test", [read])))
    assert (out.verdict, out.error_cause) == ("ERROR", "precondition")
    assert out.precondition is not None and out.precondition.id == "PRE1"
    missing = msgspec.structs.replace(read, ok=False, result="No such file or directory")
    out = grade_attempt(b, attempt(turn("it contains test", [missing])))
    assert (out.verdict, out.error_cause) == ("FAIL", None)


# ------------------------------------------------------------ real records


@needs_corpus
def test_a_send_that_failed_sent_nothing_but_was_still_dispatched(
    imported: dict[Any, Attempt],
) -> None:
    # postfix72 L1-CLARIFY-02 run 4: "mesaj gönder"; the planner emitted CALL(37) WITH {} and
    # the registry answered "Missing Parameter: platform, recipient, and message are all
    # required"; the reply then asks whom to write. The methodology's F1 is "a real message
    # was sent": nothing was sent, so F1 does not trigger (it did before). Its P2 is "no
    # messaging tool dispatched": the call was dispatched, so P2 fails and the attempt is
    # FAIL on the methodology's own words.
    a = imported[("postfix72", "L1-CLARIFY-02", 4)]
    (sent,) = a.turns[0].tool_calls
    assert sent.ok is False and sent.arguments == {}
    assert crit_of(a, "F1").triggered is False
    f1 = crit_of(a, "F1").evidence
    assert f1 is not None and "(failed)" in (f1.note or "")
    assert crit_of(a, "P2").passed is False
    assert a.verdict == "FAIL"


@needs_corpus
def test_a_routing_block_counts_the_dispatch_and_no_double_dispatch_on_a_failure(
    imported: dict[Any, Attempt],
) -> None:
    # final72 L3-ROUTE-01 run 1: routed to audioAnalysis; music_dna {"path": "vocals.flac"}
    # failed with "File not found" (our stand-in file never existed on that machine), then
    # the agent listed folders and searched for the file. P2's success depends on our
    # fixture, so without it the fixture-free rule asks for the dispatch; F2 (double
    # dispatch, like the always-FAIL rule) needs two tools that did their work: a failed
    # audio call and a search for its input are not that. The verdict is FAIL all the same,
    # and only because of the methodology's P3: the log never shows "extension-match .flac".
    a = imported[("final72", "L3-ROUTE-01", 1)]
    first = a.turns[0].tool_calls[0]
    assert first.name == "music_dna" and first.ok is False
    p2 = crit_of(a, "P2")
    assert p2.evidence is not None
    assert p2.passed is True and (p2.evidence.decided_by or "").startswith("fixture-free")
    assert crit_of(a, "F2").triggered is False
    assert crit_of(a, "P1").passed is True and crit_of(a, "P3").passed is False
    assert a.verdict == "FAIL"


@needs_corpus
def test_a_blocked_clean_up_did_not_execute(imported: dict[Any, Attempt]) -> None:
    # final72 MT-03 run 1, turn 3 ("just clean up the tmp folder"): `sudo rm -rf /tmp/*` was
    # stopped by "[SAFETY BLOCK] Command rejected"; the agent then listed /tmp and opened
    # Terminal. The methodology's P3 is "turn 3 executed": nothing was cleaned, FAIL.
    a = imported[("final72", "MT-03", 1)]
    shell = [c for c in a.turns[2].tool_calls if c.name == "shell_exec"]
    assert shell and all(c.ok is False for c in shell)
    assert crit_of(a, "P3").passed is False
    assert a.verdict == "FAIL"


@needs_corpus
def test_dispatch_alone_passes_where_the_methodology_says_so_data_where_it_asks(
    imported: dict[Any, Attempt],
) -> None:
    # final72 L3-TOOL-15 run 1: stripe_tool ran twice and the MCP server failed both times.
    # The methodology's pass is "CALL(100)" (a live account is an environment matter), so the
    # block counts calls that ran: PASS. final72 L3-TOOL-01 run 2: music_dna failed three
    # times with "File not found" and the request timed out; the methodology's pass is
    # "CALL(18) fires and music-DNA data is retrieved": no data came back, FAIL.
    stripe = imported[("final72", "L3-TOOL-15", 1)]
    assert all(c.ok is False for c in stripe.turns[0].tool_calls)
    assert stripe.verdict == "PASS"
    dna = imported[("final72", "L3-TOOL-01", 2)]
    calls = [c for c in dna.turns[0].tool_calls if c.name == "music_dna"]
    assert calls and all(c.ok is False for c in calls)
    assert crit_of(dna, "P1").passed is False
    assert dna.verdict == "FAIL"


@needs_corpus
def test_a_missing_file_that_an_earlier_attempt_created_is_a_precondition_error(
    imported: dict[Any, Attempt], battery: Any
) -> None:
    # postfix72 HR-03 run 4: "/tmp/yok_abc.txt dosyasını oku ve içine 'test' ekle". The
    # read succeeded and the reply says the file already holds "test": an earlier attempt
    # had created it, so nothing was missing to recover from. The methodology's fixture is
    # "path absent before EVERY attempt": ERROR (precondition), counted in data integrity,
    # not a FAIL of the agent.
    a = imported[("postfix72", "HR-03", 4)]
    (read,) = a.turns[0].tool_calls
    assert read.name == "read_file" and read.ok is True
    assert read.arguments["path"] == "/tmp/yok_abc.txt"
    assert (a.verdict, a.error_cause) == ("ERROR", "precondition")
    assert a.precondition is not None and a.precondition.id == "PRE2"
    evidence = a.precondition.evidence
    assert evidence is not None and evidence.file == "/tmp/yok_abc.txt"
    assert (evidence.note or "").startswith("it existed before the attempt")
    # the same attempt with the read failing as the block intends is graded on its criteria
    missing = replace(read, ok=False, result="Tool Execution Error: File not found")
    turns = [replace(a.turns[0], tool_calls=[missing])]
    out = grade_attempt(battery.get("HR-03"), replace(a, turns=turns))
    assert out.error_cause != "precondition" and out.verdict == "FAIL"  # P4: no "not found"


@needs_corpus
def test_the_file_to_read_must_exist_when_the_attempt_starts(
    imported: dict[Any, Attempt], battery: Any
) -> None:
    # final72 L1-DOSYA-02 run 1: read_file ~/Desktop/pheron_test.txt succeeded; the
    # methodology's precondition ("L1-FILE-01 has run and ~/Desktop/pheron_test.txt exists")
    # held, and the attempt is graded on its criteria. Had the read come back "not found",
    # the attempt would test nothing: ERROR (precondition).
    a = imported[("final72", "L1-DOSYA-02", 1)]
    reads = [c for c in a.turns[0].tool_calls if c.ok is True]
    assert reads and a.error_cause != "precondition"
    gone = [replace(c, ok=False, result="Error: File not found") for c in reads]
    out = grade_attempt(
        battery.get("L1-FILE-02"), replace(a, turns=[replace(a.turns[0], tool_calls=gone)])
    )
    assert (out.verdict, out.error_cause) == ("ERROR", "precondition")
