"""Time to first text: what users of a streaming agent feel, per block and as a histogram.

Self-contained on purpose: an attempt sink (see :mod:`._sinks`) fed by the report's one
pass over the run files, keeping only the numbers it needs, so the section can be added
to or dropped from the report without widening the aggregator. Only streamed turns count: a turn without a
timeline has no first-text time of its own (its whole answer time is in the latency
section already). A streamed turn with no text at all has no time to first text: it is
counted apart and shown as ``n/a``, never given its final event's time (issue 31). A
resumed or retried attempt replaces the earlier record of its slot.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttest.results import Attempt, Timeline

from ._sinks import feed
from ._slots import SlotKey

TTFT_EDGES = (0, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000)


@dataclass(frozen=True)
class TtftRow:
    test_id: str
    turns: int  # streamed turns measured (with text)
    p50_ms: float | None  # None (n/a): no streamed turn of the block had any text
    p95_ms: float | None
    max_ms: int | None
    final_p50_ms: float | None  # median time to the final event, for contrast
    no_text: int = 0  # streamed turns with no text at all: no time to first text


@dataclass(frozen=True)
class TtftSection:
    rows: tuple[TtftRow, ...]
    histogram: tuple[tuple[int, int | None, int], ...]  # (from ms, to ms or None, turns)
    streamed_turns: int  # with text, measured
    unstreamed_turns: int
    no_text_turns: int = 0  # streamed, with no text at all (n/a)

    @property
    def total(self) -> int:
        return sum(c for _, _, c in self.histogram)


def quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default), values not assumed sorted."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _first_text(tl: Timeline, response: str | None) -> int | None:
    if tl.first_text_ms is not None:
        return tl.first_text_ms
    # no delta: the text came with the final event; no text at all has no first text
    return tl.final_ms if response else None


#: first-text ms, final ms, turns not streamed, streamed turns with no text
Times = tuple[Sequence[int], Sequence[int], int, int]

#: The times of an attempt that streamed nothing, shared (most attempts): no lists per slot.
_UNSTREAMED: dict[int, Times] = {n: ((), (), n, 0) for n in range(8)}


def _times(attempt: Attempt) -> Times:
    """Only the numbers are kept: a report must not hold every transcript in memory."""
    firsts: list[int] = []
    finals: list[int] = []
    unstreamed = no_text = 0
    for turn in attempt.turns:
        tl = turn.timeline
        if tl is None or (tl.first_text_ms is None and tl.final_ms is None):
            unstreamed += 1 if turn.response is not None else 0
            continue
        if tl.final_ms is not None:
            finals.append(tl.final_ms)
        ms = _first_text(tl, turn.response)
        if ms is None:
            no_text += 1
        else:
            firsts.append(ms)
    if not finals and not firsts and unstreamed in _UNSTREAMED:  # nothing streamed
        return _UNSTREAMED[unstreamed]
    return firsts, finals, unstreamed, no_text


class TtftSink:
    """Collects the times of every attempt as the report's one pass reads them."""

    def __init__(self) -> None:
        # slot key -> times. The key is the aggregator's own tuple (reporting._sinks), so a
        # slot costs one dict entry here and no tuple or string of its own.
        self.latest: dict[SlotKey, Times] = {}

    def attempt(self, key: SlotKey, rec: Attempt) -> None:
        turns = rec.turns
        if len(turns) == 1:
            turn = turns[0]  # most attempts: one turn, not streamed (as _times has it)
            if turn.timeline is None:
                self.latest[key] = _UNSTREAMED[turn.response is not None]
                return
        self.latest[key] = _times(rec)

    def section(self) -> TtftSection | None:
        """The section, or None when no attempt streamed (then the report leaves it out)."""
        per_block: dict[str, list[int]] = {}
        finals: dict[str, list[int]] = {}
        silent: dict[str, int] = {}
        unstreamed = 0
        for (_run, test_id, _number), (firsts, ends, skipped, none) in self.latest.items():
            unstreamed += skipped
            if firsts or none:
                per_block.setdefault(test_id, []).extend(firsts)
            if none:
                silent[test_id] = silent.get(test_id, 0) + none
            if ends:
                finals.setdefault(test_id, []).extend(ends)
        if not per_block:
            return None
        rows = tuple(
            TtftRow(
                test_id,
                len(values),
                quantile(values, 0.5) if values else None,
                quantile(values, 0.95) if values else None,
                max(values) if values else None,
                quantile(finals[test_id], 0.5) if finals.get(test_id) else None,
                silent.get(test_id, 0),
            )
            for test_id, values in sorted(per_block.items())
        )
        counts = [0] * len(TTFT_EDGES)
        for values in per_block.values():
            for ms in values:
                counts[max(0, bisect_right(TTFT_EDGES, ms) - 1)] += 1
        uppers: list[int | None] = [*TTFT_EDGES[1:], None]
        histogram = tuple(
            (lo, hi, c) for lo, hi, c in zip(TTFT_EDGES, uppers, counts, strict=True) if c
        )
        streamed = sum(len(v) for v in per_block.values())
        return TtftSection(rows, histogram, streamed, unstreamed, sum(silent.values()))


def ttft_section(paths: Sequence[str | Path]) -> TtftSection | None:
    """The section of these run files alone (a report gets it from its own pass)."""
    sink = TtftSink()
    feed(paths, sink)
    return sink.section()


def render_ttft_markdown(section: TtftSection | None) -> str:
    """The section as Markdown (empty when nothing streamed)."""
    if section is None:
        return ""
    from ._format import duration

    lines = [
        "## Time to first text (streamed turns)",
        "",
        f"{section.streamed_turns} streamed turn(s); {section.unstreamed_turns} turn(s) "
        "not streamed are left out (their whole answer time is under latency).",
    ]
    if section.no_text_turns:
        lines.append(
            f"{section.no_text_turns} streamed turn(s) had no text at all: their time to "
            "first text is n/a (in the No text column, not in the times)."
        )
    lines += [
        "",
        "| Block | Turns | p50 | p95 | max | p50 to final event | No text |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def shown(ms: float | None) -> str:
        return duration(ms) if ms is not None else "n/a"

    for r in section.rows:
        final = duration(r.final_p50_ms) if r.final_p50_ms is not None else "–"
        lines.append(
            f"| {r.test_id} | {r.turns} | {shown(r.p50_ms)} | {shown(r.p95_ms)} | "
            f"{shown(r.max_ms)} | {final} | {r.no_text} |"
        )
    if section.histogram:  # none when every streamed turn had no text
        lines += ["", "| Time to first text | Turns |", "|---|---:|"]
    for lo, hi, count in section.histogram:
        span = f"≥ {duration(lo)}" if hi is None else f"{duration(lo)} – < {duration(hi)}"
        lines.append(f"| {span} | {count} |")
    return "\n".join(lines) + "\n"
