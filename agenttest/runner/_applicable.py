"""Blocks that cannot apply to an agent: decided before an attempt is sent.

A block is *not applicable* when something it needs is what the agent does not provide
(:mod:`agenttest.agents._provides`): a counted PASS criterion reads agent-internal trace
markers and the agent keeps no trace (it could never hold, however good the reply), a
fixture seeds memory and the agent has no seed endpoint, or a fixture or a counted PASS
file criterion needs a workspace the agent does not have. Such an attempt is recorded with
the verdict ``NOT_APPLICABLE`` and the reason, and nothing reaches the agent; it is in no
rate and never a PASS (docs/agents.md, "What an agent provides").

FAIL criteria alone never make a block not applicable: the block can still be run and
FAIL on what can be seen, and an undecidable FAIL criterion keeps it UNDECIDED instead.
"""

from __future__ import annotations

from agenttest.agents import Provided
from agenttest.blocks import Block, Criterion, kind_of
from agenttest.results import Attempt

from ._plan import PlanItem

#: fixtures that live in the agent's memory, not in a workspace
_MEMORY_FIXTURES = frozenset({"memory_reset", "memory_seed"})


def _needs_trace(c: Criterion) -> bool:
    if kind_of(c).nested:  # any_of: it needs the trace only when every alternative does
        return bool(c.of) and all(_needs_trace(x) for x in c.of)
    return kind_of(c).needs.trace


def _needs_file(c: Criterion) -> bool:
    if kind_of(c).nested:
        return bool(c.of) and all(_needs_file(x) for x in c.of)
    needs = kind_of(c).needs
    return needs.workspace_file or needs.world_file is not None


def _named(criteria: list[Criterion]) -> str:
    return ", ".join(f"{c.id} ({c.type})" for c in criteria)


def needed(block: Block, strict: bool = False) -> dict[str, str]:
    """What the block needs beyond replies, each with what in the block needs it."""
    counted = [c for c in block.criteria.pass_ if block.counts(c, strict)]
    out: dict[str, str] = {}
    trace = [c for c in counted if _needs_trace(c)]
    if trace:
        out["trace"] = f"PASS criterion {_named(trace)} reads agent-internal trace markers"
    if any(fx.kind == "memory_seed" for fx in block.fixtures):
        out["seed"] = "a memory_seed fixture puts notes into the agent's memory"
    laid = sorted({fx.kind for fx in block.fixtures if fx.kind not in _MEMORY_FIXTURES})
    files = [c for c in counted if _needs_file(c)]
    if laid:
        out["workspace"] = f"its {', '.join(laid)} fixture(s) are laid in a workspace"
    elif files:
        out["workspace"] = f"PASS criterion {_named(files)} reads a workspace file"
    return out


def not_applicable(block: Block, agent: Provided, strict: bool = False) -> str | None:
    """Why ``block`` cannot apply to the agent (None: it can): each thing it needs that the
    agent lacks, with what needs it and why the agent lacks it."""
    reasons = [
        f"{what}: {need}; {agent.lacks[what]}"
        for what, need in needed(block, strict).items()
        if what in agent.lacks
    ]
    return " | ".join(reasons) or None


def not_applicable_record(item: PlanItem, reason: str, rater: str, at: str) -> Attempt:
    """The record of an attempt that was never sent: verdict NOT_APPLICABLE, its reason."""
    return Attempt(
        test_id=item.block.id,
        tier=item.block.tier,
        run=item.run,
        k=item.k,
        started_at=at,
        completed_at=at,
        verdict="NOT_APPLICABLE",
        rater=rater,
        not_applicable=reason,
    )
