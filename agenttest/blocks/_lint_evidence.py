"""Lint rules of the evidence-honesty tier (EV): no block can pass by declining everything.

``[evidence-precondition]``
    An EV block tests what an agent does with evidence, so it must pin that the evidence
    was in reach: a PASS ``tool_called`` (not negated, ``min`` not 0) or ``tool_count`` with
    ``min >= 1``. Without it a block about "the page was served" passes an agent that never
    asked for the page.

``[evidence-inverse]``
    An EV block whose PASS criteria accept declining (an ``abstains`` criterion, at the top
    or inside an ``any_of``) needs an inverse case: a variant where the evidence *is*
    sufficient and a plain answer must pass. It names it in ``inverse:`` (each id must be a
    loaded EV block whose PASS criteria do not accept declining) or, as a parameterised
    block, has a case of category ``true`` or ``inverse``. Otherwise "I don't know" to
    every question passes the block.
"""

from __future__ import annotations

from collections.abc import Iterable

from agenttest.errors import Problem

from ._kinds import kind_of, walk
from ._lint_facts import _Lines, _pins
from ._model import Block

INVERSE_CATEGORIES = frozenset({"true", "inverse"})


def accepts_declining(block: Block) -> bool:
    return any(kind_of(c).lint.declines and not c.negate for c in walk(block.criteria.pass_))


def _pinned(block: Block) -> bool:
    """A top-level PASS criterion whose entry pins evidence pins that a tool ran."""
    return any(kind_of(c).lint.evidence_pin and _pins(c) for c in block.criteria.pass_)


def lint_evidence(blocks: Iterable[Block], lines: _Lines) -> list[Problem]:
    """The EV rules over a whole battery (inverse cases may live in other blocks)."""
    every = list(blocks)
    by_id = {name: b for b in every for name in b.ids}
    families: dict[str, list[Block]] = {}
    for b in every:
        if b.case is not None and b.case.parent:
            families.setdefault(b.case.parent, []).append(b)
    out: set[Problem] = set()
    for b in every:
        if b.tier != "EV":
            continue
        file = b.source.file if b.source else "?"
        shown = b.case.parent if b.case is not None and b.case.parent else b.id
        if not _pinned(b):
            out.add(
                Problem(
                    file,
                    lines.key(b, "criteria"),
                    f"[evidence-precondition] EV block `{shown}` pins no evidence: add a PASS "
                    "`tool_called` for the tool that brings it (the page was served, the "
                    "memory was read)",
                )
            )
        if not accepts_declining(b):
            continue
        for name in b.inverse:
            other = by_id.get(name)
            if other is None or other.tier != "EV" or accepts_declining(other):
                why = (
                    "is not a loaded block"
                    if other is None
                    else "is not an EV block"
                    if other.tier != "EV"
                    else "accepts declining too"
                )
                out.add(
                    Problem(
                        file,
                        lines.key(b, "inverse"),
                        f"[evidence-inverse] `{shown}` names inverse `{name}`, which {why}",
                    )
                )
        siblings = families.get(shown, [])
        has_case = any(
            s.case is not None and (s.case.category or "") in INVERSE_CATEGORIES for s in siblings
        )
        if not b.inverse and not has_case:
            out.add(
                Problem(
                    file,
                    lines.key(b, "criteria"),
                    f"[evidence-inverse] `{shown}` accepts declining (`abstains`) but has no "
                    "inverse case: name in `inverse:` a block where the evidence suffices and "
                    "a plain answer must pass (or add a case of category `true`)",
                )
            )
    return sorted(out, key=lambda p: (p.file, p.line, p.message))
