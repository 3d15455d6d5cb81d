"""The trace criteria: trace_contains and category, read from the agent's trace and log lines.

A marker is looked for line by line, with blanks folded and accents composed; a category is
the first routing line of each turn, matched exactly (§3.1); what a partial trace or a turn
without one cannot show is undecided, never absent. The evidence is pinned whole.
"""

from __future__ import annotations

from .fixtures.grading import attempt, block, check, crit, turn

# -- trace_contains: a marker or a value, line by line --------------------------------------------


def test_trace_contains_markers_and_values() -> None:
    b = block(markers={"greeting": "⚡ [GREETING FAST-PATH] Skipping classification"})
    c = crit("P", "trace_contains", markers=["greeting"])
    trace = "[x] start\n[y] ⚡ [GREETING FAST-PATH] Skipping classification for simple greeting.\n"
    res = check(c, attempt(turn("Merhaba", trace=trace)), b)
    assert res.holds is True and res.evidence["trace_line"] == 2
    assert check(c, attempt(turn("Merhaba", trace="[x] [LLM CLASSIFIED] chat")), b).holds is False
    assert check(c, attempt(turn("Merhaba")), b).holds is None  # no trace at all


def test_trace_contains_mode_any_and_log_lines() -> None:
    c = crit("P", "trace_contains", values=["CLARIFY", "Clarification"], mode="any")
    res = check(c, attempt(turn("?", log_lines=["noise", "❓ [CLARIFY] Agent is asking: which?"])))
    assert res.holds is True and "agent log line 2" in res.evidence["note"]
    assert (
        check(
            crit("P", "trace_contains", values=["CLARIFY", "Clarification"]),
            attempt(turn("?", trace="[CLARIFY] x")),
        ).holds
        is False
    )


# -- category: the first routing decision of each turn --------------------------------------------


def test_category_reads_the_first_routing_decision_exactly() -> None:
    b = block(category_pattern=r"\[DETERMINISTIC CATEGORY\] (\w+)")
    c = crit("P", "category", value="weather")
    trace = "🏷 [DETERMINISTIC CATEGORY] weather\n🏷 [DETERMINISTIC CATEGORY] chat\n"
    assert check(c, attempt(turn("x", trace=trace)), b).holds is True
    res = check(c, attempt(turn("x", trace="🏷 [DETERMINISTIC CATEGORY] Weather")), b)
    assert res.holds is False and "Weather" in res.evidence["note"]  # §3.1: exact
    assert check(c, attempt(turn("x", trace="anything")), block()).holds is None  # no pattern


# -- a partial trace, or none: undecided ----------------------------------------------------------


def test_absence_from_an_incomplete_trace_is_undecided() -> None:
    b = block(category_pattern=r"ROUTE (\w+)")
    tail = turn("x", trace="CALL weather {}\nRESULT weather ok", trace_partial=True)
    marker = crit("P", "trace_contains", values=["ROUTE weather"])
    assert check(marker, attempt(tail), b).holds is None
    assert check(crit("P", "category", value="weather"), attempt(tail), b).holds is None
    # what is there still counts
    assert check(crit("P", "trace_contains", values=["CALL weather"]), attempt(tail), b).holds
