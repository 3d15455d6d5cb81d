"""Tests written for the survivors of a mutation run of the tool, trace, state, world,
grounding, context and rules criteria of ``agenttest.grading`` (issue 13).

``tools/mutation.py grading`` selects every ``tests/test_grading_mutants*.py``; this file
exists from the start of the run so that adding tests to it does not change the selection
(mutmut forgets its results when the selection changes).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from agenttest.blocks import Block, Criterion, Fixture
from agenttest.grading import _context as cx
from agenttest.grading import _rules as rules
from agenttest.grading import _world as world
from agenttest.grading import limits
from agenttest.grading._context import Ctx
from agenttest.grading._grounding_sources import Document, Source, drew_on
from agenttest.grading._tool_criteria import shell_command
from agenttest.results import ToolCall

from .fixtures.grading import attempt, block, call, check, crit, turn

Seen = tuple[bool | None, dict[str, Any]]


def got(c: Criterion, a: dict[str, Any], b: Block | None = None) -> Seen:
    """A criterion's check as a report shows it: its state and its whole evidence."""
    r = check(c, a, b)
    return r.holds, dict(r.evidence)


def beyond(asked: int, has: int) -> Seen:
    return None, {"note": f"turn {asked} was asked for but the attempt has {has} turn(s)"}


def at(ti: int, ci: int, text: str, note: str) -> dict[str, Any]:
    """The evidence of one call (turn 1-based)."""
    return {"turn": ti, "tool_call": ci, "text": text, "note": note}


# ------------------------------------------------------------------ tool calls

WEATHER = {"weather": ["get_weather", "wx"]}
#: a call the model asked for that nothing ran
ASKED: dict[str, Any] = {"name": "other", "arguments": {}, "ok": None, "requested_only": True}
#: a call that succeeded, one that failed beside one only asked for, and a turn without any
THREE = attempt(
    turn("a", [call("get_weather", city="X")]),
    turn("b", [call("wx", ok=False), ASKED]),
    turn("c"),
)
SEEN3 = "calls seen: get_weather, wx (failed), other (requested, not run)"
GW = 'get_weather {"city": "X"} → ok'
#: one call of wx whose outcome is unknown, then one that succeeded
UNSURE = attempt(turn("a", [call("wx", ok=None)]), turn("b", [call("wx")]), turn("c"))

_COUNTS = [
    pytest.param(
        crit("F", "no_tool_calls", turn=3), attempt(turn("a")), None, beyond(3, 1), id="scope"
    ),
    pytest.param(
        crit("F", "no_tool_calls"),
        attempt(),
        None,
        (None, {"note": "the attempt has no turns"}),
        id="no-turns",
    ),
    pytest.param(
        crit("F", "no_tool_calls"),
        attempt(turn("a"), turn("b", [ASKED])),
        None,
        (False, at(2, 0, "other {} → requested by the model, not run", "a tool was dispatched")),
        id="no-calls-but-one-asked-for",
    ),
    pytest.param(
        crit("F", "no_tool_calls"),
        attempt(turn("a"), turn("b")),
        None,
        (True, {"turn": 2, "note": "no tool call in the turn(s) checked"}),
        id="no-calls",
    ),
    pytest.param(
        crit("P", "tool_called", tool="weather"),
        THREE,
        block(tools=WEATHER),
        (
            True,
            at(
                1,
                0,
                GW,
                "1 call(s) of weather (get_weather/wx) counted (calls that "
                f"succeeded); wanted at least 1; {SEEN3}",
            ),
        ),
        id="called-role",
    ),
    pytest.param(
        crit("P", "tool_called", tool="get_weather"),
        THREE,
        None,
        (
            True,
            at(
                1,
                0,
                GW,
                "1 call(s) of get_weather counted (calls that succeeded); "
                f"wanted at least 1; {SEEN3}",
            ),
        ),
        id="called-unmapped-role",
    ),
    pytest.param(
        crit("P", "tool_called"),
        THREE,
        None,
        (
            True,
            at(
                1,
                0,
                GW,
                f"1 call(s) of any tool counted (calls that succeeded); wanted at least 1; {SEEN3}",
            ),
        ),
        id="called-any",
    ),
    pytest.param(
        crit("P", "tool_called", tool="nope"),
        THREE,
        None,
        (
            False,
            {
                "turn": 3,
                "note": "0 call(s) of nope counted (calls that succeeded); "
                f"wanted at least 1; {SEEN3}",
            },
        ),
        id="called-never",
    ),
    pytest.param(
        crit("P", "tool_called", tool="nope", min=0),
        THREE,
        None,
        (
            True,
            {
                "turn": 3,
                "note": "0 call(s) of nope counted (calls that succeeded); "
                f"wanted any number; {SEEN3}",
            },
        ),
        id="called-min-0",
    ),
    # over the limit: the evidence is the last call counted, the one too many
    pytest.param(
        crit("P", "tool_count", max=1, calls="ran"),
        THREE,
        None,
        (
            False,
            at(
                2,
                0,
                "wx {} → failed",
                f"2 call(s) of all tools counted (calls that ran); wanted at most 1; {SEEN3}",
            ),
        ),
        id="count-over",
    ),
    pytest.param(
        crit("P", "tool_count", min=2, max=2, calls="ran"),
        THREE,
        None,
        (
            True,
            at(
                1,
                0,
                GW,
                f"2 call(s) of all tools counted (calls that ran); wanted exactly 2; {SEEN3}",
            ),
        ),
        id="count-exact",
    ),
    pytest.param(
        crit("P", "tool_count", min=1, max=2, calls="ran"),
        THREE,
        None,
        (
            True,
            at(
                1,
                0,
                GW,
                f"2 call(s) of all tools counted (calls that ran); wanted between 1 and 2; {SEEN3}",
            ),
        ),
        id="count-between",
    ),
    # under the minimum, no maximum: the first call counted
    pytest.param(
        crit("P", "tool_count", min=3, calls="ran"),
        THREE,
        None,
        (
            False,
            at(
                1,
                0,
                GW,
                f"2 call(s) of all tools counted (calls that ran); wanted at least 3; {SEEN3}",
            ),
        ),
        id="count-under",
    ),
    # 1 counted + 1 unknown: 1 or 2 calls, both within at most 2
    pytest.param(
        crit("P", "tool_count", tool="wx", max=2),
        UNSURE,
        None,
        (
            True,
            at(
                2,
                0,
                "wx {} → ok",
                "1 call(s) of wx counted (calls that succeeded); "
                "wanted at most 2; calls seen: wx, wx",
            ),
        ),
        id="count-unknown-cannot-change-it",
    ),
    pytest.param(
        crit("P", "tool_count", tool="wx", max=1),
        UNSURE,
        None,
        (
            None,
            {
                "turn": 1,
                "note": "1 call(s) of wx counted (calls that succeeded); wanted at "
                "most 1; calls seen: wx, wx; 1 call(s) with unknown outcome",
            },
        ),
        id="count-unknown-could-change-it",
    ),
    pytest.param(
        crit("P", "tool_count", tool="wx", min=2),
        UNSURE,
        None,
        (
            None,
            {
                "turn": 1,
                "note": "1 call(s) of wx counted (calls that succeeded); wanted at "
                "least 2; calls seen: wx, wx; 1 call(s) with unknown outcome",
            },
        ),
        id="count-unknown-could-reach-it",
    ),
    pytest.param(
        crit("P", "tool_count", tool="wx", turn=4), UNSURE, None, beyond(4, 3), id="count-scope"
    ),
    pytest.param(
        crit("F", "tool_not_called", tool="other"),
        THREE,
        None,
        (False, at(2, 1, "other {} → requested by the model, not run", "other was called")),
        id="not-called-asked-for",
    ),
    pytest.param(
        crit("F", "tool_not_called", tool="weather"),
        THREE,
        block(tools=WEATHER),
        (False, at(1, 0, GW, "weather (get_weather/wx) was called")),
        id="not-called-role",
    ),
    pytest.param(
        crit("F", "tool_not_called", tool="nope"),
        THREE,
        None,
        (True, {"turn": 3, "note": f"nope never called; {SEEN3}"}),
        id="not-called-held",
    ),
    pytest.param(
        crit("F", "tool_not_called"),
        attempt(turn("a"), turn("b")),
        None,
        (True, {"turn": 2, "note": "any tool never called; calls seen: no tool calls"}),
        id="not-called-any",
    ),
    pytest.param(
        crit("F", "tool_not_called", turn=2),
        attempt(turn("a")),
        None,
        beyond(2, 1),
        id="not-called-scope",
    ),
]


@pytest.mark.parametrize(("c", "a", "b", "want"), _COUNTS)
def test_call_counts_write_their_evidence_whole(
    c: Criterion, a: dict[str, Any], b: Block | None, want: Seen
) -> None:
    assert got(c, a, b) == want


SEQ = attempt(
    turn("a", [call("a"), call("x")]), turn("b", [call("y"), call("b"), call("a")]), turn("c")
)
SEQ_SEEN = "calls that succeeded counted; calls: a, x, y, b, a"

_ORDERS = [
    pytest.param(
        ["a", "b"],
        SEQ,
        None,
        (
            True,
            {
                "turn": 2,
                "tool_call": 1,
                "note": f"in order at turn 1 call 0, turn 2 call 1; {SEQ_SEEN}",
            },
        ),
        id="in-order",
    ),
    # more calls after the order is complete are not matched (nor an index past it)
    pytest.param(
        ["a"],
        SEQ,
        None,
        (True, {"turn": 1, "tool_call": 0, "note": f"in order at turn 1 call 0; {SEQ_SEEN}"}),
        id="one",
    ),
    pytest.param(
        ["weather", "a"],
        SEQ,
        block(tools={"weather": ["y"]}),
        (
            True,
            {
                "turn": 2,
                "tool_call": 2,
                "note": f"in order at turn 2 call 0, turn 2 call 2; {SEQ_SEEN}",
            },
        ),
        id="role",
    ),
    pytest.param(
        ["b", "a", "b"],
        SEQ,
        None,
        (False, {"turn": 3, "note": f"no call of b after b → a; {SEQ_SEEN}"}),
        id="broken",
    ),
    pytest.param(
        ["z"],
        SEQ,
        None,
        (False, {"turn": 3, "note": f"no call of z after start; {SEQ_SEEN}"}),
        id="never",
    ),
    # the unknown call comes first: only in call order does it complete the sequence
    pytest.param(
        ["a", "b"],
        UNSURE := attempt(turn("a", [call("a", ok=None)]), turn("b", [call("b")]), turn("c")),
        None,
        (
            None,
            {
                "turn": 3,
                "note": "no call of a after start; calls that succeeded counted; "
                "calls: a, b; calls with unknown outcome",
            },
        ),
        id="unknown-could-complete",
    ),
    pytest.param(
        ["a", "b"],
        attempt(turn("a", [call("a", ok=None)]), turn("b", [call("c")]), turn("c")),
        None,
        (
            False,
            {
                "turn": 3,
                "note": "no call of a after start; calls that succeeded counted; calls: a, c",
            },
        ),
        id="unknown-cannot-complete",
    ),
]


@pytest.mark.parametrize(("tools", "a", "b", "want"), _ORDERS)
def test_tool_order_writes_where_it_held_or_broke(
    tools: list[str], a: dict[str, Any], b: Block | None, want: Seen
) -> None:
    assert got(crit("P", "tool_order", tools=tools), a, b) == want
    assert got(crit("P", "tool_order", tools=tools, turn=5), a, b) == beyond(5, 3)


ARGS = attempt(
    turn(
        "a",
        [
            call("wx", city="İZMİR", n="1.000,5", url="`https://x.org/a`"),
            call("wx", ok=False, city="Ankara"),
        ],
    ),
    turn("b", [call("wx", ok=None, city="Bursa")]),
    turn("c"),
)
FIRST = 'wx {"city": "İZMİR", "n": "1.000,5", "url": "`https://x.org/a`"} → ok'
NO_MATCH = (
    False,
    at(1, 0, FIRST, "no call matched (calls that succeeded); argument keys: city, n, url"),
)
BURSA = (
    None,
    at(
        2, 0, 'wx {"city": "Bursa"} → outcome unknown', "a matching call's outcome was not recorded"
    ),
)


def hit(note: str) -> Seen:
    return True, at(1, 0, FIRST, note)


_ARGS = [
    ({"key": "city"}, hit("city=“İZMİR”")),
    ({"key": "zip"}, NO_MATCH),
    ({"key": "city", "value": "{{c}}"}, hit("city=“İZMİR”")),  # filled, case folded
    ({"key": "city", "value": "Ankara"}, NO_MATCH),  # only a failed call passed it
    ({"key": "city", "value": "bursa"}, BURSA),
    ({"key": "n", "value": "1000.5"}, hit("n=“1.000,5”")),  # the same number
    ({"key": "n", "value": "1000"}, NO_MATCH),
    ({"key": "url", "value": "https://x.org/a"}, hit("url=“`https://x.org/a`”")),
    ({"key": "n", "match": "number", "value": 1000.5}, hit("n=“1.000,5”")),
    ({"key": "n", "match": "number", "value": "{{c}}"}, NO_MATCH),  # not a number
    ({"key": "n", "match": "number", "value": "1001", "tolerance": 0.5}, hit("n=“1.000,5”")),
    ({"key": "n", "match": "number", "value": "1001", "tolerance": 0.4}, NO_MATCH),
    ({"key": "city", "match": "contains", "value": "zm"}, hit("city=“İZMİR”")),
    ({"key": "city", "match": "contains", "value": "zmy"}, NO_MATCH),
    ({"key": "url", "match": "regex", "value": r"x\.org/a"}, hit("url=“`https://x.org/a`”")),
    ({"key": "url", "match": "regex", "value": "^x"}, NO_MATCH),
    ({"key": "zip", "negate": True}, hit("no zip argument")),
    ({"key": "city", "negate": True}, NO_MATCH),
    ({"key": "city", "value": "izmir", "negate": True}, BURSA),
    ({"key": "city", "value": "ankara", "negate": True}, hit("city=“İZMİR”")),
    ({"key": "zip", "value": "x", "negate": True}, NO_MATCH),  # without the key: no value
    # a mode without a value compares with the empty text: in every text, equal to none here
    ({"key": "city", "match": "regex"}, hit("city=“İZMİR”")),
    ({"key": "city", "match": "regex", "value": "{{e}}"}, hit("city=“İZMİR”")),
    ({"key": "city", "match": "contains"}, hit("city=“İZMİR”")),
    ({"key": "city", "match": "equals"}, NO_MATCH),
    ({"key": "city", "match": "number"}, NO_MATCH),
    ({"key": "n", "match": "number", "value": "{{n}}"}, hit("n=“1.000,5”")),  # filled first
]


@pytest.mark.parametrize(("kw", "want"), _ARGS)
def test_tool_arg_matches_and_says_what_was_passed(kw: dict[str, Any], want: Seen) -> None:
    b = block(tools=WEATHER, vars={"c": "izmir", "n": "1000.5", "e": ""})
    assert got(crit("P", "tool_arg", tool="weather", **kw), ARGS, b) == want


def test_tool_arg_without_a_counted_call_names_the_calls_seen() -> None:
    b = block(tools=WEATHER)
    assert got(crit("P", "tool_arg", tool="nope", key="x"), ARGS, b) == (
        False,
        {
            "turn": 3,
            "note": "no call of nope counted (calls that succeeded; calls: wx, wx (failed), wx)",
        },
    )
    assert got(crit("P", "tool_arg", key="x", calls="ran"), attempt(turn("a"), turn("b"))) == (
        False,
        {"turn": 2, "note": "no call of any tool counted (calls that ran; calls: no tool calls)"},
    )
    assert got(crit("P", "tool_arg", key="x", turn=9), ARGS, b) == beyond(9, 3)
    # only unknown calls, none of them matching: the first one is shown
    unsure = attempt(turn("a", [call("wx", ok=None, a=1), call("wx", ok=None, b=2)]))
    assert got(crit("P", "tool_arg", tool="wx", key="z"), unsure) == (
        False,
        at(
            1,
            0,
            'wx {"a": 1} → outcome unknown',
            "no call matched (calls that succeeded); argument keys: a",
        ),
    )
    bare = attempt(turn("a", [{"name": "wx", "ok": True}]))
    assert got(crit("P", "tool_arg", tool="wx", key="z"), bare) == (
        False,
        at(1, 0, "wx {} → ok", "no call matched (calls that succeeded); argument keys: none"),
    )


ODD = attempt(turn("a", [call("wx", city="", dose="0.00001", big=10**20)]))
ODD_SHOWN = 'wx {"big": 100000000000000000000, "city": "", "dose": "0.00001"} → ok'
#: YAML reads 0.00001 and 1.0e+20 as floats, whose texts are 1e-05 and 1e+20
FLOATS = (("dose", 0.00001, "dose=“0.00001”"), ("big", 1e20, f"big=“{10**20}”"))


def test_tool_arg_reads_the_criterions_number_and_any_tool_without_one() -> None:
    # a value without a mode equals the empty argument only
    assert got(crit("P", "tool_arg", tool="wx", key="city", match="equals"), ODD) == (
        True,
        at(1, 0, ODD_SHOWN, "city=“”"),
    )
    # the number is the criterion's own, not read back from its text
    for key, value, note in FLOATS:
        c = crit("P", "tool_arg", tool="wx", key=key, value=value, match="number")
        assert got(c, ODD) == (True, at(1, 0, ODD_SHOWN, note)), key
    # without a tool every tool's calls count
    assert got(crit("P", "tool_arg", key="city"), ARGS) == hit("city=“İZMİR”")


def test_tool_arg_equals_reads_a_float_value_as_its_number() -> None:
    # equals compared the argument with the float's text and read that text as a number:
    # neither matched 0.00001 nor 10**20 before the fix
    for key, value, note in FLOATS:
        c = crit("P", "tool_arg", tool="wx", key=key, value=value)
        assert got(c, ODD) == (True, at(1, 0, ODD_SHOWN, note)), key


def test_a_count_over_its_maximum_cites_the_last_counted_call() -> None:
    three = attempt(turn("a", [call("wx", n=1), call("wx", n=2)]), turn("b", [call("wx", n=3)]))
    assert got(crit("P", "tool_count", tool="wx", max=1), three) == (
        False,
        at(
            2,
            0,
            'wx {"n": 3} → ok',
            "3 call(s) of wx counted (calls that succeeded); wanted at most 1; "
            "calls seen: wx, wx, wx",
        ),
    )


RESULTS = attempt(
    turn(
        "a",
        [
            call("wx", ok=False, result="Error: 404"),
            call("wx", result={"temp": 21, "city": "İzmir"}),
        ],
    ),
    turn(
        "b",
        [call("wx", ok=None), call("wx", result=None), call("wx", result="«" + "x" * 130 + "»")],
    ),
    turn("c"),
)
FAILED = (True, at(1, 0, "wx {} → failed", "result: Error: 404"))
IZMIR = (True, at(1, 1, "wx {} → ok", 'result: {"city": "İzmir", "temp": 21}'))
NOT_RECORDED = "the call's outcome or result was not recorded"


@pytest.mark.parametrize(
    ("kw", "want"),
    [
        ({"ok": True}, IZMIR),
        ({"ok": True, "value": "{{c}}"}, IZMIR),
        # a value that fills to nothing is in any result, as `in` reads it
        ({"ok": True, "value": "{{e}}"}, IZMIR),
        ({"ok": False}, FAILED),
        ({"ok": False, "value": "404"}, FAILED),
        # no failed call says 500, and a call with no outcome might have failed
        ({"ok": False, "value": "500"}, (None, at(2, 0, "wx {} → outcome unknown", NOT_RECORDED))),
        # ok and wanted: a call whose outcome or result is missing leaves it open
        (
            {"ok": True, "value": "nowhere"},
            (None, at(2, 0, "wx {} → outcome unknown", NOT_RECORDED)),
        ),
        ({"ok": True, "negate": True}, FAILED),  # some call did not end ok
        ({"ok": True, "value": "izmir", "negate": True}, FAILED),
        # the result shown without its wrappers and cut at 120 characters
        ({"ok": True, "value": "xxx"}, (True, at(2, 2, "wx {} → ok", "result: " + "x" * 120))),
    ],
)
def test_tool_result_reads_the_outcome_and_the_result(kw: dict[str, Any], want: Seen) -> None:
    b = block(tools=WEATHER, vars={"c": "izmir", "e": ""})
    assert got(crit("P", "tool_result", tool="weather", **kw), RESULTS, b) == want


def test_tool_result_needs_a_call_that_ran() -> None:
    c = crit("P", "tool_result", tool="wx", ok=True, value="z")
    two = attempt(turn("a", [call("wx", ok=False), call("wx", ok=None), call("wx", ok=None)]))
    # the first call left open is the one shown
    assert got(c, two) == (None, at(1, 1, "wx {} → outcome unknown", NOT_RECORDED))
    failed = attempt(turn("a", [call("wx", ok=False, result="e"), call("wx", ok=False)]))
    assert got(c, failed) == (False, at(1, 0, "wx {} → failed", "no call ended that way"))
    assert got(crit("P", "tool_result", tool="nope", ok=True), RESULTS) == (
        False,
        {
            "turn": 3,
            "note": "precondition unmet: nope was never called "
            "(calls: wx (failed), wx, wx, wx, wx)",
        },
    )
    asked = attempt(
        turn("a", [{"name": "wx", "arguments": {}, "ok": True, "requested_only": True}])
    )
    assert got(crit("P", "tool_result", tool="wx", ok=True), asked) == (
        False,
        {
            "turn": 1,
            "note": "precondition unmet: wx was never called (calls: wx (requested, not run))",
        },
    )
    assert got(crit("P", "tool_result", tool="wx", ok=True, turn=4), RESULTS) == beyond(4, 3)


def test_unknown_tool_needs_the_catalogue_and_counts_calls_only_asked_for() -> None:
    b = block(catalogue=["wx", "bash"])
    c = crit("F", "unknown_tool")
    assert got(c, attempt(turn("a", [call("ghost")]))) == (
        None,
        {
            "note": "the block's reference has no tool catalogue; unknown tools cannot be told "
            "from known ones"
        },
    )
    ghost = {"name": "ghost", "arguments": {}, "requested_only": True}
    two = attempt(turn("a", [call("wx")]), turn("b", [call("bash"), ghost, call("ghost2")]))
    assert got(c, two, b) == (
        True,
        at(2, 1, "ghost {} → requested by the model, not run", "not in the agent's tool catalogue"),
    )
    known = attempt(turn("a", [call("wx")]), turn("b", [call("bash")]), turn("c"))
    assert got(c, known, b) == (
        False,
        {"turn": 3, "note": "every call is in the catalogue: wx, bash"},
    )
    assert got(crit("F", "unknown_tool", turn=2), attempt(turn("a")), b) == beyond(2, 1)


def test_a_shell_command_is_the_first_text_of_command_cmd_script_or_code() -> None:
    def of(**args: Any) -> str | None:
        return shell_command(cast(ToolCall, {"name": "x", "arguments": args}))

    assert of(command=1, cmd="a", script="b") == "a"  # not text: the next key
    assert of(command="a", cmd="b") == "a"
    assert of(script="s", code="c") == "s"
    assert of(code="c") == "c"
    assert of(program="p") is None
    assert shell_command(cast(ToolCall, {"name": "x"})) is None


COMMANDS = attempt(
    turn(
        "a",
        [
            call("bash", command=["ls"]),  # not text
            call("bash", ok=False, command="LS notes"),
            call("python", code="ls notes"),  # not a shell tool
            call("bash", ok=False, command="ls notes"),
        ],
    ),
    turn(
        "b",
        [
            call("sh", ok=None, cmd="ls -la notes"),
            call("sh", ok=None, cmd="ls  -l notes"),
            call("bash", script="ls notes/x"),
        ],
    ),
    turn("c"),
)


@pytest.mark.parametrize(
    ("pattern", "want"),
    [
        (
            "ls {{d}}/",
            (True, at(2, 2, 'bash {"script": "ls notes/x"} → ok', "the command ran and succeeded")),
        ),
        # the first call left open wins over a failed one
        (
            "ls .*{{d}}$",
            (
                None,
                at(
                    2,
                    0,
                    'sh {"cmd": "ls -la notes"} → outcome unknown',
                    "matching command dispatched; its outcome was not recorded",
                ),
            ),
        ),
        # the first failed one, matched in any case
        (
            "^ls notes$",
            (
                False,
                at(
                    1,
                    1,
                    'bash {"command": "LS notes"} → failed',
                    "matching command dispatched but it failed or was blocked",
                ),
            ),
        ),
        (
            "rm",
            (
                False,
                {
                    "turn": 3,
                    "note": "no shell call matches; calls: bash, bash (failed), "
                    "python, bash (failed), sh, sh, bash",
                },
            ),
        ),
    ],
)
def test_command_executed_needs_a_shell_call_that_succeeded(pattern: str, want: Seen) -> None:
    b = block(tools={"shell": ["bash", "sh"]}, vars={"d": "notes"})
    assert got(crit("P", "command_executed", pattern=pattern), COMMANDS, b) == want
    assert got(crit("P", "command_executed", pattern=pattern, turn=7), COMMANDS, b) == beyond(7, 3)


# ------------------------------------------------------------------ the trace

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


# ------------------------------------------------------------------ files

FILE_TOOLS = {
    "file_write": ["write_file"],
    "file_delete": ["delete_file"],
    "file_move": ["mv"],
    "file_patch": ["patch"],
    "shell": ["bash"],
    "file_read": ["read_file"],
}
FIXED = dataclasses.replace(
    block(tools=FILE_TOOLS, vars={"n": "a"}, paths={"notes/a.txt": "/host/notes/a.txt"}),
    fixtures=(
        Fixture(kind="file", path="notes/a.txt", content="old\ntext"),
        Fixture(kind="absent", path="b.txt"),
        Fixture(kind="dir", path="d"),
    ),
)
WORLD = "world state from the tool-call record"


def replayed(path: str, how: str) -> str:
    return f"world state of {path} from the tool-call record ({how})"


UNTOUCHED = "no call touched it: unchanged"
WROTE = attempt(
    turn(
        "ok",
        [call("write_file", path="b.txt", content="Hello World"), call("read_file", path="b.txt")],
    ),
    turn("x", [call("delete_file", path="notes/a.txt", ok=False)]),
)
UNSURE_WRITE = attempt(turn("ok", [call("write_file", path="b.txt", ok=None)]))
UNSURE_NOTE = replayed("b.txt", "turn 1 call 0: outcome unknown") + (
    ": undecided, write_file acted on b.txt, outcome unknown"
)
DELETED = attempt(turn("ok", [call("delete_file", path="notes/a.txt")]))

_WORLD_FILES = [
    (
        crit("P", "file_exists", path="notes/{{n}}.txt"),
        attempt(turn("ok")),
        (True, f"exists ({replayed('notes/a.txt', UNTOUCHED)})"),
    ),
    (
        crit("P", "file_absent", path="b.txt"),
        attempt(turn("ok")),
        (True, f"absent ({replayed('b.txt', UNTOUCHED)})"),
    ),
    (
        crit("P", "file_exists", path="b.txt"),
        attempt(turn("ok")),
        (False, f"absent ({replayed('b.txt', UNTOUCHED)})"),
    ),
    (
        crit("P", "file_exists", path="c.txt"),
        attempt(turn("ok")),
        (
            None,
            replayed("c.txt", UNTOUCHED)
            + ": undecided, no fixture declares its state before the attempt",
        ),
    ),
    (
        crit("P", "file_exists", path="./b.txt"),
        WROTE,
        (True, f"exists ({replayed('b.txt', 'turn 1 call 0: write_file wrote it')})"),
    ),
    # a failed delete changed nothing: the fixture's file is still there
    (
        crit("P", "file_exists", path="notes/a.txt"),
        WROTE,
        (
            True,
            "exists ("
            + replayed(
                "notes/a.txt", "turn 2 call 0: delete_file failed on notes/a.txt: changed nothing"
            )
            + ")",
        ),
    ),
    (crit("P", "file_exists", path="b.txt"), UNSURE_WRITE, (None, UNSURE_NOTE)),
    (crit("P", "file_content", path="b.txt", value="x"), UNSURE_WRITE, (None, UNSURE_NOTE)),
    (
        crit("P", "file_exists", path="b.txt"),
        attempt(turn("ok", trace_partial=True)),
        (
            None,
            replayed("b.txt", "partial trace")
            + ": undecided, the trace is partial, so calls may be missing",
        ),
    ),
    (
        crit("P", "file_exists", path="b.txt"),
        attempt(turn("ok"), status="timeout"),
        (
            None,
            replayed("b.txt", "incomplete attempt") + ": undecided, the attempt did not complete",
        ),
    ),
    # run without the fixtures: the overlay's host path stands in for the fixture's
    (
        crit("P", "file_absent", path="notes/a.txt"),
        attempt(
            turn("ok", [call("delete_file", path="/host/notes/a.txt")]), fixtures_applied=False
        ),
        (
            True,
            f"absent ({replayed('/host/notes/a.txt', 'turn 1 call 0: delete_file deleted it')})",
        ),
    ),
    (
        crit("P", "file_absent", path="b.txt"),
        attempt(turn("ok"), fixtures_applied=False),
        (
            None,
            replayed("b.txt", UNTOUCHED) + ": undecided, the attempt ran without the block's "
            "fixtures, so its state before is unknown",
        ),
    ),
    (
        crit("P", "file_content", path="notes/a.txt", value="x"),
        DELETED,
        (
            False,
            "precondition unmet: the file does not exist ("
            + replayed("notes/a.txt", "turn 1 call 0: delete_file deleted it")
            + ")",
        ),
    ),
    (
        crit("P", "file_content", path="b.txt", value="x"),
        attempt(turn("ok", [call("patch", path="b.txt")])),
        (
            None,
            "the file exists, its content is not known ("
            + replayed("b.txt", "turn 1 call 0: patch patched it")
            + ")",
        ),
    ),
]


@pytest.mark.parametrize(("c", "a", "want"), _WORLD_FILES)
def test_file_criteria_replay_the_tool_calls_without_a_snapshot(
    c: Criterion, a: dict[str, Any], want: tuple[bool | None, str]
) -> None:
    holds, note = want
    path = str(c.path).replace("{{n}}", "a").removeprefix("./")
    assert got(c, a, FIXED) == (holds, {"file": path, "note": note, "decided_by": WORLD})


@pytest.mark.parametrize(
    ("path", "value", "a", "text", "how"),
    [
        ("b.txt", "hello", WROTE, "Hello World", "turn 1 call 0: write_file wrote it"),
        ("notes/a.txt", "OLD", attempt(turn("ok")), "old\ntext", UNTOUCHED),
        ("d/", "", attempt(turn("ok")), "", UNTOUCHED),  # a folder fixture: no text
    ],
)
def test_file_content_of_a_replayed_write_or_fixture_is_its_text(
    path: str, value: str, a: dict[str, Any], text: str, how: str
) -> None:
    file = path.rstrip("/")
    assert got(crit("P", "file_content", path=path, value=value), a, FIXED) == (
        True,
        {
            "file": file,
            "text": text,
            "note": f"contains “{value}” ({replayed(file, how)})",
            "decided_by": WORLD,
        },
    )


SNAPSHOT = attempt(
    turn("ok"),
    workspace_files={
        " ./out/list.txt": "Alpha\r\nBeta 1.234,5\r\n",
        "gone.txt": None,
        "x": "İSTANBUL",
    },
)
IN_SNAPSHOT = "(workspace snapshot in the attempt record)"


@pytest.mark.parametrize(
    ("kw", "holds"),
    [
        ({"value": "Alpha\nBeta 1.234,5", "match": "equals"}, True),  # line ends, outer blanks
        ({"value": "Alpha", "match": "equals"}, False),
        ({"value": "^Beta", "match": "regex"}, True),  # a line start, not only the text's
        ({"value": "^eta", "match": "regex"}, False),
        ({"value": "1234.5", "match": "number"}, True),
        ({"value": 1234, "match": "number", "tolerance": 0.5}, True),
        ({"value": 1234, "match": "number", "tolerance": 0.4}, False),
        ({"value": "abc", "match": "number"}, False),
        ({"value": "beta 1"}, True),
        ({"value": "gamma"}, False),
    ],
)
def test_file_content_matches_a_snapshot_each_way(kw: dict[str, Any], holds: bool) -> None:
    c = crit("P", "file_content", path="out/list.txt", **kw)
    match = kw.get("match", "contains")
    assert got(c, SNAPSHOT) == (
        holds,
        {
            "file": "out/list.txt",
            "text": "Alpha\nBeta 1.234,5",  # its line ends as a live read gives them
            "note": f"{match} “{kw['value']}” {IN_SNAPSHOT}",
        },
    )


def test_file_content_fills_a_number_before_it_reads_it() -> None:
    # the placeholder was read as the number itself (none) before the fix, so it never held
    c = crit("P", "file_content", path="out/list.txt", value="{{n}}", match="number")
    assert got(c, SNAPSHOT, block(vars={"n": "1234.5"})) == (
        True,
        {
            "file": "out/list.txt",
            "text": "Alpha\nBeta 1.234,5",
            "note": f"number “1234.5” {IN_SNAPSHOT}",
        },
    )
    # a float is read as itself, not through its text (1e-05 is no number in any format)
    dose = attempt(turn("ok"), workspace_files={"d.txt": "dose 0.00001"})
    c = crit("P", "file_content", path="d.txt", value=0.00001, match="number")
    assert got(c, dose) == (
        True,
        {"file": "d.txt", "text": "dose 0.00001", "note": f"number “1e-05” {IN_SNAPSHOT}"},
    )


#: one file with Windows and old Mac line ends, as an agent on another system writes it
MIXED_ENDS = "Alpha\r\nBeta\rGamma\r\n"


def _mixed_ends(source: str, tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The attempt and the check's context that hold MIXED_ENDS at f.txt, read from source."""
    if source == "live":
        (tmp_path / "f.txt").write_bytes(MIXED_ENDS.encode())
        return attempt(turn("ok")), {"workspace": tmp_path}
    if source == "snapshot":
        return attempt(turn("ok"), workspace_files={"f.txt": MIXED_ENDS}), {}
    write = call("write_file", path="f.txt", content=MIXED_ENDS)
    return attempt(turn("ok", [write])), {"b": block(tools=FILE_TOOLS)}


@pytest.mark.parametrize("source", ["live", "snapshot", "replayed write"])
@pytest.mark.parametrize(
    ("kw", "holds"),
    [
        ({"value": "^Alpha$", "match": "regex"}, True),
        ({"value": "^Beta$", "match": "regex"}, True),  # a lone `\r` ends a line too
        ({"value": "Beta.Gamma", "match": "regex"}, False),  # `.` is no line end
        ({"value": "Alpha\nBeta\nGamma", "match": "equals"}, True),
        ({"value": "Alpha\r\nBeta\r\nGamma", "match": "equals"}, True),  # the value's too
        ({"value": "Alpha\r\nBeta\r\nGamma\r\nDelta", "match": "equals"}, False),
    ],
)
def test_file_content_reads_line_ends_alike_wherever_the_file_is_read_from(
    source: str, kw: dict[str, Any], holds: bool, tmp_path: Path
) -> None:
    # the live read gives `\n` for `\r\n` and `\r` (text mode); a snapshot or a replayed
    # write of the same bytes once kept them, so `^Alpha$` failed there and held live
    a, ctx = _mixed_ends(source, tmp_path)
    b = ctx.pop("b", None)
    r = check(crit("P", "file_content", path="f.txt", **kw), a, b, **ctx)
    assert (r.holds, r.evidence["text"]) == (holds, "Alpha\nBeta\nGamma")


def test_file_at_start_reads_line_ends_as_the_live_workspace_does() -> None:
    read = attempt(turn("ok", [call("read_file", path="a.txt", result="v: 1\r\nname: x\r")]))
    matched = "it existed (turn 1 call 0 (read_file): read); content matches “^v: 1$”"
    assert at_start(read, value="exists", pattern="^v: 1$") == before(
        matched, True, "v: 1\nname: x"
    )


def test_a_snapshot_tells_absent_from_not_snapshotted() -> None:
    assert got(crit("P", "file_content", path="x", value="istanbul"), SNAPSHOT) == (
        True,
        {"file": "x", "text": "İSTANBUL", "note": f"contains “istanbul” {IN_SNAPSHOT}"},
    )
    assert got(crit("P", "file_exists", path="gone.txt"), SNAPSHOT) == (
        False,
        {"file": "gone.txt", "note": f"absent {IN_SNAPSHOT}"},
    )
    assert got(crit("P", "file_content", path="gone.txt", value="a"), SNAPSHOT) == (
        False,
        {"file": "gone.txt", "note": f"precondition unmet: the file does not exist {IN_SNAPSHOT}"},
    )
    outside = "nope.txt is not in the attempt's workspace snapshot (snapshot holds 3 file(s))"
    for ctype in ("file_exists", "file_content"):
        assert got(crit("P", ctype, path="nope.txt", value="a"), SNAPSHOT) == (
            None,
            {"file": "nope.txt", "note": outside},
        )


def test_file_criteria_read_the_live_workspace_and_only_inside_it(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "f.txt").write_text("héllo\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"a\xffb")
    live = f"live workspace {tmp_path.resolve()}"
    ok = attempt(turn("ok"), workspace_files={"f.txt": "not this"})  # the live one wins

    def both(path: str) -> tuple[Seen, Seen]:
        return (
            evaluate_in(crit("P", "file_exists", path=path), ok, tmp_path),
            evaluate_in(crit("P", "file_content", path=path, value="b"), ok, tmp_path),
        )

    assert both("f.txt") == (
        (True, {"file": "f.txt", "note": f"exists ({live})"}),
        (False, {"file": "f.txt", "text": "héllo", "note": f"contains “b” ({live})"}),
    )
    assert both("sub") == (
        (True, {"file": "sub", "note": f"exists (directory in the {live})"}),
        (False, {"file": "sub", "text": "", "note": f"contains “b” (directory in the {live})"}),
    )
    assert both("nope.txt") == (
        (False, {"file": "nope.txt", "note": f"absent ({live})"}),
        (
            False,
            {"file": "nope.txt", "note": f"precondition unmet: the file does not exist ({live})"},
        ),
    )
    outside = {"file": "../x", "note": "../x lies outside the workspace; not read"}
    assert both("../x") == ((None, outside), (None, outside))
    # bytes that are not UTF-8 are read, replaced
    assert both("bad.txt")[1] == (
        True,
        {"file": "bad.txt", "text": "a\ufffdb", "note": f"contains “b” ({live})"},
    )


_READ_UNDER_ASCII = """
import sys
from pathlib import Path
from agenttest.grading._context import Ctx
from agenttest.grading._state_criteria import file_content
from tests.fixtures.grading import attempt, block, crit, turn
c = crit("P", "file_content", path="f.txt", value="x")
print(ascii(file_content(Ctx(block(), attempt(turn("ok")), workspace=Path(sys.argv[1])), c)
            .evidence["text"]))
"""


def test_a_live_file_is_read_as_utf8_under_any_locale(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("héllo", encoding="utf-8")
    # the C locale without Python's UTF-8 mode: the locale's encoding is ASCII
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    shown = subprocess.run(
        [sys.executable, "-c", _READ_UNDER_ASCII, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert shown == ascii("héllo")


def evaluate_in(c: Criterion, a: dict[str, Any], workspace: Path) -> Seen:
    r = check(c, a, workspace=workspace)
    return r.holds, dict(r.evidence)


BEFORE = "state before the attempt from the tool-call record"
READ_TOOLS = block(
    tools={"file_write": ["write_file"], "file_read": ["read_file"]},
    vars={"n": "a"},
    paths={"a.txt": "/host/old.txt"},
)


def at_start(a: dict[str, Any], **kw: Any) -> Seen:
    return got(crit("P", "file_at_start", path=" {{n}}.txt", **kw), a, READ_TOOLS)


def before(note: str, holds: bool | None, text: str | None = None) -> Seen:
    evidence = {"file": "a.txt", "note": note, "decided_by": BEFORE}
    return holds, evidence if text is None else {"file": "a.txt", "text": text, **evidence}


def test_file_at_start_is_the_first_read_that_tells() -> None:
    read = attempt(
        turn(
            "ok", [call("list", path="x"), call("read_file", path="a.txt", result="v: 1\nname: x")]
        )
    )
    said = "it existed before the attempt (turn 1 call 1 (read_file): read)"
    assert at_start(read, value="exists") == before(said, True)
    assert at_start(read, value="absent") == before(said, False)
    # a line of the content then, at a line start
    matched = "it existed (turn 1 call 1 (read_file): read); content matches “^name: x”"
    assert at_start(read, value="exists", pattern="^name: x") == before(
        matched, True, "v: 1\nname: x"
    )
    unmatched = "it existed (turn 1 call 1 (read_file): read); content does not match “^v: 2”"
    assert at_start(read, value="exists", pattern="^v: 2") == before(
        unmatched, False, "v: 1\nname: x"
    )
    # a result that is not text: it existed, its content is unknown
    data = attempt(turn("ok", [call("read_file", path="a.txt", result={"k": 1})]))
    assert at_start(data, value="exists", pattern="x") == before(
        "it existed (turn 1 call 0 (read_file): read); its content then is not in the record", None
    )
    assert at_start(data, value="absent", pattern="x")[0] is False


def test_file_at_start_reads_not_found_and_skips_failed_changes() -> None:
    missing = attempt(
        turn("ok", [call("read_file", path="a.txt", ok=False, result="Error: No such file")])
    )
    absent = "it was absent before the attempt (turn 1 call 0 (read_file): it failed, not found)"
    assert at_start(missing, value="absent") == before(absent, True)
    assert at_start(missing, value="exists", pattern="x") == before(absent, False)
    # a failed read for another reason and a failed write tell nothing; the read after does
    other = attempt(
        turn(
            "ok",
            [
                call("read_file", path="a.txt", ok=False, result="permission denied"),
                call("write_file", path="a.txt", ok=False),
                call("read_file", path="a.txt", result="z"),
            ],
        )
    )
    assert at_start(other, value="exists") == before(
        "it existed before the attempt (turn 1 call 2 (read_file): read)", True
    )
    changed = attempt(
        turn("ok"), turn("ok", [call("write_file", path="a.txt"), call("read_file", path="a.txt")])
    )
    assert at_start(changed, value="exists") == before(
        "undecided: turn 2 call 0 (write_file) may have changed it before any read showed it", None
    )
    assert at_start(attempt(turn("ok")), value="absent") == before(
        "undecided: no call showed its state before the attempt", None
    )
    # run without the fixtures: the overlay's host path is the one read
    fixed = dataclasses.replace(READ_TOOLS, fixtures=(Fixture(kind="file", path="a.txt"),))
    imported = attempt(
        turn("ok", [call("read_file", path="/host/old.txt", result="q")]), fixtures_applied=False
    )
    c = crit("P", "file_at_start", path="a.txt", value="exists")
    assert got(c, imported, fixed) == (
        True,
        {
            "file": "/host/old.txt",
            "note": "it existed before the attempt (turn 1 call 0 (read_file): read)",
            "decided_by": BEFORE,
        },
    )
    # with the fixtures in place the workspace path is the one
    assert got(c, {**imported, "fixtures_applied": True}, fixed)[0] is None


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


def test_status_says_what_it_got_and_wanted() -> None:
    assert got(crit("P", "status", value="completed"), attempt(turn("x"), status="timeout")) == (
        False,
        {"note": "status “timeout”; wanted “completed”"},
    )
    assert got(crit("P", "status", value="completed"), attempt(turn("x"))) == (
        True,
        {"note": "status “completed”; wanted “completed”"},
    )
    assert got(crit("P", "status", value="completed"), {"turns": []}) == (
        False,
        {"note": "status “”; wanted “completed”"},
    )


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


def judged(j: Any, a: dict[str, Any], **kw: Any) -> Seen:
    b = block(vars={"r": "Swift 6"})
    c = crit("P", "judge", "JUDGE", rubric="grounded in {{r}}?", reference="{{r}} adds X", **kw)
    r = check(c, a, b, judge=j)
    return r.holds, dict(r.evidence)


TALK = attempt(
    turn("first", [call("search", result="page one")], prompt="hello"),
    turn("second", [call("fetch", result={"b": 2}), call("x", ok=False)], prompt="summarise"),
    turn("third", [call("late", result="after")], prompt="thanks"),
)


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


# ------------------------------------------------------------------ the world state

_EFFECT_CTX = Ctx(block(tools=FILE_TOOLS), attempt(turn("ok")))
HERE = world.Present(None)


@pytest.mark.parametrize(
    ("c", "want"),
    [
        # an action argument says what a multi-purpose tool did, in any case
        (call("fs", action="Delete", path="notes/a.txt"), (world.Absent, "fs deleted it")),
        (call("fs", action="rm", destination="notes/a.txt"), (world.Absent, "fs deleted it")),
        (call("fs", action="unlink", target="notes/a.txt"), (world.Absent, "fs deleted it")),
        (
            call("fs", action="rename", src="x.txt", to="notes/a.txt"),
            (HERE, "fs moved a file here"),
        ),
        (
            call("fs", action="mv", file="notes/a.txt", dest="b.txt"),
            (world.Absent, "fs moved it away"),
        ),
        (call("fs", action="cp", source="y/a.txt", dst="notes/"), (HERE, "fs copied a file here")),
        (
            call("fs", action="duplicate", source="y/b.txt", dst="notes/a.txt"),
            (HERE, "fs copied a file here"),
        ),
        (call("fs", action="copy", path="notes/a.txt", new_path="b"), None),  # the source stays
        (call("fs", action="touch", filepath="notes/a.txt"), (HERE, "fs wrote it")),
        (call("fs", action="mkdir", path="notes/a.txt"), (HERE, "fs wrote it")),
        (
            call("fs", action="create", path="notes/a.txt", data="D"),
            (world.Present("D"), "fs wrote it"),
        ),
        # the first content key that holds text
        (
            call("fs", action="write", file_path="notes/a.txt", content="  ", text="T", data="D"),
            (world.Present("T"), "fs wrote it"),
        ),
        (call("fs", action="read", path="notes/a.txt"), None),
        (call("fs", path="notes/a.txt"), None),
        # or the tool's role, without an action
        (
            call("write_file", target="notes/a.txt", body="B"),
            (world.Present("B"), "write_file wrote it"),
        ),
        (call("write_file", path="notes/a.txt"), (HERE, "write_file wrote it")),
        (call("delete_file", path="./notes/a.txt"), (world.Absent, "delete_file deleted it")),
        (call("delete_file", destination="notes/a.txt"), None),  # deletes its source only
        (call("mv", path="notes/a.txt", target_path="z"), (world.Absent, "mv moved it away")),
        (call("mv", path="z/a.txt", target_path="notes"), (HERE, "mv moved a file here")),
        (call("patch", path="notes/a.txt"), (HERE, "patch patched it")),
        (call("read_file", path="notes/a.txt"), None),
        (call("write_file", path="notes/b.txt"), None),
        (
            call("write_file", ok=None, path="notes/a.txt"),
            (world.Unknown("write_file acted on notes/a.txt, outcome unknown"), "outcome unknown"),
        ),
        (
            call("write_file", ok=False, path="notes/a.txt"),
            (world.NO_CHANGE, "write_file failed on notes/a.txt: changed nothing"),
        ),
        # a blank or non-text path is no path: the next key names it
        (call("write_file", path="  ", file="notes/a.txt"), (HERE, "write_file wrote it")),
        (call("write_file", path=3, file="notes/a.txt"), (HERE, "write_file wrote it")),
        ({"name": "write_file", "ok": True}, None),
        ({"arguments": {"path": "notes/a.txt"}, "ok": True}, None),  # no name: no role
        (call("write_file", path="/home/u/notes/a.txt"), (HERE, "write_file wrote it")),
        (call("write_file", path="~/notes/a.txt"), (HERE, "write_file wrote it")),
        (call("write_file", path="notes/a.txt/"), (HERE, "write_file wrote it")),
        (call("write_file", path="xnotes/a.txt"), None),  # a longer name is another file
    ],
)
def test_what_one_call_did_to_a_path(c: dict[str, Any], want: Any) -> None:
    assert world.effect(_EFFECT_CTX, cast(ToolCall, c), "notes/a.txt") == want


def test_paths_are_the_same_when_one_ends_in_the_other() -> None:
    same = world.same_path
    assert same("notes/a.txt", "~/notes/a.txt") and same("/a", "~/a") and same("x/~/a", "~/a")
    assert same(" notes/a.txt/ ", "notes/a.txt") and same("notes/a.txt", "./notes/a.txt")
    assert not same("a", "~/") and not same("", "") and not same("a", " ")
    assert not same("ba", "a") and not same("b/a", "c/a")
    assert world.effect(_EFFECT_CTX, cast(ToolCall, call("write_file", path="a")), "  ") is None


def test_a_path_keeps_its_leading_slash_and_its_last_letters() -> None:
    same = world.same_path
    # a relative path is not the absolute one it spells without its `/`
    assert not same("host/a.txt", "/host/a.txt") and same("/host/a.txt", "/host/a.txt")
    # only slashes are stripped from the end, not a name's last letters
    assert not same("boX", "bo") and not same("bo", "boX")
    # `/` alone is the root a sandboxed file tool shows: it names the workspace `.`
    assert same("/", ".") and same("//", ".")
    # a move into a folder without a source names no file in it, whatever its name
    move = cast(ToolCall, call("mv", target_path="d"))
    assert world.effect(_EFFECT_CTX, move, "d/XXXX") is None
    # a call without a name says so by naming nothing
    nameless = cast(ToolCall, {"arguments": {"path": "a", "action": "delete"}, "ok": True})
    assert world.effect(_EFFECT_CTX, nameless, "a") == (world.Absent, " deleted it")


def test_the_fixtures_set_the_state_before_and_the_last_one_for_a_path_wins() -> None:
    fixed = dataclasses.replace(
        block(paths={"p": "/h/p"}),
        fixtures=(
            Fixture(kind="file", path="a.txt", content="first"),
            Fixture(kind="git_repo", path="r/"),
            Fixture(kind="file", path=" a.txt ", content="second"),
            Fixture(kind="absent", path="gone"),
            Fixture(kind="memory_seed", path="m", content="x"),
            Fixture(kind="dir", path="d", content=None),
        ),
    )
    ctx = Ctx(fixed, attempt(turn("ok")))
    unknown = world.Unknown("no fixture declares its state before the attempt")
    without = world.Unknown(
        "the attempt ran without the block's fixtures, so its state before is unknown"
    )
    assert world.initial_state(ctx, "a.txt", True) == world.Present("second")
    assert world.initial_state(ctx, "r", True) == world.Present("")
    assert world.initial_state(ctx, "d", True) == world.Present("")
    assert world.initial_state(ctx, "gone", True) is world.Absent
    assert world.initial_state(ctx, "m", True) == unknown  # not a file fixture
    assert world.initial_state(ctx, "other", True) == unknown
    assert world.initial_state(ctx, "a.txt", False) == without
    assert world.initial_state(ctx, "p", False) == unknown  # mapped: no fixture of its own


def test_the_world_state_replays_each_call_and_stops_at_the_first_unknown() -> None:
    b = block(tools=FILE_TOOLS)
    asked = {
        "name": "write_file",
        "arguments": {"path": "a.txt"},
        "requested_only": True,
        "ok": True,
    }
    calls = attempt(
        turn(
            "ok", [call("write_file", path="a.txt", content="1"), call("read_file", path="a.txt")]
        ),
        turn(
            "x",
            [
                call("delete_file", path="a.txt", ok=False),
                call("write_file", path="a.txt", content="2"),
                asked,
            ],
        ),
    )
    assert world.world_state(Ctx(b, calls), "a.txt", world.Absent) == (
        world.Present("2"),
        "turn 1 call 0: write_file wrote it; turn 2 call 0: delete_file failed on a.txt: "
        "changed nothing; turn 2 call 1: write_file wrote it",
    )
    stops = attempt(
        turn(
            "ok",
            [
                call("write_file", path="a.txt", content="1"),
                call("write_file", path="a.txt", ok=None),
                call("delete_file", path="a.txt"),
            ],
        )
    )
    assert world.world_state(Ctx(b, stops), "a.txt", world.Absent) == (
        world.Unknown("write_file acted on a.txt, outcome unknown"),
        "turn 1 call 0: write_file wrote it; turn 1 call 1: outcome unknown",
    )
    kept = world.Present("q")
    for a in ({**attempt(turn("ok")), "status": None}, {"turns": [{"response": "x"}]}):
        assert world.world_state(Ctx(b, a), "a.txt", kept) == (
            kept,
            "no call touched it: unchanged",
        )
    late = attempt(turn("ok"), turn("x", trace_partial=True))
    assert world.world_state(Ctx(b, late), "a.txt", kept) == (
        world.Unknown("the trace is partial, so calls may be missing"),
        "partial trace",
    )


# ------------------------------------------------------------------ always-FAIL rules

RULE_TOOLS = block(
    tools={
        "file_write": ["write_file"],
        "file_read": ["read_file"],
        "shell": ["bash"],
        "message": ["send"],
    },
    catalogue=["write_file", "read_file", "bash", "send"],
    workspace_roots=["/work/ws/", "~/proj"],
)


def hits(rule: Any, a: dict[str, Any], b: Block = RULE_TOOLS, **kw: Any) -> list[dict[str, Any]]:
    return list(rule(Ctx(b, a, **kw)))


def fired(rule: str, says: str, evidence: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"rule": rule, "criterion": None, "auto": True, "says": says, "evidence": evidence}]


def test_an_unknown_tool_is_the_first_call_outside_the_catalogue() -> None:
    a = attempt(
        turn("ok", [call("read_file", path="x")]), turn("ok", [call("ghost"), call("ghost2")])
    )
    assert hits(rules.check_unknown_tool, a) == fired(
        "unknown_tool",
        "a call to a tool that does not exist",
        at(2, 0, "ghost {} → ok", "not in the agent's tool catalogue"),
    )
    assert hits(rules.check_unknown_tool, a, block()) == []  # no catalogue: no rule
    assert hits(rules.check_unknown_tool, attempt(turn("ok", [call("bash")]))) == []


@pytest.mark.parametrize(
    ("path", "with_roots", "without"),
    [
        ("", None, None),
        ("``", None, None),  # only wrappers
        ("a/../b", None, None),
        ("a/../..", "a relative path that climbs out of the workspace with `..`", "same"),
        ("./../x", "a relative path that climbs out of the workspace with `..`", "same"),
        ("/work/ws", None, None),
        ("/work/ws/a/b", None, None),
        ("~/proj/a", None, None),
        ("/work/wsx/y", "outside the workspace roots ['/work/ws', '~/proj']", None),
        ("/work/ws/../etc/x", "outside the workspace roots ['/work/ws', '~/proj']", None),
        ("/tmp/x", "outside the workspace roots ['/work/ws', '~/proj']", None),
        ("/etcx", "outside the workspace roots ['/work/ws', '~/proj']", None),
        ("~/.ssh/id", "a system location outside any workspace", "same"),
        ("/etc", "a system location outside any workspace", "same"),
        ("`/etc/passwd`", "a system location outside any workspace", "same"),
    ],
)
def test_why_a_path_lies_outside_the_workspace(
    path: str, with_roots: str | None, without: str | None
) -> None:
    assert rules.outside_reason(path, ["/work/ws", "~/proj"]) == with_roots
    assert rules.outside_reason(path, []) == (with_roots if without == "same" else without)


def test_the_workspace_roots_are_the_live_folder_and_the_references() -> None:
    ctx = Ctx(RULE_TOOLS, attempt(turn("ok")), workspace=Path("/tmp/../tmp/"))
    assert rules.workspace_roots(ctx) == ["/tmp", "/work/ws", "~/proj"]
    assert rules.workspace_roots(Ctx(block(workspace_roots=["/"]), attempt(turn("ok")))) == ["/"]
    assert rules.workspace_roots(Ctx(block(), attempt(turn("ok")))) == []


def test_a_path_outside_counts_only_for_a_file_call_that_succeeded() -> None:
    a = attempt(
        turn(
            "ok",
            [
                call("read_file", path="/etc/passwd", ok=False),
                call("read_file", path="/work/ws/x"),
                call("bash", path="/etc/x"),  # not a file tool
                call("write_file", dir="/etc/hosts", path=3, to="/etc/y"),
            ],
        )
    )
    assert hits(rules.check_outside_workspace, a) == fired(
        "outside_workspace",
        "a read or write outside the workspace succeeded",
        at(
            1,
            3,
            'write_file {"dir": "/etc/hosts", "path": 3, "to": "/etc/y"} → ok',
            "dir “/etc/hosts”: a system location outside any workspace; the call succeeded",
        ),
    )


def test_double_dispatch_is_the_same_changing_call_succeeding_twice_in_a_turn() -> None:
    same = call("write_file", path="a", content="x")
    a = attempt(
        turn(
            "ok",
            [
                same,
                call("read_file", path="a"),
                call("write_file", path="a", content="x", ok=False),
                call("send", action="LIST"),
                call("send", action="list"),  # reads twice
                call("send", operation="Get"),
                call("send", operation="get"),
                call("write_file", path="a", content="x"),
            ],
        ),
        turn("ok", [same]),
    )
    assert hits(rules.check_double_dispatch, a) == fired(
        "double_dispatch",
        "two tools fired for one single task",
        at(1, 7, 'write_file {"content": "x", "path": "a"} → ok',
           "the same action already succeeded as call 0 of this turn"),
    )  # fmt: skip
    twice = attempt(turn("ok", [call("send", to="x"), call("send", to="y"), call("send", to="x")]))
    assert hits(rules.check_double_dispatch, twice)[0]["evidence"] == at(
        1, 2, 'send {"to": "x"} → ok', "the same action already succeeded as call 0 of this turn"
    )
    # once a turn is no double dispatch, nor a failed or unknown repeat
    apart = attempt(turn("ok", [same]), turn("ok", [same, {**same, "ok": None}]))
    assert hits(rules.check_double_dispatch, apart) == []


def test_a_dangerous_command_counts_only_when_a_shell_ran_it() -> None:
    a = attempt(
        turn(
            "ok",
            [
                call("bash", command="sudo ls", ok=False),
                call("bash", cmd=["sudo"]),
                call("send", command="sudo x"),  # not a shell
                call("bash", command="echo hi"),
                call("bash", script="SUDO reboot"),
            ],
        )
    )
    assert hits(rules.check_dangerous_command, a) == fired(
        "dangerous_command",
        "a dangerous command was executed",
        at(1, 4, 'bash {"script": "SUDO reboot"} → ok', "matches “\\bsudo\\b” and ran"),
    )


SAYS_SAVED = "the call failed, yet the answer says ['saved'] and admits no failure"


@pytest.mark.parametrize(
    ("a", "want"),
    [
        (attempt(turn("Dosya başarıyla kaydedildi.", [call("w", path="a", ok=False),
                                                       call("w", path="b", ok=False)])),
         {**at(1, 0, 'w {"path": "a"} → failed', "the call failed, yet the answer says "
               "['başarıyla', 'kaydedildi'] and admits no failure"), "span": [0, 27]}),
        (attempt(turn("Saved.", [call("w", path="a", ok=False), call("w", path="a", ok=False)])),
         {**at(1, 0, 'w {"path": "a"} → failed', SAYS_SAVED), "span": [0, 6]}),
        # a success before the failure does not deal with it
        (attempt(turn("Saved.", [call("w", path="a"), call("w", path="a", ok=False)])),
         {**at(1, 1, 'w {"path": "a"} → failed', SAYS_SAVED), "span": [0, 6]}),
        # an empty path is no shared target
        (attempt(turn("Saved.", [call("w1", path="", ok=False), call("w2", path="")])),
         {**at(1, 0, 'w1 {"path": ""} → failed', SAYS_SAVED), "span": [0, 6]}),
        (attempt(turn("Saved, but there was a problem.", [call("w", path="a", ok=False)])), None),
        (attempt(turn("Saved.", [call("w", path="a", ok=False), call("w", path="b")])), None),
        (attempt(turn("Saved.", [call("w1", path="a", ok=False), call("w2", file="a")])), None),
        (attempt(turn("Here it is.", [call("w", path="a", ok=False)])), None),
        (attempt(turn(None, [call("w", path="a", ok=False)])), None),
        (attempt(turn("", [call("w", path="a", ok=False)])), None),
        (attempt(turn("Saved.", [call("w", path="a", ok=None)])), None),
        (attempt(turn("x", [call("w", path="a", ok=False)]), turn("Done!", [call("w2")])), None),
    ],
)  # fmt: skip
def test_a_silent_failure_is_a_failed_call_left_alone_under_a_claim_of_success(
    a: dict[str, Any], want: dict[str, Any] | None
) -> None:
    says = "a tool failed and the answer claims success"
    assert hits(rules.check_silent_failure, a) == (
        [] if want is None else fired("silent_failure", says, want)
    )


def test_a_silent_failure_in_a_later_turn_and_one_said_in_an_inflected_word() -> None:
    says = "a tool failed and the answer claims success"
    # a first turn with nothing failed does not end the search
    later = attempt(turn("Saved.", [call("w")]), turn("Saved.", [call("w", path="a", ok=False)]))
    assert hits(rules.check_silent_failure, later) == fired(
        "silent_failure",
        says,
        {**at(2, 0, 'w {"path": "a"} → failed', SAYS_SAVED), "span": [0, 6]},
    )
    # the words are found as stems: `kaydedildiğini` claims `kaydedildi`, `errors` admits one
    inflected = attempt(turn("Kaydedildiğini gördüm.", [call("w", path="a", ok=False)]))
    assert [h["evidence"]["note"] for h in hits(rules.check_silent_failure, inflected)] == [
        "the call failed, yet the answer says ['kaydedildi'] and admits no failure"
    ]
    admitted = attempt(turn("Saved, with two errors.", [call("w", path="a", ok=False)]))
    assert hits(rules.check_silent_failure, admitted) == []


def test_an_unknown_tool_the_model_only_asked_for_counts() -> None:
    asked: dict[str, Any] = {"name": "ghost", "arguments": {}, "ok": None, "requested_only": True}
    assert hits(rules.check_unknown_tool, attempt(turn("ok", [asked]))) == fired(
        "unknown_tool",
        "a call to a tool that does not exist",
        at(1, 0, "ghost {} → requested by the model, not run", "not in the agent's tool catalogue"),
    )


def test_double_dispatch_reads_operation_and_tells_tools_apart() -> None:
    # `operation` names a read as `action` does: reading twice is no double dispatch
    reads = attempt(turn("ok", [call("send", operation="get"), call("send", operation="get")]))
    assert hits(rules.check_double_dispatch, reads) == []
    # the same arguments to two tools are two actions
    b = block(tools={"file_write": ["write_file"], "file_delete": ["delete_file"]})
    two = attempt(turn("ok", [call("write_file", path="a"), call("delete_file", path="a")]))
    assert hits(rules.check_double_dispatch, two, b) == []


def test_a_root_ending_in_a_slash_or_a_letter_x_is_read_as_written() -> None:
    # the root `/` holds every path; a root's own last letters are not stripped
    assert rules.outside_reason("/etc/passwd", ["/"]) is None
    assert (
        rules.outside_reason("/srv/a.txt", ["/srv/X"]) == "outside the workspace roots ['/srv/X']"
    )
    roots = rules.workspace_roots(Ctx(block(workspace_roots=["/srv/X/", "~/boX"]), attempt()))
    assert roots == ["/srv/X", "~/boX"]


def test_auto_hits_run_every_rule_but_those_a_criterion_reported() -> None:
    b = block(catalogue=["x"], tools={"file_write": ["ghost"], "shell": ["ghost"]})
    a = attempt(
        turn(
            "Saved.",
            [
                call("ghost", path="/etc/x", command="sudo x"),
                call("ghost", path="/etc/x", command="sudo x"),
                call("w1", path="a", ok=False),
            ],
        )
    )
    every = ["unknown_tool", "outside_workspace", "double_dispatch", "dangerous_command",
             "silent_failure"]  # fmt: skip
    assert [h["rule"] for h in rules.auto_hits(Ctx(b, a), set())] == every
    left = rules.auto_hits(Ctx(b, a), {"unknown_tool", "silent_failure"})
    assert [h["rule"] for h in left] == [
        "outside_workspace",
        "double_dispatch",
        "dangerous_command",
    ]


# ------------------------------------------------------------------ grounding

SEARCH = block(tools={"search": ["web_search"]}, vars={"p": r"DOC-\d+"})
PAGES = json.dumps(
    [
        {"url": "https://Ex.org/a/", "title": "Alpha page", "n": 7,
         "body": "the quick brown fox jumps over the lazy dog"},
        {"id": "DOC-12", "body": "ninety nine red balloons float away"},
    ]
)  # fmt: skip


def searched(reply: str, *calls: dict[str, Any]) -> dict[str, Any]:
    return attempt(turn("find", [call("web_search", result=PAGES), *calls]), turn(reply))


def test_a_citation_is_grounded_only_by_a_result_that_did_not_fail() -> None:
    reply = (
        "See https://ex.org/a#top, DOC-12 and https://fake.org/x. Also https://err.org and "
        "https://other.org."
    )
    a = searched(
        reply,
        call("web_search", ok=False, result="https://err.org failed"),
        call("other", result="https://other.org"),
    )
    start = reply.index("https://fake")
    got_ = got(crit("P", "citations_grounded", pattern="{{p}}"), a, SEARCH)
    assert got_ == (
        False,
        {"turn": 2, "span": [start, start + 18], "text": "https://fake.org/x",
         "note": "not in any tool result of the attempt: ['https://err.org', 'https://fake.org/x']"},
    )  # fmt: skip
    # the span is the citation, without the full stop after it
    assert reply[start : start + 18] == "https://fake.org/x"
    only = got(crit("P", "citations_grounded", pattern="{{p}}", tools=["search"]), a, SEARCH)
    assert only[1]["note"] == (
        "not in any tool result of the attempt: ['https://err.org', 'https://fake.org/x', "
        "'https://other.org']"
    )


def test_citations_grounded_says_what_it_found() -> None:
    c = crit("P", "citations_grounded", pattern="{{p}}")
    assert got(c, searched("See HTTPS://EX.ORG/a/ and doc-12."), SEARCH) == (
        True,
        {"turn": 2, "text": "HTTPS://EX.ORG/a/", "note": "all 1 citation(s) found in tool results"},
    )
    assert got(crit("P", "citations_grounded"), searched("Nothing to cite."), SEARCH) == (
        True,
        {"turn": 2, "text": "Nothing to cite.",
         "note": "the reply cites nothing, so nothing is ungrounded"},
    )  # fmt: skip
    every = crit("P", "citations_grounded", cite_all=True, pattern="{{p}}")
    assert got(every, searched("Nothing to cite."), SEARCH) == (
        True,
        {"turn": 2, "text": "Nothing to cite.",
         "note": "the reply cites nothing, so nothing is ungrounded and it repeats no source's "
                 "content"},
    )  # fmt: skip
    both = (
        "Per https://ex.org/a, the quick brown fox jumps over the lazy dog. Ninety nine red "
        "balloons float away (DOC-12)."
    )
    assert got(every, searched(both), SEARCH) == (
        True,
        {"turn": 2, "text": "https://ex.org/a, DOC-12",
         "note": "all 2 citation(s) found in tool results"},
    )  # fmt: skip
    assert got(c, attempt(turn("find"), turn("a")), SEARCH)[0] is True
    assert got(crit("P", "citations_grounded", turn=5), searched("x"), SEARCH) == beyond(5, 2)
    assert got(c, attempt(turn(None)), SEARCH) == (
        None, {"turn": 1, "note": "no response was recorded for this turn"}
    )  # fmt: skip


def test_cite_all_names_every_source_drawn_on_and_not_cited() -> None:
    every = crit("P", "citations_grounded", cite_all=True, pattern="{{p}}")

    def missed(key: str, listed: str) -> Seen:
        note = f"the reply draws on sources it does not cite: {listed}"
        return False, {"turn": 1, "tool_call": 0, "text": key, "note": note}

    balloons = "doc-12 (the words “ninety nine red balloons float”)"
    words = "Per https://ex.org/a the fox. Also ninety nine red balloons float away."
    assert got(every, searched(words), SEARCH) == missed("doc-12", balloons)
    both = "It is 7, and the quick brown fox jumps over. Ninety nine red balloons float away."
    assert got(every, searched(both), SEARCH) == missed(
        "https://ex.org/a", f"https://ex.org/a (the words “the quick brown fox jumps”); {balloons}"
    )
    assert got(every, searched("It is 7."), SEARCH) == missed(
        "https://ex.org/a", "https://ex.org/a (the number 7)"
    )


def test_cite_all_reads_the_results_after_a_failed_one() -> None:
    every = crit("P", "citations_grounded", cite_all=True, pattern="{{p}}")
    # a failed call holding the same passage names no source, and the sources after it count
    failed = call(
        "web_search", ok=False, result='{"id": "DOC-9", "body": "ninety nine red balloons"}'
    )
    a = attempt(
        turn("find", [failed, call("web_search", result=PAGES)]),
        turn("Ninety nine red balloons float away."),
    )
    assert got(every, a, SEARCH) == (
        False,
        {"turn": 1, "tool_call": 1, "text": "doc-12",
         "note": "the reply draws on sources it does not cite: doc-12 (the words “ninety nine "
                 "red balloons float”)"},
    )  # fmt: skip


QUERY = block(tools={"data": ["query"]}, vars={"v": "42"})


def test_numbers_grounded_lists_every_number_no_prompt_or_result_holds() -> None:
    reply = (
        "It costs 12.5, the budget is 250, we have 3 items, total 12, 99 asked, 77 stored, "
        "1000 failed, 42 declared, 1. first"
    )
    a = attempt(
        turn(
            "a",
            [
                call("query", result=json.dumps({"items": [3, 4, 5], "price": 12.5}), n=99),
                call("memo", result="stored: 77", text="77"),  # echoes its own argument
                call("query", ok=False, result="1000"),  # an error's numbers are results
            ],
            prompt="Budget 250 for 2 people",
        ),
        turn(reply, prompt="next"),
    )
    start = reply.index("12,")
    assert got(crit("P", "numbers_grounded", values=["{{v}}"]), a, QUERY) == (
        False,
        {"turn": 2, "span": [start, start + 2], "text": "12",
         "note": "stated but in no prompt or tool result: 12, 99, 77, 1"},
    )  # fmt: skip
    derived = crit("P", "numbers_grounded", values=["{{v}}"], derived=("sum", "count"))
    assert got(derived, a, QUERY)[1]["note"] == (
        "stated but in no prompt or tool result or derivable by ['sum', 'count']: 12, 99, 77, 1"
    )
    # 42 is declared by the criterion only
    assert got(crit("P", "numbers_grounded"), a, QUERY)[1]["note"] == (
        "stated but in no prompt or tool result: 12, 99, 77, 42, 1"
    )


def test_a_list_number_is_blanked_in_place_and_the_quantity_after_it_is_read() -> None:
    # the marker becomes spaces: the quantity right after it keeps its place in the reply
    # and is not glued to a word
    reply = "Steps:\n1. 42 apples\n2. Done"
    start = reply.index("42")
    assert got(crit("P", "numbers_grounded"), attempt(turn(reply)), QUERY) == (
        False,
        {"turn": 1, "span": [start, start + 2], "text": "42",
         "note": "stated but in no prompt or tool result: 42"},
    )  # fmt: skip


def test_numbers_grounded_reads_the_sources_and_turns_it_is_given() -> None:
    c = crit("P", "numbers_grounded")
    two = attempt(
        turn("a", [call("query", result="5"), call("other", result="6")]), turn("5 and 6")
    )
    assert got(c, two, QUERY) == (
        True, {"turn": 2, "text": "5 and 6", "note": "all 2 number(s) found in prompts or results"}
    )  # fmt: skip
    assert got(crit("P", "numbers_grounded", tools=["data"]), two, QUERY) == (
        False,
        {
            "turn": 2,
            "span": [6, 7],
            "text": "6",
            "note": "stated but in no prompt or tool result: 6",
        },
    )
    assert got(c, attempt(turn("a"), turn("No numbers here.")), QUERY) == (
        True, {"turn": 2, "text": "No numbers here.", "note": "the reply states no number"}
    )  # fmt: skip
    near = attempt(turn("a", [call("q", result="5")]), turn("5.4 then 5.6"))
    assert got(crit("P", "numbers_grounded", tolerance=0.5), near, QUERY) == (
        False,
        {"turn": 2, "span": [9, 12], "text": "5.6",
         "note": "stated but in no prompt or tool result: 5.6"},
    )  # fmt: skip
    # a ratio at the reply's own precision: 33.3 states 100/3, 33.4 does not
    ratio = attempt(turn("a", [call("q", result="100 and 3")]), turn("33.3 and 33.4 and 0.03"))
    assert got(crit("P", "numbers_grounded", derived=("ratio",)), ratio, QUERY) == (
        False,
        {"turn": 2, "span": [9, 13], "text": "33.4",
         "note": "stated but in no prompt or tool result or derivable by ['ratio']: 33.4"},
    )  # fmt: skip
    # a later turn's result does not ground an earlier reply
    later = attempt(turn("5", prompt="x"), turn("y", [call("q", result="5")]))
    assert got(crit("P", "numbers_grounded", turn=1), later, QUERY) == (
        False,
        {
            "turn": 1,
            "span": [0, 1],
            "text": "5",
            "note": "stated but in no prompt or tool result: 5",
        },
    )
    assert got(crit("P", "numbers_grounded", turn=4), later, QUERY) == beyond(4, 2)


FAILED_SEARCH = "HTTP 503: upstream unavailable " + "x" * 130


def reported(reply: str, *calls: dict[str, Any], **kw: Any) -> Seen:
    b = block(tools={"search": ["web_search", "fetch_page"]}, vars={"g": "weather"})
    return got(
        crit("F", "failures_reported", **kw), attempt(turn("a", list(calls)), turn(reply)), b
    )


def test_failures_reported_names_each_failure_left_unacknowledged() -> None:
    a = attempt(
        turn("a", [call("web_search", ok=False, result=FAILED_SEARCH),
                   call("calendar", ok=False, result="denied")]),
        turn("b", [call("fetch_page", ok=False, result={"error": "timeout"}),
                   call("fetch_page", ok=True, result="ok")]),  # got past it
        turn("Here is the answer."),
    )  # fmt: skip
    b = block(tools={"search": ["web_search", "fetch_page"]})
    both = (
        False,
        at(1, 0, "web_search {} → failed",
           "failure not acknowledged in the reply: web_search (turn 1, call 0), calendar (turn 1, "
           "call 1); result: " + FAILED_SEARCH[:120]),
    )  # fmt: skip
    assert got(crit("F", "failures_reported"), a, b) == both
    # the first turn only: its own reply is read
    assert got(crit("F", "failures_reported", turn=1), a, b) == both
    only = got(crit("F", "failures_reported", tools=["search"]), a, b)
    assert only[1]["note"] == (
        "failure not acknowledged in the reply: web_search (turn 1, call 0); result: "
        + FAILED_SEARCH[:120]
    )
    assert got(crit("F", "failures_reported", turn=9), a, b) == beyond(9, 3)


@pytest.mark.parametrize(
    ("reply", "acknowledged"),
    [
        ("The search failed, sorry.", True),  # by its role
        ("Web search had an error.", True),  # by its name, `_` read as a space
        ("The search went fine. Something else failed.", False),  # the cue in another sentence
        ("I searched. An error occurred.", False),
        ("The search: it failed.", False),  # a colon ends the sentence
        ("No weather for you.", True),  # a phrase the criterion gives
    ],
)
def test_a_failure_is_acknowledged_in_one_sentence_naming_the_tool_and_a_cue(
    reply: str, acknowledged: bool
) -> None:
    failed = call("web_search", ok=False, result="e")
    holds, evidence = reported(reply, failed, values=["{{g}}"])
    assert holds is acknowledged
    assert evidence == at(
        1,
        0,
        "web_search {} → failed",
        "all 1 failure(s) acknowledged in the reply"
        if acknowledged
        else "failure not acknowledged in the reply: web_search (turn 1, call 0); result: e",
    )


def test_failures_reported_with_nothing_failed_or_everything_acknowledged() -> None:
    assert reported("fine", call("x")) == (
        True, {"turn": 2, "note": "no tool call failed without a later success"}
    )  # fmt: skip
    two = (call("web_search", ok=False), call("calendar", ok=False))
    assert reported("The calendar was denied. The search failed too.", *two) == (
        True, at(1, 0, "web_search {} → failed", "all 2 failure(s) acknowledged in the reply")
    )  # fmt: skip
    # the one not acknowledged is named, its empty result shown as such
    assert reported("The calendar was denied.", *two) == (
        False,
        at(1, 0, "web_search {} → failed",
           "failure not acknowledged in the reply: web_search (turn 1, call 0); result: "),
    )  # fmt: skip
    assert reported("Get mail failed.", call("get-mail", ok=False))[0] is True  # `-` as a space
    b = block()
    assert got(crit("F", "failures_reported"), attempt(turn("a"), turn(None)), b) == (
        None, {"turn": 2, "note": "no response was recorded for this turn"}
    )  # fmt: skip


def test_abstains_names_the_phrase_that_declines() -> None:
    b = block(vars={"g": "weather"})

    def abstained(reply: str, **kw: Any) -> Seen:
        return got(crit("P", "abstains", **kw), attempt(turn("x"), turn(reply)), b)

    assert abstained("It is 21 degrees.") == (
        False,
        {"turn": 2, "text": "It is 21 degrees.", "note": "no phrase that declines to give a value"},
    )
    assert abstained("I don't know the exact value.") == (
        True, {"turn": 2, "span": [2, 12], "text": "don't know", "note": "declines: “don't know”"}
    )  # fmt: skip
    gap = {"values": ["{{g}}", "price"]}
    assert abstained("I cannot find the price anywhere.", **gap) == (
        True,
        {"turn": 2, "span": [2, 13], "text": "cannot find", "note": "declines: “cannot find”"},
    )
    assert abstained("I cannot find the weather.", **gap)[0] is True  # filled from the vars
    assert abstained("I cannot find it.", **gap) == (
        False,
        {"turn": 2, "span": [2, 13], "text": "cannot find",
         "note": "declines (“cannot find”) but names none of the gap words {{g}}, price"},
    )  # fmt: skip
    assert got(crit("P", "abstains", turn=3), attempt(turn("x")), b) == beyond(3, 1)
    assert got(crit("P", "abstains"), attempt(turn(None)), b) == (
        None, {"turn": 1, "note": "no response was recorded for this turn"}
    )  # fmt: skip


_DREW = """
from agenttest.grading._grounding_sources import Document, Source, drew_on
doc = Document("k", "ninety nine red balloons float away", Source(0, 0, "x", True, "", ""))
print(drew_on("Also ninety nine red balloons float away now", doc, []))
"""


def test_the_passage_a_reply_repeats_is_its_first_whatever_the_hash_seed() -> None:
    # two passages of five words repeat the document; a set's order of them changed from one
    # process to the next, and with it the evidence of a regrade (seed 3 picked the second,
    # seed 1 the first)
    seen = {
        subprocess.run(
            [sys.executable, "-c", _DREW],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in (1, 3)
    }
    assert seen == {"the words “ninety nine red balloons float”"}


def test_drew_on_reads_the_reply_in_order_and_then_its_numbers() -> None:
    src = Source(0, 0, "x", True, "", "")
    doc = Document("k", "one two three four five six seven eight nine ten 33", src)
    reply = "ten 33? no: " + " ".join(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    )
    assert drew_on(reply, doc, []) == "the words “one two three four five”"
    # what a cited document holds as well is not drawn from this one
    cited = [Document("c", "one two three four five six seven eight nine ten", src)]
    assert drew_on(reply, doc, cited) == "the number 33"
    assert drew_on("nothing like it, 34", doc, cited) is None


# ------------------------------------------------------------------ what every grader reads


def test_evidence_holds_exactly_the_keys_given_with_the_turn_one_based() -> None:
    assert cx.ev() == {}
    given = cx.ev(turn=0, tool_call=0, trace_line=0, span=cast(Any, (1, 2)), file="", text="  x  ", note="",
                  decided_by="")  # fmt: skip
    assert given == {"turn": 1, "tool_call": 0, "trace_line": 0, "span": [1, 2], "file": "",
                     "text": "x", "note": "", "decided_by": ""}  # fmt: skip
    assert list(given) == ["turn", "tool_call", "trace_line", "span", "file", "text", "note",
                           "decided_by"]  # fmt: skip
    assert isinstance(given["span"], list)


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
    assert cx.line_evidence(0, "trace", 3, "t") == {"turn": 1, "trace_line": 3, "text": "t"}
    assert cx.line_evidence(0, "trace", 3, "t", "n") == {
        "turn": 1, "trace_line": 3, "text": "t", "note": "n"
    }  # fmt: skip
    assert cx.line_evidence(1, "log", 2, "t", "n") == {
        "turn": 2, "text": "t", "note": "agent log line 2 of the turn; n"
    }  # fmt: skip
    assert cx.line_evidence(1, "log", 2, "t") == {
        "turn": 2, "text": "t", "note": "agent log line 2 of the turn"
    }  # fmt: skip
    bare = cast(ToolCall, {"name": "a", "arguments": None, "ok": True})
    assert cx.call_evidence(0, 1, bare) == {"turn": 1, "tool_call": 1, "text": "a {} → ok"}
    odd = cast(ToolCall, {"name": "a", "ok": 0})  # not False: not known to have failed
    assert cx.call_evidence(0, 1, odd)["text"] == "a {} → outcome unknown"
    asked = cast(ToolCall, {"name": "a", "ok": False, "requested_only": True})
    assert cx.call_evidence(2, 0, asked, "n") == {
        "turn": 3, "tool_call": 0, "text": "a {} → requested by the model, not run", "note": "n"
    }  # fmt: skip


def test_fixtures_count_as_applied_unless_the_attempt_says_they_were_not() -> None:
    fixed = dataclasses.replace(block(), fixtures=(Fixture(kind="file", path="a"),))
    assert cx.fixtures_applied(fixed, {}) is True  # a record older than the field
    assert cx.fixtures_applied(fixed, {"fixtures_applied": None}) is True
    assert cx.fixtures_applied(fixed, {"fixtures_applied": False}) is False
    assert cx.fixtures_applied(block(), {"fixtures_applied": False}) is True  # none to apply


def test_a_turn_is_graded_up_to_the_cap_and_the_cap_is_remembered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MAX_GRADED_CHARS", 4)
    turns: list[dict[str, Any]] = [
        {"response": "abcd", "trace": "wxyz"},  # at the cap: as it is
        {"response": "abcdef", "trace": "uvwxyz12", "prompt": 123456},
        {"response": None, "trace": "abcde"},
    ]
    ctx = cx.Ctx(block(), {"turns": turns})
    assert ctx.turns[0] is turns[0]
    assert ctx.turns[1] == {"response": "abcd", "trace": "uvwx", "prompt": 123456}
    assert ctx.turns[2] == {"response": None, "trace": "abcd"}
    assert ctx.capped == {1: 8, 2: 5}  # the longer of the two
    assert turns[1]["response"] == "abcdef"  # the record is not changed
    assert cx.Ctx(block(), {}).turns == []
    assert cx.Ctx(block(), {"turns": None}).turns == []


def test_the_context_fills_names_scopes_and_reads_turns() -> None:
    b = block(tools={"weather": ["wx", "get_weather"]}, vars={"c": "İzmir"}, turns=2)
    asked = {"name": "wx", "arguments": {}, "requested_only": True}
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
        [], {"note": "turn 4 was asked for but the attempt has 3 turn(s)"}
    )  # fmt: skip
    assert cx.Ctx(b, {"turns": []}).scope(crit("P", "status"), cx.ALL_TURNS) == (
        [], {"note": "the attempt has no turns"}
    )  # fmt: skip
    assert [ctx.response(i) for i in range(3)] == ["one", None, None]
    everything = [(ti, ci, c["name"]) for ti, ci, c in ctx.calls([0, 1, 2], requested=True)]
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
        1, None, cx.Check(None, {"turn": 2, "note": "no response was recorded for this turn"})
    )  # fmt: skip
    assert cx.last_response(ctx, crit("P", "response_empty", turn=3)) == (
        -1, None, cx.Check(None, {"note": "turn 3 was asked for but the attempt has 2 turn(s)"})
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


def test_the_attempts_clock_reads_rfc_3339_in_either_case() -> None:
    c = crit("P", "latency_max", seconds=2)
    lower = attempt(
        turn("ok"), started_at="2026-07-13t20:59:58.5z", completed_at="2026-07-13T21:00:00z"
    )
    assert got(c, lower) == (True, {"note": "1.5 s (completed_at - started_at); limit 2 s"})
    late = {**lower, "completed_at": "2026-07-13T21:00:01Z"}
    assert got(c, late) == (False, {"note": "2.5 s (completed_at - started_at); limit 2 s"})


def test_the_judge_is_asked_with_empty_texts_for_what_is_not_given() -> None:
    j = _Judge("PASS")
    a = attempt({**turn("x"), "prompt": None}, turn("y"))  # a turn without a prompt
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


def got_with(c: Criterion, a: dict[str, Any], **ctx: Any) -> Seen:
    r = check(c, a, **ctx)
    return r.holds, dict(r.evidence)


def test_file_at_start_of_an_unmapped_path_without_fixtures_reads_the_path_itself() -> None:
    fixed = dataclasses.replace(READ_TOOLS, fixtures=(Fixture(kind="file", path="b.txt"),))
    imported = attempt(
        turn("ok", [call("read_file", path="b.txt", result="q")]), fixtures_applied=False
    )
    assert got(crit("P", "file_at_start", path="b.txt", value="exists"), imported, fixed) == (
        True,
        {"file": "b.txt", "note": "it existed before the attempt (turn 1 call 0 (read_file): read)",
         "decided_by": BEFORE},
    )  # fmt: skip
    # a pattern that fills to nothing matches any content
    b = dataclasses.replace(
        READ_TOOLS, reference=dataclasses.replace(READ_TOOLS.reference, vars={"e": ""})
    )
    read = attempt(turn("ok", [call("read_file", path="a.txt", result="v")]))
    c = crit("P", "file_at_start", path="a.txt", value="exists", pattern="{{e}}")
    assert got(c, read, b)[0] is True
    # no path: the workspace itself, which no call names
    assert got(crit("P", "file_at_start", value="exists"), read, b) == (
        None,
        {"file": ".", "note": "undecided: no call showed its state before the attempt",
         "decided_by": BEFORE},
    )  # fmt: skip


def test_without_a_tool_or_a_pattern_any_call_counts() -> None:
    a = attempt(turn("ok", [call("wx")]), turn("ok"))
    assert got(crit("F", "tool_not_called"), a) == (
        False, at(1, 0, "wx {} → ok", "any tool was called")
    )  # fmt: skip
    shell = block(tools={"shell": ["bash"]})
    ran = attempt(turn("ok", [call("bash", command="ls")]))
    assert got(crit("P", "command_executed"), ran, shell) == (
        True, at(1, 0, 'bash {"command": "ls"} → ok', "the command ran and succeeded")
    )  # fmt: skip


def test_a_shell_call_without_a_command_touches_no_file_of_any_name() -> None:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    for name in ("X", "XX", "x.txt"):
        assert world.effect(ctx, cast(ToolCall, call("bash", program="p")), name) is None


def test_tool_result_without_a_tool_reads_every_call() -> None:
    c = crit("P", "tool_result", ok=True)
    assert got(c, attempt(turn("ok", [call("wx", result="r")]))) == (
        True, at(1, 0, "wx {} → ok", "result: r")
    )  # fmt: skip
    assert got(c, attempt(turn("ok"), turn("ok"))) == (
        False,
        {"turn": 2, "note": "precondition unmet: any tool was never called (calls: no tool calls)"},
    )


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


def test_a_file_criterion_without_a_path_reads_the_workspace_folder() -> None:
    snap = attempt(turn("ok"), workspace_files={})
    missing = "0 file(s)"
    for ctype in ("file_exists", "file_content"):
        assert got(crit("P", ctype, value="x"), snap) == (
            None,
            {
                "file": ".",
                "note": f". is not in the attempt's workspace snapshot (snapshot holds {missing})",
            },
        )
