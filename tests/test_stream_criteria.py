"""The stream and choice criteria: ttft_max, arrives_with, choice_offered,
stored_matches_stream, and the label matching a `choose:` turn uses; each criterion's
evidence is pinned whole, and so is what it says when the turns it reads are missing."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from agenttest.grading import Check, label_matches
from agenttest.results import Evidence

from .fixtures.grading import attempt, block, call, check, crit, turn

CHOICES = [{"label": "Masaüstü klasörü", "value": "desktop"}, {"label": "Belgeler", "value": "d"}]


def timeline(order: list[str], first_text: int | None = 120, final: int = 900) -> dict[str, Any]:
    return {"first_byte_ms": 50, "first_text_ms": first_text, "final_ms": final, "order": order}


def _timeline(order: list[str], **ms: int) -> dict[str, Any]:
    return {"order": order, **ms}


# -- ttft_max: the first text of a streamed reply, or a whole body's arrival ----------------------


def test_ttft_max_streamed_and_whole_body() -> None:
    c = crit("P", "ttft_max", seconds=0.5)
    fast = turn("hi", timeline=timeline(["text", "final"]), latency_ms=900)
    assert check(c, attempt(fast)).holds is True  # 120 ms to first text, though 900 to the end
    res = check(crit("P", "ttft_max", seconds=0.1), attempt(fast))
    assert res.holds is False and "0.120 s" in (res.evidence.note or "")
    whole = turn("hi", latency_ms=900)  # not streamed: the text came with the whole body
    res = check(c, attempt(whole))
    assert res.holds is False and "not streamed" in (res.evidence.note or "")
    no_delta = turn("hi", timeline=timeline(["final"], first_text=None, final=300))
    assert check(c, attempt(no_delta)).holds is True
    # every turn by default: the slow second turn decides
    res = check(c, attempt(fast, whole))
    assert res.holds is False and res.evidence.turn == 2
    assert check(crit("P", "ttft_max", seconds=0.5, turn=1), attempt(fast, whole)).holds is True
    assert check(c, attempt(turn("hi"))).holds is None  # no timing at all: undecided


def test_ttft_max_writes_its_evidence_whole_and_takes_the_first_slowest_turn() -> None:
    c = crit("P", "ttft_max", seconds=1)
    streamed = turn("a", timeline=_timeline(["text", "final"], first_text_ms=1000))
    assert check(c, attempt(streamed)) == Check(  # at the limit
        True, Evidence(turn=1, note="time to first text 1.000 s (first text event); limit 1 s")
    )
    late = turn("b", timeline=_timeline(["final"], final_ms=1001))
    assert check(c, attempt(streamed, late)) == Check(
        False,
        Evidence(
            turn=2,
            note="time to first text 1.001 s (no text delta: the text came with the "
            "final event); limit 1 s",
        ),
    )
    whole = turn("c", latency_ms=1234)
    assert check(crit("P", "ttft_max", seconds=2), attempt(whole, whole)) == Check(
        True,  # two equally slow turns: the first one is cited
        Evidence(
            turn=1,
            note="time to first text 1.234 s (not streamed: the text came with the "
            "whole answer); limit 2 s",
        ),
    )
    assert check(c, attempt(streamed, turn("d"))) == Check(
        None, Evidence(turn=2, note="time to first text unknown (no timing recorded)")
    )
    # no limit given: only an instant first text is within it
    assert check(crit("P", "ttft_max"), attempt(turn("e", latency_ms=1))).holds is False
    assert check(crit("P", "ttft_max"), attempt(turn("e", latency_ms=0))).holds is True


def test_the_stream_criteria_are_undecided_without_the_turns_they_read() -> None:
    nothing = Evidence(note="the attempt has no turns")
    third = Evidence(note="turn 3 was asked for but the attempt has 1 turn(s)")
    for ctype, kw in (
        ("ttft_max", {"seconds": 1}),
        ("arrives_with", {"values": ["choices"]}),
        ("stored_matches_stream", {}),
    ):
        assert check(crit("P", ctype, **kw), attempt()) == Check(None, nothing), ctype
        at_three = crit("P", ctype, turn=3, **kw)
        assert check(at_three, attempt(turn("x"))) == Check(None, third), ctype
    # a reply offering choices is looked for in the last turn; with no turn there is none
    assert check(crit("P", "choice_offered"), attempt()) == Check(None, Evidence())


# -- arrives_with: what came in the stream before the final reply ---------------------------------


def test_arrives_with_choices() -> None:
    c = crit("P", "arrives_with", values=["choices"])
    before = turn("Which?", choices=CHOICES, timeline=timeline(["choices", "text", "final"]))
    assert check(c, attempt(before)).holds is True
    together = turn("Which?", choices=CHOICES, timeline=timeline(["final"], first_text=None))
    assert check(c, attempt(together)).holds is True
    late = turn("Which?", choices=CHOICES, timeline=timeline(["text", "choices", "final"]))
    res = check(c, attempt(late))
    assert res.holds is False and "after the text" in (res.evidence.note or "")
    only_final = turn("Which?", choices=CHOICES, timeline=timeline(["text", "final"]))
    assert check(c, attempt(only_final)).holds is False  # choices only inside the final reply
    missing = turn("Which?", timeline=timeline(["choices", "text", "final"]))
    assert check(c, attempt(missing)).holds is False
    whole = turn("Which?", choices=CHOICES)  # one body: everything together
    assert check(c, attempt(whole)).holds is True


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
        True, Evidence(turn=1, note="order: tool_call → choices → text → final")
    )
    # the last turn by default, not the first
    assert check(c, attempt(both, turn("x"))) == Check(
        False, Evidence(turn=2, note="the reply carried no choices")
    )
    # one body: every part is still looked for
    no_call = turn("ok", choices=choices)
    assert check(c, attempt(no_call)) == Check(
        False, Evidence(turn=1, note="the reply carried no tool_call")
    )
    assert check(crit("P", "arrives_with", values=["choices"]), attempt(no_call)) == Check(
        True, Evidence(turn=1, note="one body: all parts arrived together")
    )
    late = turn("ok", choices=choices, timeline=_timeline(["text", "choices", "final"]))
    assert check(crit("P", "arrives_with", values=["choices"]), attempt(late)) == Check(
        False, Evidence(turn=1, note="choices arrived after the text (order: text → choices)")
    )
    # no text delta: the text came with the final event, and a part after it is late
    after_final = turn("ok", [call("w")], timeline=_timeline(["final", "tool_call"]))
    assert check(crit("P", "arrives_with", values=["tool_call"]), attempt(after_final)) == (
        Check(False, Evidence(turn=1, note="tool_call arrived after the text (order: final → "
                                         "tool_call)"))
    )  # fmt: skip


# -- choice_offered, and the label a `choose:` turn taps ------------------------------------------


def test_choice_offered_by_turn_and_by_choose_turns() -> None:
    c = crit("P", "choice_offered", values=["masaüstü"], turn=1)
    assert check(c, attempt(turn("Which?", choices=CHOICES))).holds is True
    res = check(
        crit("P", "choice_offered", values=["downloads"], turn=1),
        attempt(turn("x", choices=CHOICES)),
    )
    assert res.holds is False and "Belgeler" in (res.evidence.note or "")
    assert check(c, attempt(turn("Which?"))).holds is False
    tapped = {
        "label_matches": "masaüstü",
        "offered": ["Masaüstü klasörü"],
        "chose": "Masaüstü klasörü",
    }
    by_choose = crit("P", "choice_offered")
    a = attempt(turn("Which?", choices=CHOICES), turn("ok", prompt="desktop", choose=tapped))
    assert check(by_choose, a).holds is True
    missed = {
        "label_matches": "downloads",
        "offered": ["Masaüstü klasörü", "Belgeler"],
        "chose": None,
    }
    res = check(by_choose, attempt(turn("Which?", choices=CHOICES), turn(None, choose=missed)))
    assert res.holds is False
    note = res.evidence.note or ""
    assert "Masaüstü klasörü" in note and "downloads" in note


def _choose_block() -> Any:
    from agenttest.blocks import Choose, Turn

    b = block(turns=2)
    return dataclasses.replace(b, turns=(b.turns[0], Turn(choose=Choose("masaüstü"))))


def test_choice_offered_writes_its_evidence_whole() -> None:
    choices = [{"label": "Masaüstü", "value": "d"}, {"value": "no label"}]
    offered = turn("Which?", choices=choices)
    by_turn = crit("P", "choice_offered", values=["masaüstü"], turn=2)
    assert check(by_turn, attempt(turn("hi"), offered)) == Check(
        True, Evidence(turn=2, text="Masaüstü", note="labels offered: ['Masaüstü', '']")
    )
    assert check(by_turn, attempt(offered, turn("hi"))) == Check(
        False, Evidence(turn=2, note="the reply offered no choices")
    )
    # a label left out is empty, and an empty wanted value matches no label
    empty = crit("P", "choice_offered", values=["", "none"], turn=1)
    assert check(empty, attempt(turn("x", choices=[{"value": "v"}]))) == Check(
        False, Evidence(turn=1, note="no label matches ['', 'none']; labels offered: ['']")
    )
    # no `choose:` turn planned or run: the last reply is read
    anywhere = crit("P", "choice_offered", values=["masaüstü"])
    assert check(anywhere, attempt(turn("hi"), offered)).holds is True
    assert check(anywhere, attempt(offered, turn("hi"))).holds is False
    # a `choose:` turn planned but never reached
    assert check(anywhere, attempt(offered), _choose_block()) == Check(
        None, Evidence(note="the attempt ended before its `choose:` turn")
    )


def test_choice_offered_by_choose_turns_cites_the_offer_and_the_tap() -> None:
    c = crit("P", "choice_offered")
    tapped = {"label_matches": "masaüstü", "offered": ["Masaüstü"], "chose": "Masaüstü"}
    a = attempt(turn("Which?"), turn("ok", choose=tapped))
    assert check(c, a, _choose_block()) == Check(True, Evidence(turn=2, text="Masaüstü"))
    missed: dict[str, Any] = {"label_matches": "masaüstü", "offered": [], "chose": None}
    a = attempt(turn("Which?"), turn("ok", choose=missed))
    assert check(c, a, _choose_block()) == Check(
        False,
        Evidence(turn=1, note="no offered choice matches 'masaüstü'; labels offered: none"),
    )


@pytest.mark.parametrize(
    "label,wanted,expected",
    [
        ("Masaüstü klasörü", "masaüstü", True),
        ("Belgelerim", "belgeler", True),  # Turkish stem
        ("Cancel the deletion", "cancel", True),
        ("Cancelling", "cancel", True),  # English stem
        ("Yes, delete it", "cancel", False),
        ("Onayla", "iptal", False),
        ("İptal et", "iptal", True),
    ],
)
def test_label_matches(label: str, wanted: str, expected: bool) -> None:
    assert label_matches(label, wanted) is expected


# -- stored_matches_stream: the agent's stored copy against what it streamed ----------------------


def test_stored_matches_stream_shows_the_first_difference() -> None:
    c = crit("P", "stored_matches_stream")
    same = turn("Hello there", stream_text="Hello there", stored={"text": "Hello there"})
    assert check(c, attempt(same)).holds is True
    drift = turn(
        "Your key is [redacted]",
        stream_text="Your key is sk-123",
        stored={"text": "Your key is [redacted]"},
    )
    res = check(c, attempt(same, drift))
    assert res.holds is False and res.evidence.turn == 2
    assert "character 12" in (res.evidence.note or "") and "'sk-123'" in (res.evidence.note or "")
    unread = turn("x", stream_text="x", stored={"error": "HTTP 404"})
    res = check(c, attempt(unread))
    assert res.holds is None and "HTTP 404" in (res.evidence.note or "")
    assert check(c, attempt(turn("not streamed"))).holds is None


def test_stored_matches_stream_writes_its_evidence_whole() -> None:
    c = crit("P", "stored_matches_stream")
    same = turn("Hi", stream_text="Hi", stored={"text": "Hi"})
    plain = turn("not streamed")
    assert check(c, attempt(plain, same, same)) == Check(
        True, Evidence(note="2 streamed turn(s) equal their stored copy")
    )
    assert check(c, attempt(plain)) == Check(
        None, Evidence(note="no turn was streamed, so there is no stream to compare")
    )
    # a turn named: its reply stands for the stream when it was not streamed
    assert check(crit("P", "stored_matches_stream", turn=1), attempt(
        turn("abc", stored={"text": "abc"}))
    ) == Check(True, Evidence(note="1 streamed turn(s) equal their stored copy"))  # fmt: skip
    assert check(crit("P", "stored_matches_stream", turn=1), attempt(
        turn(None, stored={"text": ""}))
    ).holds is True  # fmt: skip
    for stored, why in ((None, "none"), ("raw text", "none"), ({"error": "HTTP 404"}, "HTTP 404")):
        unread = turn("x", stream_text="x", stored=stored)
        assert check(c, attempt(plain, unread)) == Check(
            None, Evidence(turn=2, note=f"no stored copy was read ({why})")
        ), stored


def test_stored_matches_stream_cites_forty_characters_around_the_first_difference() -> None:
    c = crit("P", "stored_matches_stream")
    seen = "a" * 45 + "S" + "b" * 45
    kept = "a" * 45 + "K" + "c" * 45
    res = check(c, attempt(turn("r"), turn(kept, stream_text=seen, stored={"text": kept})))
    assert res == Check(
        False,
        Evidence(
            turn=2,
            span=[45, 46],
            text=seen[5:],
            note=f"first difference at character 45: stream {'S' + 'b' * 39!r}, "
            f"stored {'K' + 'c' * 39!r}",
        ),
    )
    # near the start the excerpt starts at the first character; a stored copy cut short
    # differs where it ends
    res = check(c, attempt(turn("Hello!", stream_text="Hello!", stored={"text": "Hell"})))
    assert res == Check(
        False,
        Evidence(turn=1, span=[4, 5], text="Hello!", note="first difference at character 4: stream 'o!', stored ''"),
    )  # fmt: skip
    res = check(c, attempt(turn("Hi", stream_text="Hi", stored={"text": "Hi there"})))
    assert res.evidence.span == [2, 3]


def test_ttft_max_fails_a_turn_with_no_text_at_all() -> None:
    # issue 31: an agent that answers nothing, at once, met "first text within 1 s" with its
    # final event's time; a turn with no text has no time to first text (n/a), so it fails
    c = crit("P", "ttft_max", seconds=1)
    silent = turn("", timeline=_timeline(["final"], final_ms=30))
    assert check(c, attempt(silent)) == Check(
        False, Evidence(turn=1, note="no text at all: time to first text n/a; limit 1 s")
    )
    assert check(c, attempt(turn("", latency_ms=5))).holds is False  # a whole empty body too
    lost = turn(None, latency_ms=5)  # lost, not silent
    assert check(c, attempt(lost)).holds is not False
