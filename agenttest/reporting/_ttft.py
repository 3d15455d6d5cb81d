"""Time to first text: what users of a streaming agent feel, per block and as a histogram.

Self-contained on purpose: an attempt sink (see :mod:`._sinks`) fed by the report's one
pass over the run files, keeping only the numbers it needs, so the section can be added
to or dropped from the report without widening the aggregator. Only streamed turns count: a turn without a
timeline has no first-text time of its own (its whole answer time is in the latency
section already). A resumed or retried attempt replaces the earlier record of its slot.
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
    turns: int  # streamed turns measured
    p50_ms: float
    p95_ms: float
    max_ms: int
    final_p50_ms: float | None  # median time to the final event, for contrast


@dataclass(frozen=True)
class TtftSection:
    rows: tuple[TtftRow, ...]
    histogram: tuple[tuple[int, int | None, int], ...]  # (from ms, to ms or None, turns)
    streamed_turns: int
    unstreamed_turns: int

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


def _first_text(tl: Timeline) -> int | None:
    # no delta: the text came with the final event
    return tl.first_text_ms if tl.first_text_ms is not None else tl.final_ms


Times = tuple[Sequence[int], Sequence[int], int]  # first-text ms, final ms, turns not streamed

#: The times of an attempt that streamed nothing, shared (most attempts): no lists per slot.
_UNSTREAMED: dict[int, Times] = {n: ((), (), n) for n in range(8)}


def _times(attempt: Attempt) -> Times:
    """Only the numbers are kept: a report must not hold every transcript in memory."""
    firsts: list[int] = []
    finals: list[int] = []
    unstreamed = 0
    for turn in attempt.turns:
        tl = turn.timeline
        if tl is None or (ms := _first_text(tl)) is None:
            unstreamed += 1 if turn.response is not None else 0
            continue
        firsts.append(ms)
        if tl.final_ms is not None:
            finals.append(tl.final_ms)
    if not firsts and unstreamed in _UNSTREAMED:  # no first text, so no final either
        return _UNSTREAMED[unstreamed]
    return firsts, finals, unstreamed


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
        unstreamed = 0
        for (_run, test_id, _number), (firsts, ends, skipped) in self.latest.items():
            unstreamed += skipped
            if firsts:
                per_block.setdefault(test_id, []).extend(firsts)
            if ends:
                finals.setdefault(test_id, []).extend(ends)
        if not per_block:
            return None
        rows = tuple(
            TtftRow(
                test_id,
                len(values),
                quantile(values, 0.5),
                quantile(values, 0.95),
                max(values),
                quantile(finals[test_id], 0.5) if finals.get(test_id) else None,
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
        return TtftSection(rows, histogram, streamed, unstreamed)


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
        "",
        "| Block | Turns | p50 | p95 | max | p50 to final event |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in section.rows:
        final = duration(r.final_p50_ms) if r.final_p50_ms is not None else "–"
        lines.append(
            f"| {r.test_id} | {r.turns} | {duration(r.p50_ms)} | {duration(r.p95_ms)} | "
            f"{duration(r.max_ms)} | {final} |"
        )
    lines += ["", "| Time to first text | Turns |", "|---|---:|"]
    for lo, hi, count in section.histogram:
        span = f"≥ {duration(lo)}" if hi is None else f"{duration(lo)} – < {duration(hi)}"
        lines.append(f"| {span} | {count} |")
    return "\n".join(lines) + "\n"
