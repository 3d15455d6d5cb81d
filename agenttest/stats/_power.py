"""How strong the gate is before the night: exact power of the conditional (Fisher) test.

The gate calls a *regression* when the run's pass rate is below the baseline's and the
two-sided conditional p-value is below the level. For ``n1`` run attempts against ``n2``
baseline attempts the set of outcomes ``(x1, x2)`` it calls a regression does not depend
on the true pass rates; the power is that set's probability under two binomials. Both are
computed exactly here (hypergeometric and binomial probabilities from log-factorials,
summed over every outcome), so the answer is the test's own, not a normal approximation.

:func:`minimum_detectable_drop` turns that around: the smallest fall from a baseline pass
rate, in whole percentage points, that the gate catches with the asked power; and
:func:`attempts_to_detect` the smallest k (attempts per block) that catches a given fall.
numpy is imported on first use: these loops run over every outcome.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ._common import as_count

if TYPE_CHECKING:
    import numpy as np

_TIE = 1.0 + 1e-7  # fisher_exact's tie margin


def _check_level(value: float, name: str) -> float:
    if not isinstance(value, int | float) or not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def _check_rate(value: float, name: str) -> float:
    if not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie between 0 and 1, got {value!r}")
    return float(value)


def _log_factorials(n: int) -> np.ndarray[Any, Any]:
    import numpy as np

    out = np.zeros(n + 1)
    if n:
        out[1:] = np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))
    return out


@lru_cache(maxsize=64)
def _regression_region(
    n1: int, n2: int, alpha: float
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Every (x1, x2) the gate calls a regression: x1/n1 < x2/n2 and Fisher p < alpha."""
    import numpy as np

    logf = _log_factorials(n1 + n2)
    runs: list[np.ndarray[Any, Any]] = []
    bases: list[np.ndarray[Any, Any]] = []
    for m in range(1, n1 + n2):
        low, high = max(0, m - n2), min(n1, m)
        x = np.arange(low, high + 1)
        log_w = logf[n1] - logf[x] - logf[n1 - x] + logf[n2] - logf[m - x] - logf[n2 - m + x]
        w = np.exp(log_w - log_w.max())
        order = np.sort(w)
        # p(x) = the mass of every total no more likely than x's (within the tie margin)
        tail = np.cumsum(order)[np.searchsorted(order, w * _TIE, side="right") - 1]
        p = tail / order.sum()
        lower = x * n2 < (m - x) * n1
        hit = x[(p < alpha) & lower]
        runs.append(hit)
        bases.append(m - hit)
    if not runs:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    return np.concatenate(runs), np.concatenate(bases)


def _binomial_pmf(n: int, p: float) -> np.ndarray[Any, Any]:
    import numpy as np

    if p <= 0.0 or p >= 1.0:
        out = np.zeros(n + 1)
        out[0 if p <= 0.0 else n] = 1.0
        return out
    logf = _log_factorials(n)
    x = np.arange(n + 1)
    pmf: np.ndarray[Any, Any] = np.exp(
        logf[n] - logf[x] - logf[n - x] + x * math.log(p) + (n - x) * math.log1p(-p)
    )
    return pmf


def regression_power(n1: int, n2: int, p1: float, p2: float, *, alpha: float = 0.05) -> float:
    """Chance that the gate calls a regression: n1 attempts at rate p1 against n2 at p2.

    The gate's test is the two-sided conditional (Fisher) test at level ``alpha`` with the
    run's rate below the baseline's. Exact: the sum, over every outcome the test rejects, of
    the two binomial probabilities. 0.0 when either side has no attempt.
    """
    run, base = as_count(n1, "n1"), as_count(n2, "n2")
    rate1, rate2 = _check_rate(p1, "p1"), _check_rate(p2, "p2")
    level = _check_level(alpha, "alpha")
    if not run or not base:
        return 0.0
    hits_run, hits_base = _regression_region(run, base, level)
    f1, f2 = _binomial_pmf(run, rate1), _binomial_pmf(base, rate2)
    return min(1.0, math.fsum((f1[hits_run] * f2[hits_base]).tolist()))


def minimum_detectable_drop(
    n1: int, n2: int, p0: float, *, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """Smallest fall from pass rate ``p0``, in whole points (0.01 steps), caught with ``power``.

    The run has n1 attempts, the baseline n2, both at rate p0 before the fall. None when
    not even a fall to 0% is caught that often (too few attempts on either side).
    """
    base_rate = _check_rate(p0, "p0")
    wanted = _check_level(power, "power")
    steps = round(base_rate * 100)
    for step in range(1, steps + 1):
        drop = step / 100.0
        if regression_power(n1, n2, max(0.0, base_rate - drop), base_rate, alpha=alpha) >= wanted:
            return drop
    return None


def attempts_to_detect(
    drop: float,
    p0: float,
    blocks: int,
    baseline_attempts: int | None = None,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    max_k: int = 50,
) -> int | None:
    """Smallest k (attempts per block) at which ``blocks`` blocks catch a fall of ``drop``.

    The run has ``blocks × k`` attempts at ``p0 − drop``; the baseline ``blocks ×
    baseline_attempts`` at ``p0``, or ``blocks × k`` when None (a night compared with the
    night before, at the same k). None when no k up to ``max_k`` does: with a fixed
    baseline, that baseline then limits the gate, and only more baseline attempts help.
    The power is taken to grow with k (it does, but for the test's small discreteness
    wiggles), so k is found by doubling, then halving the interval.
    """
    fall = _check_rate(drop, "drop")
    base_rate = _check_rate(p0, "p0")
    count = as_count(blocks, "blocks")
    fixed = None if baseline_attempts is None else as_count(baseline_attempts, "baseline_attempts")
    wanted = _check_level(power, "power")
    ceiling = as_count(max_k, "max_k")
    if fall <= 0 or fall > base_rate or not count or ceiling < 1:
        return None
    low_rate = max(0.0, base_rate - fall)

    def enough(k: int) -> bool:
        base = count * (k if fixed is None else fixed)
        return regression_power(count * k, base, low_rate, base_rate, alpha=alpha) >= wanted

    high = 1
    while not enough(high):
        if high >= ceiling:
            return None
        high = min(ceiling, high * 2)
    low = high // 2  # not enough (or 0)
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high
