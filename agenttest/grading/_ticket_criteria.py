"""The grader of a hosted ticket's final state (``ticket_state``, issue 28).

A ticket is the world's record (``.tickets/<id>.json``, laid by the block's ``ticket``
fixture and moved only by the hosted ``ticket`` tool), so its final state is what happened,
whatever the reply says. It is read from the live world when the runner passes it, else from
the attempt's snapshot; a transcript alone cannot show it (undecided).
"""

from __future__ import annotations

import json
from pathlib import Path

from agenttest.blocks import Criterion, ticket_file

from ._context import Check, Ctx, ev, quoted
from ._registry import grades


def _read(ctx: Ctx, rel: str) -> tuple[str | None, str, bool]:
    """(the file's text or None when absent, where it was read, whether it could be read)."""
    if ctx.workspace is not None:
        root = Path(ctx.workspace).resolve()
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            return None, f"{rel} lies outside the world; not read", False
        if not target.is_file():
            return None, f"live world {root}", True
        return target.read_text(encoding="utf-8", errors="replace"), f"live world {root}", True
    files = ctx.attempt.workspace_files
    if files is not None and rel in files:
        return files[rel], "world snapshot in the attempt record", True
    return None, "no world and no snapshot of the ticket (a transcript cannot show it)", False


def _state(text: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    state = data.get("state") if isinstance(data, dict) else None
    return state if isinstance(state, str) else None


@grades("ticket_state")
def ticket_state(ctx: Ctx, c: Criterion) -> Check:
    ticket = ctx.subst(c.ticket) or ""
    rel = ticket_file(ticket)
    want = ctx.subst(str(c.value or "")) or ""
    text, where, readable = _read(ctx, rel)
    if not readable:
        return Check(None, ev(file=rel, note=where))
    if text is None:
        return Check(False, ev(file=rel, note=f"ticket {ticket} does not exist ({where})"))
    state = _state(text)
    if state is None:
        note = f"ticket {ticket}: no state in its file ({where})"
        return Check(None, ev(file=rel, text=text, note=note))
    holds = state.strip().lower() == want.strip().lower()
    note = f"ticket {ticket} ended in state {quoted(state)}, wanted {quoted(want)} ({where})"
    return Check(holds, ev(file=rel, text=text, note=note))
