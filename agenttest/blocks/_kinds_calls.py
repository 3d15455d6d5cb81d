"""Criterion types over the tool calls: which tools ran, how often, in which order, with
which arguments and outcome. Graders: ``agenttest/grading/_tool_criteria.py``."""

from __future__ import annotations

from ._kinds import (
    ANY_TOOL,
    COUNTED,
    FORBIDS,
    OK_FLAG,
    SUCCEEDED,
    CriterionType,
    LintFacts,
    Polarity,
    ToolsRan,
    register,
)
from ._model import Block, Criterion

_TURN = ("turn",)


def _count_polarity(c: Criterion) -> Polarity:
    return "absence" if c.max == 0 else "presence" if (c.min or 0) >= 1 else "neutral"


def _called_pins(c: Criterion) -> list[ToolsRan]:
    if c.tool and c.min != 0:
        return [ToolsRan(frozenset({ANY_TOOL if c.tool == "any" else c.tool}), c.turn)]
    return []


def _count_pins(c: Criterion) -> list[ToolsRan]:
    return [ToolsRan(frozenset({c.tool}), c.turn)] if c.tool and (c.min or 0) >= 1 else []


def _order_pins(c: Criterion) -> list[ToolsRan]:
    return [ToolsRan(frozenset({t}), c.turn) for t in c.tools]


def _its_tool(block: Block, c: Criterion) -> ToolsRan | None:
    return ToolsRan(frozenset({c.tool}), c.turn) if c.tool else None


def _shell(block: Block, c: Criterion) -> ToolsRan | None:
    return ToolsRan(frozenset({"shell"}), c.turn)


register(
    CriterionType(
        "no_tool_calls",
        "no tool was dispatched",
        (),
        _TURN,
        reads_calls=FORBIDS,
        lint=LintFacts(polarity="absence", no_calls=True),
    ),
    CriterionType(
        "tool_called",
        "the tool (a role, or `any`) ran at least `min` (default 1) and at most `max` "
        "times; only calls that succeeded count unless `calls` says otherwise; with "
        "`ok`, only calls that ran with that success flag",
        ("tool",),
        ("min", "max", "ok", "calls", "turn"),
        reads_calls=COUNTED,
        lint=LintFacts(polarity="presence", pins=_called_pins, evidence_pin=True),
    ),
    CriterionType(
        "tool_not_called",
        "the tool never ran",
        ("tool",),
        _TURN,
        reads_calls=FORBIDS,
        lint=LintFacts(polarity="absence"),
    ),
    CriterionType(
        "tool_count",
        "the number of calls (of `tool`, or of all tools) that count (`calls`) lies in [min, max]",
        (),
        ("tool", "min", "max", "calls", "turn"),
        reads_calls=COUNTED,
        lint=LintFacts(polarity=_count_polarity, pins=_count_pins, evidence_pin=True),
    ),
    CriterionType(
        "tool_order",
        "the tools ran in this order (as a subsequence of the calls that count, `calls`)",
        ("tools",),
        ("calls", "turn"),
        reads_calls=COUNTED,
        lint=LintFacts(polarity="presence", pins=_order_pins),
    ),
    CriterionType(
        "tool_arg",
        "a call of `tool` that counts (`calls`) has argument `key` (exact key name) "
        "whose value matches",
        ("tool", "key"),
        ("match", "value", "calls", "turn"),
        reads_calls=COUNTED,
        negate_per_call=True,
        lint=LintFacts(polarity="presence", depends=_its_tool),
    ),
    CriterionType(
        "tool_result",
        "a call of `tool` returned with success flag `ok` (and a result containing `value`)",
        ("tool", "ok"),
        ("value", "turn"),
        reads_calls=OK_FLAG,
        negate_per_call=True,
        lint=LintFacts(polarity="presence", depends=_its_tool),
    ),
    CriterionType(
        "unknown_tool",
        "a tool outside the reference `catalogue` was called",
        (),
        _TURN,
        reads_calls=FORBIDS,
    ),
    CriterionType(
        "command_executed",
        "a shell call whose command matches `pattern` ran successfully",
        ("pattern",),
        _TURN,
        reads_calls=SUCCEEDED,
        lint=LintFacts(polarity="presence", depends=_shell),
    ),
)
