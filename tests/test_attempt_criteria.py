"""The criteria about the attempt as a whole: status, latency_max, clock_delta and judge.

latency_max reads the attempt's own figure, then its turns' sum, then its clock; clock_delta
reads the time of day a reply states against the harness clock at the answer, in the agent's
zone (whole hours off with the zone unknown are undecided); judge asks the configured judge
about the turn, with its context and tool results, and leaves the criterion undecided when
the judge cannot decide or none is configured. The evidence is pinned whole.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from agenttest.blocks import Criterion
from agenttest.grading import Check
from agenttest.results import Attempt, Evidence

from .fixtures.grading import Seen, attempt, beyond, block, call, check, crit, got, turn

# -- status ---------------------------------------------------------------------------------------


def test_status() -> None:
    c = crit("P", "status", value="completed")
    assert check(c, attempt(turn("x"))).holds is True
    assert check(c, attempt(turn("x"), status="timeout")).holds is False


def test_status_says_what_it_got_and_wanted() -> None:
    assert got(crit("P", "status", value="completed"), attempt(turn("x"), status="timeout")) == (
        False,
        {"note": "status “timeout”; wanted “completed”"},
    )
    assert got(crit("P", "status", value="completed"), attempt(turn("x"))) == (
        True,
        {"note": "status “completed”; wanted “completed”"},
    )
    assert got(crit("P", "status", value="completed"), Attempt(test_id="", run=1)) == (
        False,
        {"note": "status “”; wanted “completed”"},
    )


# -- latency_max: the attempt's figure, its turns' sum, then its clock ----------------------------


def test_latency_max() -> None:
    c = crit("P", "latency_max", seconds=3)
    assert check(c, attempt(turn("hi"), latency_ms=1200)).holds is True
    assert check(c, attempt(turn("hi"), latency_ms=4800)).holds is False
    assert check(c, attempt(turn("hi"))).holds is None


def test_latency_reads_the_attempt_then_its_turns_then_its_clock() -> None:
    c = crit("P", "latency_max", seconds=2)
    res = check(c, attempt(turn("ok", latency_ms=900), latency_ms=2000))
    assert res == Check(
        True, Evidence(note="2.0 s (attempt latency_ms); limit 2 s")
    )  # at the limit
    assert check(c, attempt(turn("ok"), latency_ms=2001)).holds is False
    turns = attempt(turn("a", latency_ms=1200), turn("b", latency_ms=850.5))
    assert check(c, turns) == Check(
        False, Evidence(note="2.1 s (sum of the turns' latency_ms); limit 2 s")
    )
    # a turn without a figure: the sum would undercount, so the clock decides
    partial = attempt(
        turn("a", latency_ms=1200),
        turn("b"),
        started_at="2026-07-13T20:59:58+00:00",
        completed_at="2026-07-13T21:00:00+00:00",
    )
    assert check(c, partial) == Check(
        True, Evidence(note="2.0 s (completed_at - started_at); limit 2 s")
    )
    named = msgspec.structs.replace(partial, latency_source="first byte to last byte")
    assert check(c, named).evidence == Evidence(note="2.0 s (first byte to last byte); limit 2 s")
    half = attempt(turn("a"), started_at="2026-07-13T20:59:58+00:00")  # no end: no clock
    assert check(c, half) == Check(None, Evidence(note="the attempt's duration was not recorded"))
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
    assert res.evidence.note == "1.5 s (completed_at - started_at); limit 2 s"
    exact = msgspec.structs.replace(
        timed, started_at="2026-07-13T20:59:58Z"
    )  # 2000 ms: at the limit
    assert check(c, exact).holds is True
    slow = msgspec.structs.replace(timed, completed_at="2026-07-13T21:00:00.501Z")
    assert check(c, slow).holds is False  # 2001 ms
    broken = msgspec.structs.replace(timed, completed_at="not a time")
    res = check(c, broken)
    assert res.holds is None
    assert res.evidence.note == "the attempt's duration was not recorded"


def test_latency_evidence_rounds_to_a_tenth_and_names_its_source() -> None:
    c = crit("P", "latency_max", seconds=1.5)
    assert got(c, attempt(turn("ok"), latency_ms=1549)) == (
        False,
        {"note": "1.5 s (attempt latency_ms); limit 1.5 s"},
    )
    assert got(c, attempt(turn("ok"), latency_ms=1500)) == (
        True,
        {"note": "1.5 s (attempt latency_ms); limit 1.5 s"},
    )
    # an attempt's own figure wins over its turns'
    assert got(c, attempt(turn("ok", latency_ms=5000), latency_ms=10))[0] is True
    # a turn's figure that is not a number leaves the clock to decide
    mixed = attempt(turn("a", latency_ms=100), turn("b", latency_ms="fast"))
    assert got(c, mixed) == (None, {"note": "the attempt's duration was not recorded"})
    assert got(c, attempt(turn("a", latency_ms=100.5), turn("b", latency_ms=0))) == (
        True,
        {"note": "0.1 s (sum of the turns' latency_ms); limit 1.5 s"},
    )
    assert got(c, attempt(latency_ms=None)) == (
        None,
        {"note": "the attempt's duration was not recorded"},
    )


def test_the_attempts_clock_reads_rfc_3339_in_either_case() -> None:
    c = crit("P", "latency_max", seconds=2)
    lower = attempt(
        turn("ok"), started_at="2026-07-13t20:59:58.5z", completed_at="2026-07-13T21:00:00z"
    )
    assert got(c, lower) == (True, {"note": "1.5 s (completed_at - started_at); limit 2 s"})
    late = msgspec.structs.replace(lower, completed_at="2026-07-13T21:00:01Z")
    assert got(c, late) == (False, {"note": "2.5 s (completed_at - started_at); limit 2 s"})


# -- clock_delta: the stated time of day against the harness clock --------------------------------


def test_clock_delta() -> None:
    c = crit("P", "clock_delta", seconds=120)
    b = block(timezone="Europe/Istanbul")
    at = "2026-07-13T00:16:32+00:00"  # 03:16:32 in Istanbul
    assert check(c, attempt(turn("Saat şu an 03:17.", completed_at=at)), b).holds is True
    assert check(c, attempt(turn("Saat şu an 03:25.", completed_at=at)), b).holds is False
    assert check(c, attempt(turn("Saat şu an 03:17."))).holds is None  # no harness clock


def test_clock_delta_wraps_at_midnight() -> None:
    c = crit("P", "clock_delta", seconds=120)
    b = block(timezone="Europe/Istanbul")
    at = "2026-07-13T20:59:30+00:00"  # 23:59:30 in Istanbul
    assert check(c, attempt(turn("Saat 23:59.", completed_at=at)), b).holds is True
    # 30 seconds later by the clock, not 23 h 59 min earlier
    assert check(c, attempt(turn("Saat 00:00.", completed_at=at)), b).holds is True
    assert check(c, attempt(turn("Saat 00:05.", completed_at=at)), b).holds is False


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
        Evidence(turn=1, span=[5, 10], text="14:59", note="60 s from the harness clock "
                                                              "15:00:00 (+03)"),
    )  # fmt: skip
    # two times as near as each other: the first one is cited
    assert _clock("11:59 or 12:01", at, 30) == Check(
        False,
        Evidence(turn=1, span=[0, 5], text="11:59", note="60 s from the harness clock "
                                                             "12:00:00 (UTC)"),
    )  # fmt: skip
    assert _clock("no time here", at) == Check(
        False, Evidence(turn=1, text="no time here", note="no time of day in the response")
    )
    assert _clock("12:00", None) == Check(
        None, Evidence(turn=1, note="no harness clock recorded at the answer")
    )
    assert _clock(None) == Check(
        None, Evidence(turn=1, note="no response was recorded for this turn")
    )
    no_turns = check(crit("P", "clock_delta", seconds=1), attempt())
    assert no_turns == Check(None, Evidence(note="the attempt has no turns"))


def test_clock_delta_without_the_agents_zone_reads_utc_and_whole_hours_off_are_undecided() -> None:
    unknown = attempt(turn("Saat 15:00.", completed_at="2026-07-13T12:00:00Z"))
    res = check(crit("P", "clock_delta", seconds=60), unknown)
    assert res == Check(
        None,
        Evidence(
            turn=1,
            span=[5, 10],
            text="15:00",
            note="10800 s from the UTC clock 12:00:00, a whole number of hours off; the "
            "agent's time zone is unknown (set `timezone` in the agent config or overlay)",
        ),
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
        Evidence(turn=1, span=[0, 5], text="21:00", note="3600 s from the harness clock 20:00:00 (UTC; agent zone unknown)"),
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
    assert check(c, naive, b).evidence.note == "0 s from the harness clock 12:00:00 (+03)"
    assert check(c, naive).evidence.note == (
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
        None, Evidence(turn=1, note="no harness clock recorded at the answer")
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


# -- judge: the criterion's side of the judge protocol --------------------------------------------


class _Judge:
    """A judge that answers as told and keeps the requests (the criterion's side of the
    protocol; the real judge's own tests run the model)."""

    name = "stub"

    def __init__(self, verdict: str, evidence: str = "because", fail: bool = False) -> None:
        self.verdict, self.evidence, self.fail = verdict, evidence, fail
        self.requests: list[Any] = []

    def judge(self, req: Any) -> Any:
        from agenttest.judges import JudgeResult

        self.requests.append(req)
        if self.fail:
            raise RuntimeError("model gone")
        return JudgeResult(score=0.456, verdict=self.verdict, evidence=self.evidence, judge="stub")  # type: ignore[arg-type]


def judged(j: Any, a: Attempt, **kw: Any) -> Seen:
    b = block(vars={"r": "Swift 6"})
    c = crit("P", "judge", "JUDGE", rubric="grounded in {{r}}?", reference="{{r}} adds X", **kw)
    r = check(c, a, b, judge=j)
    return r.holds, msgspec.to_builtins(r.evidence)


TALK = attempt(
    turn("first", [call("search", result="page one")], prompt="hello"),
    turn("second", [call("fetch", result={"b": 2}), call("x", ok=False)], prompt="summarise"),
    turn("third", [call("late", result="after")], prompt="thanks"),
)


@pytest.mark.parametrize(
    ("verdict", "expected"), [("PASS", True), ("FAIL", False), ("ERROR", None)]
)
def test_judge_criterion_uses_the_judge_interface(verdict: str, expected: bool | None) -> None:
    c = crit("P", "judge", "JUDGE", rubric="grounded in the page?", reference="Swift 6 adds X")
    j = _Judge(verdict)
    res = check(c, attempt(turn("Swift 6 adds X", prompt="summarise")), judge=j)
    assert len(j.requests) == 1  # the judge really ran
    assert res.holds is expected


def test_judge_criterion_without_a_judge_is_ungraded_never_passed() -> None:
    c = crit("P", "judge", "JUDGE", rubric="grounded?")
    res = check(c, attempt(turn("anything")))
    assert res.holds is None and "no judge" in (res.evidence.note or "")


def test_the_judge_is_asked_about_the_turn_with_its_context_and_tool_results() -> None:
    j = _Judge("PASS", evidence="")
    assert judged(j, TALK, turn=2, asks="covers", act="answer", min=2) == (
        True,
        {"turn": 2, "text": "second", "note": "judge stub: PASS (score 0.46)"},
    )
    [req] = j.requests
    assert (req.rubric, req.reference, req.candidate) == (
        "grounded in Swift 6?",
        "Swift 6 adds X",
        "second",
    )
    assert req.context == "hello\nsummarise"
    assert (req.asks, req.act, req.min_items) == ("covers", "answer", 2)
    # every call that ran, up to the judged turn
    assert req.tool_results == 'search: page one\nfetch: {"b": 2}\nx: '
    j = _Judge("FAIL")
    assert judged(j, TALK) == (
        False,
        {"turn": 3, "text": "because", "note": "judge stub: FAIL (score 0.46)"},
    )
    [req] = j.requests
    assert (req.asks, req.act, req.min_items, req.context) == (
        "",
        "",
        None,
        "hello\nsummarise\nthanks",
    )
    assert req.tool_results.endswith("\nlate: after")


def test_a_judge_that_cannot_decide_leaves_the_criterion_undecided() -> None:
    assert judged(_Judge("ERROR"), TALK) == (
        None,
        {"turn": 3, "text": "because", "note": "judge stub: ERROR (score 0.46); could not decide"},
    )
    assert judged(_Judge("UNDECIDED"), TALK) == (
        None,
        {
            "turn": 3,
            "text": "because",
            "note": "judge stub: UNDECIDED (score 0.46); left to a human",
        },
    )
    assert judged(_Judge("PASS", fail=True), TALK) == (
        None,
        {"turn": 3, "note": "judge stub failed: model gone"},
    )
    j = _Judge("PASS")
    assert judged(j, attempt(turn("a"), turn(None))) == (
        None,
        {"turn": 2, "note": "no response to judge"},
    )
    assert j.requests == []
    assert judged(None, TALK) == (
        None,
        {
            "turn": 3,
            "note": "no judge was configured, so this JUDGE criterion is ungraded; "
            "grade again with `agenttest grade RUN --judge NAME`",
        },
    )
    assert judged(j, TALK, turn=4) == beyond(4, 3)


def got_with(c: Criterion, a: Attempt, **ctx: Any) -> Seen:
    r = check(c, a, **ctx)
    return r.holds, msgspec.to_builtins(r.evidence)


def test_the_judge_is_asked_with_empty_texts_for_what_is_not_given() -> None:
    j = _Judge("PASS")
    a = attempt(turn("x", prompt=""), turn("y"))  # a turn without a prompt
    r = check(crit("P", "judge", "JUDGE"), a, judge=j)
    assert r.holds is True
    [req] = j.requests
    assert (req.rubric, req.reference, req.context, req.tool_results) == ("", "", "\np", "")

    class Nameless:
        def judge(self, req: Any) -> Any:
            raise ValueError("no")

    assert got_with(crit("P", "judge", "JUDGE"), a, judge=Nameless()) == (
        None, {"turn": 2, "note": "judge ? failed: no"}
    )  # fmt: skip
