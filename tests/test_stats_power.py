"""The gate's power (agenttest.stats.regression_power and friends) against scipy.

The reference is the definition written out: every outcome of two binomials (scipy's pmf),
kept when scipy's Fisher exact test rejects at the level and the run's rate is the lower.
statsmodels' normal-approximation power is a loose check at large n.
"""

from __future__ import annotations

import pytest
from scipy import stats as sps
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from agenttest.stats import attempts_to_detect, minimum_detectable_drop, regression_power


def _brute_power(n1: int, n2: int, p1: float, p2: float, alpha: float) -> float:
    total = 0.0
    for a in range(n1 + 1):
        for b in range(n2 + 1):
            lower = a * n2 < b * n1
            if lower and sps.fisher_exact([[a, n1 - a], [b, n2 - b]]).pvalue < alpha:
                total += sps.binom.pmf(a, n1, p1) * sps.binom.pmf(b, n2, p2)
    return float(total)


@pytest.mark.parametrize(
    ("n1", "n2", "p1", "p2", "alpha"),
    [
        (5, 5, 0.3, 0.9, 0.05),
        (3, 5, 0.5, 1.0, 0.05),
        (10, 8, 0.5, 0.9, 0.05),
        (20, 15, 0.6, 0.8, 0.01),
        (12, 30, 0.7, 0.7, 0.05),  # no change: the power is the size, below alpha
    ],
)
def test_power_is_the_rejected_outcomes_probability(
    n1: int, n2: int, p1: float, p2: float, alpha: float
) -> None:
    assert regression_power(n1, n2, p1, p2, alpha=alpha) == pytest.approx(
        _brute_power(n1, n2, p1, p2, alpha), abs=1e-12
    )


def test_no_change_is_called_a_regression_less_often_than_alpha() -> None:
    for n1, n2, p in [(12, 30, 0.7), (40, 40, 0.5), (3, 5, 0.9)]:
        assert regression_power(n1, n2, p, p, alpha=0.05) <= 0.025 + 1e-12


def test_three_attempts_against_five_never_catch_a_lone_block() -> None:
    # k = 3 against the five-attempt baseline, one block of a hundred (Holm's first step):
    # even a fall from 100% to 0% is not a regression, so no drop is detectable.
    assert regression_power(3, 5, 0.0, 1.0, alpha=0.05 / 100) == 0.0
    assert minimum_detectable_drop(3, 5, 1.0, alpha=0.05 / 100) is None


def test_exact_power_agrees_with_the_normal_approximation_when_n_is_large() -> None:
    n, p2, p1 = 400, 0.8, 0.72
    approx = NormalIndPower().power(
        proportion_effectsize(p2, p1), nobs1=n, alpha=0.05, ratio=1.0, alternative="larger"
    )
    # the two-sided exact test at 0.05 is one-sided at 0.025 and conservative: a bit lower
    exact = regression_power(n, n, p1, p2, alpha=0.10)
    assert exact == pytest.approx(approx, abs=0.05)


def test_minimum_detectable_drop_is_the_first_whole_point_with_the_power() -> None:
    drop = minimum_detectable_drop(100, 100, 0.8, alpha=0.05)
    assert drop is not None
    assert regression_power(100, 100, 0.8 - drop, 0.8) >= 0.8
    assert regression_power(100, 100, 0.8 - drop + 0.01, 0.8) < 0.8


def test_attempts_to_detect_is_the_smallest_k_with_the_power() -> None:
    k = attempts_to_detect(0.2, 0.85, blocks=4, baseline_attempts=25)
    assert k is not None and k > 1
    assert regression_power(4 * k, 100, 0.65, 0.85) >= 0.8
    assert regression_power(4 * (k - 1), 100, 0.65, 0.85) < 0.8
    # against the night before at the same k, both sides grow
    same = attempts_to_detect(0.2, 0.85, blocks=4)
    assert same is not None
    assert regression_power(4 * same, 4 * same, 0.65, 0.85) >= 0.8
    assert regression_power(4 * (same - 1), 4 * (same - 1), 0.65, 0.85) < 0.8


def test_a_small_baseline_bounds_the_gate_whatever_k() -> None:
    # one block, five baseline attempts at 90%: no k catches a 10-point fall
    assert attempts_to_detect(0.1, 0.9, blocks=1, baseline_attempts=5, max_k=30) is None


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="p1 must lie between 0 and 1"):
        regression_power(3, 5, 1.5, 0.5)
    with pytest.raises(ValueError, match="alpha must lie strictly between 0 and 1"):
        regression_power(3, 5, 0.5, 0.5, alpha=0.0)
    with pytest.raises(ValueError, match="power must lie strictly between 0 and 1"):
        minimum_detectable_drop(3, 5, 0.5, power=1.0)
    assert regression_power(0, 5, 0.5, 0.5) == 0.0
