"""A run against its baseline over all blocks at once, stratified by block.

Attempts come in blocks, and blocks differ wildly in how hard they are: pooling every
attempt into one 2×2 table (what a tier row of ``compare`` does) mixes a block the agent
always passes with one it never does, and a change in which blocks were run shows up as a
change in pass rate. The Cochran–Mantel–Haenszel test compares run and baseline *within*
each block and adds the evidence up, so each block is its own control.

Each stratum is ``(x1, n1, x2, n2)``: x1 passes of n1 gradable attempts in the run, x2 of
n2 in the baseline. The test is of a common odds ratio of 1 (no change in any block).

* **Exact** (conditional): given each block's margins, the run's passes in a block follow a
  hypergeometric distribution; their sum over blocks follows the convolution of those,
  computed here with integers. The two-sided p-value sums every total no more likely than
  the observed one (the rule of Fisher's exact test, to which it reduces for one block).
* **Asymptotic**: the CMH chi-square with continuity correction, used only when the exact
  convolution would be too long to compute (:data:`EXACT_BUDGET`), that is when there are
  so many attempts that the approximation is good.

Effect sizes: the Mantel–Haenszel common risk difference (the change in pass rate, what a
person reads) with Sato's (1989) variance, valid both for many sparse blocks and for a few
large ones; and the Mantel–Haenszel common odds ratio with the Robins–Breslow–Greenland
(1986) variance of its logarithm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ._common import as_count, z_two_sided

#: The exact convolution is used while it needs fewer than this many multiply-adds.
EXACT_BUDGET = 2_000_000
# The same relative tie margin as fisher_exact (and scipy, and R's mantelhaen.test).
_TIE_NUM, _TIE_DEN = 10_000_001, 10_000_000


@dataclass(frozen=True)
class StratifiedTest:
    """The result of :func:`cmh_test` (p-values two-sided)."""

    strata: int  # blocks that carry information (both sides measured, a pass and a fail)
    method: str  # "exact" or "asymptotic"
    statistic: float  # the run's passes summed over informative blocks (exact) or chi-square
    p: float
    risk_difference: float | None  # MH common change in pass rate, run − baseline
    rd_low: float | None
    rd_high: float | None
    odds_ratio: float | None  # MH common odds ratio (run's odds of passing / baseline's)
    or_low: float | None
    or_high: float | None


def _strata(tables: Sequence[Sequence[int]]) -> list[tuple[int, int, int, int]]:
    out = []
    for i, table in enumerate(tables):
        if len(table) != 4:
            raise ValueError(f"stratum {i} must be (x1, n1, x2, n2), got {table!r}")
        x1, n1, x2, n2 = (
            as_count(v, name) for v, name in zip(table, ("x1", "n1", "x2", "n2"), strict=True)
        )
        if x1 > n1 or x2 > n2:
            raise ValueError(f"stratum {i}: passes exceed attempts in {table!r}")
        out.append((x1, n1, x2, n2))
    return out


def _hypergeometric_weights(n1: int, n2: int, m: int) -> tuple[int, list[int]]:
    """Lowest value of x1 and the unnormalised weights C(n1, x) · C(n2, m − x)."""
    low, high = max(0, m - n2), min(n1, m)
    return low, [math.comb(n1, x) * math.comb(n2, m - x) for x in range(low, high + 1)]


def _exact_cost(strata: list[tuple[int, int, int, int]]) -> int:
    cost, width = 0, 1
    for x1, n1, x2, n2 in strata:
        m = x1 + x2
        support = min(n1, m) - max(0, m - n2) + 1
        cost += width * support
        width += support - 1
    return cost


def _exact_p(strata: list[tuple[int, int, int, int]]) -> tuple[float, int]:
    offset, dist = 0, [1]
    for _x1, n1, x2, n2 in strata:
        low, weights = _hypergeometric_weights(n1, n2, _x1 + x2)
        offset += low
        out = [0] * (len(dist) + len(weights) - 1)
        for i, d in enumerate(dist):
            if d:
                for j, w in enumerate(weights):
                    out[i + j] += d * w
        dist = out
    observed_total = sum(s[0] for s in strata)
    observed = dist[observed_total - offset]
    extreme = sum(w for w in dist if w * _TIE_DEN <= observed * _TIE_NUM)
    return min(1.0, extreme / sum(dist)), observed_total


def _asymptotic_p(strata: list[tuple[int, int, int, int]]) -> tuple[float, float]:
    gap, variance = Fraction(0), 0.0  # the gap exact: the correction's edge is at 1/2
    for x1, n1, x2, n2 in strata:
        total, passes = n1 + n2, x1 + x2
        gap += x1 - Fraction(n1 * passes, total)
        variance += n1 * n2 * passes * (total - passes) / (total * total * (total - 1))
    # the continuity correction only where it cannot overshoot (as R's mantelhaen.test)
    delta = abs(gap)
    chi2 = float(delta - Fraction(1, 2) if delta >= Fraction(1, 2) else delta) ** 2 / variance
    return math.erfc(math.sqrt(chi2 / 2.0)), chi2


def _risk_difference(
    strata: list[tuple[int, int, int, int]], z: float
) -> tuple[float | None, float | None, float | None]:
    weight = numerator = p_sum = q_sum = 0.0
    for a, n1, c, n0 in strata:
        if n1 == 0 or n0 == 0:
            continue
        total = n1 + n0
        weight += n1 * n0 / total
        numerator += (a * n0 - c * n1) / total
        # Sato (1989): Var = (RD·ΣP + ΣQ) / (ΣW)²; with one block it is the Wald variance.
        p_sum += (n1 * n1 * c - n0 * n0 * a + n1 * n0 * (n0 - n1) / 2.0) / (total * total)
        q_sum += (a * (n0 - c) + c * (n1 - a)) / (2.0 * total)
    if weight == 0:
        return None, None, None
    rd = numerator / weight
    variance = (rd * p_sum + q_sum) / (weight * weight)
    if variance <= 0:
        # Every block passed (or failed) throughout on both sides: no spread to measure.
        return rd, None, None
    half = z * math.sqrt(variance)
    return rd, max(-1.0, rd - half), min(1.0, rd + half)


def _odds_ratio(
    strata: list[tuple[int, int, int, int]], z: float
) -> tuple[float | None, float | None, float | None]:
    r_sum = s_sum = pr = ps_qr = qs = 0.0
    for a, n1, c, n0 in strata:
        total = n1 + n0
        if total < 2:
            continue
        b, d = n1 - a, n0 - c
        r, s = a * d / total, b * c / total
        p, q = (a + d) / total, (b + c) / total
        r_sum, s_sum = r_sum + r, s_sum + s
        pr, ps_qr, qs = pr + p * r, ps_qr + p * s + q * r, qs + q * s
    if r_sum == 0 or s_sum == 0:
        return None, None, None  # 0 or infinite: no finite estimate, no interval
    ratio = r_sum / s_sum
    # Robins, Breslow and Greenland (1986): the variance of log(OR_MH).
    variance = pr / (2 * r_sum**2) + ps_qr / (2 * r_sum * s_sum) + qs / (2 * s_sum**2)
    half = z * math.sqrt(variance)
    return ratio, math.exp(math.log(ratio) - half), math.exp(math.log(ratio) + half)


def cmh_test(
    tables: Sequence[Sequence[int]], *, confidence: float = 0.95, exact: bool | None = None
) -> StratifiedTest:
    """Cochran–Mantel–Haenszel test of run vs baseline over blocks, with effect sizes.

    ``tables`` holds one ``(x1, n1, x2, n2)`` per block. ``exact=None`` chooses the exact
    conditional test whenever its convolution fits :data:`EXACT_BUDGET`, else the
    continuity-corrected chi-square; ``True``/``False`` force one. Blocks where a side has
    no gradable attempt, or where every attempt passed or every one failed, say nothing
    about a change and are left out of the test (they would add nothing to either).
    """
    z = z_two_sided(confidence)
    strata = _strata(tables)
    informative = [
        s for s in strata if s[1] and s[3] and 0 < s[0] + s[2] < s[1] + s[3]
    ]  # both sides measured, and the block's attempts neither all passed nor all failed
    rd, rd_low, rd_high = _risk_difference(strata, z)
    ratio, or_low, or_high = _odds_ratio(strata, z)
    effects = (rd, rd_low, rd_high, ratio, or_low, or_high)
    if not informative:
        return StratifiedTest(0, "exact", 0.0, 1.0, *effects)
    use_exact = exact if exact is not None else _exact_cost(informative) <= EXACT_BUDGET
    if use_exact:
        p, total = _exact_p(informative)
        return StratifiedTest(len(informative), "exact", float(total), p, *effects)
    p, chi2 = _asymptotic_p(informative)
    return StratifiedTest(len(informative), "asymptotic", chi2, p, *effects)
