"""Criteria over how a reply arrived (its stream timeline) and what it offered (choices).

The runner records, per streamed turn, a ``timeline`` (ms from the request to the first
byte, first text, each tool call, the choices and the final event, and the arrival order)
and ``stream_text``; per reply its ``choices``; per ``choose:`` turn what it looked for,
what was offered and what it tapped (``chose``); and, where the agent lets a client read a
reply back, the ``stored`` copy. Graders here only read those.
"""

from __future__ import annotations

from agenttest.blocks import Criterion
from agenttest.results import Choose, Stored, Timeline, TurnRecord

from ._abstain import stem_find
from ._context import ALL_TURNS, LAST_TURN, Check, Ctx, ev
from ._registry import grades


def label_matches(label: str, wanted: str) -> bool:
    """A choice label matches when the wanted words appear in it, stemmed (EN + TR)."""
    return stem_find(label, wanted) is not None


def ttft_ms(turn: TurnRecord) -> tuple[int | None, str]:
    """Time to first text of a turn, and where it came from."""
    tl = turn.timeline
    if isinstance(tl, Timeline):  # a record built in memory may hold anything
        if isinstance(tl.first_text_ms, int):
            return tl.first_text_ms, "first text event"
        if isinstance(tl.final_ms, int):
            return tl.final_ms, "no text delta: the text came with the final event"
    if isinstance(turn.latency_ms, int):
        return turn.latency_ms, "not streamed: the text came with the whole answer"
    return None, "no timing recorded"


@grades("ttft_max")
def ttft_max(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    limit = float(c.seconds or 0) * 1000
    worst: tuple[int, int, str] | None = None
    for ti in turns:
        said = ctx.turns[ti].response
        if said is not None and not said.strip() and not (ctx.turns[ti].stream_text or "").strip():
            # nothing came that a person could read: no first text, whatever the final's time
            note = f"no text at all: time to first text n/a; limit {c.seconds} s"
            return Check(False, ev(turn=ti, note=note))
        ms, source = ttft_ms(ctx.turns[ti])
        if ms is None:
            return Check(None, ev(turn=ti, note=f"time to first text unknown ({source})"))
        if worst is None or ms > worst[1]:
            worst = (ti, ms, source)
    assert worst is not None
    ti, ms, source = worst
    return Check(
        ms <= limit,
        ev(turn=ti, note=f"time to first text {ms / 1000:.3f} s ({source}); limit {c.seconds} s"),
    )


def _position(order: list[str], part: str) -> int | None:
    return order.index(part) if part in order else None


@grades("arrives_with")
def arrives_with(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, LAST_TURN)
    if why is not None:
        return Check(None, why)
    ti = turns[0]
    turn = ctx.turns[ti]
    # what the reply carried: the agent's own report of its calls, not the harness's record
    reported = ctx.attempt.turns[ti].tool_calls
    present = {"choices": bool(turn.choices), "tool_call": bool(reported)}
    order = list(turn.timeline.order or []) if isinstance(turn.timeline, Timeline) else []
    final = _position(order, "final")
    text_at = _position(order, "text")
    if text_at is None:
        text_at = final  # no delta: the text came with the final event (or the whole body)
    for part in c.values:
        if not present.get(part):
            return Check(False, ev(turn=ti, note=f"the reply carried no {part}"))
        if not order:  # not streamed: everything arrived in one body
            continue
        at = _position(order, part)
        if at is None:
            at = final  # it came only inside the final reply
        if text_at is not None and at is not None and at > text_at:
            shown = " → ".join(order[: at + 1])
            return Check(
                False,
                ev(turn=ti, note=f"{part} arrived after the text (order: {shown})"),
            )
    note = "one body: all parts arrived together" if not order else f"order: {' → '.join(order)}"
    return Check(True, ev(turn=ti, note=note))


def _labels(turn: TurnRecord) -> list[str]:
    return [str(ch.get("label", "")) for ch in turn.choices or [] if isinstance(ch, dict)]


@grades("choice_offered")
def choice_offered(ctx: Ctx, c: Criterion) -> Check:
    if c.turn is None:
        chooses = [ti for ti, t in enumerate(ctx.turns) if isinstance(t.choose, Choose)]
        planned = [i for i, t in enumerate(ctx.block.turns) if t.choose is not None]
        if not chooses:
            if planned:
                return Check(None, ev(note="the attempt ended before its `choose:` turn"))
            return _offered(ctx, len(ctx.turns) - 1, c) if ctx.turns else Check(None, ev())
        for ti in chooses:
            choose = ctx.turns[ti].choose
            assert choose is not None
            if not choose.chose:
                return Check(
                    False,
                    ev(
                        turn=ti - 1,
                        note=f"no offered choice matches {choose.label_matches!r}; "
                        f"labels offered: {choose.offered or 'none'}",
                    ),
                )
        last = ctx.turns[chooses[-1]].choose
        return Check(True, ev(turn=chooses[-1], text=str(last.chose if last else None)))
    return _offered(ctx, c.turn - 1, c)


def _offered(ctx: Ctx, ti: int, c: Criterion) -> Check:
    labels = _labels(ctx.turns[ti])
    if not labels:
        return Check(False, ev(turn=ti, note="the reply offered no choices"))
    wanted = [ctx.subst(v) or "" for v in c.values]
    for label in labels:
        if not wanted or any(label_matches(label, w) for w in wanted):
            return Check(True, ev(turn=ti, text=label, note=f"labels offered: {labels}"))
    return Check(False, ev(turn=ti, note=f"no label matches {wanted}; labels offered: {labels}"))


def first_difference(a: str, b: str) -> int | None:
    """Index of the first character where two texts differ, None when they are equal."""
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


@grades("stored_matches_stream")
def stored_matches_stream(ctx: Ctx, c: Criterion) -> Check:
    turns, why = ctx.scope(c, ALL_TURNS)
    if why is not None:
        return Check(None, why)
    checked = 0
    for ti in turns:
        turn = ctx.turns[ti]
        streamed = isinstance(turn.stream_text, str)
        if c.turn is None and not streamed:
            continue
        seen = turn.stream_text if isinstance(turn.stream_text, str) else str(turn.response or "")
        stored = turn.stored
        if not isinstance(stored, Stored) or not isinstance(stored.text, str):
            why_not = stored.error if isinstance(stored, Stored) else None
            return Check(None, ev(turn=ti, note=f"no stored copy was read ({why_not or 'none'})"))
        kept = stored.text
        at = first_difference(seen, kept)
        if at is not None:
            note = (
                f"first difference at character {at}: stream {seen[at : at + 40]!r}, "
                f"stored {kept[at : at + 40]!r}"
            )
            return Check(
                False, ev(turn=ti, span=[at, at + 1], text=seen[max(0, at - 40) :], note=note)
            )
        checked += 1
    if not checked:
        return Check(None, ev(note="no turn was streamed, so there is no stream to compare"))
    return Check(True, ev(note=f"{checked} streamed turn(s) equal their stored copy"))
