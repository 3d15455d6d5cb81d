"""The plain-text table of `agenttest compare`: one row per tier and block, then the
tests stratified by block."""

from __future__ import annotations

from ._format import pct, pvalue, ratio, signed
from ._model import Comparison


def _stratified_lines(result: Comparison) -> list[str]:
    if not result.stratified:
        return []
    lines = [
        "stratified by block (Cochran-Mantel-Haenszel, Holm over these rows):",
        f"{'scope':<22} {'blocks':>7}  {'change [95% CI]':<34} {'odds ratio':<22} "
        f"{'test':<10} {'p':>7} {'p_holm':>7}  class",
    ]
    for s in result.stratified:
        change = signed(s.diff)
        if s.low is not None:
            change += f" [{signed(s.low)}, {signed(s.high)}]"
        odds = ratio(s.odds_ratio)
        if s.or_low is not None:
            odds += f" [{ratio(s.or_low)}, {ratio(s.or_high)}]"
        lines.append(
            f"{s.name[:22]:<22} {s.blocks:>7}  {change:<34} {odds:<22} {s.method:<10} "
            f"{pvalue(s.p):>7} {pvalue(s.p_adjusted):>7}  {s.cls}"
        )
    return lines


def compare_table(result: Comparison, alpha: float) -> str:
    """Change in pass@1 per scope with its interval, Fisher p and Holm p, then the tally.

    A block below its §2.2 threshold (0.85 × the baseline's pass@1) says so after its class.
    """
    lines = [
        f"run {result.run} vs baseline {result.baseline} "
        f"(Fisher exact, Holm-corrected, alpha {alpha})",
        f"{'scope':<22} {'ours':>9} {'base':>9} {'change':>10}  {'95% CI':<22} "
        f"{'p':>7} {'p_holm':>7}  class",
    ]
    for row in (*result.tiers, *result.blocks):
        ci = f"[{signed(row.low)}, {signed(row.high)}]" if row.low is not None else ""
        below = ""
        if row.scope == "block" and row.below_threshold:
            below = f"  below the §2.2 threshold {pct(row.threshold)}"
        lines.append(
            f"{row.name[:22]:<22} {row.ours.passed:>4}/{row.ours.n:<4} "
            f"{row.base.passed:>4}/{row.base.n:<4} {signed(row.diff):>10}  {ci:<22} "
            f"{pvalue(row.p):>7} {pvalue(row.p_adjusted):>7}  {row.cls}{below}"
        )
    lines.extend(_stratified_lines(result))
    lines.extend(f"note: {note}" for note in result.notes)
    lines.append(
        f"{len(result.regressions)} regression(s), {len(result.improvements)} "
        f"improvement(s), {len(result.stratified_regressions)} stratified regression(s); "
        "the rest is noise"
    )
    return "\n".join(lines)
