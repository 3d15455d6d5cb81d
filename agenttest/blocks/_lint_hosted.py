"""Which tool roles a block needs, and whether the harness can host them all (issue 28).

A block says ``hosted: true`` when every tool it needs is a hosted role (``HOSTED_ROLES``),
so an agent that takes its tools from the harness can pass it and the harness's record
decides it. A block *needs* the roles its PASS criteria and preconditions ask to have run,
read (``tool_result``), or not run (``tool_not_called``: the choice only means something when
the tool is on offer), and, for a criterion that names no tool, the tools its entry says it
depends on (``command_executed``: the shell). An ``any_of`` needs one hostable branch (all of
them when negated). FAIL criteria need nothing: they forbid an act, and a forbidden call to
a tool the harness does not host is still caught: on hosted tools the agent's report of a call
to such a tool counts as its word (docs/grading.md, "Hosted tools").

``[hosted]``
    A block that says ``hosted: true`` but needs a role the harness does not host: the
    agent cannot pass it on hosted tools, so the flag is wrong.
"""

from __future__ import annotations

from agenttest.errors import Problem

from ._kinds import ANY_TOOL, kind_of
from ._lint_facts import _Lines
from ._model import Block, Criterion
from ._vocabulary import HOSTED_ROLES

_HOSTED = frozenset(HOSTED_ROLES)
#: "any tool" as a criterion writes it, and as the registry's tool sets do
_ANY = frozenset({"any", ANY_TOOL})


def _unhosted(c: Criterion, block: Block) -> list[str]:
    """The roles this criterion needs that the harness does not host (empty: hostable)."""
    kind = kind_of(c)
    if kind.nested and c.of:
        gaps = [_unhosted(sub, block) for sub in c.of]
        every = sorted({r for g in gaps for r in g})
        if c.negate:  # none may hold: each branch is checked, so each must be hostable
            return every
        # one hosted way to pass is enough; a branch naming no tool (a trace marker) is not
        # a way around the tool its siblings name (L1-APP-01: the launcher, or its trace)
        tooled = [g for g, sub in zip(gaps, c.of, strict=True) if _names_tools(sub, block)]
        return every if tooled and all(tooled) else []
    named = {t for t in (c.tool, *c.tools) if t}
    if named:
        return sorted(named - _HOSTED - _ANY)
    dep = _depends(c, block)
    if not dep or dep & (_HOSTED | _ANY):
        return []  # one of the tools it may read is hosted (a file write, any tool)
    return sorted(dep)


def _depends(c: Criterion, block: Block) -> frozenset[str]:
    depends = kind_of(c).lint.depends
    dep = depends(block, c) if depends is not None else None
    return dep.tools if dep is not None else frozenset()


def _names_tools(c: Criterion, block: Block) -> bool:
    if kind_of(c).nested:
        return any(_names_tools(sub, block) for sub in c.of)
    return bool(c.tool or c.tools or _depends(c, block))


def hosting_gaps(block: Block) -> dict[str, list[str]]:
    """The roles each PASS criterion or precondition needs that cannot be hosted, by
    criterion id; empty when the whole block can run on hosted tools."""
    out: dict[str, list[str]] = {}
    for c in (*block.criteria.pass_, *block.preconditions):
        gap = _unhosted(c, block)
        if gap:
            out[c.id] = gap
    return out


def rule_hosted(block: Block, lines: _Lines) -> list[Problem]:
    if not block.hosted:
        return []
    gaps = hosting_gaps(block)
    if not gaps:
        return []
    file = block.source.file if block.source else "?"
    named = "; ".join(
        f"`{cid}` needs {', '.join(f'`{r}`' for r in roles)}" for cid, roles in gaps.items()
    )
    return [
        Problem(
            file,
            lines.key(block, "hosted"),
            f"[hosted] block `{block.id}` says `hosted: true` but needs tools the harness "
            f"does not host ({named}); hosted roles: {', '.join(HOSTED_ROLES)}",
        )
    ]
