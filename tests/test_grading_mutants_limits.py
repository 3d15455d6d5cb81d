"""The grading limits at a small cap, for mutation runs (issue 13).

``tests/test_grading_limits.py`` grades texts at the real 256 Ki cap (seconds each, so
``tools/mutation.py`` leaves it out); here the cap is lowered to a few characters, so the
same rules (the prefix decides, the evidence says so, a pattern that runs out of time
leaves its criterion undecided) are pinned in milliseconds.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from agenttest.grading import _context, grade_attempt, limits

from .fixtures.grading import attempt, block, crit, turn


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(limits, "MAX_GRADED_CHARS", 20)
    return 20


def _notes(outcome: Any) -> list[str]:
    return [str(c["evidence"].get("note", "")) for c in outcome.criteria]


def test_the_prefix_decides_and_the_note_says_how_much_was_read(small_cap: int) -> None:
    b = block([crit("P1", "response_contains", "KEYWORD", values=["needle"])])
    beyond = "w " * 10 + "needle"  # 26 characters, the keyword past the cap of 20
    outcome = grade_attempt(b, attempt(turn(beyond)))
    assert outcome.verdict == "FAIL"
    assert _notes(outcome)[0].endswith(
        "graded the first 20 characters only (turn 1: 26 characters); "
        "the rest of the reply was not read"
    )
    exact = "w " * 7 + "needle"  # exactly the cap: read whole, no note
    assert len(exact) == small_cap
    whole = grade_attempt(b, attempt(turn(exact)))
    assert whole.verdict == "PASS"
    assert "graded the first" not in _notes(whole)[0]


def test_the_note_lists_every_capped_turn_in_order_with_thousands_marks() -> None:
    assert limits.capped_note({2: 1_000_000, 0: 300_000}) == (
        "graded the first 262,144 characters only "
        "(turn 1: 300,000 characters, turn 3: 1,000,000 characters); "
        "the rest of the reply was not read"
    )


def test_a_trace_is_capped_like_a_reply(small_cap: int) -> None:
    ctx = _context.Ctx(block(), attempt(turn("short", trace="t" * 30)))
    assert ctx.response(0) == "short"
    assert ctx.trace_lines(0) == [("trace", 1, "t" * small_cap)]
    assert ctx.capped == {0: 30}


def test_pattern_flags_carry_over_to_the_regex_package() -> None:
    assert limits.search("^b", "a\nb") is None
    assert limits.search("^b", "a\nb", re.MULTILINE) is not None
    assert limits.search("B", "b") is None
    assert limits.search("B", "b", re.IGNORECASE) is not None
    assert limits.search("a.b", "a\nb") is None
    assert limits.search("a.b", "a\nb", re.DOTALL) is not None
    assert limits.search("a b # comment", "ab", re.VERBOSE) is not None
    assert limits.search(r"\w", "ş", re.ASCII) is None
    assert limits.search(r"\w", "ş") is not None
    assert [m.group() for m in limits.finditer(r"\d", "a1b2")] == ["1", "2"]
    both = re.IGNORECASE | re.MULTILINE  # flags combine, none is dropped
    assert limits.search("^B", "a\nb", both) is not None
    assert limits.search("^B", "a\nb", re.MULTILINE) is None


class _Exhausted:
    """A compiled pattern that runs out of time, recording the limit it was given."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def search(self, text: str, timeout: float) -> Any:
        self.timeouts.append(timeout)
        raise TimeoutError

    def finditer(self, text: str, timeout: float) -> Any:
        self.timeouts.append(timeout)
        raise TimeoutError


def test_a_pattern_out_of_time_leaves_its_criterion_undecided_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exhausted = _Exhausted()
    monkeypatch.setattr(limits, "_compile", lambda pattern, flags: exhausted)
    why = (
        "the pattern '^(a|aa)+$' took longer than 2s on 1,200 characters "
        "(catastrophic backtracking?); undecided"
    )
    with pytest.raises(limits.PatternTimeout) as caught:
        limits.search("^(a|aa)+$", "a" * 1200)
    assert str(caught.value) == why
    with pytest.raises(limits.PatternTimeout):
        list(limits.finditer("^(a|aa)+$", "a" * 1200))
    assert exhausted.timeouts == [limits.PATTERN_TIMEOUT_S] * 2  # both run under the limit
    b = block([crit("P1", "response_regex", "KEYWORD", pattern="^(a|aa)+$")])
    outcome = grade_attempt(b, attempt(turn("a" * 1200)))
    assert outcome.criteria[0]["passed"] is None
    assert outcome.criteria[0]["evidence"]["note"] == why
    assert outcome.verdict == "ERROR" and outcome.error_cause == "ungraded"
