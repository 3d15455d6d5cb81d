"""The trace criteria: trace_contains and category, read from the agent's trace and log lines.

A marker is looked for line by line, with blanks folded and accents composed; a category is
the first routing line of each turn, matched exactly (§3.1); what a partial trace or a turn
without one cannot show is undecided, never absent. The evidence is pinned whole.
"""

from __future__ import annotations

from typing import Any

import pytest

from .fixtures.grading import Seen, attempt, beyond, block, check, crit, got, turn

# -- trace_contains: a marker or a value, line by line --------------------------------------------


def test_trace_contains_markers_and_values() -> None:
    b = block(markers={"greeting": "⚡ [GREETING FAST-PATH] Skipping classification"})
    c = crit("P", "trace_contains", markers=["greeting"])
    trace = "[x] start\n[y] ⚡ [GREETING FAST-PATH] Skipping classification for simple greeting.\n"
    res = check(c, attempt(turn("Merhaba", trace=trace)), b)
    assert res.holds is True and res.evidence.trace_line == 2
    assert check(c, attempt(turn("Merhaba", trace="[x] [LLM CLASSIFIED] chat")), b).holds is False
    assert check(c, attempt(turn("Merhaba")), b).holds is None  # no trace at all


def test_trace_contains_mode_any_and_log_lines() -> None:
    c = crit("P", "trace_contains", values=["CLARIFY", "Clarification"], mode="any")
    res = check(c, attempt(turn("?", log_lines=["noise", "❓ [CLARIFY] Agent is asking: which?"])))
    assert res.holds is True and "agent log line 2" in (res.evidence.note or "")
    assert (
        check(
            crit("P", "trace_contains", values=["CLARIFY", "Clarification"]),
            attempt(turn("?", trace="[CLARIFY] x")),
        ).holds
        is False
    )


MARKED = block(
    markers={"done": "✅ Task  done"},
    vars={"w": "alpha"},
    category_pattern=r"route(?:d)?:\s*(\w+)",
)
TRACED = attempt(
    turn("a", trace="start\nstep alpha\t one\ncall ☎\ufe0e now"),
    turn(
        "b",
        trace="✅\ufe0f Task done\ncafe\u0301 open\nmulti\nline end",
        log_lines=["log beta", "route: billing"],
    ),
    turn("c"),
)


@pytest.mark.parametrize(
    ("kw", "want"),
    [
        # tabs and runs of blanks are one space; composed and decomposed accents are one
        (
            {"values": ["{{w}} one", "café"]},
            (True, {"turn": 1, "trace_line": 2, "text": "step alpha\t one"}),
        ),
        # emoji variation selectors do not hide a marker (U+FE0E and U+FE0F)
        ({"values": ["call ☎ now"]}, (True, {"turn": 1, "trace_line": 3, "text": "call ☎︎ now"})),
        ({"markers": ["done"]}, (True, {"turn": 2, "trace_line": 1, "text": "✅️ Task done"})),
        # a marker the reference does not name is looked for as it is, in the log lines too
        (
            {"markers": ["log beta"]},
            (True, {"turn": 2, "text": "log beta", "note": "agent log line 1 of the turn"}),
        ),
        (
            {"values": ["alpha", "zeta", "omega", "café"]},
            (
                False,
                {
                    "turn": 1,
                    "trace_line": 2,
                    "text": "step alpha\t one",
                    "note": "missing: “zeta”, “omega”",
                },
            ),
        ),
        (
            {"values": ["zeta", "multi"], "mode": "any"},
            (True, {"turn": 2, "trace_line": 3, "text": "multi", "note": "missing: “zeta”"}),
        ),
        ({"values": ["zeta"], "mode": "any"}, (False, {"turn": 3, "note": "missing: “zeta”"})),
        # a marker over two lines is found in the turn's whole trace, at its first line
        ({"values": ["multi\nline"]}, (True, {"turn": 2, "trace_line": 3, "text": "multi\nline"})),
        ({"values": ["alpha\none"]}, (False, {"turn": 3, "note": "missing: “alpha\none”"})),
        ({}, (True, {"turn": 3, "note": "nothing to look for"})),
    ],
)
def test_trace_contains_finds_markers_line_by_line(kw: dict[str, Any], want: Seen) -> None:
    assert got(crit("P", "trace_contains", **kw), TRACED, MARKED) == want


def test_a_marker_is_looked_for_as_written_and_at_its_first_place() -> None:
    named = block(markers={"finished": "✅ Task  done"})
    assert got(crit("P", "trace_contains", markers=["finished"]), TRACED, named) == (
        True, {"turn": 2, "trace_line": 1, "text": "✅️ Task done"}
    )  # fmt: skip
    # blanks are folded, not replaced by anything a marker could hold
    assert got(crit("P", "trace_contains", values=["XX"]), TRACED) == (
        False, {"turn": 3, "note": "missing: “XX”"}
    )  # fmt: skip
    twice = attempt(turn("a", trace="multi\nline\nmulti\nline"))
    assert got(crit("P", "trace_contains", values=["multi\nline"]), twice) == (
        True, {"turn": 1, "trace_line": 1, "text": "multi\nline"}
    )  # fmt: skip


def test_an_empty_value_is_in_every_line_and_an_empty_category_is_one() -> None:
    # the grader's reading of an empty value (nothing to look for is found at the first line)
    assert got(crit("P", "trace_contains", values=[""]), TRACED, MARKED) == (
        True, {"turn": 1, "trace_line": 1, "text": "start"}
    )  # fmt: skip
    empty = block(category_pattern=r"route:\s*(\w*)")
    assert got(crit("P", "category", value=""), attempt(turn("a", trace="route: ")), empty) == (
        True, {"turn": 1, "trace_line": 1, "text": "route:", "note": "category “”"}
    )  # fmt: skip


# -- category: the first routing decision of each turn --------------------------------------------


def test_category_reads_the_first_routing_decision_exactly() -> None:
    b = block(category_pattern=r"\[DETERMINISTIC CATEGORY\] (\w+)")
    c = crit("P", "category", value="weather")
    trace = "🏷 [DETERMINISTIC CATEGORY] weather\n🏷 [DETERMINISTIC CATEGORY] chat\n"
    assert check(c, attempt(turn("x", trace=trace)), b).holds is True
    res = check(c, attempt(turn("x", trace="🏷 [DETERMINISTIC CATEGORY] Weather")), b)
    assert res.holds is False and "Weather" in (res.evidence.note or "")  # §3.1: exact
    assert check(c, attempt(turn("x", trace="anything")), block()).holds is None  # no pattern


ROUTED = attempt(
    turn("a", trace="routed: sales\nroute: billing"),
    turn("b", trace="x", log_lines=["route: support "]),
    turn("c", trace="nothing"),
)


@pytest.mark.parametrize(
    ("value", "want"),
    [
        (
            "sales",
            (
                True,
                {"turn": 1, "trace_line": 1, "text": "routed: sales", "note": "category “sales”"},
            ),
        ),
        (
            " support ",
            (
                True,
                {
                    "turn": 2,
                    "text": "route: support",
                    "note": "agent log line 1 of the turn; category “support”",
                },
            ),
        ),
        # only the first routing line of a turn counts
        (
            "billing",
            (False, {"turn": 3, "note": "routed as ['sales', 'support']; wanted “billing”"}),
        ),
        ("{{w}}", (False, {"turn": 3, "note": "routed as ['sales', 'support']; wanted “alpha”"})),
    ],
)
def test_category_is_the_first_routing_line_of_each_turn(value: str, want: Seen) -> None:
    assert got(crit("P", "category", value=value), ROUTED, MARKED) == want


def test_category_needs_a_pattern_and_a_trace() -> None:
    c = crit("P", "category", value=" x ")
    assert got(c, ROUTED) == (
        None,
        {
            "note": "the block's reference sets no category_pattern; the routing category cannot "
            "be read from the trace"
        },
    )
    assert got(c, attempt(turn("a"), turn("b")), MARKED) == (
        None,
        {"turn": 2, "note": "no trace recorded; routing category unknown"},
    )
    plain = attempt(turn("a", trace="x"), turn("b", trace="y"))
    assert got(c, plain, MARKED) == (
        False,
        {"turn": 2, "note": "no line of the trace matches category_pattern; wanted “x”"},
    )
    part = attempt(turn("a", trace="x"), turn("b", trace="y", trace_partial=True))
    assert got(c, part, MARKED) == (
        None,
        {
            "turn": 2,
            "note": "no line of the trace matches category_pattern; the trace is "
            "incomplete (its routing line may be outside it); wanted “x”",
        },
    )
    # a routing line was seen: an incomplete trace does not undo it
    seen = attempt(turn("a", trace="route: y"), turn("b", trace="y", trace_partial=True))
    assert got(c, seen, MARKED) == (False, {"turn": 2, "note": "routed as ['y']; wanted “x”"})
    # a pattern without a group: the whole match is the category
    whole = block(category_pattern=r"route: \w+")
    assert got(
        crit("P", "category", value="route: y"), attempt(turn("a", trace="a route: y")), whole
    ) == (True, {"turn": 1, "trace_line": 1, "text": "a route: y", "note": "category “route: y”"})
    assert got(crit("P", "category", value="x", turn=2), attempt(turn("a")), MARKED) == beyond(2, 1)


# -- a partial trace, or none: undecided ----------------------------------------------------------


def test_absence_from_an_incomplete_trace_is_undecided() -> None:
    b = block(category_pattern=r"ROUTE (\w+)")
    tail = turn("x", trace="CALL weather {}\nRESULT weather ok", trace_partial=True)
    marker = crit("P", "trace_contains", values=["ROUTE weather"])
    assert check(marker, attempt(tail), b).holds is None
    assert check(crit("P", "category", value="weather"), attempt(tail), b).holds is None
    # what is there still counts
    assert check(crit("P", "trace_contains", values=["CALL weather"]), attempt(tail), b).holds


def test_trace_contains_without_a_whole_trace_is_undecided() -> None:
    c = crit("P", "trace_contains", values=["x"])
    assert got(c, attempt(turn("a"), turn("b"))) == (
        None,
        {"turn": 2, "note": "the turn(s) checked carry no trace or log lines"},
    )
    part = attempt(turn("a", trace="one"), turn("b", trace="two", trace_partial=True))
    assert got(c, part) == (
        None,
        {
            "turn": 2,
            "note": "missing: “x”; the trace is incomplete, so absence cannot be concluded",
        },
    )
    # found in the incomplete trace: it counts
    either = crit("P", "trace_contains", values=["two", "x"], mode="any")
    assert got(either, part) == (
        True,
        {"turn": 2, "trace_line": 1, "text": "two", "note": "missing: “x”"},
    )
    # the complete turn alone: absence is a FAIL
    assert got(crit("P", "trace_contains", values=["x"], turn=1), part) == (
        False,
        {"turn": 1, "note": "missing: “x”"},
    )
    assert got(crit("P", "trace_contains", values=["x"], turn=3), part) == beyond(3, 2)


def test_the_last_turn_is_cited_when_three_turns_leave_a_trace_check_open() -> None:
    three = attempt(turn("a"), turn("b"), turn("c"))
    assert got(crit("P", "trace_contains", values=["x"]), three) == (
        None, {"turn": 3, "note": "the turn(s) checked carry no trace or log lines"}
    )  # fmt: skip
    assert got(crit("P", "category", value="x"), three, MARKED) == (
        None, {"turn": 3, "note": "no trace recorded; routing category unknown"}
    )  # fmt: skip
    part = attempt(turn("a", trace="o"), turn("b"), turn("c", trace="t", trace_partial=True))
    assert got(crit("P", "trace_contains", values=["x"]), part)[1]["turn"] == 3
    assert got(crit("P", "category", value="x"), part, MARKED)[1]["turn"] == 3
