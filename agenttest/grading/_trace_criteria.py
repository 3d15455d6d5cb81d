"""Graders over the trace: markers in its lines and the routing category, per methodology §3.1.

A marker is found in a line of the trace (or across lines, when it spans them) after
folding emoji variation selectors and composed accents; the routing category is group 1
of the first ``category_pattern`` match of each turn. Absence from a trace known to be
incomplete is not evidence of absence (the check is undecided).
"""

from __future__ import annotations

import re
import unicodedata

from agenttest.blocks import Criterion

from . import limits
from ._context import ALL_TURNS, Check, Ctx, ev, line_evidence, quoted
from ._registry import grades


def _loose(text: str) -> str:
    # Emoji variation selectors and composed/decomposed accents must not hide a marker.
    text = unicodedata.normalize("NFC", text).replace("\ufe0f", "").replace("\ufe0e", "")
    return re.sub(r"[ \t]+", " ", text)


@grades("trace_contains")
def trace_contains(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    needles = [ctx.subst(v) or "" for v in c.values]
    needles += [ctx.block.reference.markers.get(m, m) for m in c.markers]
    if not ctx.has_trace(turns):
        return Check(
            None, ev(turn=turns[-1], note="the turn(s) checked carry no trace or log lines")
        )
    found = []
    missing = []
    for needle in needles:
        hit = _find_line(ctx, turns, _loose(needle))
        if hit is None:
            missing.append(needle)
        else:
            found.append(hit)
    mode = c.mode or "all"
    holds = bool(found) if mode == "any" else not missing
    note = ("missing: " + ", ".join(quoted(v) for v in missing)) if missing else None
    if not holds and ctx.trace_partial(turns):
        # absent from a trace known to be incomplete is not evidence of absence
        note = f"{note}; the trace is incomplete, so absence cannot be concluded"
        return Check(None, ev(turn=turns[-1], note=note))
    if found:
        ti, source, lineno, line = found[0]
        return Check(holds, line_evidence(ti, source, lineno, line, note))
    return Check(holds, ev(turn=turns[-1], note=note or "nothing to look for"))


def _find_line(ctx: Ctx, turns: list[int], needle: str) -> tuple[int, str, int, str] | None:
    for ti in turns:
        for source, lineno, line in ctx.trace_lines(ti):
            if needle in _loose(line):
                return ti, source, lineno, line
        whole = _loose("\n".join(line for _, _, line in ctx.trace_lines(ti)))
        if "\n" in needle and needle in whole:
            return ti, "trace", whole[: whole.index(needle)].count("\n") + 1, needle
    return None


@grades("category")
def category(ctx: Ctx, c: Criterion) -> Check:
    """The routing category: group 1 of the first `category_pattern` match of each turn."""
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    pattern = ctx.block.reference.category_pattern
    if not pattern:
        return Check(
            None,
            ev(
                note="the block's reference sets no category_pattern; the routing "
                "category cannot be read from the trace"
            ),
        )
    if not ctx.has_trace(turns):
        return Check(None, ev(turn=turns[-1], note="no trace recorded; routing category unknown"))
    want = str(ctx.subst(str(c.value)) or "").strip()
    seen: list[str] = []
    for ti in turns:
        for source, lineno, line in ctx.trace_lines(ti):
            m = limits.search(pattern, line)
            if m is None:
                continue
            got = (m.group(1) if m.groups() else m.group(0)).strip()
            if got == want:
                return Check(
                    True, line_evidence(ti, source, lineno, line, f"category {quoted(got)}")
                )
            seen.append(got)
            break  # the first routing decision of a turn is the one that counts
    note = f"routed as {seen}" if seen else "no line of the trace matches category_pattern"
    if not seen and ctx.trace_partial(turns):
        note += "; the trace is incomplete (its routing line may be outside it)"
        return Check(None, ev(turn=turns[-1], note=f"{note}; wanted {quoted(want)}"))
    return Check(False, ev(turn=turns[-1], note=f"{note}; wanted {quoted(want)}"))
