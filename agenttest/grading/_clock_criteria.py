"""The grader of a stated time of day against the harness clock (``clock_delta``).

The clock is the turn's ``completed_at`` in the agent host's zone; the grading host's zone
is never assumed (a run graded elsewhere must grade the same).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agenttest import text as nz
from agenttest.blocks import Criterion

from ._context import Check, Ctx, ev, last_response
from ._registry import grades

_TIME = re.compile(
    r"(?<![\d:.])(?P<h>[01]?\d|2[0-3])(?P<sep>[:.])(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?(?![\d])"
    r"(?:\s*(?P<ampm>[ap]\.?m\.?))?",
    re.IGNORECASE,
)


def agent_zone(ctx: Ctx) -> tzinfo | None:
    """The agent host's zone: the attempt's ``timezone`` (the runner copies it from the agent
    config, the importer from the overlay), else the block's reference ``timezone``; None
    when neither names a valid IANA zone (the grading host's zone is never assumed)."""
    for name in (ctx.attempt.timezone, ctx.block.reference.timezone):
        if name:
            try:
                return ZoneInfo(str(name))
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return None


def _harness_clock(ctx: Ctx, ti: int) -> tuple[datetime | None, bool]:
    """The clock at the answer in the agent's zone (UTC when unknown), and whether known."""
    raw = ctx.turns[ti].completed_at or ctx.attempt.completed_at
    if not raw:
        return None, False
    try:
        # RFC 3339 allows a lower-case `t` and `z`; fromisoformat reads only the capitals
        when = datetime.fromisoformat(str(raw).upper().replace("Z", "+00:00"))
    except ValueError:
        return None, False
    zone = agent_zone(ctx)
    if when.tzinfo is None:  # a naive clock reads the agent's local time (its zone, if known)
        return when.replace(tzinfo=zone), zone is not None
    return when.astimezone(zone or UTC), zone is not None


@grades("clock_delta")
def clock_delta(ctx: Ctx, c: Criterion) -> Check:
    """A time of day in the response within `seconds` of the harness clock at the answer.

    Times are ``HH:MM[:SS]`` (``HH.MM`` only right after "saat"/"at"); a 12-hour reading
    without am/pm may mean either half of the day. The clock is the turn's ``completed_at``
    in the agent's zone (:func:`agent_zone`); with the zone unknown the clock is UTC and an
    answer off by a whole number of hours is undecided, never FAIL.
    """
    ti, text, early = last_response(ctx, c)
    if early is not None or text is None:
        return early or Check(None, ev(turn=ti))
    now, known = _harness_clock(ctx, ti)
    if now is None:
        return Check(None, ev(turn=ti, note="no harness clock recorded at the answer"))
    limit = float(c.seconds or 0)
    best: tuple[float, re.Match[str]] | None = None
    body = nz.light(text)
    for m in _TIME.finditer(body.text):
        # the cue is a word of its own: "Fiyat 9.45" (a price) ends in "at" but asks no time
        if m.group("sep") == "." and not re.search(
            r"\b(saat|at)\s*$", body.text[max(0, m.start() - 16) : m.start()], re.I
        ):
            continue
        for delta in _deltas(m, now):
            if best is None or delta < best[0]:
                best = (delta, m)
    if best is None:
        return Check(False, ev(turn=ti, text=text, note="no time of day in the response"))
    delta, m = best
    span = body.span(m.start(), m.end())
    if not known and delta > limit and _whole_hours_off(m, now, limit):
        note = (
            f"{delta:.0f} s from the UTC clock {now:%H:%M:%S}, a whole number of hours off; "
            "the agent's time zone is unknown (set `timezone` in the agent config or overlay)"
        )
        return Check(None, ev(turn=ti, span=span, text=m.group(0), note=note))
    zone = f" ({now.tzname()})" if known else " (UTC; agent zone unknown)"
    return Check(
        delta <= limit,
        ev(
            turn=ti,
            span=span,
            text=m.group(0),
            note=f"{delta:.0f} s from the harness clock {now:%H:%M:%S}{zone}",
        ),
    )


def _whole_hours_off(m: re.Match[str], now: datetime, limit: float) -> bool:
    """The stated time matches the clock shifted by a whole number of hours (any zone)."""
    return any(min(_deltas(m, now + timedelta(hours=h))) <= limit for h in range(-14, 15) if h)


def _deltas(m: re.Match[str], now: datetime) -> list[float]:
    hour, minute, second = int(m.group("h")), int(m.group("m")), int(m.group("s") or 0)
    ampm = (m.group("ampm") or "").lower()
    hours = [hour]
    if ampm.startswith("p") and hour < 12:
        hours = [hour + 12]
    elif ampm.startswith("a") and hour == 12:
        hours = [0]
    elif not ampm and 1 <= hour <= 12:
        hours = [hour, (hour + 12) % 24]
    out = []
    for h in hours:
        stated = now.replace(hour=h, minute=minute, second=second, microsecond=0)
        diff = abs((stated - now).total_seconds())
        out.append(min(diff, timedelta(days=1).total_seconds() - diff))
    return out
