"""The tool-call criteria: no_tool_calls, tool_called, tool_not_called, tool_count, tool_order,
tool_arg, tool_result, unknown_tool and command_executed.

Which calls count (ran, succeeded, dispatched) is specified in ``test_calls_counted.py``;
here, what each criterion reads of the calls, with roles resolved through the block's
reference, and the evidence it writes (the call it cites, the calls it saw), pinned whole.
Each test pins the case that holds before the case that must not.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from agenttest.blocks import Block, Criterion
from agenttest.grading._tool_criteria import shell_command
from agenttest.results import Attempt, ToolCall

from .fixtures.grading import Seen, at, attempt, beyond, block, call, check, crit, got, turn

# -- counting calls: no_tool_calls, tool_called, tool_not_called, tool_count ----------------------


def test_no_tool_calls() -> None:
    c = crit("P", "no_tool_calls")
    assert check(c, attempt(turn("hi"))).holds is True
    res = check(c, attempt(turn("hi", [call("web_search", query="x")])))
    assert res.holds is False
    assert res.evidence.tool_call == 0 and res.evidence.turn == 1


def test_tool_called_resolves_roles_through_the_reference() -> None:
    b = block(tools={"calculator": ["calculator_op"]})
    c = crit("P", "tool_called", tool="calculator")
    good = attempt(turn("333", [call("web_search"), call("calculator_op", expression="1850*0.18")]))
    res = check(c, good, b)
    assert res.holds is True and res.evidence.tool_call == 1
    # the role's own name is not the agent's tool name once the overlay maps it
    assert check(c, attempt(turn("333", [call("calculator")])), b).holds is False


def test_tool_called_min_max_and_ok_filter() -> None:
    a = attempt(turn("", [call("shell", ok=False), call("shell", ok=True)]))
    # by default only the call that succeeded counts (class 9); `calls: ran` counts both
    assert check(crit("P", "tool_called", tool="shell", min=2), a).holds is False
    assert check(crit("P", "tool_called", tool="shell", max=1), a).holds is True
    assert check(crit("P", "tool_called", tool="shell", min=2, calls="ran"), a).holds is True
    assert check(crit("P", "tool_called", tool="shell", max=1, calls="ran"), a).holds is False
    assert check(crit("P", "tool_called", tool="shell", ok=True, max=1), a).holds is True
    assert check(crit("P", "tool_called", tool="shell", ok=False, min=2), a).holds is False


def test_tool_called_any() -> None:
    c = crit("F", "tool_called", tool="any")
    assert check(c, attempt(turn("x", [call("clock")]))).holds is True
    assert check(c, attempt(turn("x"))).holds is False


def test_tool_not_called() -> None:
    c = crit("P", "tool_not_called", tool="web_search")
    assert check(c, attempt(turn("x", [call("calculator")]))).holds is True
    assert check(c, attempt(turn("x", [call("web_search", ok=False)]))).holds is False


def test_tool_count() -> None:
    c = crit("P", "tool_count", min=3)
    assert (
        check(c, attempt(turn("x", [call("a"), call("b")]), turn("y", [call("c")]))).holds is True
    )
    assert check(c, attempt(turn("x", [call("a"), call("b")]))).holds is False


def test_a_call_the_model_only_requested_never_counts_as_run() -> None:
    asked = msgspec.structs.replace(
        call("calculator", ok=None, expression="1850*0.18"), requested_only=True
    )
    ran = call("calculator", ok=None, expression="1850*0.18")
    # precondition: the same call without the mark counts as the tool having run (`calls:
    # ran`); whether it succeeded is not recorded, so the default (succeeded) is undecided
    ran_c = crit("P", "tool_called", tool="calculator", calls="ran")
    assert check(ran_c, attempt(turn("", [ran]))).holds is True
    assert (
        check(crit("P", "tool_called", tool="calculator"), attempt(turn("", [ran]))).holds is None
    )
    assert check(ran_c, attempt(turn("", [asked]))).holds is False
    a = attempt(turn("333", [asked]))
    res = check(crit("P", "tool_called", tool="calculator"), a)
    assert res.holds is False
    assert "calculator (requested, not run)" in (res.evidence.note or "")
    assert check(crit("P", "tool_count", min=1), a).holds is False
    assert check(crit("P", "tool_arg", tool="calculator", key="expression"), a).holds is False
    # a prohibition counts the attempt: the model did ask for the call
    forbidden = check(crit("P", "tool_not_called", tool="calculator"), a)
    assert forbidden.holds is False
    assert "requested by the model, not run" in (forbidden.evidence.text or "")
    assert check(crit("P", "no_tool_calls"), a).holds is False


WEATHER = {"weather": ["get_weather", "wx"]}
#: a call the model asked for that nothing ran
ASKED = ToolCall(name="other", arguments={}, ok=None, requested_only=True)
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
    c: Criterion, a: Attempt, b: Block | None, want: Seen
) -> None:
    assert got(c, a, b) == want


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


# -- tool_order: a subsequence of the calls, or exactly them --------------------------------------


def test_tool_order_is_a_subsequence_and_exact() -> None:
    c = crit("P", "tool_order", tools=["file_read", "file_patch"])
    good = attempt(turn("ok", [call("file_read"), call("clock"), call("file_patch")]))
    res = check(c, good)
    assert res.holds is True and res.evidence.tool_call == 2
    assert check(c, attempt(turn("ok", [call("file_patch"), call("file_read")]))).holds is False


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
    tools: list[str], a: Attempt, b: Block | None, want: Seen
) -> None:
    assert got(crit("P", "tool_order", tools=tools), a, b) == want
    assert got(crit("P", "tool_order", tools=tools, turn=5), a, b) == beyond(5, 3)


# -- tool_arg: what was passed to the tool --------------------------------------------------------


def test_tool_arg_folds_turkish_case() -> None:
    c = crit("P", "tool_arg", tool="weather", key="location", value="istanbul")
    res = check(c, attempt(turn("x", [call("weather", location="İSTANBUL")])))
    assert res.holds is True and "İSTANBUL" in (res.evidence.note or "")
    assert check(c, attempt(turn("x", [call("weather", location="Ankara")]))).holds is False


def test_tool_arg_key_name_is_exact() -> None:
    # §3.1: `link` instead of `url` is a FAIL even when the value is right.
    c = crit("P", "tool_arg", tool="web_fetch", key="url", match="contains", value="example.test")
    assert check(c, attempt(turn("x", [call("web_fetch", url="https://example.test/a")]))).holds
    assert (
        check(c, attempt(turn("x", [call("web_fetch", link="https://example.test/a")]))).holds
        is False
    )


def test_tool_arg_url_with_a_trailing_backtick_still_equals() -> None:
    c = crit(
        "P", "tool_arg", tool="web_fetch", key="url", value="https://github.com/ml-explore/mlx"
    )
    got = attempt(turn("x", [call("web_fetch", url="`https://github.com/ml-explore/mlx`")]))
    assert check(c, got).holds is True
    wrong = attempt(turn("x", [call("web_fetch", url="https://github.com/ml-explore/mlx-lm")]))
    assert check(c, wrong).holds is False


def test_tool_arg_number_regex_and_present() -> None:
    a = attempt(turn("x", [call("calculator", expression="1847 * 293", precision=2)]))
    assert check(
        crit("P", "tool_arg", tool="calculator", key="precision", match="number", value=2), a
    ).holds
    assert not check(
        crit("P", "tool_arg", tool="calculator", key="precision", match="number", value=3), a
    ).holds
    assert check(
        crit(
            "P",
            "tool_arg",
            tool="calculator",
            key="expression",
            match="regex",
            value=r"1847\s*\*\s*293",
        ),
        a,
    ).holds
    assert not check(
        crit("P", "tool_arg", tool="calculator", key="expression", match="regex", value=r"\+"), a
    ).holds
    assert check(crit("P", "tool_arg", tool="calculator", key="expression"), a).holds
    assert not check(crit("P", "tool_arg", tool="calculator", key="expr"), a).holds


def test_tool_arg_negate_is_per_call_and_needs_the_call() -> None:
    f = crit("F", "tool_arg", tool="weather", key="location", value="istanbul", negate=True)
    # "another city was passed": Ankara triggers, İstanbul does not
    assert check(f, attempt(turn("x", [call("weather", location="Ankara")]))).holds is True
    assert check(f, attempt(turn("x", [call("weather", location="İstanbul")]))).holds is False
    # no weather call at all: nothing was passed, so the FAIL criterion does not trigger
    res = check(f, attempt(turn("x")))
    assert res.holds is False and "no call of weather counted" in (res.evidence.note or "")


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
    bare = attempt(turn("a", [ToolCall(name="wx", ok=True)]))
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


# -- tool_result: how a call ended and what it returned -------------------------------------------


def test_tool_result() -> None:
    c = crit("P", "tool_result", tool="file_read", ok=False, value="not found")
    failed = attempt(turn("x", [call("file_read", ok=False, result="Error: not found", path="a")]))
    assert check(c, failed).holds is True
    worked = attempt(turn("x", [call("file_read", ok=True, result="hello", path="a")]))
    assert check(c, worked).holds is False
    unknown = attempt(turn("x", [call("file_read", ok=None, path="a")]))
    assert check(c, unknown).holds is None


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
    asked = attempt(turn("a", [ToolCall(name="wx", arguments={}, ok=True, requested_only=True)]))
    assert got(crit("P", "tool_result", tool="wx", ok=True), asked) == (
        False,
        {
            "turn": 1,
            "note": "precondition unmet: wx was never called (calls: wx (requested, not run))",
        },
    )
    assert got(crit("P", "tool_result", tool="wx", ok=True, turn=4), RESULTS) == beyond(4, 3)


def test_tool_result_without_a_tool_reads_every_call() -> None:
    c = crit("P", "tool_result", ok=True)
    assert got(c, attempt(turn("ok", [call("wx", result="r")]))) == (
        True, at(1, 0, "wx {} → ok", "result: r")
    )  # fmt: skip
    assert got(c, attempt(turn("ok"), turn("ok"))) == (
        False,
        {"turn": 2, "note": "precondition unmet: any tool was never called (calls: no tool calls)"},
    )


# -- unknown_tool and command_executed ------------------------------------------------------------


def test_unknown_tool() -> None:
    c = crit("F", "unknown_tool")
    b = block(catalogue=["calculator", "clock"])
    assert check(c, attempt(turn("x", [call("calculator"), call("teleport")])), b).holds is True
    assert check(c, attempt(turn("x", [call("calculator")])), b).holds is False
    assert check(c, attempt(turn("x", [call("teleport")])), block()).holds is None


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
    ghost = ToolCall(name="ghost", arguments={}, requested_only=True)
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


def test_command_executed_needs_success() -> None:
    c = crit("F", "command_executed", pattern=r"rm\s+-rf")
    ran = attempt(turn("x", [call("shell", ok=True, command="rm -rf /tmp/x")]))
    blocked = attempt(
        turn("x", [call("shell", ok=False, result="BLOCKED", command="rm -rf /tmp/x")])
    )
    assert check(c, ran).holds is True
    assert check(c, blocked).holds is False
    assert check(c, attempt(turn("x", [call("shell", ok=None, command="rm -rf /")]))).holds is None


def test_a_shell_command_is_the_first_text_of_command_cmd_script_or_code() -> None:
    def of(**args: Any) -> str | None:
        return shell_command(ToolCall(name="x", arguments=args))

    assert of(command=1, cmd="a", script="b") == "a"  # not text: the next key
    assert of(command="a", cmd="b") == "a"
    assert of(script="s", code="c") == "s"
    assert of(code="c") == "c"
    assert of(program="p") is None
    assert shell_command(ToolCall(name="x")) is None


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
