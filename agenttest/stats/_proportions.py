"""Pass rates and their uncertainty: Wilson and Newcombe intervals, pass@k / pass^k,
Fisher's exact test and Holm's correction for comparing runs.

Everything here is exact integer arithmetic or closed-form formulas over the standard
library, so results do not depend on numpy/scipy being importable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ._common import as_count, z_two_sided


def _check_successes(successes: object, n: object, s_name: str, n_name: str) -> tuple[int, int]:
    x = as_count(successes, s_name)
    total = as_count(n, n_name)
    if x > total:
        raise ValueError(f"{s_name} ({x}) cannot exceed {n_name} ({total})")
    return x, total


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / n``.

    Chosen over the normal (Wald) interval because it stays inside [0, 1] and keeps close
    to nominal coverage for the small n and extreme rates typical of agent test blocks.
    With ``n == 0`` nothing is known and ``(0.0, 1.0)`` is returned. The bounds are exactly
    0.0 when there are no successes and exactly 1.0 when every trial succeeded.
    """
    x, total = _check_successes(successes, n, "successes", "n")
    z = z_two_sided(confidence)
    if total == 0:
        return (0.0, 1.0)
    p = x / total
    z2 = z * z
    denominator = 1.0 + z2 / total
    centre = (p + z2 / (2.0 * total)) / denominator
    half = (z / denominator) * math.sqrt(p * (1.0 - p) / total + z2 / (4.0 * total * total))
    low = 0.0 if x == 0 else max(0.0, min(p, centre - half))
    high = 1.0 if x == total else min(1.0, max(p, centre + half))
    return (low, high)


def newcombe_diff_interval(
    x1: int, n1: int, x2: int, n2: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Confidence interval for the difference of two independent proportions p1 − p2.

    Newcombe's (1998) hybrid score interval, his "method 10": each proportion gets its own
    Wilson interval and the two are combined in quadrature. It behaves well near 0 and 1,
    where the Wald difference interval collapses or overshoots. If either sample is empty
    the difference is unconstrained and ``(-1.0, 1.0)`` is returned.
    """
    s1, t1 = _check_successes(x1, n1, "x1", "n1")
    s2, t2 = _check_successes(x2, n2, "x2", "n2")
    z_two_sided(confidence)  # validates confidence even when a sample is empty
    if t1 == 0 or t2 == 0:
        return (-1.0, 1.0)
    p1, p2 = s1 / t1, s2 / t2
    l1, u1 = wilson_interval(s1, t1, confidence)
    l2, u2 = wilson_interval(s2, t2, confidence)
    diff = p1 - p2
    low = diff - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = diff + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (max(-1.0, low), min(1.0, high))


def _check_k(n: object, c: object, k: object) -> tuple[int, int, int]:
    passes, total = _check_successes(c, n, "c", "n")
    draws = as_count(k, "k")
    if draws < 1:
        raise ValueError("k must be >= 1")
    return total, passes, draws


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of pass@k, the chance that at least one of k attempts passes.

    ``1 − C(n−c, k) / C(n, k)`` from n attempts with c passes (Chen et al. 2021): the share
    of all k-subsets of the observed attempts that contain a pass. Computed exactly with
    integers before a single division. When ``k > n`` there are no k-subsets, the estimator
    is undefined and ``math.nan`` is returned; callers should show such blocks as "n/a".
    """
    total, passes, draws = _check_k(n, c, k)
    if draws > total:
        return math.nan
    all_subsets = math.comb(total, draws)
    return (all_subsets - math.comb(total - passes, draws)) / all_subsets


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of pass^k, the chance that all of k attempts pass.

    ``C(c, k) / C(n, k)``: the share of k-subsets of the observed attempts made only of
    passes, a reliability measure (τ-bench). ``math.nan`` when ``k > n``, as for
    :func:`pass_at_k`. Never larger than :func:`pass_at_k` for the same arguments.
    """
    total, passes, draws = _check_k(n, c, k)
    if draws > total:
        return math.nan
    return math.comb(passes, draws) / math.comb(total, draws)


# scipy's fisher_exact treats tables within this relative margin of the observed
# probability as "as extreme"; we use the same margin, applied exactly as a rational.
_TIE_NUM, _TIE_DEN = 10_000_001, 10_000_000


def fisher_exact(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test for the 2×2 table of x1/n1 vs x2/n2 passes.

    With both margins fixed, the first cell follows a hypergeometric distribution; the
    p-value sums the probabilities of every table no more likely than the one observed
    (within a relative tolerance of 1e-7, as in scipy). Exact at any sample size, which
    matters for the small per-block counts compared by ``--gate``.
    """
    a, row1 = _check_successes(x1, n1, "x1", "n1")
    c, row2 = _check_successes(x2, n2, "x2", "n2")
    col1 = a + c
    lowest, highest = max(0, col1 - row2), min(row1, col1)
    # Unnormalised probabilities C(row1, i) * C(row2, col1 - i), all sharing C(N, col1).
    weights = [math.comb(row1, i) * math.comb(row2, col1 - i) for i in range(lowest, highest + 1)]
    observed = weights[a - lowest]
    extreme = sum(w for w in weights if w * _TIE_DEN <= observed * _TIE_NUM)
    return min(1.0, extreme / math.comb(row1 + row2, col1))


def holm_correction(pvalues: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the order given.

    Controls the family-wise error rate when many blocks are compared at once, without
    Bonferroni's loss of power. The i-th smallest p-value is multiplied by (m − i + 1),
    the results are made non-decreasing in rank order and capped at 1, so a hypothesis is
    rejected at level α by Holm's step-down procedure exactly when its adjusted value ≤ α.
    """
    values = [float(p) for p in pvalues]
    for p in values:
        if math.isnan(p) or not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must lie in [0, 1], got {p!r}")
    m = len(values)
    order = sorted(range(m), key=values.__getitem__)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[index]))
        adjusted[index] = running
    return adjusted
