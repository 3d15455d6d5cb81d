"""The plain-text table of `agenttest compare`: one row per tier and block."""

from __future__ import annotations

from ._format import pvalue, signed
from ._model import Comparison


def compare_table(result: Comparison, alpha: float) -> str:
    """Change in pass@1 per scope with its interval, Fisher p and Holm p, then the tally."""
    lines = [
        f"run {result.run} vs baseline {result.baseline} "
        f"(Fisher exact, Holm-corrected, alpha {alpha})",
        f"{'scope':<22} {'ours':>9} {'base':>9} {'change':>10}  {'95% CI':<22} "
        f"{'p':>7} {'p_holm':>7}  class",
    ]
    for row in (*result.tiers, *result.blocks):
        ci = f"[{signed(row.low)}, {signed(row.high)}]" if row.low is not None else ""
        lines.append(
            f"{row.name[:22]:<22} {row.ours.passed:>4}/{row.ours.n:<4} "
            f"{row.base.passed:>4}/{row.base.n:<4} {signed(row.diff):>10}  {ci:<22} "
            f"{pvalue(row.p):>7} {pvalue(row.p_adjusted):>7}  {row.cls}"
        )
    lines.extend(f"note: {note}" for note in result.notes)
    lines.append(
        f"{len(result.regressions)} regression(s), {len(result.improvements)} "
        "improvement(s); the rest is noise"
    )
    return "\n".join(lines)
