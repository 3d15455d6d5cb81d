"""Geometry of the inline SVG charts; the templates draw them, so labels stay autoescaped.

Only numbers are computed here. Coordinates are in a fixed viewBox; the SVG scales to the
page width, which keeps the charts readable on a phone.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._report import Report

CHART_WIDTH = 420
LABEL_WIDTH = 58
ROW_HEIGHT = 24


@dataclass(frozen=True)
class TierBar:
    label: str
    y: float
    width: float  # bar length for pass@1
    low: float | None  # whisker ends (x coordinates)
    high: float | None
    text: str  # e.g. "76.4% (n=436)"
    exploratory: bool


@dataclass(frozen=True)
class TierChart:
    width: int
    height: int
    x0: int
    scale: float
    bars: tuple[TierBar, ...]
    gridlines: tuple[tuple[float, str], ...]


@dataclass(frozen=True)
class HistBar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str


@dataclass(frozen=True)
class LatencyChart:
    width: int
    height: int
    base: float
    bars: tuple[HistBar, ...]
    total: int


def _duration(ms: int) -> str:
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:g} s"
    return f"{ms / 60_000:g} min"


def tier_chart(report: Report) -> TierChart:
    groups = [*report.tiers, report.overall]
    scale = CHART_WIDTH - LABEL_WIDTH - 112
    bars = []
    for i, g in enumerate(groups):
        r = g.rate
        y = 10 + i * ROW_HEIGHT
        label = g.name if len(g.name) <= 9 else g.name[:8] + "…"

        if r.pass_at_1 is None:
            bars.append(
                TierBar(
                    label, y, 0.0, None, None, f"no data (n=0, {r.errors} ERROR)", g.exploratory
                )
            )
            continue
        assert r.wilson_low is not None and r.wilson_high is not None
        bars.append(
            TierBar(
                label=label,
                y=y,
                width=round(r.pass_at_1 * scale, 1),
                low=round(LABEL_WIDTH + r.wilson_low * scale, 1),
                high=round(LABEL_WIDTH + r.wilson_high * scale, 1),
                text=f"{r.pass_at_1:.1%} (n={r.n})",
                exploratory=g.exploratory,
            )
        )
    grid = tuple((round(LABEL_WIDTH + f * scale, 1), f"{f:.0%}") for f in (0, 0.25, 0.5, 0.75, 1))
    return TierChart(
        CHART_WIDTH, 30 + len(groups) * ROW_HEIGHT, LABEL_WIDTH, scale, tuple(bars), grid
    )


def latency_chart(report: Report) -> LatencyChart:
    bins = list(report.latency_histogram)
    while bins and bins[-1][2] == 0:  # drop empty bins at both ends
        bins.pop()
    while bins and bins[0][2] == 0:
        bins.pop(0)
    height, base = 170, 136.0
    total = sum(c for _, _, c in bins)
    peak = max((c for _, _, c in bins), default=0) or 1
    step = (CHART_WIDTH - 20) / max(len(bins), 1)
    out = []
    for i, (lo, hi, count) in enumerate(bins):
        h = round(count / peak * (base - 20), 1)
        label = f"≥{_duration(lo)}" if hi is None else f"<{_duration(hi)}"
        label = label.replace(" ", "")
        out.append(
            HistBar(
                round(10 + i * step + 2, 1), round(base - h, 1), round(step - 4, 1), h, count, label
            )
        )
    return LatencyChart(CHART_WIDTH, height, base, tuple(out), total)
