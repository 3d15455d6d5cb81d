"""Graders over the state of the world after the attempt, its timing, and the judge.

Files are read from the live workspace when the runner passes one, else from the
snapshot in ``attempt.workspace_files``; with neither the criterion is ungraded, since
a transcript alone cannot show what is on disk.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from agenttest import text as nz
from agenttest.blocks import Block, Criterion, block_needs

from . import _world as w
from . import limits
from ._context import (
    LAST_TURN,
    Check,
    Ctx,
    as_text,
    empty_reply,
    ev,
    fixtures_applied,
    quoted,
)
from ._registry import grades

_MISSING = object()


def _rel(path: str) -> str:
    return str(PurePosixPath(path.strip()))


def files_of_interest(block: Block) -> list[str]:
    """Workspace-relative paths the block's file criteria read, for the runner to snapshot
    (the entries that need a workspace file say so: ``blocks.block_needs``)."""
    return list(block_needs(block).workspace_files)


def _read(ctx: Ctx, path: str) -> tuple[Any, str | None]:
    """(content | None when absent | _MISSING when unknowable, where it was read from)."""
    rel = _rel(path)
    if ctx.workspace is not None:
        root = ctx.workspace.resolve()
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            return _MISSING, f"{rel} lies outside the workspace; not read"
        if target.is_dir():
            return "", f"directory in the live workspace {root}"
        if not target.exists():
            return None, f"live workspace {root}"
        return target.read_text(encoding="utf-8", errors="replace"), f"live workspace {root}"
    files = ctx.attempt.workspace_files
    if files is not None:
        for key, content in files.items():
            if _rel(str(key)) == rel:
                return content, "workspace snapshot in the attempt record"
        return _MISSING, (
            f"{rel} is not in the attempt's workspace snapshot "
            f"(snapshot holds {len(files)} file(s))"
        )
    return _from_calls(ctx, rel)


def _from_calls(ctx: Ctx, rel: str) -> tuple[Any, str | None]:
    """No workspace and no snapshot: replay the tool-call record (grading/_world.py)."""
    applied = fixtures_applied(ctx.block, ctx.attempt)
    target = rel if applied else ctx.block.reference.paths.get(rel, rel)
    before = w.initial_state(ctx, rel, applied)
    state, how = w.world_state(ctx, target, before)
    where = f"world state of {target} from the tool-call record ({how})"
    if isinstance(state, w.Unknown):
        return _MISSING, f"{where}: undecided, {state.why}"
    if state is None:
        return None, where
    return (w.UNKNOWN_CONTENT if state.content is None else state.content), where


def _lines(text: str) -> str:
    # the line ends the live workspace's text-mode read gives (`\r\n` and `\r` are `\n`),
    # so a snapshot or a replayed write of the same file matches `^...$` the same way
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _rule(where: str | None) -> str | None:
    return "world state from the tool-call record" if (where or "").startswith("world") else None


def _file_present(ctx: Ctx, c: Criterion, want: bool) -> Check:
    path = ctx.subst(c.path) or ""
    content, where = _read(ctx, path)
    if content is _MISSING:
        return Check(None, ev(file=_rel(path), note=where, decided_by=_rule(where)))
    present = content is not None
    state = "exists" if present else "absent"
    return Check(
        present == want, ev(file=_rel(path), note=f"{state} ({where})", decided_by=_rule(where))
    )


@grades("file_exists")
def file_exists(ctx: Ctx, c: Criterion) -> Check:
    return _file_present(ctx, c, True)


@grades("file_absent")
def file_absent(ctx: Ctx, c: Criterion) -> Check:
    return _file_present(ctx, c, False)


@grades("file_content")
def file_content(ctx: Ctx, c: Criterion) -> Check:
    path = ctx.subst(c.path) or ""
    content, where = _read(ctx, path)
    rel = _rel(path)
    rule = _rule(where)
    if content is _MISSING:
        return Check(None, ev(file=rel, note=where, decided_by=rule))
    if content is None:
        note = f"precondition unmet: the file does not exist ({where})"
        return Check(False, ev(file=rel, note=note, decided_by=rule))
    if content is w.UNKNOWN_CONTENT:
        note = f"the file exists, its content is not known ({where})"
        return Check(None, ev(file=rel, note=note, decided_by=rule))
    text = _lines(str(content))
    value = ctx.subst(str(c.value)) or ""
    match = c.match or "contains"
    if match == "equals":
        holds = text.strip() == _lines(value).strip()
    elif match == "regex":
        holds = limits.search(value, text, re.MULTILINE) is not None
    elif match == "number":
        target = ctx.number(c.value)
        holds = target is not None and any(
            nz.number_equal(t.values, target, c.tolerance) for t in nz.extract_numbers(text)
        )
    else:
        holds = nz.fold(value) in nz.normalize(text).text
    return Check(
        holds, ev(file=rel, text=text, note=f"{match} {quoted(value)} ({where})", decided_by=rule)
    )


@grades("file_at_start")
def file_at_start(ctx: Ctx, c: Criterion) -> Check:
    """What the file was before the attempt (a precondition), from the tool-call record."""
    rel = _rel(ctx.subst(c.path) or "")
    target = (
        rel if fixtures_applied(ctx.block, ctx.attempt) else ctx.block.reference.paths.get(rel, rel)
    )
    state, how = w.start_state(ctx, target)
    rule = "state before the attempt from the tool-call record"
    if isinstance(state, w.Unknown):
        return Check(None, ev(file=target, note=f"undecided: {state.why}", decided_by=rule))
    was = "absent" if state is None else "exists"
    said = f"{'it was absent' if state is None else 'it existed'} before the attempt ({how})"
    if c.value != was:
        return Check(False, ev(file=target, note=said, decided_by=rule))
    if was == "exists" and c.pattern:
        if state is None or state.content is None:
            note = f"it existed ({how}); its content then is not in the record"
            return Check(None, ev(file=target, note=note, decided_by=rule))
        content = _lines(state.content)
        holds = limits.search(ctx.subst(c.pattern) or "", content, re.MULTILINE) is not None
        note = f"it existed ({how}); content {'matches' if holds else 'does not match'} {quoted(c.pattern)}"
        return Check(holds, ev(file=target, text=content, note=note, decided_by=rule))
    return Check(True, ev(file=target, note=said, decided_by=rule))


def _ms(start: Any, end: Any) -> int | None:
    # RFC 3339 allows a lower-case `t` and `z`; fromisoformat reads only the capitals
    try:
        a = datetime.fromisoformat(str(start).upper().replace("Z", "+00:00"))
        b = datetime.fromisoformat(str(end).upper().replace("Z", "+00:00"))
    except ValueError:
        return None
    return int((b - a).total_seconds() * 1000)


@grades("latency_max")
def latency_max(ctx: Ctx, c: Criterion) -> Check:
    a = ctx.attempt
    ms: float | None = a.latency_ms
    source = "attempt latency_ms"
    if ms is None:
        # a turn without a figure (or with one that is no number) would undercount the sum
        figures = [x for t in ctx.turns if isinstance(x := t.latency_ms, int | float)]
        if figures and len(figures) == len(ctx.turns):
            ms, source = sum(figures), "sum of the turns' latency_ms"
    if ms is None and a.started_at and a.completed_at:
        ms, source = _ms(a.started_at, a.completed_at), "completed_at - started_at"
    if ms is None:
        return Check(None, ev(note="the attempt's duration was not recorded"))
    if a.latency_source:
        source = a.latency_source
    limit = float(c.seconds or 0) * 1000
    return Check(ms <= limit, ev(note=f"{ms / 1000:.1f} s ({source}); limit {c.seconds} s"))


@grades("status")
def status(ctx: Ctx, c: Criterion) -> Check:
    got = ctx.attempt.status
    return Check(got == c.value, ev(note=f"status {quoted(got)}; wanted {quoted(c.value)}"))


@grades("judge")
def judge(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, LAST_TURN)
    if why is not None:
        return Check(None, why)
    ti = turns[0]
    candidate = ctx.response(ti)
    if candidate is not None and empty_reply(candidate):
        # a rubric describes a reply that meets it; a reply that says nothing meets none,
        # with or without a judge
        note = "the reply is empty: it meets no rubric (decided without a judge)"
        return Check(False, ev(turn=ti, text=candidate, note=note))
    if ctx.judge is None:
        return Check(
            None,
            ev(
                turn=ti,
                note="no judge was configured, so this JUDGE criterion is "
                "ungraded; grade again with `agenttest grade RUN --judge NAME`",
            ),
        )
    if candidate is None:
        return Check(None, ev(turn=ti, note="no response to judge"))
    from agenttest.judges import JudgeRequest

    prompts = [str(t.prompt or "") for t in ctx.turns[: ti + 1]]
    request = JudgeRequest(
        rubric=ctx.subst(c.rubric) or "",
        reference=ctx.subst(c.reference) or "",
        candidate=candidate,
        context="\n".join(prompts),
        asks=c.asks or "",
        act=c.act or "",
        min_items=c.min,
        tool_results=_tool_results(ctx, turns),
    )
    try:
        result = ctx.judge.judge(request)
    except Exception as exc:  # a judge failing is "undecided", never a verdict
        return Check(
            None, ev(turn=ti, note=f"judge {getattr(ctx.judge, 'name', '?')} failed: {exc}")
        )
    note = f"judge {result.judge}: {result.verdict} (score {result.score:.2f})"
    if result.verdict == "ERROR":
        return Check(None, ev(turn=ti, text=result.evidence, note=note + "; could not decide"))
    if result.verdict == "UNDECIDED":  # weak evidence: left to a human (`agenttest rate`)
        return Check(None, ev(turn=ti, text=result.evidence, note=note + "; left to a human"))
    return Check(
        result.verdict == "PASS", ev(turn=ti, text=result.evidence or candidate, note=note)
    )


def _tool_results(ctx: Ctx, turns: list[int]) -> str:
    """What the tools returned up to the judged turn, one line per call (for `consistent`)."""
    upto = list(range(turns[0] + 1)) if turns else []
    return "\n".join(f"{call.name}: {as_text(call.result)}" for _, _, call in ctx.calls(upto))
