"""The stratified run-vs-baseline test (agenttest.stats.cmh_test) against independent references.

References: statsmodels' StratifiedTable (the chi-square CMH test, the Mantel–Haenszel odds
ratio and its Robins–Breslow–Greenland interval), scipy's Fisher exact test (one block),
a brute-force enumeration of every outcome with scipy's hypergeometric distribution (the
exact conditional test), and the Wald interval (the Sato variance with one block).
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import StratifiedTable

from agenttest.stats import cmh_test

Table = tuple[int, int, int, int]


def _random_strata(rng: random.Random, count: int, most: int = 10) -> list[Table]:
    out = []
    for _ in range(count):
        n1, n2 = rng.randint(1, most), rng.randint(1, most)
        out.append((rng.randint(0, n1), n1, rng.randint(0, n2), n2))
    return out


def _statsmodels(strata: list[Table]) -> StratifiedTable:
    return StratifiedTable([np.array([[a, n1 - a], [c, n2 - c]]) for a, n1, c, n2 in strata])


def _informative(strata: list[Table]) -> list[Table]:
    return [s for s in strata if s[1] and s[3] and 0 < s[0] + s[2] < s[1] + s[3]]


def _brute_exact_p(strata: list[Table]) -> float:
    """Enumerate every combination of the blocks' hypergeometric outcomes."""
    supports = []
    for a, n1, c, n2 in strata:
        m = a + c
        law = sps.hypergeom(n1 + n2, n1, m)
        supports.append([(x, law.pmf(x)) for x in range(max(0, m - n2), min(n1, m) + 1)])
    totals: dict[int, float] = {}
    for combo in itertools.product(*supports):
        total = sum(x for x, _ in combo)
        totals[total] = totals.get(total, 0.0) + math.prod(p for _, p in combo)
    observed = totals[sum(s[0] for s in strata)]
    return sum(p for p in totals.values() if p <= observed * (1 + 1e-7))


@pytest.mark.parametrize("seed", range(12))
def test_chi_square_and_odds_ratio_match_statsmodels(seed: int) -> None:
    rng = random.Random(seed)
    strata = _informative(_random_strata(rng, rng.randint(2, 9)))
    if len(strata) < 2:
        pytest.skip("the draw left too few informative blocks")
    ours = cmh_test(strata, exact=False)
    theirs = _statsmodels(strata)
    assert ours.method == "asymptotic"
    # corrected as R does: not when the gap is under the half it would subtract
    gap = abs(sum((a - Fraction(n1 * (a + c), n1 + n2) for a, n1, c, n2 in strata), Fraction()))
    reference = theirs.test_null_odds(correction=gap >= Fraction(1, 2))
    assert ours.p == pytest.approx(reference.pvalue, rel=1e-9)
    assert ours.statistic == pytest.approx(reference.statistic)
    if ours.odds_ratio is not None:
        low, high = theirs.oddsratio_pooled_confint(alpha=0.05)
        assert ours.odds_ratio == pytest.approx(theirs.oddsratio_pooled, rel=1e-9)
        assert (ours.or_low, ours.or_high) == pytest.approx((low, high), rel=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_exact_p_is_the_convolution_of_the_blocks_hypergeometrics(seed: int) -> None:
    rng = random.Random(100 + seed)
    strata = _informative(_random_strata(rng, rng.randint(1, 4), most=6))
    if not strata:
        pytest.skip("no informative block drawn")
    result = cmh_test(strata)
    assert result.method == "exact"
    assert result.p == pytest.approx(min(1.0, _brute_exact_p(strata)), rel=1e-9)


def test_one_block_is_fishers_exact_test() -> None:
    for table in [(3, 5, 1, 6), (0, 3, 5, 5), (2, 2, 0, 5), (4, 9, 7, 8)]:
        a, n1, c, n2 = table
        expected = sps.fisher_exact([[a, n1 - a], [c, n2 - c]]).pvalue
        assert cmh_test([table]).p == pytest.approx(expected, rel=1e-12)


def test_pooling_hides_what_strata_show() -> None:
    # Simpson's case: every block fell, but the run spent more attempts on the easy block,
    # so the pooled pass rate looks unchanged; the stratified change is clearly negative.
    strata = [(18, 20, 5, 5), (0, 5, 12, 20)]
    pooled_run = (18 + 0) / 25
    pooled_base = (5 + 12) / 25
    assert pooled_run > pooled_base
    result = cmh_test(strata)
    assert result.risk_difference is not None and result.risk_difference < 0
    assert result.rd_high is not None and result.rd_high < 0
    assert result.p < 0.05


def test_risk_difference_interval_is_wald_for_one_block() -> None:
    a, n1, c, n2 = 7, 12, 9, 10
    p1, p2 = a / n1, c / n2
    half = sps.norm.ppf(0.975) * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    result = cmh_test([(a, n1, c, n2)])
    assert result.risk_difference == pytest.approx(p1 - p2)
    assert (result.rd_low, result.rd_high) == pytest.approx((p1 - p2 - half, p1 - p2 + half))


def test_risk_difference_is_the_weighted_mean_of_block_differences() -> None:
    strata = [(2, 3, 5, 5), (3, 3, 4, 5), (0, 3, 1, 5)]
    weights = [n1 * n2 / (n1 + n2) for _, n1, _, n2 in strata]
    diffs = [a / n1 - c / n2 for a, n1, c, n2 in strata]
    expected = sum(w * d for w, d in zip(weights, diffs, strict=True)) / sum(weights)
    assert cmh_test(strata).risk_difference == pytest.approx(expected)


def test_risk_difference_interval_covers_the_true_change_in_sparse_blocks() -> None:
    # Sato's variance holds with many small blocks (the nightly shape: 3 vs 5 attempts).
    rng = random.Random(7)
    rates = [rng.uniform(0.3, 0.95) for _ in range(40)]
    drop, covered, trials = 0.1, 0, 400
    for _ in range(trials):
        strata = []
        for p in rates:
            run = sum(rng.random() < p - drop for _ in range(3))
            base = sum(rng.random() < p for _ in range(5))
            strata.append((run, 3, base, 5))
        result = cmh_test(strata)
        assert result.rd_low is not None and result.rd_high is not None
        covered += result.rd_low <= -drop <= result.rd_high
    assert 0.92 <= covered / trials <= 0.98


def test_blocks_without_information_change_nothing() -> None:
    strata = [(1, 3, 5, 5), (0, 3, 4, 5)]
    padded = [*strata, (3, 3, 5, 5), (0, 3, 0, 5), (2, 2, 0, 0)]
    assert cmh_test(padded).p == cmh_test(strata).p
    assert cmh_test(padded).strata == 2


def test_nothing_informative_is_no_evidence() -> None:
    result = cmh_test([(3, 3, 5, 5), (2, 2, 4, 4)])
    assert (result.p, result.strata) == (1.0, 0)
    assert result.risk_difference == 0.0
    assert (result.rd_low, result.rd_high) == (None, None)  # no spread to measure
    assert result.odds_ratio is None


def test_a_large_night_falls_back_to_the_chi_square() -> None:
    strata = [(40, 60, 50, 60)] * 80
    result = cmh_test(strata)
    assert result.method == "asymptotic"
    assert result.p == pytest.approx(cmh_test(strata, exact=False).p)


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match=r"stratum 0 must be \(x1, n1, x2, n2\)"):
        cmh_test([(1, 2, 3)])
    with pytest.raises(ValueError, match="stratum 1: passes exceed attempts"):
        cmh_test([(1, 2, 3, 4), (3, 2, 0, 1)])
    with pytest.raises(ValueError, match="confidence"):
        cmh_test([(1, 2, 3, 4)], confidence=1.0)
