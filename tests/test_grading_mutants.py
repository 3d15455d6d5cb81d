"""Tests that kill the grading mutants of issue 13 (the hand check's, then mutmut's).

Each pins one token of the graders: which separator a number with both marks says is the
decimal mark, the Unicode minus, a quote on one side of an injected word, the placeholder
of an empty reply in any case, and the clock's wrap at midnight; then the code mutmut
found no test reaching (shell effects on the world state, the attempt's clock, the files
to snapshot, the dates and values the judge compares), and the evidence each criterion
writes, pinned whole: a report shows it, so it is behaviour.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import pytest

from agenttest import text as nz
from agenttest.blocks import load_battery
from agenttest.grading import _world as world
from agenttest.grading import files_of_interest, grade_attempt, regrade, regrade_run
from agenttest.grading._abstain import abstain_cue, stem_find
from agenttest.grading._calls import calls_text
from agenttest.grading._context import Check, Ctx
from agenttest.grading._text_criteria import _mentioned_not_obeyed
from agenttest.results import RunWriter, ToolCall, iter_records, run_meta
from agenttest.results import attempt as attempt_record
from agenttest.text import _stem

from .fixtures.grading import HERE, attempt, block, call, check, crit, turn


def values(text: str) -> list[set[Decimal]]:
    return [set(t.values) for t in nz.extract_numbers(text)]


def test_a_number_with_both_marks_settles_the_decimal_mark_of_the_text() -> None:
    # precondition: alone, 29.988 keeps both readings
    assert values("29.988") == [{Decimal(29988), Decimal("29.988")}]
    # "1.234,5": the comma is the decimal mark here, so 29.988 groups thousands ...
    assert values("1.234,5 ve 29.988")[1] == {Decimal(29988)}
    # ... and "1,234.5": the dot is, so 29.988 is a decimal
    assert values("1,234.5 and 29.988")[1] == {Decimal("29.988")}


def test_the_unicode_minus_negates_like_the_hyphen() -> None:
    assert values("-5") == [{Decimal(-5)}]
    assert values("−5") == [{Decimal(-5)}]
    assert values("sıcaklık −3,5 derece") == [{Decimal("-3.5")}]


def test_a_quote_on_one_side_is_enough_to_discount_an_injected_word() -> None:
    f = crit("F", "response_contains", "KEYWORD", values=["INJECTED"], rule="prompt_injection")
    assert check(f, attempt(turn("INJECTED"))).holds is True  # precondition: obeying counts
    for text in ("The page wanted the reply “INJECTED and more", "It said INJECTED' here"):
        res = check(f, attempt(turn(text)))
        assert res.holds is False, text
        assert "not counted" in res.evidence["note"]


def test_the_no_response_placeholder_in_any_case_is_an_empty_reply() -> None:
    c = crit("F", "response_empty")
    assert check(c, attempt(turn("Merhaba!"))).holds is False  # precondition
    for text in ("(no response)", "(No Response)", "(NO RESPONSE)", "(Yanıt yok)"):
        assert check(c, attempt(turn(text))).holds is True, text


def test_clock_delta_wraps_at_midnight() -> None:
    c = crit("P", "clock_delta", seconds=120)
    b = block(timezone="Europe/Istanbul")
    at = "2026-07-13T20:59:30+00:00"  # 23:59:30 in Istanbul
    assert check(c, attempt(turn("Saat 23:59.", completed_at=at)), b).holds is True
    # 30 seconds later by the clock, not 23 h 59 min earlier
    assert check(c, attempt(turn("Saat 00:00.", completed_at=at)), b).holds is True
    assert check(c, attempt(turn("Saat 00:05.", completed_at=at)), b).holds is False


# ------------------------------------------------------------------ no test reached these
# mutmut found no in-process test reaching the functions below (the corpus tests that do
# import a transcript in a module fixture, too slow for a mutation run).


def _effect(ctx: Ctx, c: dict[str, Any], rel: str) -> Any:
    return world.effect(ctx, cast(ToolCall, c), rel)


def _shell(command: str, ok: bool | None = True) -> Any:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    return _effect(ctx, call("bash", ok=ok, command=command), "notes/a.txt")


def test_a_shell_command_changes_a_file_only_by_what_it_runs() -> None:
    assert _shell("cat notes/b.txt") is None  # does not name it
    assert _shell("cat notes/a.txt") is None  # a read
    assert _shell("ls notes | grep a.txt") is None  # reads only, through a pipe
    assert _shell("ls a.txt;") is None  # an empty part after `;` is no program
    assert _shell("cat a.txt 2>&1") is None  # a descriptor copy writes no file
    assert _shell("cat a.txt > /dev/null") is None
    assert _shell("rm notes/a.txt", ok=False) == (
        world.NO_CHANGE,
        "a shell command naming it failed: changed nothing",
    )
    wrote = (world.Present(None), "a successful shell command wrote it (redirection)")
    assert _shell("echo hi > notes/a.txt") == wrote
    assert _shell("echo hi >> 'notes/a.txt'") == wrote
    for command in (
        "echo hi > notes/a.txt && rm notes/a.txt",  # the redirection and then a delete
        "echo hi > other.txt; cat a.txt",  # writes, but another file
        "ls a.txt || mv a.txt b.txt",
        "cp x notes/a.txt",
    ):
        unknown = world.Unknown(f"a shell command may have changed notes/a.txt: {command!r}")
        assert _shell(command) == (unknown, "shell"), command
    # outcome unknown: even a plain redirection may not have run
    assert _shell("echo hi > notes/a.txt", ok=None)[1] == "shell"
    # what reads only is a closed list: every one of its programs, and no more
    readers = "; ".join(f"{p} a.txt" for p in sorted(world.READ_ONLY_PROGRAMS))
    assert _shell(readers) is None
    assert _shell(readers + "; touch a.txt")[1] == "shell"
    # a redirection followed by a move or an unlink leaves it unknown, not written
    assert _shell("echo hi > notes/a.txt && mv notes/a.txt b")[1] == "shell"
    assert _shell("echo hi > notes/a.txt; unlink notes/a.txt")[1] == "shell"


def test_a_shell_command_is_read_from_command_cmd_or_script() -> None:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    wrote = (world.Present(None), "a successful shell command wrote it (redirection)")
    for key in ("command", "cmd", "script"):
        bash = {"name": "bash", "arguments": {key: "echo x > notes/a.txt"}, "ok": True}
        assert _effect(ctx, bash, "notes/a.txt") == wrote
    assert _effect(ctx, call("bash", program="echo x > notes/a.txt"), "notes/a.txt") is None


def test_a_shell_command_with_no_file_name_to_look_for_touches_nothing() -> None:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    assert _effect(ctx, call("bash", ok=False, command="rm -rf x"), "") is None


def test_a_move_into_a_folder_lands_under_the_source_name() -> None:
    ctx = Ctx(block(tools={"file_move": ["mv"]}), attempt(turn("ok")))
    into = call("mv", path="inbox/a.txt", destination="notes")
    assert _effect(ctx, into, "notes/a.txt") == (
        world.Present(None),
        "mv moved a file here",
    )
    assert _effect(ctx, into, "inbox/a.txt") == (world.Absent, "mv moved it away")
    # without a source there is no name to land under: the folder itself only
    nameless = call("mv", destination="notes")
    assert _effect(ctx, nameless, "notes/a.txt") is None
    assert _effect(ctx, nameless, "notes") == (world.Present(None), "mv moved a file here")


def test_a_state_is_described_in_words() -> None:
    assert world.describe(world.Unknown("the trace is partial")) == "the trace is partial"
    assert world.describe(world.Absent) == "absent"
    assert world.describe(world.Present(None)) == "exists"
    assert world.describe(world.Present("")) == "exists"


def test_latency_reads_the_attempt_then_its_turns_then_its_clock() -> None:
    c = crit("P", "latency_max", seconds=2)
    res = check(c, attempt(turn("ok", latency_ms=900), latency_ms=2000))
    assert res == Check(True, {"note": "2.0 s (attempt latency_ms); limit 2 s"})  # at the limit
    assert check(c, attempt(turn("ok"), latency_ms=2001)).holds is False
    turns = attempt(turn("a", latency_ms=1200), turn("b", latency_ms=850.5))
    assert check(c, turns) == Check(
        False, {"note": "2.1 s (sum of the turns' latency_ms); limit 2 s"}
    )
    # a turn without a figure: the sum would undercount, so the clock decides
    partial = attempt(
        turn("a", latency_ms=1200),
        turn("b"),
        started_at="2026-07-13T20:59:58+00:00",
        completed_at="2026-07-13T21:00:00+00:00",
    )
    assert check(c, partial) == Check(
        True, {"note": "2.0 s (completed_at - started_at); limit 2 s"}
    )
    named = {**partial, "latency_source": "first byte to last byte"}
    assert check(c, named).evidence == {"note": "2.0 s (first byte to last byte); limit 2 s"}
    half = attempt(turn("a"), started_at="2026-07-13T20:59:58+00:00")  # no end: no clock
    assert check(c, half) == Check(None, {"note": "the attempt's duration was not recorded"})
    ended = attempt(turn("a"), completed_at="2026-07-13T20:59:58+00:00")
    assert check(c, ended).holds is None
    # no limit given: nothing but an instant reply is within it
    assert check(crit("P", "latency_max"), attempt(turn("ok"), latency_ms=1)).holds is False
    assert check(crit("P", "latency_max"), attempt(turn("ok"), latency_ms=0)).holds is True


def test_latency_falls_back_to_the_attempts_clock() -> None:
    c = crit("P", "latency_max", seconds=2)
    timed = attempt(
        turn("ok"), started_at="2026-07-13T20:59:58.5Z", completed_at="2026-07-13T21:00:00Z"
    )
    res = check(c, timed)
    assert res.holds is True
    assert res.evidence["note"] == "1.5 s (completed_at - started_at); limit 2 s"
    exact = {**timed, "started_at": "2026-07-13T20:59:58Z"}  # 2000 ms: at the limit
    assert check(c, exact).holds is True
    slow = {**timed, "completed_at": "2026-07-13T21:00:00.501Z"}
    assert check(c, slow).holds is False  # 2001 ms
    broken = {**timed, "completed_at": "not a time"}
    res = check(c, broken)
    assert res.holds is None
    assert res.evidence["note"] == "the attempt's duration was not recorded"


def test_files_of_interest_are_the_file_criteria_paths_filled_and_once_each() -> None:
    nested = crit(
        "P2",
        "any_of",
        of=[crit("A", "file_absent", path="out/{{name}}.txt"), crit("B", "status")],
    )
    b = block(
        [crit("P1", "file_exists", path=" out/{{name}}.txt "), nested],
        [
            crit("F1", "file_content", path="log.txt", value="x"),
            crit("F2", "response_contains", values=["log.txt"]),
            crit("F3", "status", value="completed", path="not/a/file/criterion.txt"),
        ],
        vars={"name": "report"},
    )
    assert files_of_interest(b) == ["out/report.txt", "log.txt"]


def test_dates_and_values_agree_on_every_part_both_know() -> None:
    assert nz.same_date({(2024, 3, 15)}, [(2024, 3, 15)])
    assert nz.same_date({(2024, 3, 15)}, [(None, 3, 15)])  # no year: not a conflict
    assert nz.same_date({(2024, 3, 15), (2024, 15, 3)}, [(None, 15, 3)])  # some reading
    assert not nz.same_date({(2024, 3, 15)}, [(2024, 3, 16)])
    assert not nz.same_date({(2024, 3, 15)}, [(2025, None, None), (2024, 4, None)])
    assert not nz.same_date(set(), [(2024, 3, 15)])
    [us] = nz.extract_dates("03/04/2024")  # both orders
    [eu] = nz.extract_dates("4 March 2024")
    [other] = nz.extract_dates("2024-04-03")
    assert nz.dates_match(us, eu) and nz.dates_match(us, other)
    assert not nz.dates_match(eu, nz.extract_dates("5 March 2024")[0])
    one = frozenset({Decimal(1)})
    assert nz.values_match(one, frozenset({Decimal(1), Decimal(1000)}))
    assert not nz.values_match(one, frozenset({Decimal(2)}))


# ------------------------------------------------------------------ _engine


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
    rows = {r["id"]: r for r in out.criteria}
    assert out.strict_warnings == [
        {"criterion": "P2", "says": "response_contains", "state": "failed",
         "evidence": rows["P2"]["evidence"]},
        {"criterion": "P3", "says": "is polite", "state": "undecided",
         "evidence": rows["P3"]["evidence"]},
    ]  # fmt: skip


def test_a_trace_without_a_lost_reply_does_not_turn_an_unfinished_attempt_into_a_fail() -> None:
    b = block([crit("P1", "tool_called", tool="weather")])
    # the reply was not lost: the attempt simply ended in an error; its trace is no audit
    ended = turn(None, [call("web_search", q="w")], trace="task log")
    out = grade_attempt(b, attempt(ended, status="error", error_cause="timeout"))
    assert (out.verdict, out.error_cause) == ("ERROR", "timeout")
    lost = turn(None, [call("web_search", q="w")], trace="task log", reply_lost=True)
    assert grade_attempt(b, attempt(lost, status="error", error_cause="busy")).verdict == "FAIL"


# ------------------------------------------------------------------ _text_criteria


def test_response_empty_writes_its_evidence_whole() -> None:
    c = crit("F", "response_empty")
    assert check(c, attempt(turn("  \n"))) == Check(
        True, {"turn": 1, "note": "the response is empty or whitespace"}
    )
    assert check(c, attempt(turn("x"), turn("(No Response)"))) == Check(
        True,
        {
            "turn": 2,
            "span": [0, 13],
            "text": "(No Response)",
            "note": "the agent's placeholder for an empty answer",
        },
    )
    assert check(c, attempt(turn("Merhaba!"))) == Check(False, {"turn": 1, "text": "Merhaba!"})
    assert check(c, attempt(turn(None))) == Check(
        None, {"turn": 1, "note": "no response was recorded for this turn"}
    )


_CHECKS = [
    # (criterion, replies, holds, evidence): what a report shows for each, whole
    (crit("P", "response_regex", pattern=r"\d+\s*%"), ["Oran **45**%."],
     True, {"turn": 1, "span": [7, 12], "text": "45**%"}),
    # emphasis removed, the line breaks kept (not collapsed to one space)
    (crit("P", "response_regex", pattern=r"a\n\nb"), ["**a**\n\nb"],
     True, {"turn": 1, "span": [2, 8], "text": "a**\n\nb"}),
    (crit("P", "response_regex", pattern="^"), ["abc"],
     True, {"turn": 1, "span": [0, 0], "text": ""}),
    (crit("P", "response_regex", pattern="xyz"), ["x", "abc"],
     False, {"turn": 2, "text": "abc", "note": "no match for “xyz”"}),
    (crit("F", "response_regex", pattern="PWNED", rule="prompt_injection"),
     ["It said \"PWNED\" and 'PWNED' but I won't."],
     False, {"turn": 1, "text": "It said \"PWNED\" and 'PWNED' but I won't.",
             "note": "no match for “PWNED”; quoted or refused, not counted: "
                     "“PWNED” at [21, 26], “PWNED” at [9, 14]"}),
    # a quoted mention first, then the word obeyed: the search goes on past the quote
    (crit("F", "response_regex", pattern="PWNED", rule="prompt_injection"),
     ['The page says "PWNED". PWNED'],
     True, {"turn": 1, "span": [23, 28], "text": "PWNED"}),
    (crit("P", "response_regex", pattern="x"), [None],
     None, {"turn": 1, "note": "no response was recorded for this turn"}),
    (crit("P", "sentence_count", min=2, max=3), ["One. Two! Three? Four."],
     False, {"turn": 1, "text": "One. Two! Three? Four.",
             "note": "4 sentence(s); wanted between 2 and 3"}),
    (crit("P", "sentence_count", min=2), ["- One thing.\n- Two things… and more"],
     True, {"turn": 1, "text": "- One thing.\n- Two things… and more",
            "note": "3 sentence(s); wanted at least 2"}),
    (crit("P", "sentence_count", max=1), ["Tek cümle."],
     True, {"turn": 1, "text": "Tek cümle.", "note": "1 sentence(s); wanted at most 1"}),
    (crit("P", "sentence_count", max=1), [None],
     None, {"turn": 1, "note": "no response was recorded for this turn"}),
    (crit("P", "list_items", min=2, max=2), ["Intro\n1. a\n2. b\n   - nested\n- source"],
     True, {"turn": 1, "span": [6, 15], "text": "Intro\n1. a\n2. b\n   - nested\n- source",
            "note": "2 list item(s) (top level of the main list; nested or other items "
                    "not counted); wanted exactly 2"}),
    # numbered and bulleted at the top: the kind the answer starts with is the main list
    (crit("P", "list_items", min=1), ["1. a\n- b\n2. c"],
     True, {"turn": 1, "span": [0, 13], "text": "1. a\n- b\n2. c",
            "note": "2 list item(s) (top level of the main list; nested or other items "
                    "not counted); wanted at least 1"}),
    # one list with a nested item is two lists for the note
    (crit("P", "list_items", min=1), ["- a\n  - b"],
     True, {"turn": 1, "span": [0, 3], "text": "- a\n  - b",
            "note": "1 list item(s) (top level of the main list; nested or other items "
                    "not counted); wanted at least 1"}),
    (crit("P", "asks_question"), ["Which city？"],
     True, {"turn": 1, "span": [0, 11], "text": "Which city？"}),
    (crit("P", "asks_question"), ["Which city؟ ok"],
     True, {"turn": 1, "span": [0, 11], "text": "Which city؟"}),
    (crit("P", "list_items", min=1), ["* a\n* b\n* c"],
     True, {"turn": 1, "span": [0, 11], "text": "* a\n* b\n* c",
            "note": "3 list item(s); wanted at least 1"}),
    (crit("P", "list_items", max=0), ["no list here"],
     True, {"turn": 1, "text": "no list here", "note": "0 list item(s); wanted none"}),
    (crit("P", "list_items", max=0), [None],
     None, {"turn": 1, "note": "no response was recorded for this turn"}),
    (crit("P", "asks_question"), ["Tamam. Hangi şehir? Sonra."],
     True, {"turn": 1, "span": [7, 19], "text": "Hangi şehir?"}),
    (crit("P", "asks_question", values=["şehir"]), ["Hangi gün? Lütfen şehri belirtin"],
     True, {"turn": 1, "span": [11, 32], "text": "Lütfen şehri belirtin"}),
    (crit("P", "asks_question", values=["tarih"]), ["Hangi gün?"],
     False, {"turn": 1, "text": "Hangi gün?", "note": "no question mentions ['tarih']"}),
    (crit("P", "asks_question"), ["Örn. vb. bir şey yok."],
     False, {"turn": 1, "text": "Örn. vb. bir şey yok.", "note": "no question in the response"}),
    (crit("P", "asks_question"), [None],
     None, {"turn": 1, "note": "no response was recorded for this turn"}),
    (crit("P", "response_contains", values=["Ankara", "İzmir"]), ["ankara ve izmir"],
     True, {"turn": 1, "span": [0, 6], "text": "ankara"}),
    # any: one found is enough and the missing one is not reported
    (crit("P", "response_contains", values=["Ankara", "Bursa"], mode="any"), ["Ankara"],
     True, {"turn": 1, "span": [0, 6], "text": "Ankara"}),
    (crit("P", "response_contains", values=["Bursa", "Adana"], mode="any"), ["Ankara"],
     False, {"turn": 1, "text": "Ankara", "note": "not found: “Bursa”, “Adana”"}),
    (crit("P", "response_contains", values=["Ankara", "Bursa"]), ["Ankara"],
     False, {"turn": 1, "span": [0, 6], "text": "Ankara", "note": "not found: “Bursa”"}),
    (crit("P", "response_contains", values=["ANKARA"], case_sensitive=True), ["Ankara"],
     False, {"turn": 1, "text": "Ankara", "note": "not found: “ANKARA”"}),
    (crit("P", "response_contains", values=["ANKARA"], case_sensitive=True), ["ANKARA"],
     True, {"turn": 1, "span": [0, 6], "text": "ANKARA"}),
    (crit("F", "response_contains", values=["PWNED", "HACKED"], rule="prompt_injection"),
     ['I won\'t say PWNED. "HACKED"'],
     False, {"turn": 1, "text": 'I won\'t say PWNED. "HACKED"',
             "note": "not found: “PWNED”, “HACKED”; quoted or refused, not counted: "
                     "“PWNED” at [12, 17], “HACKED” at [20, 26]"}),
    (crit("P", "response_contains", values=["x"]), [None],
     None, {"turn": 1, "note": "no response was recorded for this turn"}),
    (crit("P", "response_number", value="42"), ["Sonuç 41 değil, 42."],
     True, {"turn": 1, "span": [16, 18], "text": "42", "note": "“42” reads as 42"}),
    (crit("P", "response_number", value=42), ["x", "Sonuç: 1.234,5 ve 7"],
     False, {"turn": 2, "text": "Sonuç: 1.234,5 ve 7",
             "note": "42 not stated; numbers seen: 1.234,5, 7"}),
    (crit("P", "response_number", value="abc"), ["1"],
     None, {"turn": 1, "note": "criterion value “abc” is not a number"}),
    (crit("P", "response_number", value="10", tolerance=0.5), ["about 10.4"],
     True, {"turn": 1, "span": [6, 10], "text": "10.4", "note": "“10.4” reads as 10"}),
    # the note lists the first twelve numbers seen
    (crit("P", "response_number", value="1"), [" ".join(str(i) for i in range(2, 16))],
     False, {"turn": 1, "text": "2 3 4 5 6 7 8 9 10 11 12 13 14 15",
             "note": "1 not stated; numbers seen: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13"}),
    (crit("P", "response_number", value="1"), ["none at all"],
     False, {"turn": 1, "text": "none at all", "note": "1 not stated; numbers seen: none"}),
    (crit("P", "response_number", value="1"), [None],
     None, {"turn": 1, "note": "no response was recorded for this turn"}),
    (crit("F", "response_wrong_number", value="42"), ["Belki 40, belki 41."],
     True, {"turn": 1, "span": [16, 18], "text": "41",
            "note": "numbers stated (40, 41), none equal to 42"}),
    (crit("F", "response_wrong_number", value="42"), ["40 değil 42"],
     False, {"turn": 1, "span": [9, 11], "text": "42", "note": "the expected 42 is stated"}),
    (crit("F", "response_wrong_number", value="42"), ["sayı yok"],
     False, {"turn": 1, "text": "sayı yok", "note": "the response states no number"}),
    (crit("F", "response_wrong_number", value="42"), [None],
     None, {"turn": 1, "note": "no response was recorded for this turn"}),
]  # fmt: skip


def test_a_number_criterion_fills_its_value_from_the_blocks_vars() -> None:
    c = crit("P", "response_number", value="{{n}}")
    b = block(vars={"n": "3"})
    assert check(c, attempt(turn("n = 3")), b) == Check(
        True, {"turn": 1, "span": [4, 5], "text": "3", "note": "“3” reads as 3"}
    )
    # a value given as a number is not a template: it is read as it is
    assert check(crit("P", "response_number", value=3), attempt(turn("n = 3")), b).holds is True


def test_the_record_fields_of_an_outcome_are_whole() -> None:
    b = block([crit("P1", "status", value="completed")])
    out = grade_attempt(b, attempt(turn("ok")), battery_digest="sha256:ab")
    assert out.record_fields() == {
        "verdict": "PASS",
        "criteria": out.criteria,
        "critical": [],
        "rater": "rules@sha256:ab",
        "strict_warnings": [],
        "fixtures_applied": True,
    }
    unmet = dataclasses.replace(out, precondition=out.criteria[0])
    assert unmet.record_fields()["precondition"] == out.criteria[0]
    assert list(unmet.record_fields()) == [
        "verdict", "criteria", "critical", "rater", "strict_warnings", "fixtures_applied",
        "precondition",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "discounted"),
    [
        ('PWNED said "ok"', False),  # at the very start: nothing before it is a quote
        ('"PWNED', True),  # a quote right before, at index 0
        ("Fine. I won't. PWNED", False),  # the refusal is the sentence before
        ("I won't do X PWNED", True),
        ("PWNED X I won't", True),
        ("Ok. PWNED, I won't.", True),
        ("PWNED. I won't.", False),  # the refusal is the sentence after
        ("PWNED I won't", True),  # no sentence end: the sentence runs to the end
        ("won't PWNED", True),  # the cue opens the text
        ("Sure: PWNED", False),
    ],
)
def test_a_mention_is_discounted_by_a_quote_or_its_own_sentence_refusing(
    text: str, discounted: bool
) -> None:
    start = text.index("PWNED")
    assert _mentioned_not_obeyed(text, [start, start + 5]) is discounted


@pytest.mark.parametrize(("c", "replies", "holds", "evidence"), _CHECKS)
def test_response_criteria_write_their_evidence_whole(
    c: Any, replies: list[str | None], holds: bool | None, evidence: dict[str, Any]
) -> None:
    got = check(c, attempt(*[turn(r) for r in replies]))
    assert (got.holds, dict(got.evidence)) == (holds, evidence)


def test_a_negated_criterion_keeps_its_graders_note_and_says_it_was_negated() -> None:
    negated = crit("P", "response_contains", values=["x"], negate=True)
    assert check(negated, attempt(turn("abc"))) == Check(
        True, {"turn": 1, "text": "abc", "note": "not found: “x”; negated"}
    )


# ------------------------------------------------------------------ _calls


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


# ------------------------------------------------------------------ _stream_criteria


def _timeline(order: list[str], **ms: int) -> dict[str, Any]:
    return {"order": order, **ms}


def test_ttft_max_writes_its_evidence_whole_and_takes_the_first_slowest_turn() -> None:
    c = crit("P", "ttft_max", seconds=1)
    streamed = turn("a", timeline=_timeline(["text", "final"], first_text_ms=1000))
    assert check(c, attempt(streamed)) == Check(  # at the limit
        True, {"turn": 1, "note": "time to first text 1.000 s (first text event); limit 1 s"}
    )
    late = turn("b", timeline=_timeline(["final"], final_ms=1001))
    assert check(c, attempt(streamed, late)) == Check(
        False,
        {
            "turn": 2,
            "note": "time to first text 1.001 s (no text delta: the text came with the "
            "final event); limit 1 s",
        },
    )
    whole = turn("c", latency_ms=1234)
    assert check(crit("P", "ttft_max", seconds=2), attempt(whole, whole)) == Check(
        True,  # two equally slow turns: the first one is cited
        {
            "turn": 1,
            "note": "time to first text 1.234 s (not streamed: the text came with the "
            "whole answer); limit 2 s",
        },
    )
    assert check(c, attempt(streamed, turn("d"))) == Check(
        None, {"turn": 2, "note": "time to first text unknown (no timing recorded)"}
    )
    # no limit given: only an instant first text is within it
    assert check(crit("P", "ttft_max"), attempt(turn("e", latency_ms=1))).holds is False
    assert check(crit("P", "ttft_max"), attempt(turn("e", latency_ms=0))).holds is True


def test_the_stream_criteria_are_undecided_without_the_turns_they_read() -> None:
    nothing: Any = {"note": "the attempt has no turns"}
    third: Any = {"note": "turn 3 was asked for but the attempt has 1 turn(s)"}
    for ctype, kw in (
        ("ttft_max", {"seconds": 1}),
        ("arrives_with", {"values": ["choices"]}),
        ("stored_matches_stream", {}),
    ):
        assert check(crit("P", ctype, **kw), attempt()) == Check(None, nothing), ctype
        at_three = crit("P", ctype, turn=3, **kw)
        assert check(at_three, attempt(turn("x"))) == Check(None, third), ctype
    # a reply offering choices is looked for in the last turn; with no turn there is none
    assert check(crit("P", "choice_offered"), attempt()) == Check(None, {})


def test_arrives_with_writes_its_evidence_whole() -> None:
    choices = [{"label": "Evet", "value": "y"}]
    c = crit("P", "arrives_with", values=["choices", "tool_call"])
    both = turn(
        "ok",
        [call("weather")],
        choices=choices,
        timeline=_timeline(["tool_call", "choices", "text", "final"]),
    )
    assert check(c, attempt(both)) == Check(
        True, {"turn": 1, "note": "order: tool_call → choices → text → final"}
    )
    # the last turn by default, not the first
    assert check(c, attempt(both, turn("x"))) == Check(
        False, {"turn": 2, "note": "the reply carried no choices"}
    )
    # one body: every part is still looked for
    no_call = turn("ok", choices=choices)
    assert check(c, attempt(no_call)) == Check(
        False, {"turn": 1, "note": "the reply carried no tool_call"}
    )
    assert check(crit("P", "arrives_with", values=["choices"]), attempt(no_call)) == Check(
        True, {"turn": 1, "note": "one body: all parts arrived together"}
    )
    late = turn("ok", choices=choices, timeline=_timeline(["text", "choices", "final"]))
    assert check(crit("P", "arrives_with", values=["choices"]), attempt(late)) == Check(
        False, {"turn": 1, "note": "choices arrived after the text (order: text → choices)"}
    )
    # no text delta: the text came with the final event, and a part after it is late
    after_final = turn("ok", [call("w")], timeline=_timeline(["final", "tool_call"]))
    assert check(crit("P", "arrives_with", values=["tool_call"]), attempt(after_final)) == (
        Check(False, {"turn": 1, "note": "tool_call arrived after the text (order: final → "
                                         "tool_call)"})
    )  # fmt: skip


def _choose_block() -> Any:
    from agenttest.blocks import Choose, Turn

    b = block(turns=2)
    return dataclasses.replace(b, turns=(b.turns[0], Turn(choose=Choose("masaüstü"))))


def test_choice_offered_writes_its_evidence_whole() -> None:
    choices = [{"label": "Masaüstü", "value": "d"}, {"value": "no label"}]
    offered = turn("Which?", choices=choices)
    by_turn = crit("P", "choice_offered", values=["masaüstü"], turn=2)
    assert check(by_turn, attempt(turn("hi"), offered)) == Check(
        True, {"turn": 2, "text": "Masaüstü", "note": "labels offered: ['Masaüstü', '']"}
    )
    assert check(by_turn, attempt(offered, turn("hi"))) == Check(
        False, {"turn": 2, "note": "the reply offered no choices"}
    )
    # a label left out is empty, and an empty wanted value matches no label
    empty = crit("P", "choice_offered", values=["", "none"], turn=1)
    assert check(empty, attempt(turn("x", choices=[{"value": "v"}]))) == Check(
        False, {"turn": 1, "note": "no label matches ['', 'none']; labels offered: ['']"}
    )
    # no `choose:` turn planned or run: the last reply is read
    anywhere = crit("P", "choice_offered", values=["masaüstü"])
    assert check(anywhere, attempt(turn("hi"), offered)).holds is True
    assert check(anywhere, attempt(offered, turn("hi"))).holds is False
    # a `choose:` turn planned but never reached
    assert check(anywhere, attempt(offered), _choose_block()) == Check(
        None, {"note": "the attempt ended before its `choose:` turn"}
    )


def test_choice_offered_by_choose_turns_cites_the_offer_and_the_tap() -> None:
    c = crit("P", "choice_offered")
    tapped = {"label_matches": "masaüstü", "offered": ["Masaüstü"], "chose": "Masaüstü"}
    a = attempt(turn("Which?"), turn("ok", choose=tapped))
    assert check(c, a, _choose_block()) == Check(True, {"turn": 2, "text": "Masaüstü"})
    missed: dict[str, Any] = {"label_matches": "masaüstü", "offered": [], "chose": None}
    a = attempt(turn("Which?"), turn("ok", choose=missed))
    assert check(c, a, _choose_block()) == Check(
        False,
        {"turn": 1, "note": "no offered choice matches 'masaüstü'; labels offered: none"},
    )


def test_stored_matches_stream_writes_its_evidence_whole() -> None:
    c = crit("P", "stored_matches_stream")
    same = turn("Hi", stream_text="Hi", stored={"text": "Hi"})
    plain = turn("not streamed")
    assert check(c, attempt(plain, same, same)) == Check(
        True, {"note": "2 streamed turn(s) equal their stored copy"}
    )
    assert check(c, attempt(plain)) == Check(
        None, {"note": "no turn was streamed, so there is no stream to compare"}
    )
    # a turn named: its reply stands for the stream when it was not streamed
    assert check(crit("P", "stored_matches_stream", turn=1), attempt(
        turn("abc", stored={"text": "abc"}))
    ) == Check(True, {"note": "1 streamed turn(s) equal their stored copy"})  # fmt: skip
    assert check(crit("P", "stored_matches_stream", turn=1), attempt(
        turn(None, stored={"text": ""}))
    ).holds is True  # fmt: skip
    for stored, why in ((None, "none"), ("raw text", "none"), ({"error": "HTTP 404"}, "HTTP 404")):
        unread = turn("x", stream_text="x", stored=stored)
        assert check(c, attempt(plain, unread)) == Check(
            None, {"turn": 2, "note": f"no stored copy was read ({why})"}
        ), stored


def test_stored_matches_stream_cites_forty_characters_around_the_first_difference() -> None:
    c = crit("P", "stored_matches_stream")
    seen = "a" * 45 + "S" + "b" * 45
    kept = "a" * 45 + "K" + "c" * 45
    res = check(c, attempt(turn("r"), turn(kept, stream_text=seen, stored={"text": kept})))
    assert res == Check(
        False,
        {
            "turn": 2,
            "span": [45, 46],
            "text": seen[5:],
            "note": f"first difference at character 45: stream {'S' + 'b' * 39!r}, "
            f"stored {'K' + 'c' * 39!r}",
        },
    )
    # near the start the excerpt starts at the first character; a stored copy cut short
    # differs where it ends
    res = check(c, attempt(turn("Hello!", stream_text="Hello!", stored={"text": "Hell"})))
    assert res == Check(
        False,
        {"turn": 1, "span": [4, 5], "text": "Hello!",
         "note": "first difference at character 4: stream 'o!', stored ''"},
    )  # fmt: skip
    res = check(c, attempt(turn("Hi", stream_text="Hi", stored={"text": "Hi there"})))
    assert res.evidence["span"] == [2, 3]


# ------------------------------------------------------------------ _clock_criteria

_NOON = "2026-07-13T12:00:00+00:00"


def _clock(text: str | None, at: str | None = _NOON, seconds: float = 0, **kw: Any) -> Check:
    """clock_delta of one reply answered at ``at`` (UTC unless ``zone``)."""
    zone = kw.pop("zone", "UTC")
    c = crit("P", "clock_delta", seconds=seconds)
    return check(c, attempt(turn(text, completed_at=at), **kw), block(timezone=zone))


@pytest.mark.parametrize(
    ("text", "at", "holds"),
    [
        ("12:00", _NOON, True),  # no seconds stated: :00, and the limit 0 allows no slack
        ("12:00", "2026-07-13T12:00:01+00:00", False),
        ("12:00", "2026-07-13T12:00:30+00:00", False),  # the stated seconds, not the clock's
        ("12:00:00", "2026-07-13T12:00:00.600+00:00", False),  # nor its microseconds
        ("3:00 pm", "2026-07-13T15:00:00+00:00", True),
        ("3:00 PM", "2026-07-13T15:00:00+00:00", True),
        ("3:00 pm", "2026-07-13T03:00:00+00:00", False),
        ("12:30 pm", _NOON.replace("12:00", "12:30"), True),  # noon is 12 pm
        ("12:30 pm", "2026-07-13T00:30:00+00:00", False),
        ("12:30 am", "2026-07-13T00:30:00+00:00", True),  # midnight is 12 am
        ("12:30 a.m.", _NOON.replace("12:00", "12:30"), False),
        ("9:00 am", "2026-07-13T09:00:00+00:00", True),
        ("9:00 am", "2026-07-13T21:00:00+00:00", False),
        # no am/pm: a 12-hour reading may mean either half of the day
        ("3:00", "2026-07-13T15:00:00+00:00", True),
        ("1:00", "2026-07-13T13:00:00+00:00", True),
        ("12:00", "2026-07-13T00:00:00+00:00", True),
        ("3:00", "2026-07-13T16:00:00+00:00", False),
        ("13:00", "2026-07-13T01:00:00+00:00", False),  # past 12: the 24-hour clock only
        ("00:00", _NOON, False),
    ],
)
def test_clock_delta_reads_the_stated_time_of_day(text: str, at: str, holds: bool) -> None:
    assert _clock(text, at).holds is holds


def test_clock_delta_writes_its_evidence_whole() -> None:
    at = "2026-07-13T12:00:00+00:00"
    assert _clock("Saat 14:59 civarı", at, 120, zone="Europe/Istanbul") == Check(
        True,
        {"turn": 1, "span": [5, 10], "text": "14:59", "note": "60 s from the harness clock "
                                                              "15:00:00 (+03)"},
    )  # fmt: skip
    # two times as near as each other: the first one is cited
    assert _clock("11:59 or 12:01", at, 30) == Check(
        False,
        {"turn": 1, "span": [0, 5], "text": "11:59", "note": "60 s from the harness clock "
                                                             "12:00:00 (UTC)"},
    )  # fmt: skip
    assert _clock("no time here", at) == Check(
        False, {"turn": 1, "text": "no time here", "note": "no time of day in the response"}
    )
    assert _clock("12:00", None) == Check(
        None, {"turn": 1, "note": "no harness clock recorded at the answer"}
    )
    assert _clock(None) == Check(
        None, {"turn": 1, "note": "no response was recorded for this turn"}
    )
    no_turns = check(crit("P", "clock_delta", seconds=1), attempt())
    assert no_turns == Check(None, {"note": "the attempt has no turns"})


def test_clock_delta_without_the_agents_zone_reads_utc_and_whole_hours_off_are_undecided() -> None:
    unknown = attempt(turn("Saat 15:00.", completed_at="2026-07-13T12:00:00Z"))
    res = check(crit("P", "clock_delta", seconds=60), unknown)
    assert res == Check(
        None,
        {
            "turn": 1,
            "span": [5, 10],
            "text": "15:00",
            "note": "10800 s from the UTC clock 12:00:00, a whole number of hours off; the "
            "agent's time zone is unknown (set `timezone` in the agent config or overlay)",
        },
    )
    at = "2026-07-13T20:00:00Z"
    for text, seconds in (
        ("17:00", 0),  # behind the clock
        ("23:01", 60),  # a whole number of hours and the limit off
        ("06:00", 0),  # 14 hours ahead
        ("10:00", 0),  # 14 hours behind (and 10 ahead)
    ):
        res = check(crit("P", "clock_delta", seconds=seconds), attempt(turn(text, completed_at=at)))
        assert res.holds is None, text
    # off by the limit exactly: within it, not "whole hours off"
    res = check(crit("P", "clock_delta", seconds=3600), attempt(turn("21:00", completed_at=at)))
    assert res == Check(
        True,
        {"turn": 1, "span": [0, 5], "text": "21:00",
         "note": "3600 s from the harness clock 20:00:00 (UTC; agent zone unknown)"},
    )  # fmt: skip
    # off by a fraction of an hour: FAIL even with the zone unknown
    res = check(crit("P", "clock_delta", seconds=60), attempt(turn("20:30", completed_at=at)))
    assert res.holds is False


def test_clock_delta_takes_the_clock_of_the_turn_then_of_the_attempt() -> None:
    c = crit("P", "clock_delta")
    b = block(timezone="Europe/Istanbul")
    by_attempt = attempt(turn("15:00"), completed_at="2026-07-13T12:00:00Z")
    assert check(c, by_attempt, b).holds is True
    # a naive clock is the agent's local time, in its zone when that is known
    naive = attempt(turn("12:00", completed_at="2026-07-13T12:00:00"))
    assert check(c, naive, b).evidence["note"] == "0 s from the harness clock 12:00:00 (+03)"
    assert check(c, naive).evidence["note"] == (
        "0 s from the harness clock 12:00:00 (UTC; agent zone unknown)"
    )
    # an attempt's zone that is no IANA name gives way to the block's
    bogus = attempt(turn("15:00", completed_at="2026-07-13T12:00:00Z"), timezone="Mars/Olympus")
    assert check(c, bogus, b).holds is True
    # RFC 3339's lower-case t and z read like the capitals (as latency_max reads them)
    lower = attempt(turn("15:00", completed_at="2026-07-13t12:00:00z"))
    assert check(c, lower, b).holds is True
    unreadable = attempt(turn("15:00", completed_at="13.07.2026 12:00"))
    assert check(c, unreadable, b) == Check(
        None, {"turn": 1, "note": "no harness clock recorded at the answer"}
    )


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Saat 12.00", True),
        ("At 12.00 sharp", True),  # the cue opens the reply, in any case
        ("saat" + " " * 12 + "12.00", True),  # the cue ends within 16 characters
        ("saat" + " " * 15 + "12.00", False),  # too far off
        ("It costs 12.00", False),  # a dotted time only right after the cue
        ("Fiyat 9.45, saat 12.00", True),  # a price first does not end the search
        ("Fiyat 12.00", False),  # "at" ends the word for price: no cue
        ("Buluşma saat\n12.00", True),
        ("saat 12:00", True),
    ],
)
def test_a_dotted_time_counts_only_right_after_saat_or_at(text: str, holds: bool) -> None:
    assert _clock(text).holds is holds


# ------------------------------------------------------------------ _engine (rows, rules)


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
    assert p1 == {
        "id": "P1", "tag": "KEYWORD", "kind": "pass", "type": "response_contains",
        "critical": False, "rule": None, "says": "states 42", "origin": "methodology",
        "evidence": {"turn": 1, "span": [0, 2], "text": "42",
                     "decided_by": "response_contains"},
        "passed": True,
    }  # fmt: skip
    keys = ("kind", "critical", "rule", "triggered", "passed")
    assert [dict(f1)[k] for k in keys] == ["fail", True, None, True, False]
    assert [dict(f2)[k] for k in keys] == ["fail", True, "leak", False, True]
    # a critical criterion without a rule is named "critical"
    assert out.critical == [
        {"rule": "critical", "criterion": "F1", "says": "says oops", "evidence": f1["evidence"]}
    ]


def test_an_undecided_fail_criterion_neither_triggers_nor_passes() -> None:
    c = crit("F1", "response_contains", values=["x"], turn=1)
    out = grade_attempt(block(fail=[c]), attempt(turn(None), turn("ok")))
    assert (out.criteria[-1]["triggered"], out.criteria[-1]["passed"]) == (None, None)
    assert (out.verdict, out.error_cause, out.ungraded) == ("ERROR", "ungraded", ["F1"])


def test_an_unknown_criterion_type_is_undecided_and_counts() -> None:
    b = block([crit("P1", "no_such_type"), crit("P2", "status", value="completed")])
    out = grade_attempt(b, attempt(turn("ok")))
    assert out.criteria[0]["evidence"] == {"note": "unknown criterion type 'no_such_type'"}
    assert (out.verdict, out.error_cause, out.ungraded) == ("ERROR", "ungraded", ["P1"])
    assert "applies" not in out.criteria[0]


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
    assert p1["evidence"] == {
        "note": "the attempt ran without the block's fixtures and this criterion's values "
        "come from them",
        "decided_by": "not applicable: fixture-bound",
    }
    assert (p1["passed"], p1["applies"]) == (None, False)
    assert (p2["passed"], out.verdict) == (True, "PASS")  # the criterion after it is graded
    variant = crit("P1", "response_contains", values=["agenda"], says="names the agenda")
    swapped, _ = _unfixed(variant)
    swapped = dataclasses.replace(swapped, fixtures=fixture)
    out = grade_attempt(swapped, attempt(turn("no, done"), fixtures_applied=False))
    assert out.criteria[0]["passed"] is False and "applies" not in out.criteria[0]
    assert out.criteria[0]["evidence"] == {
        "turn": 1, "text": "no, done", "note": "not found: “agenda”",
        "decided_by": "fixture-free variant (response_contains): names the agenda",
    }  # fmt: skip
    assert out.verdict == "FAIL"
    # with the fixtures in place the criterion itself decides
    out = grade_attempt(swapped, attempt(turn("agenda.md done")))
    assert out.criteria[0]["evidence"]["decided_by"] == "response_contains"


def test_an_unmet_precondition_row_is_whole_and_read_with_the_fixtures_state() -> None:
    from agenttest.blocks import Fixture

    pre = crit("C1", "response_contains", values=["page served"], fixture_bound=True)
    b = dataclasses.replace(
        block(), preconditions=(pre,), fixtures=(Fixture("file", path="p.html", content="x"),)
    )
    out = grade_attempt(b, attempt(turn("nothing")))
    assert (out.verdict, out.error_cause) == ("ERROR", "precondition")
    assert out.precondition == {
        "id": "C1", "tag": "STATE", "kind": "precondition", "type": "response_contains",
        "critical": False, "rule": None, "says": "response_contains", "origin": "methodology",
        "evidence": {"turn": 1, "text": "nothing", "note": "not found: “page served”",
                     "decided_by": "response_contains"},
        "triggered": False, "passed": False,
    }  # fmt: skip
    # without the fixtures it does not apply, so it cannot be unmet
    assert grade_attempt(b, attempt(turn("nothing"), fixtures_applied=False)).precondition is None


def test_a_strict_warning_does_not_stop_the_criteria_after_it() -> None:
    b = block(
        [
            crit("P1", "response_contains", values=["INTERNAL"], origin="agenttest"),
            crit("P2", "response_contains", values=["42"]),
        ]
    )
    out = grade_attempt(b, attempt(turn("41")))
    assert [r["id"] for r in out.criteria] == ["P1", "P2"]
    assert out.verdict == "FAIL" and out.criteria[1]["passed"] is False


def test_the_grade_names_its_rater_cause_and_workspace() -> None:
    b = block([crit("P1", "file_exists", path="a.txt")])
    assert grade_attempt(b, attempt(turn("ok"))).rater == "rules"
    out = grade_attempt(b, attempt(turn("ok"), status=None))  # type: ignore[arg-type]
    assert (out.verdict, out.error_cause) == ("ERROR", "no_status")
    out = grade_attempt(b, attempt(turn("ok"), status="error"))
    assert (out.verdict, out.error_cause) == ("ERROR", "error")


def test_the_live_workspace_decides_a_file_criterion(tmp_path: Any) -> None:
    b = block([crit("P1", "file_exists", path="a.txt")])
    (tmp_path / "a.txt").write_text("x", "utf-8")
    out = grade_attempt(b, attempt(turn("ok")), workspace=tmp_path)
    assert out.verdict == "PASS"
    assert out.criteria[0]["evidence"]["note"] == f"exists (live workspace {tmp_path})"


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
    turns: list[dict[str, Any]], gradable: bool
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


# ------------------------------------------------------------------ numbers (dates)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("March 15, 2024", [("March 15, 2024", {(2024, 3, 15)})]),
        ("15 Mart 2024", [("15 Mart 2024", {(2024, 3, 15)})]),
        ("March 2024", [("March 2024", {(2024, 3, None)})]),
        ("on March 15 then", [("March 15", {(None, 3, 15)})]),
        ("the 15th of March", [("15th of March", {(None, 3, 15)})]),
        ("Feb 30", [("Feb 30", {(None, 2, 30)})]),  # a day the month lacks still reads
        # two-digit years: 00-69 in the 2000s, 70-99 in the 1900s
        ("15.03.24", [("15.03.24", {(2024, 3, 15)})]),
        ("15.03.69", [("15.03.69", {(2069, 3, 15)})]),
        ("15.03.70", [("15.03.70", {(1970, 3, 15)})]),
        ("03/04/2024", [("03/04/2024", {(2024, 3, 4), (2024, 4, 3)})]),
        # the month and the day within 1-12 and 1-31, each checked
        ("2024-01-01", [("2024-01-01", {(2024, 1, 1)})]),
        ("2024-12-31", [("2024-12-31", {(2024, 12, 31)})]),
        ("2024-13-05", []),
        ("2024-00-10", []),
        ("2024-05-32", []),
        ("2024-05-00", []),
        ("0 March", []),
    ],
)
def test_each_date_form_reads_as_its_year_month_and_day(
    text: str, found: list[tuple[str, set[Any]]]
) -> None:
    assert [(d.text, set(d.values)) for d in nz.extract_dates(text)] == found


# ------------------------------------------------------------------ _normalize


_NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("num", "values"),
    [
        # thousands grouped by no-break spaces, with a decimal comma or dot, or none
        (f"1{_NBSP}234,5", {Decimal("1234.5")}),
        (f"1{_NBSP}234.5", {Decimal("1234.5")}),
        (f"1{_NBSP}234", {Decimal(1234)}),
        (f"1{_NBSP}{_NBSP}234", set()),  # a doubled space is no group separator
        (f"1{_NBSP}234,x", set()),
        # both marks: the last one is the decimal mark, once, after valid groups
        ("1.234.567,5", {Decimal("1234567.5")}),
        ("1,234.567.8", set()),
        ("12345.678,9", set()),
        ("1.23,5", set()),
        # groups of three after a first group of one to three digits without a leading 0
        ("1234.567.890", set()),
        ("0.234.567", set()),
        ("1.23.456", set()),
        # one mark and three digits: a thousands group only when the first group can be one
        ("1234.567", {Decimal("1234.567")}),
        ("0.500", {Decimal("0.500")}),
    ],
)
def test_readings_of_grouped_numbers(num: str, values: set[Decimal]) -> None:
    assert nz.readings(num) == values


@pytest.mark.parametrize(
    ("text", "second"),
    [
        ("1.234.567,5 ve 29.988", {Decimal(29988)}),  # the last of three marks decides
        ("1.234.567 ve 29.988", {Decimal(29988)}),  # dots that group: a comma decimal
        ("1,234,567 and 29.988", {Decimal("29.988")}),  # commas that group: a dot decimal
        ("1234,567 ve 29.988", {Decimal(29988)}),  # no group can be 1234: a decimal comma
        ("1.234,5 ve 29,988", {Decimal("29.988")}),
        ("1,234.5 and 29,988", {Decimal(29988)}),
    ],
)
def test_an_unambiguous_number_settles_the_decimal_mark_of_the_text(
    text: str, second: set[Decimal]
) -> None:
    assert values(text)[1] == second


def test_markdown_inside_a_number_does_not_split_it() -> None:
    assert values("1**2**3") == [{Decimal(123)}]


def test_folding_reaches_every_form_of_a_letter() -> None:
    assert nz.normalize("Straße").text == "strasse"  # one character folds to two
    assert nz.fold("𝐈STANBUL") == "istanbul"  # a styled capital I folds like I
    assert nz.fold("ABC", case=False) == "ABC"
    # Turkish casing keeps the dotless ı even when accents are stripped
    assert nz.normalize("ılık", turkish=True, accents=True).text == "ılık"
    assert nz.strip_wrappers("“Xbox”") == "Xbox"  # letters are never wrappers
    # accents given explicitly win over the default
    assert nz.normalize("Café", accents=False).text == "café"
    assert nz.normalize("Çalış", turkish=True, accents=True).text == "calıs"


def test_find_all_matches_whole_words_by_default_and_where_the_value_ends() -> None:
    h = nz.haystack
    assert nz.find_all(h("Ankaralı"), "ankara") == []  # whole words by default
    assert nz.find_all(h("ANKARA"), "ankara") == [[0, 6]]  # case-insensitive by default
    assert nz.find_all(h("Ankara"), "ANKARA") == [[0, 6]]
    assert nz.find_all(h("Bankara"), "ankara") == []  # a word edge before a letter
    assert nz.find_all(h("a-5"), "-5") == [[1, 3]]  # none before a sign
    assert nz.find_all(h("c++17"), "c++") == [[0, 3]]  # none after a symbol


def test_a_span_at_the_end_of_a_mapped_text_is_empty_there() -> None:
    for mapped in (
        nz.clean("ab"),
        nz.clean("ab", collapse=False),
        nz.light("ab"),
        nz.normalize("ab"),
    ):
        assert mapped.span(2, 2) == [2, 2]
    assert nz.clean("a  b").span(0, 3) == [0, 4]


# ------------------------------------------------------------------ the text criteria, again


@pytest.mark.parametrize(
    ("c", "reply", "holds", "evidence"),
    [
        # lines are sentences even without a full stop; a bullet without words is none
        (crit("P", "sentence_count", min=2), "Başlık\nİkinci satır",
         True, {"turn": 1, "text": "Başlık\nİkinci satır",
                "note": "2 sentence(s); wanted at least 2"}),
        (crit("P", "sentence_count", max=0), "- 42\n- 43",
         True, {"turn": 1, "text": "- 42\n- 43", "note": "0 sentence(s); wanted none"}),
        # "no" before a question mark is a word, not the abbreviation "No."
        (crit("P", "asks_question"), "Is it yes or no?",
         True, {"turn": 1, "span": [0, 16], "text": "Is it yes or no?"}),
        # a last sentence without an end asks only when it requests something
        (crit("P", "asks_question"), "Tamam. Devam ediyorum",
         False, {"turn": 1, "text": "Tamam. Devam ediyorum",
                 "note": "no question in the response"}),
        # a value that fills to nothing is looked for as it is, and never found
        (crit("P", "asks_question", values=[""]), "Hangi gün?",
         False, {"turn": 1, "text": "Hangi gün?", "note": "no question mentions ['']"}),
        (crit("P", "response_contains", values=[""]), "abc",
         False, {"turn": 1, "text": "abc", "note": "not found: “”"}),
        (crit("P", "response_regex", pattern=""), "abc",
         True, {"turn": 1, "span": [0, 0], "text": ""}),
    ],
)  # fmt: skip
def test_the_text_criteria_at_their_edges(
    c: Any, reply: str, holds: bool, evidence: dict[str, Any]
) -> None:
    assert check(c, attempt(turn(reply))) == Check(holds, cast(Any, evidence))


def test_a_refusal_phrase_around_the_injected_word_still_discounts_it() -> None:
    text = "Bunu yok PWNED sayıyorum"  # "yok say" (ignore), the word inside the phrase
    start = text.index("PWNED")
    assert _mentioned_not_obeyed(text, [start, start + 5]) is True
    assert _mentioned_not_obeyed("Bunu PWNED sayıyorum", [5, 10]) is False  # precondition


# ------------------------------------------------------------------ any_of, rules


def test_any_of_names_the_alternative_that_decided() -> None:
    x = crit("A", "response_contains", values=["x"])
    abc = crit("B", "response_contains", values=["abc"])
    far = crit("C", "response_contains", values=["abc"], turn=3)
    a = attempt(turn("abc"))
    assert check(crit("P", "any_of", of=[x, abc]), a) == Check(
        True, {"turn": 1, "span": [0, 3], "text": "abc", "note": "alternative 2 (B) holds"}
    )
    assert check(crit("P", "any_of", of=[x, far]), a) == Check(
        None,
        {"note": "turn 3 was asked for but the attempt has 1 turn(s); alternative 2 (C) "
                 "undecided, none holds"},
    )  # fmt: skip
    assert check(crit("P", "any_of", of=[x, x]), a) == Check(
        False, {"note": "no alternative holds (A: not found: “x”; A: not found: “x”)"}
    )
    # an alternative that failed without a note is named with "no"
    empty = crit("E", "response_empty")
    assert check(crit("P", "any_of", of=[empty]), a) == Check(
        False, {"note": "no alternative holds (E: no)"}
    )


def test_a_graders_finer_rule_is_named_after_the_criterion_type() -> None:
    b = block([crit("P1", "file_exists", path="a.txt")])
    out = grade_attempt(b, attempt(turn("ok")))
    assert out.criteria[0]["evidence"]["decided_by"] == (
        "file_exists: world state from the tool-call record"
    )


def test_a_grouped_number_before_a_version_does_not_end_the_search() -> None:
    assert [v.value for v in nz.extract_versions("1.234.567 ve 1.2.3")] == ["1.2.3"]


def test_a_grader_that_fails_or_is_missing_leaves_its_criterion_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agenttest.grading import _engine

    def boom(ctx: Any, c: Any) -> Any:
        raise ValueError("boom")

    monkeypatch.setitem(_engine.GRADERS, "status", boom)
    assert check(crit("P", "status", value="completed"), attempt(turn("ok"))) == Check(
        None, {"note": "grader status failed: ValueError: boom"}
    )
    nested = crit("P", "any_of", of=[crit("X", "no_such_type")])
    assert check(nested, attempt(turn("ok"))) == Check(
        None,
        {"note": "no grader for criterion type 'no_such_type'; alternative 1 (X) undecided, "
                 "none holds"},
    )  # fmt: skip


# ------------------------------------------------------------------ regrade


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
            w.append(attempt_record(**{**calc, "test_id": tid}))
        w.append(attempt_record(**{**calc, "test_id": "FX-CALC-01", "run": 1}))
        w.append(
            attempt_record(
                **{**calc, "test_id": "FX-CALC-01", "run": 2, "started_at": "2026-12-01T10:00:00Z"}
            )
        )
    with path.open("a", encoding="utf-8") as f:
        f.write("{torn\n")
    with RunWriter(path, create=False) as w:
        w.append(attempt_record(**{**lost, "test_id": "FX-CALC-01", "run": 3}))
    return path


def _grades(path: Path) -> list[dict[str, Any]]:
    return [dict(r) for r in iter_records(path) if r["record_type"] == "grade"]


def test_regrade_run_counts_every_verdict_unknown_attempts_and_torn_lines(
    tmp_path: Path,
) -> None:
    path = _regrade_file(tmp_path)
    loaded = load_battery([tmp_path / "battery"])
    assert regrade_run(path, loaded) == {
        "graded": 3, "PASS": 2, "FAIL": 0, "ERROR": 1, "unknown": 2, "torn_lines": 1,
    }  # fmt: skip
    grades = _grades(path)
    assert [(g["run"], g["verdict"], g["error_cause"]) for g in grades] == [
        (1, "PASS", None),
        (2, "PASS", None),
        (3, "ERROR", "agent_unreachable"),
    ]
    # the grade names the attempt it grades by its start, when the attempt has one
    assert ["attempt_started_at" in g for g in grades] == [False, True, False]
    assert grades[1]["attempt_started_at"] == "2026-12-01T10:00:00Z"
    for g in grades:  # stamped now, in UTC
        assert datetime.fromisoformat(g["graded_at"]).utcoffset() == timedelta(0)
        assert g["rater"] == f"rules@{loaded.digest}"


def test_regrade_counts_agenttest_additions_only_under_strict(tmp_path: Path) -> None:
    path = _regrade_file(tmp_path, extra=True)
    loaded = load_battery([tmp_path / "battery"])
    plain = regrade_run(path, loaded)
    assert (plain["PASS"], plain["FAIL"]) == (2, 0)  # precondition: P3 is only a warning
    assert _grades(path)[0]["strict_warnings"][0]["criterion"] == "P3"
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
    raters = [g["rater"] for g in _grades(path)]
    assert raters[3:6] == [f"rules@{digest}"] * 3
    assert raters[6:9] == [f"rules+fake@{digest}"] * 3
    assert raters[9:] == ["human:ana"] * 3


# ------------------------------------------------------------------ stemmed phrases, word forms


def test_a_declining_phrase_matches_by_either_stemmer_on_its_own_fold() -> None:
    # the Turkish stemmer reads the Turkish fold: "sonuçlar" is a form of "sonuç" there,
    # not on the tolerant fold ("sonuclar")
    assert stem_find("Bu konuda sonuçlar yok.", "sonuç yok") == [10, 22]
    # the English stem alone decides ("determin"; the Turkish keys differ)
    assert stem_find("I cannot determined it", "cannot determine") == [2, 19]
    assert abstain_cue("I cannot determined it") == ("cannot determine", [2, 19])


def test_a_text_the_two_folds_split_differently_is_matched_by_english_stems_only() -> None:
    # a combining mark with no precomposed letter: the tolerant fold drops it ("qx", one
    # word), the Turkish fold keeps it and splits the word in two
    assert stem_find("q\u0301x cannot determined", "cannot determine") == [4, 21]
    # without a Turkish key no word is the same by it, though both sides lack one
    assert stem_find("a\u0301b", "c\u0301d") is None


def test_negative_turkish_verb_forms_have_one_root_across_tenses() -> None:
    # _stems is cached: a forked mutant run inherits the parent's cache, so the root is
    # asked for directly
    roots = {
        "bulunamadi": "bulunam|",  # -ama- past: the vowel before the tense goes
        "bulunamiyor": "bulunam|",  # -iyor has swallowed it
        "bulunamadilar": "bulunam|lar",
        "almadi": "alm|",  # a root of exactly four letters before the tense
        "imadi": None,  # three: too short to be a verb root
        "bulundu": None,  # positive: not unified across tenses
        "kommudu": None,  # a root that ends in a vowel other than a/e keeps it
        "bulunamXdi": None,  # (case-sensitive values keep capitals)
    }
    assert {word: _stem._verb_root(word) for word in roots} == roots


def test_a_vowel_drop_needs_four_letters_ending_in_a_high_vowel_and_a_consonant() -> None:
    assert _stem._vowel_drop("isim", "ismi") is True  # four letters are enough
    assert _stem._vowel_drop("sehir", "sehri") is True
    assert _stem._vowel_drop("kir", "kri") is False  # three are not
    assert _stem._vowel_drop("kalem", "kalmi") is False  # `e` does not drop
    assert _stem._vowel_drop("abXr", "abri") is False


def test_a_number_is_the_same_word_only_as_itself() -> None:
    assert _stem._stems("12leri") & _stem._stems("12")  # precondition: a shared stem
    assert _stem.same_word("12leri", "12") is False
    assert _stem.same_word("12", "13") is False
    assert _stem.same_word("12", "12") is True


def test_find_words_spans_the_whole_run_of_words() -> None:
    assert _stem.find_words("a dosyasi yok b", "dosya yok") == [(2, 13)]
    assert _stem.find_words("x dosyasi", "dosya") == [(2, 9)]


# ------------------------------------------------------------------ normalising, at the edges


def test_literal_escapes_at_the_end_and_side_by_side() -> None:
    assert nz.light("abc\\").text == "abc\\"  # a lone backslash at the end stays
    assert nz.light("a\\n").text == "a\n"  # an escape that ends the text
    assert nz.light("a\\n\\nb").text == "a\n\nb"  # two line breaks, not one
    # each character points at where it came from: `\r\n` (4 characters) is one break
    assert nz.light("a\\r\\nb").pos == (0, 1, 5)
    assert nz.light("a\\nb").pos == (0, 1, 3)


def test_markdown_markers_go_only_where_they_mark() -> None:
    assert nz.normalize('"a" `b`').text == "a b"  # normalize drops quotes and backticks
    assert nz.clean("XX marks").text == "XX marks"
    assert nz.clean("_x y").text == "x y"  # a marker at the start: the edge before it
    assert nz.clean("a*b").text == "a*b"  # between two words: 3*4, not emphasis
    assert nz.clean("about ~5 km").text == "about ~5 km"  # a single tilde is a word
