"""The tool-call criteria: no_tool_calls, tool_called, tool_not_called, tool_count, tool_order,
tool_arg, tool_result, unknown_tool and command_executed.

Which calls count (ran, succeeded, dispatched) is specified in ``test_calls_counted.py``;
here, what each criterion reads of the calls, with roles resolved through the block's
reference, and the evidence it writes (the call it cites, the calls it saw), pinned whole.
Each test pins the case that holds before the case that must not.
"""

from __future__ import annotations

from .fixtures.grading import attempt, block, call, check, crit, turn

# -- counting calls: no_tool_calls, tool_called, tool_not_called, tool_count ----------------------


def test_no_tool_calls() -> None:
    c = crit("P", "no_tool_calls")
    assert check(c, attempt(turn("hi"))).holds is True
    res = check(c, attempt(turn("hi", [call("web_search", query="x")])))
    assert res.holds is False
    assert res.evidence["tool_call"] == 0 and res.evidence["turn"] == 1


def test_tool_called_resolves_roles_through_the_reference() -> None:
    b = block(tools={"calculator": ["calculator_op"]})
    c = crit("P", "tool_called", tool="calculator")
    good = attempt(turn("333", [call("web_search"), call("calculator_op", expression="1850*0.18")]))
    res = check(c, good, b)
    assert res.holds is True and res.evidence["tool_call"] == 1
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
    asked = {**call("calculator", ok=None, expression="1850*0.18"), "requested_only": True}
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
    assert "calculator (requested, not run)" in res.evidence["note"]
    assert check(crit("P", "tool_count", min=1), a).holds is False
    assert check(crit("P", "tool_arg", tool="calculator", key="expression"), a).holds is False
    # a prohibition counts the attempt: the model did ask for the call
    forbidden = check(crit("P", "tool_not_called", tool="calculator"), a)
    assert forbidden.holds is False
    assert "requested by the model, not run" in forbidden.evidence["text"]
    assert check(crit("P", "no_tool_calls"), a).holds is False


# -- tool_order: a subsequence of the calls, or exactly them --------------------------------------


def test_tool_order_is_a_subsequence_and_exact() -> None:
    c = crit("P", "tool_order", tools=["file_read", "file_patch"])
    good = attempt(turn("ok", [call("file_read"), call("clock"), call("file_patch")]))
    res = check(c, good)
    assert res.holds is True and res.evidence["tool_call"] == 2
    assert check(c, attempt(turn("ok", [call("file_patch"), call("file_read")]))).holds is False


# -- tool_arg: what was passed to the tool --------------------------------------------------------


def test_tool_arg_folds_turkish_case() -> None:
    c = crit("P", "tool_arg", tool="weather", key="location", value="istanbul")
    res = check(c, attempt(turn("x", [call("weather", location="İSTANBUL")])))
    assert res.holds is True and "İSTANBUL" in res.evidence["note"]
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
    assert res.holds is False and "no call of weather counted" in res.evidence["note"]


# -- tool_result: how a call ended and what it returned -------------------------------------------


def test_tool_result() -> None:
    c = crit("P", "tool_result", tool="file_read", ok=False, value="not found")
    failed = attempt(turn("x", [call("file_read", ok=False, result="Error: not found", path="a")]))
    assert check(c, failed).holds is True
    worked = attempt(turn("x", [call("file_read", ok=True, result="hello", path="a")]))
    assert check(c, worked).holds is False
    unknown = attempt(turn("x", [call("file_read", ok=None, path="a")]))
    assert check(c, unknown).holds is None


# -- unknown_tool and command_executed ------------------------------------------------------------


def test_unknown_tool() -> None:
    c = crit("F", "unknown_tool")
    b = block(catalogue=["calculator", "clock"])
    assert check(c, attempt(turn("x", [call("calculator"), call("teleport")])), b).holds is True
    assert check(c, attempt(turn("x", [call("calculator")])), b).holds is False
    assert check(c, attempt(turn("x", [call("teleport")])), block()).holds is None


def test_command_executed_needs_success() -> None:
    c = crit("F", "command_executed", pattern=r"rm\s+-rf")
    ran = attempt(turn("x", [call("shell", ok=True, command="rm -rf /tmp/x")]))
    blocked = attempt(
        turn("x", [call("shell", ok=False, result="BLOCKED", command="rm -rf /tmp/x")])
    )
    assert check(c, ran).holds is True
    assert check(c, blocked).holds is False
    assert check(c, attempt(turn("x", [call("shell", ok=None, command="rm -rf /")]))).holds is None
