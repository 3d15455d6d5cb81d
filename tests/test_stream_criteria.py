"""The stream and choice criteria: ttft_max, arrives_with, choice_offered,
stored_matches_stream, and the label matching a `choose:` turn uses."""

from __future__ import annotations

from typing import Any

import pytest

from agenttest.grading import label_matches

from .fixtures.grading import attempt, check, crit, turn

CHOICES = [{"label": "Masaüstü klasörü", "value": "desktop"}, {"label": "Belgeler", "value": "d"}]


def timeline(order: list[str], first_text: int | None = 120, final: int = 900) -> dict[str, Any]:
    return {"first_byte_ms": 50, "first_text_ms": first_text, "final_ms": final, "order": order}


def test_ttft_max_streamed_and_whole_body() -> None:
    c = crit("P", "ttft_max", seconds=0.5)
    fast = turn("hi", timeline=timeline(["text", "final"]), latency_ms=900)
    assert check(c, attempt(fast)).holds is True  # 120 ms to first text, though 900 to the end
    res = check(crit("P", "ttft_max", seconds=0.1), attempt(fast))
    assert res.holds is False and "0.120 s" in res.evidence["note"]
    whole = turn("hi", latency_ms=900)  # not streamed: the text came with the whole body
    res = check(c, attempt(whole))
    assert res.holds is False and "not streamed" in res.evidence["note"]
    no_delta = turn("hi", timeline=timeline(["final"], first_text=None, final=300))
    assert check(c, attempt(no_delta)).holds is True
    # every turn by default: the slow second turn decides
    res = check(c, attempt(fast, whole))
    assert res.holds is False and res.evidence["turn"] == 2
    assert check(crit("P", "ttft_max", seconds=0.5, turn=1), attempt(fast, whole)).holds is True
    assert check(c, attempt(turn("hi"))).holds is None  # no timing at all: undecided


def test_arrives_with_choices() -> None:
    c = crit("P", "arrives_with", values=["choices"])
    before = turn("Which?", choices=CHOICES, timeline=timeline(["choices", "text", "final"]))
    assert check(c, attempt(before)).holds is True
    together = turn("Which?", choices=CHOICES, timeline=timeline(["final"], first_text=None))
    assert check(c, attempt(together)).holds is True
    late = turn("Which?", choices=CHOICES, timeline=timeline(["text", "choices", "final"]))
    res = check(c, attempt(late))
    assert res.holds is False and "after the text" in res.evidence["note"]
    only_final = turn("Which?", choices=CHOICES, timeline=timeline(["text", "final"]))
    assert check(c, attempt(only_final)).holds is False  # choices only inside the final reply
    missing = turn("Which?", timeline=timeline(["choices", "text", "final"]))
    assert check(c, attempt(missing)).holds is False
    whole = turn("Which?", choices=CHOICES)  # one body: everything together
    assert check(c, attempt(whole)).holds is True


def test_choice_offered_by_turn_and_by_choose_turns() -> None:
    c = crit("P", "choice_offered", values=["masaüstü"], turn=1)
    assert check(c, attempt(turn("Which?", choices=CHOICES))).holds is True
    res = check(
        crit("P", "choice_offered", values=["downloads"], turn=1),
        attempt(turn("x", choices=CHOICES)),
    )
    assert res.holds is False and "Belgeler" in res.evidence["note"]
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
    assert "Masaüstü klasörü" in res.evidence["note"] and "downloads" in res.evidence["note"]


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
    assert res.holds is False and res.evidence["turn"] == 2
    assert "character 12" in res.evidence["note"] and "'sk-123'" in res.evidence["note"]
    unread = turn("x", stream_text="x", stored={"error": "HTTP 404"})
    res = check(c, attempt(unread))
    assert res.holds is None and "HTTP 404" in res.evidence["note"]
    assert check(c, attempt(turn("not streamed"))).holds is None
