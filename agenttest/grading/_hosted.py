"""Which calls are "the calls" of a turn, and which evidence decided (issue 28).

An attempt that ran on hosted tools carries two records of its tool calls: the agent's own
report (``tool_calls``) and the harness's record of every call it served (``hosted_calls``,
``origin: harness``). The harness's record is what happened; the report is what the agent
says happened. So on such an attempt every criterion and rule reads the harness's record,
and the agent's report is only compared with it (:mod:`._reported`). The rule lives here,
in one place, and :class:`~._context.Ctx` applies it to the turns it grades:

* an attempt has the harness's record when it ran on hosted tools (``hosted`` set) or a
  turn holds a hosted call; then an empty record means "no call was made" (an idle agent's
  tool criteria fail), not "nothing was recorded";
* the calls of a turn are then the harness's calls, followed by the reported calls of
  tools the harness does not host (an agent's own shell: still only its word, but the
  security rules must see it). A reported call *of a hosted tool* never counts on its
  own: it is compared with the harness's record instead.

A reported name is a hosted tool (:func:`hosted_tool`) when, case aside, it is the role's
name, or ends with it after a framework's prefix and one of ``_ . - / :`` (``mcp__agenttest
__calculator``, ``agenttest_calculator``, ``tools.calculator``), or the block's overlay maps
it to a hosted role. The longest role that fits wins (``docs_search`` before ``search``).
"""

from __future__ import annotations

import msgspec

from agenttest.blocks import HOSTED_ROLES, Block, roles_of
from agenttest.results import Attempt, Evidence, EvidenceSource, ToolCall, TurnRecord

#: What may stand between a framework's prefix and a hosted tool's name.
PREFIX_SEPARATORS = "_.-/:"
HARNESS = "harness"


def has_harness_record(attempt: Attempt) -> bool:
    """Whether the attempt ran on hosted tools, so the harness's record decides its calls."""
    return attempt.hosted is not None or any(t.hosted_calls for t in attempt.turns)


def evidence_source(attempt: Attempt) -> EvidenceSource:
    """Which evidence decided the attempt's tool facts: ``harness`` (hosted tools), ``log``
    (an import whose trace and calls were read from the agent's log: ``trace_source``) or
    ``agent`` (the calls the agent reported in its reply; an imported call's ``source``
    names the reply's list it came from, not the log)."""
    if has_harness_record(attempt):
        return "harness"
    if any(t.trace_source for t in attempt.turns):
        return "log"
    return "agent"


def hosted_tool(call: ToolCall, block: Block) -> str | None:
    """The hosted role a reported call names, or None when it is no hosted tool (module
    docstring: the name rule)."""
    name = call.name.strip().casefold()
    best: str | None = None
    for role in HOSTED_ROLES:
        fits = name == role or (name.endswith(role) and name[-len(role) - 1] in PREFIX_SEPARATORS)
        if fits and (best is None or len(role) > len(best)):
            best = role
    if best is not None:
        return best
    mapped = sorted(roles_of(block.reference.tools, call) & set(HOSTED_ROLES))
    return mapped[0] if mapped else None


def graded_calls(turn: TurnRecord, block: Block) -> list[ToolCall]:
    """A turn's calls on an attempt with the harness's record: the harness's calls, then
    the reported calls of tools the harness does not host."""
    own = [c for c in turn.tool_calls if hosted_tool(c, block) is None]
    return [*turn.hosted_calls, *own]


def cite(evidence: Evidence, graded: list[TurnRecord], reported: list[TurnRecord]) -> Evidence:
    """Evidence whose ``tool_call`` is a position in a graded turn's calls, pointing at the
    record the call came from: ``hosted_call`` (its index in ``hosted_calls``) for a
    harness call, ``tool_call`` (its index in the agent's ``tool_calls``) for a reported
    one."""
    if evidence.turn is None or evidence.tool_call is None:
        return evidence
    ti, at = evidence.turn - 1, evidence.tool_call
    if not 0 <= ti < len(graded) or not 0 <= at < len(graded[ti].tool_calls):
        return evidence
    served = len(reported[ti].hosted_calls)
    if at < served:
        return msgspec.structs.replace(evidence, tool_call=None, hosted_call=at)
    call = graded[ti].tool_calls[at]
    own = next((i for i, c in enumerate(reported[ti].tool_calls) if c is call), None)
    return msgspec.structs.replace(evidence, tool_call=own)
