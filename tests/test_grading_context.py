"""What every grader reads and writes (``agenttest.grading._context``).

The turns a grader sees (capped, the record left as it is), the names a tool goes by, the
turns a criterion is scoped to, the calls that count, the trace and log lines, whether the
fixtures were applied; and the evidence it writes, in words a person reads (no Python
artefacts), with its keys in one order and the turn one-based.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import msgspec
import pytest

from agenttest.blocks import Block, Fixture
from agenttest.grading import _context as cx
from agenttest.grading import limits
from agenttest.results import Attempt, Evidence, ToolCall, TurnRecord

from .fixtures.grading import attempt, block, call, check, crit, turn

# -- the evidence: its keys, and its values in words ----------------------------------------------


def test_evidence_holds_exactly_the_keys_given_with_the_turn_one_based() -> None:
    assert cx.ev() == Evidence()
    given = cx.ev(turn=0, tool_call=0, trace_line=0, span=cast(Any, (1, 2)), file="", text="  x  ", note="",
                  decided_by="")  # fmt: skip
    assert given == Evidence(
        turn=1, tool_call=0, trace_line=0, span=[1, 2], file="", text="x", note="", decided_by=""
    )
    assert list(msgspec.to_builtins(given)) == ["turn", "tool_call", "trace_line", "span", "file",
                                                "text", "note", "decided_by"]  # fmt: skip
    assert isinstance(given.span, list)


def test_values_read_as_text_in_curly_quotes() -> None:
    assert cx.quoted("a\\d") == "“a\\d”"
    assert cx.quoted(None) == "“”"
    assert cx.quoted(3) == "“3”"
    assert cx.quoted({"b": 1, "a": "ü"}) == '“{"a": "ü", "b": 1}”'
    assert (cx.as_text(None), cx.as_text("s"), cx.as_text(0), cx.as_text(False)) == (
        "", "s", "0", "false"
    )  # fmt: skip
    assert cx.as_text([1, "é"]) == '[1, "é"]'


@pytest.mark.parametrize(
    ("lo", "hi", "words"),
    [
        (None, None, "any number"), (0, None, "any number"), (None, 0, "none"), (0, 0, "none"),
        (None, 2, "at most 2"), (0, 2, "at most 2"), (1, None, "at least 1"),
        (3, 3, "exactly 3"), (1, 4, "between 1 and 4"),
    ],
)  # fmt: skip
def test_a_count_range_in_words(lo: int | None, hi: int | None, words: str) -> None:
    assert cx.wanted_text(lo, hi) == words


def test_an_excerpt_is_stripped_and_cut_with_an_ellipsis() -> None:
    assert cx.excerpt(" " + "x" * 200 + " ") == "x" * 200  # at the limit: whole
    assert cx.excerpt("x" * 201) == "x" * 199 + "…"
    assert cx.excerpt("abcdef", 3) == "ab…"
    assert cx.excerpt("abc", 3) == "abc"


def test_line_and_call_evidence() -> None:
    assert cx.line_evidence(0, "trace", 3, "t") == Evidence(turn=1, trace_line=3, text="t")
    assert cx.line_evidence(0, "trace", 3, "t", "n") == Evidence(
        turn=1, trace_line=3, text="t", note="n"
    )
    assert cx.line_evidence(1, "log", 2, "t", "n") == Evidence(
        turn=2, text="t", note="agent log line 2 of the turn; n"
    )
    assert cx.line_evidence(1, "log", 2, "t") == Evidence(
        turn=2, text="t", note="agent log line 2 of the turn"
    )
    bare = ToolCall(name="a", ok=True)  # no arguments
    assert cx.call_evidence(0, 1, bare) == Evidence(turn=1, tool_call=1, text="a {} → ok")
    odd = ToolCall(name="a", ok=cast(Any, 0))  # not False: not known to have failed
    assert cx.call_evidence(0, 1, odd).text == "a {} → outcome unknown"
    asked = ToolCall(name="a", ok=False, requested_only=True)
    assert cx.call_evidence(2, 0, asked, "n") == Evidence(
        turn=3, tool_call=0, text="a {} → requested by the model, not run", note="n"
    )


def test_evidence_reads_as_text_for_a_person() -> None:
    """No Python artefacts in evidence: repr's doubled backslashes, `None..2`, backticks."""
    a = attempt(turn("answer 42", [call("web_search", query="x")]))
    count = check(crit("P", "tool_count", max=2), a).evidence.note
    assert count is not None and "wanted at most 2" in count and "None" not in count
    assert "wanted at least 1" in (
        check(crit("P", "tool_called", tool="any"), a).evidence.note or ""
    )
    rx = check(crit("P", "response_regex", pattern=r"\d{3}"), a).evidence.note
    assert rx == "no match for “\\d{3}”", rx  # one backslash, as written in the block
    missing = check(crit("P", "tool_arg", tool="web_search", key="url"), a).evidence
    assert "`" not in str(missing) and "argument keys: query" in (missing.note or "")
    for c in (crit("P", "sentence_count", min=2), crit("P", "list_items", max=3)):
        note = check(c, a).evidence.note
        assert note is not None and "None" not in note and ".." not in note, note
    # values not found are listed as text, not as a Python list
    text = check(crit("P", "response_contains", values=("7", "x\\d")), a).evidence.note
    assert text == "not found: “7”, “x\\d”", text
    traced = attempt(turn("answer 42", trace="ROUTE chat"))
    trace = check(crit("P", "trace_contains", values=("MARKER",)), traced).evidence.note
    assert trace == "missing: “MARKER”", trace


# -- what a grader reads of the attempt -----------------------------------------------------------


def test_fixtures_count_as_applied_unless_the_attempt_says_they_were_not() -> None:
    fixed = dataclasses.replace(block(), fixtures=(Fixture(kind="file", path="a"),))

    def applied(b: Block, **record: Any) -> bool:
        return cx.fixtures_applied(b, Attempt(test_id="T", run=1, **record))

    assert applied(fixed) is True  # a record older than the field
    assert applied(fixed, fixtures_applied=None) is True
    assert applied(fixed, fixtures_applied=False) is False
    assert applied(block(), fixtures_applied=False) is True  # none to apply


def test_a_turn_is_graded_up_to_the_cap_and_the_cap_is_remembered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MAX_GRADED_CHARS", 4)
    odd_prompt = cast(Any, 123456)  # a value the field does not declare, kept as given
    turns = [
        TurnRecord(response="abcd", trace="wxyz"),  # at the cap: as it is
        TurnRecord(response="abcdef", trace="uvwxyz12", prompt=odd_prompt),
        TurnRecord(response=None, trace="abcde"),
    ]
    ctx = cx.Ctx(block(), Attempt(test_id="T-01", run=1, turns=turns))
    assert ctx.turns[0] is turns[0]
    assert ctx.turns[1] == TurnRecord(response="abcd", trace="uvwx", prompt=odd_prompt)
    assert ctx.turns[2] == TurnRecord(response=None, trace="abcd")
    assert ctx.capped == {1: 8, 2: 5}  # the longer of the two
    assert turns[1].response == "abcdef"  # the record is not changed
    assert cx.Ctx(block(), Attempt(test_id="", run=1)).turns == []


def test_the_context_fills_names_scopes_and_reads_turns() -> None:
    b = block(tools={"weather": ["wx", "get_weather"]}, vars={"c": "İzmir"}, turns=2)
    asked = ToolCall(name="wx", arguments={}, requested_only=True)
    a = attempt(
        turn("one", [call("wx"), asked, call("other", ok=None)], trace="a\nb", log_lines=["l1"]),
        turn(None, [call("get_weather", ok=False)], trace_partial=True),
        turn(cast(Any, ["not", "text"])),
    )
    ctx = cx.Ctx(b, a)
    assert (ctx.subst(None), ctx.subst("in {{c}} {{d}}")) == (None, "in İzmir {{d}}")
    assert ctx.names("any") is None
    assert ctx.names("weather") == frozenset({"wx", "get_weather"})
    assert ctx.names("calendar") == frozenset({"calendar"})
    assert ctx.scope(crit("P", "status"), cx.LAST_TURN) == ([2], None)
    assert ctx.scope(crit("P", "status"), cx.ALL_TURNS) == ([0, 1, 2], None)
    assert ctx.scope(crit("P", "status", turn=2), cx.LAST_TURN) == ([1], None)
    assert ctx.scope(crit("P", "status", turn=3), cx.LAST_TURN) == ([2], None)
    assert ctx.scope(crit("P", "status", turn=4), cx.ALL_TURNS) == (
        [], cx.ev(note="turn 4 was asked for but the attempt has 3 turn(s)")
    )  # fmt: skip
    assert cx.Ctx(b, Attempt(test_id="", run=1, turns=[])).scope(crit("P", "status"), cx.ALL_TURNS) == (
        [], cx.ev(note="the attempt has no turns")
    )  # fmt: skip
    assert [ctx.response(i) for i in range(3)] == ["one", None, None]
    everything = [(ti, ci, c.name) for ti, ci, c in ctx.calls([0, 1, 2], requested=True)]
    assert everything == [(0, 0, "wx"), (0, 1, "wx"), (0, 2, "other"), (1, 0, "get_weather")]
    ran = [(ti, ci) for ti, ci, _ in ctx.calls([0, 1], ctx.names("weather"))]
    assert ran == [(0, 0), (1, 0)]  # the call only asked for is left out, indexes kept
    assert [ci for _, ci, _ in ctx.calls([1, 0])] == [0, 0, 2]  # in the turns' order given
    hits, unknown = ctx.counted_calls([0, 1], None, crit("P", "tool_called"))
    assert ([c[:2] for c in hits], [c[:2] for c in unknown]) == ([(0, 0)], [(0, 2)])
    assert ctx.trace_lines(0) == [("trace", 1, "a"), ("trace", 2, "b"), ("log", 1, "l1")]
    assert ctx.trace_lines(1) == []
    assert (ctx.has_trace([0]), ctx.has_trace([1, 2]), ctx.has_trace([1, 0])) == (True, False, True)
    assert (ctx.trace_partial([0, 2]), ctx.trace_partial([0, 1])) == (False, True)


def test_a_response_criterion_reads_its_turn_or_says_why_it_cannot() -> None:
    a = attempt(turn("first"), turn(None))
    ctx = cx.Ctx(block(), a)
    assert cx.last_response(ctx, crit("P", "response_empty", turn=1)) == (0, "first", None)
    assert cx.last_response(ctx, crit("P", "response_empty")) == (
        1, None, cx.Check(None, Evidence(turn=2, note="no response was recorded for this turn"))
    )  # fmt: skip
    assert cx.last_response(ctx, crit("P", "response_empty", turn=3)) == (
        -1, None, cx.Check(None, Evidence(note="turn 3 was asked for but the attempt has 2 turn(s)"))
    )  # fmt: skip
