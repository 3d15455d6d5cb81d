"""The stratified rows of a comparison: each tier and the whole run, blocks as strata.

A tier row of the Fisher table pools every attempt of the tier, so a block the run spent
more attempts on weighs more, and at k = 3 against a five-attempt baseline no single block
can reach significance. The stratified rows compare run and baseline *within* each block
and add the evidence up (:func:`agenttest.stats.cmh_test`): one test per tier and one over
all blocks, Holm-corrected as their own family. The change shown is the Mantel–Haenszel
common change in pass rate with its 95% interval, the odds ratio beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from agenttest.stats import cmh_test, holm_correction

from ._model import ComparisonRow, tier_key


@dataclass(frozen=True)
class StratifiedRow:
    name: str  # the tier, or "overall"
    scope: str  # "tier" or "overall"
    blocks: int  # blocks measured on both sides
    informative: int  # of which neither all passed nor all failed on both sides together
    method: str  # "exact" (conditional) or "asymptotic" (chi-square)
    diff: float | None  # Mantel–Haenszel common change in pass rate, run − baseline
    low: float | None
    high: float | None
    odds_ratio: float | None
    or_low: float | None
    or_high: float | None
    p: float | None  # None: no block measured on both sides
    p_adjusted: float | None
    cls: str  # regression, improvement, noise or "no data"


def _row(name: str, scope: str, rows: Sequence[ComparisonRow]) -> StratifiedRow:
    measured = [r for r in rows if r.ours.n and r.base.n]
    if not measured:
        return StratifiedRow(
            name, scope, 0, 0, "exact", None, None, None, None, None, None, None, None, "no data"
        )
    test = cmh_test([(r.ours.passed, r.ours.n, r.base.passed, r.base.n) for r in measured])
    return StratifiedRow(
        name,
        scope,
        len(measured),
        test.strata,
        test.method,
        test.risk_difference,
        test.rd_low,
        test.rd_high,
        test.odds_ratio,
        test.or_low,
        test.or_high,
        test.p,
        None,
        "noise",
    )


_Row = TypeVar("_Row", ComparisonRow, StratifiedRow)


def holm_classify(rows: Sequence[_Row], alpha: float) -> tuple[_Row, ...]:
    """Holm-correct the tested rows as one family and class each: a *regression* (or
    *improvement*) when its corrected p is below ``alpha`` and the rate fell (rose)."""
    tested = [i for i, r in enumerate(rows) if r.p is not None]
    adjusted = holm_correction([rows[i].p or 0.0 for i in tested]) if tested else []
    out = list(rows)
    for i, p_adj in zip(tested, adjusted, strict=True):
        r = rows[i]
        cls = "noise"
        if p_adj < alpha and r.diff is not None and r.diff != 0:
            cls = "regression" if r.diff < 0 else "improvement"
        out[i] = dataclasses.replace(r, p_adjusted=p_adj, cls=cls)
    return tuple(out)


def stratified_rows(blocks: Sequence[ComparisonRow], alpha: float) -> tuple[StratifiedRow, ...]:
    """One row per tier and one over every block, Holm-corrected together at ``alpha``."""
    tiers = sorted({r.tier for r in blocks}, key=tier_key)
    rows = [_row(t, "tier", [r for r in blocks if r.tier == t]) for t in tiers]
    rows.append(_row("overall", "overall", blocks))
    return holm_classify(rows, alpha)


def stratified_text(row: StratifiedRow) -> str:
    """``L1 tier fell by 18 pp [-29, -7] over 12 blocks (stratified, Holm p 0.003)``."""
    name = "the whole run" if row.scope == "overall" else f"{row.name} tier"
    if row.diff is None or row.p is None:
        return f"{name}: no block measured on both sides"
    ci = ""
    if row.low is not None and row.high is not None:
        ci = f" [{row.low * 100:+.0f}, {row.high * 100:+.0f}]"
    verb = "fell" if row.diff < 0 else "rose"
    holm = f", Holm p {row.p_adjusted:.2g}" if row.p_adjusted is not None else ""
    return (
        f"{name} {verb} by {abs(row.diff) * 100:.0f} pp{ci} over {row.blocks} blocks "
        f"(stratified by block, {row.method} p {row.p:.2g}{holm})"
    )
