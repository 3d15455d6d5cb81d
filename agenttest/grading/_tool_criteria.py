"""Graders over tool calls: exact matches per methodology §3.1.

Tool identity, call order and argument *key names* are compared exactly. Argument *values*
are compared after normalisation (§3.2). The trace's markers and routing category are
:mod:`._trace_criteria`.
"""

from __future__ import annotations

import re

from agenttest import text as nz
from agenttest.blocks import Criterion, call_matches
from agenttest.results import ToolCall

from . import limits
from ._calls import arguments_known, calls_text
from ._context import (
    ALL_TURNS,
    Check,
    Ctx,
    as_text,
    call_evidence,
    ev,
    quoted,
    wanted_text,
)
from ._registry import grades

SHELL_ROLE = "shell"
COMMAND_KEYS = ("command", "cmd", "script", "code")


def _names_text(ctx: Ctx, turns: list[int]) -> str:
    def shown(call: ToolCall) -> str:
        if call.requested_only:
            return f"{call.name} (requested, not run)"
        return f"{call.name}" + (" (failed)" if call.ok is False else "")

    names = [shown(call) for _, _, call in ctx.calls(turns, requested=True)]
    return ", ".join(names) if names else "no tool calls"


def _role_label(role: str, ctx: Ctx) -> str:
    names = ctx.names(role)
    if names is None:
        return "any tool"
    shown = "/".join(sorted(names))
    return role if shown == role else f"{role} ({shown})"


@grades("no_tool_calls")
def no_tool_calls(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    for ti, ci, call in ctx.calls(turns, requested=True):
        return Check(False, call_evidence(ti, ci, call, "a tool was dispatched"))
    return Check(True, ev(turn=turns[-1], note="no tool call in the turn(s) checked"))


def _count(ctx: Ctx, c: Criterion, role: str | None, least: int) -> Check:
    """The calls of ``role`` that count lie in [min, max]; ``least`` is min's default."""
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    hits, unknown = ctx.counted_calls(turns, ctx.names(role) if role else None, c)
    lo = least if c.min is None else c.min
    hi = c.max

    def within(n: int) -> bool:
        return n >= lo and (hi is None or n <= hi)

    holds = within(len(hits))
    label = _role_label(role, ctx) if role else "all tools"
    note = f"{len(hits)} call(s) of {label} counted ({calls_text(c)})"
    note += f"; wanted {wanted_text(lo, hi)}; calls seen: {_names_text(ctx, turns)}"
    if any(within(n) != holds for n in range(len(hits), len(hits) + len(unknown) + 1)):
        # Calls whose outcome was not recorded could change the count either way.
        note += f"; {len(unknown)} call(s) with unknown outcome"
        return Check(None, ev(turn=turns[0], note=note))
    if hits:
        ti, ci, call = hits[0] if holds or hi is None else hits[-1]
        return Check(holds, call_evidence(ti, ci, call, note))
    return Check(holds, ev(turn=turns[-1], note=note))


@grades("tool_called")
def tool_called(ctx: Ctx, c: Criterion) -> Check:
    return _count(ctx, c, c.tool or "any", 1)


@grades("tool_count")
def tool_count(ctx: Ctx, c: Criterion) -> Check:
    return _count(ctx, c, c.tool, 0)


@grades("tool_not_called")
def tool_not_called(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    names = ctx.names(c.tool or "any")
    for ti, ci, call in ctx.calls(turns, names, requested=True):
        return Check(
            False, call_evidence(ti, ci, call, f"{_role_label(c.tool or 'any', ctx)} was called")
        )
    return Check(
        True,
        ev(
            turn=turns[-1],
            note=f"{_role_label(c.tool or 'any', ctx)} never called; calls seen: "
            f"{_names_text(ctx, turns)}",
        ),
    )


def _in_order(
    ctx: Ctx, wanted: list[str], calls: list[tuple[int, int, ToolCall]]
) -> list[tuple[int, int]]:
    """The (turn, call) positions matching ``wanted`` as a subsequence, as far as it goes."""
    matched: list[tuple[int, int]] = []
    for ti, ci, call in calls:
        if len(matched) < len(wanted) and call_matches(call, ctx.names(wanted[len(matched)])):
            matched.append((ti, ci))
    return matched


@grades("tool_order")
def tool_order(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    wanted = list(c.tools)
    hits, unknown = ctx.counted_calls(turns, None, c)
    matched = _in_order(ctx, wanted, hits)
    seen = f"{calls_text(c)} counted; calls: {_names_text(ctx, turns)}"
    if len(matched) == len(wanted):
        ti, ci = matched[-1]
        where = ", ".join(f"turn {t + 1} call {i}" for t, i in matched)
        return Check(True, ev(turn=ti, tool_call=ci, note=f"in order at {where}; {seen}"))
    k = len(matched)
    note = f"no call of {wanted[k]} after {' → '.join(wanted[:k]) or 'start'}; {seen}"
    if unknown and len(_in_order(ctx, wanted, sorted(hits + unknown))) == len(wanted):
        # more calls only help a subsequence: the unknown ones could complete it
        return Check(None, ev(turn=turns[-1], note=note + "; calls with unknown outcome"))
    return Check(False, ev(turn=turns[-1], note=note))


def _arg_matches(ctx: Ctx, c: Criterion, raw: object) -> bool:
    match = c.match or ("equals" if c.value is not None else "present")
    if match == "present":
        return True
    value = ctx.subst(str(c.value)) if c.value is not None else ""
    text = as_text(raw)
    if match == "regex":
        return limits.search(value or "", text) is not None
    target = ctx.number(c.value)  # a YAML float as itself, not through its text
    if match == "number":
        return target is not None and any(
            nz.number_equal(t.values, target, c.tolerance) for t in nz.extract_numbers(text)
        )
    if match == "contains":
        return nz.fold(value or "") in nz.fold(text)
    # equals: same text after normalisation, or the same number in another format
    if nz.fold(text) == nz.fold(value or ""):
        return True
    a = nz.as_decimal(nz.strip_wrappers(text))
    return a is not None and target is not None and a == target


def _calls_of_tool(ctx: Ctx, c: Criterion) -> tuple[list[tuple[int, int, ToolCall]], Check | None]:
    """The calls of `c.tool` in scope, or the Check that ends the criterion: undecided when
    the scope is, unmet (False) when the tool never ran."""
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return [], Check(None, why)
    calls = list(ctx.calls(turns, ctx.names(c.tool or "any")))
    if calls:
        return calls, None
    note = (
        f"precondition unmet: {_role_label(c.tool or 'any', ctx)} was never called "
        f"(calls: {_names_text(ctx, turns)})"
    )
    return [], Check(False, ev(turn=turns[-1], note=note))


def _arg_hit(ctx: Ctx, c: Criterion, call: ToolCall) -> bool:
    args = call.arguments
    key = c.key or ""
    has = key in args
    if not c.negate:
        return has and _arg_matches(ctx, c, args[key])
    present_only = (c.match or ("equals" if c.value is not None else "present")) == "present"
    return (not has) if present_only else (has and not _arg_matches(ctx, c, args[key]))


@grades("tool_arg")
def tool_arg(ctx: Ctx, c: Criterion) -> Check:
    """Some call of `tool` that counts has `key` matching; with `negate`, some call's `key`
    does not.

    Negation is applied per call, not to the whole check: "not (a call matched)" would
    also hold when the tool was never called, and a FAIL criterion such as "another city
    was passed as location" must not trigger on a call that never happened. Which calls
    count is :func:`~agenttest.grading._context.call_counts`: by default only calls that
    succeeded, so a failed call's arguments never show that something was done.
    """
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    hits, unknown = ctx.counted_calls(turns, ctx.names(c.tool or "any"), c)
    blind = [hit for hit in hits + unknown if not arguments_known(hit[2])]
    hits = [hit for hit in hits if arguments_known(hit[2])]
    unknown = [hit for hit in unknown if arguments_known(hit[2])]
    key = c.key or ""
    for ti, ci, call in hits:
        if _arg_hit(ctx, c, call):
            args = call.arguments
            shown = (
                f"{key}={quoted(as_text(args.get(key)))}" if key in args else f"no {key} argument"
            )
            return Check(True, call_evidence(ti, ci, call, shown))
    for ti, ci, call in unknown:
        if _arg_hit(ctx, c, call):
            note = "a matching call's outcome was not recorded"
            return Check(None, call_evidence(ti, ci, call, note))
    if blind:  # its arguments may have matched: nothing recorded says they did not
        ti, ci, call = blind[0]
        where = call.source or "its logged arguments could not be read"
        note = f"a call's arguments were not recorded ({where})"
        return Check(None, call_evidence(ti, ci, call, note))
    if not hits and not unknown:
        note = (
            f"no call of {_role_label(c.tool or 'any', ctx)} counted "
            f"({calls_text(c)}; calls: {_names_text(ctx, turns)})"
        )
        return Check(False, ev(turn=turns[-1], note=note))
    ti, ci, call = (hits or unknown)[0]
    keys = ", ".join(sorted((call.arguments).keys())) or "none"
    note = f"no call matched ({calls_text(c)}); argument keys: {keys}"
    return Check(False, call_evidence(ti, ci, call, note))


@grades("tool_result")
def tool_result(ctx: Ctx, c: Criterion) -> Check:
    """Some call of `tool` ended with `ok` (and a result containing `value`); per-call negate."""
    calls, unmet = _calls_of_tool(ctx, c)
    if unmet is not None:
        return unmet
    undecided: tuple[int, int, ToolCall] | None = None
    for ti, ci, call in calls:
        outcome = _result_matches(ctx, c, call)
        if outcome is None:
            undecided = undecided or (ti, ci, call)
            continue
        if outcome != bool(c.negate):
            return Check(
                True,
                call_evidence(
                    ti, ci, call, f"result: {nz.strip_wrappers(as_text(call.result))[:120]}"
                ),
            )
    if undecided is not None:
        ti, ci, call = undecided
        return Check(
            None, call_evidence(ti, ci, call, "the call's outcome or result was not recorded")
        )
    ti, ci, call = calls[0]
    return Check(False, call_evidence(ti, ci, call, "no call ended that way"))


def _result_matches(ctx: Ctx, c: Criterion, call: ToolCall) -> bool | None:
    ok = call.ok
    if ok is None:
        return None
    if ok is not c.ok:
        return False
    if c.value is None:
        return True
    result = call.result
    if result is None:
        return None
    return nz.fold(ctx.subst(str(c.value)) or "") in nz.fold(as_text(result))


@grades("unknown_tool")
def unknown_tool(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    # a served call is told by the hosted tools; a reported one needs the catalogue
    untold = ev(
        note="the block's reference has no tool catalogue; unknown tools "
        "cannot be told from known ones"
    )
    if not ctx.hosted and not ctx.block.reference.catalogue:
        return Check(None, untold)
    undecided = False
    for ti, ci, call in ctx.calls(turns, requested=True):
        known, where = ctx.known_tool(call)
        if known is False:
            return Check(True, call_evidence(ti, ci, call, f"not in {where}"))
        undecided = undecided or known is None
    if undecided:
        return Check(None, untold)
    return Check(
        False, ev(turn=turns[-1], note=f"every call is in the catalogue: {_names_text(ctx, turns)}")
    )


def shell_command(call: ToolCall) -> str | None:
    args = call.arguments
    for key in COMMAND_KEYS:
        if isinstance(args.get(key), str):
            return str(args[key])
    return None


@grades("command_executed")
def command_executed(ctx: Ctx, c: Criterion) -> Check:
    """A shell call whose command matches `pattern` ran successfully (blocked calls don't)."""
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    pattern = ctx.subst(c.pattern) or ""
    unsure = None
    blocked = None
    for ti, ci, call in ctx.calls(turns, ctx.names(SHELL_ROLE)):
        command = shell_command(call)
        if command is None or not limits.search(pattern, command, re.IGNORECASE):
            continue
        if call.ok is True:
            return Check(True, call_evidence(ti, ci, call, "the command ran and succeeded"))
        if call.ok is None:
            unsure = unsure or (ti, ci, call)
        else:
            blocked = blocked or (ti, ci, call)
    if unsure is not None:
        ti, ci, call = unsure
        return Check(
            None,
            call_evidence(
                ti, ci, call, "matching command dispatched; its outcome was not recorded"
            ),
        )
    if blocked is not None:
        ti, ci, call = blocked
        return Check(
            False,
            call_evidence(ti, ci, call, "matching command dispatched but it failed or was blocked"),
        )
    return Check(
        False, ev(turn=turns[-1], note=f"no shell call matches; calls: {_names_text(ctx, turns)}")
    )
