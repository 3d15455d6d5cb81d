"""Tests for agenttest.stats against independent references.

References: scipy (Wilson interval, Fisher's exact test), numpy (percentile), published
worked examples (Fleiss 1971 via Wikipedia, Krippendorff 2011, Newcombe 1998, Wikipedia's
Cohen's kappa examples), brute-force enumeration (pass@k, pass^k) and textbook
procedures written out longhand in this file (Holm step-down, Fleiss per-subject form).
Each bad input's refusal is pinned whole (it names the argument and its value), and so are
the boundaries a one-token change moves (n_boot 1, confidence 0 and 1, one category); the
mutation survivors found equivalent are listed in docs/development.md.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from agenttest import stats

# --------------------------------------------------------------------------- imports


def test_import_uses_only_the_standard_library() -> None:
    code = (
        "import sys, agenttest.stats\n"
        "bad = sorted(m for m in ('numpy', 'scipy') if m in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


# --------------------------------------------------------------------------- Wilson


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
@pytest.mark.parametrize("n", [1, 2, 5, 10, 37, 100])
def test_wilson_matches_scipy(n: int, confidence: float) -> None:
    for x in range(n + 1):
        ref = sps.binomtest(x, n).proportion_ci(confidence_level=confidence, method="wilson")
        low, high = stats.wilson_interval(x, n, confidence)
        assert low == pytest.approx(ref.low, abs=1e-12)
        assert high == pytest.approx(ref.high, abs=1e-12)


def test_wilson_known_value_and_exact_edges() -> None:
    low, high = stats.wilson_interval(3, 10)
    assert (round(low, 4), round(high, 4)) == (0.1078, 0.6032)
    assert stats.wilson_interval(0, 10)[0] == 0.0
    assert stats.wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)
    assert stats.wilson_interval(10, 10)[1] == 1.0
    assert stats.wilson_interval(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)


def test_wilson_empty_sample_is_uninformative() -> None:
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    assert stats.wilson_interval(0, 0, 0.5) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((11, 10), ValueError),
        ((-1, 10), ValueError),
        ((0, -1), ValueError),
        ((3, 10, 0.0), ValueError),
        ((3, 10, 1.0), ValueError),
        ((3, 10, 95), ValueError),
        ((3.5, 10), TypeError),
    ],
)
def test_wilson_rejects_bad_input(args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        stats.wilson_interval(*args)  # type: ignore[arg-type]


@given(
    n=st.integers(min_value=1, max_value=10_000),
    frac=st.floats(min_value=0.0, max_value=1.0),
    confidence=st.floats(min_value=0.5, max_value=0.999),
)
def test_wilson_properties(n: int, frac: float, confidence: float) -> None:
    x = round(frac * n)
    low, high = stats.wilson_interval(x, n, confidence)
    assert 0.0 <= low <= x / n <= high <= 1.0
    assert low < high
    wider = stats.wilson_interval(x, n, min(0.9999, confidence + 0.0005))
    assert wider[0] <= low and high <= wider[1]


# --------------------------------------------------------------------------- Newcombe

# Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10.
NEWCOMBE_TABLE_II = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("args", "expected"), NEWCOMBE_TABLE_II)
def test_newcombe_published_examples(
    args: tuple[int, int, int, int], expected: tuple[float, float]
) -> None:
    low, high = stats.newcombe_diff_interval(*args)
    assert (round(low, 4), round(high, 4)) == expected


def test_newcombe_swapping_groups_negates_interval() -> None:
    low, high = stats.newcombe_diff_interval(56, 70, 48, 80)
    back = stats.newcombe_diff_interval(48, 80, 56, 70)
    assert back == pytest.approx((-high, -low), abs=1e-12)


def test_newcombe_combines_the_wilson_intervals_at_its_own_confidence() -> None:
    # Newcombe's hybrid score interval (method 10) from both groups' Wilson intervals
    p1, p2 = 56 / 70, 48 / 80
    l1, u1 = stats.wilson_interval(56, 70, 0.5)
    l2, u2 = stats.wilson_interval(48, 80, 0.5)
    low = p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    got = stats.newcombe_diff_interval(56, 70, 48, 80, confidence=0.5)
    assert got == pytest.approx((low, high), abs=1e-12)
    assert got != pytest.approx(stats.newcombe_diff_interval(56, 70, 48, 80))  # precondition


def test_newcombe_empty_sample_and_bad_input() -> None:
    assert stats.newcombe_diff_interval(0, 0, 3, 10) == (-1.0, 1.0)
    assert stats.newcombe_diff_interval(3, 10, 0, 0) == (-1.0, 1.0)
    with pytest.raises(ValueError):
        stats.newcombe_diff_interval(11, 10, 3, 10)
    with pytest.raises(ValueError):
        stats.newcombe_diff_interval(0, 0, 0, 0, confidence=1.5)


@given(x1=st.integers(0, 60), e1=st.integers(0, 60), x2=st.integers(0, 60), e2=st.integers(0, 60))
def test_newcombe_contains_observed_difference(x1: int, e1: int, x2: int, e2: int) -> None:
    n1, n2 = x1 + e1, x2 + e2
    low, high = stats.newcombe_diff_interval(x1, n1, x2, n2)
    assert -1.0 <= low <= high <= 1.0
    if n1 and n2:
        assert low <= x1 / n1 - x2 / n2 <= high
        assert low < high


# --------------------------------------------------------------------------- pass@k


def _brute(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    any_pass = Fraction(sum(any(s) for s in subsets), len(subsets))
    all_pass = Fraction(sum(all(s) for s in subsets), len(subsets))
    return any_pass, all_pass


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_k_match_enumeration(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            any_pass, all_pass = _brute(n, c, k)
            assert stats.pass_at_k(n, c, k) == pytest.approx(float(any_pass), abs=1e-15)
            assert stats.pass_hat_k(n, c, k) == pytest.approx(float(all_pass), abs=1e-15)


def test_pass_k_distinguishes_at_from_hat() -> None:
    assert stats.pass_at_k(5, 3, 2) == pytest.approx(0.9)
    assert stats.pass_hat_k(5, 3, 2) == pytest.approx(0.3)


def test_pass_k_edges() -> None:
    assert stats.pass_at_k(10, 0, 3) == 0.0
    assert stats.pass_hat_k(10, 0, 3) == 0.0
    assert stats.pass_at_k(10, 10, 3) == 1.0
    assert stats.pass_hat_k(10, 10, 3) == 1.0
    assert stats.pass_at_k(10, 4, 1) == pytest.approx(0.4)
    assert stats.pass_hat_k(10, 4, 1) == pytest.approx(0.4)
    assert stats.pass_at_k(10, 8, 3) == 1.0  # fewer than k failures: every draw has a pass
    assert math.isnan(stats.pass_at_k(3, 1, 5))
    assert math.isnan(stats.pass_hat_k(3, 1, 5))
    assert math.isnan(stats.pass_at_k(0, 0, 1))
    assert math.isnan(stats.pass_hat_k(0, 0, 1))


def test_pass_k_exact_for_large_n() -> None:
    # Half of all 100-subsets of 200 attempts contain the single pass.
    assert stats.pass_at_k(200, 1, 100) == 0.5
    assert stats.pass_hat_k(200, 199, 100) == 0.5


@pytest.mark.parametrize("args", [(5, 6, 1), (5, -1, 1), (-1, 0, 1), (5, 2, 0), (5, 2, -1)])
def test_pass_k_rejects_bad_input(args: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError):
        stats.pass_at_k(*args)
    with pytest.raises(ValueError):
        stats.pass_hat_k(*args)


@given(st.integers(1, 40), st.integers(0, 40), st.integers(1, 40))
def test_pass_k_properties(n: int, c: int, k: int) -> None:
    c, k = min(c, n), min(k, n)
    at, hat = stats.pass_at_k(n, c, k), stats.pass_hat_k(n, c, k)
    assert 0.0 <= hat <= at <= 1.0
    if k > 1:
        assert at >= stats.pass_at_k(n, c, k - 1)
        assert hat <= stats.pass_hat_k(n, c, k - 1)


# --------------------------------------------------------------------------- two raters


def _from_table(table: list[list[int]], labels: list[str]) -> tuple[list[str], list[str]]:
    a: list[str] = []
    b: list[str] = []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            a += [labels[i]] * count
            b += [labels[j]] * count
    return a, b


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ([[20, 5], [10, 15]], 0.4),  # Wikipedia "Cohen's kappa", simple example
        ([[45, 15], [25, 15]], 0.1304),  # same agreement, different marginals
        ([[25, 35], [5, 35]], 0.2593),
    ],
)
def test_cohen_kappa_worked_examples(table: list[list[int]], expected: float) -> None:
    a, b = _from_table(table, ["yes", "no"])
    assert stats.cohen_kappa(a, b) == pytest.approx(expected, abs=5e-5)
    assert stats.cohen_kappa(b, a) == pytest.approx(expected, abs=5e-5)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=60))
def test_cohen_kappa_matches_matrix_formula(pairs: list[tuple[int, int]]) -> None:
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    m = np.zeros((4, 4))
    for x, y in pairs:
        m[x, y] += 1
    m /= m.sum()
    po = np.trace(m)
    pe = float(m.sum(axis=1) @ m.sum(axis=0))
    kappa = stats.cohen_kappa(a, b)
    if pe >= 1.0 - 1e-12:
        assert kappa == 1.0
    else:
        assert kappa == pytest.approx((po - pe) / (1.0 - pe), abs=1e-9)
    assert stats.percent_agreement(a, b) == pytest.approx(po)


def test_cohen_kappa_edges() -> None:
    assert stats.cohen_kappa(["p"] * 5, ["p"] * 5) == 1.0  # one category: defined as 1.0
    assert stats.cohen_kappa([1, 2, 3, 1], [1, 2, 3, 1]) == 1.0
    assert stats.cohen_kappa([0, 1, 0, 1], [1, 0, 1, 0]) == -1.0
    assert stats.cohen_kappa(["p"] * 4, ["p", "p", "p", "f"]) == 0.0  # a never varies
    for bad in (([], []), ([1, 2], [1]), ([1, None], [1, 2])):
        with pytest.raises(ValueError):
            stats.cohen_kappa(*bad)


def test_percent_agreement() -> None:
    assert stats.percent_agreement("aabb", "abbb") == 0.75
    assert stats.percent_agreement([True], [False]) == 0.0
    with pytest.raises(ValueError):
        stats.percent_agreement([1], [1, 2])


def test_confusion_matrix_rows_are_first_rater() -> None:
    result = stats.confusion_matrix(["fail", "pass", "pass"], ["pass", "pass", "pass"])
    assert result == {"labels": ["fail", "pass"], "matrix": [[0, 1], [0, 2]]}


def test_confusion_matrix_labels_sorted_and_mixed_types() -> None:
    result = stats.confusion_matrix([3, 1, 2], [1, 1, 3])
    assert result["labels"] == [1, 2, 3]
    assert result["matrix"] == [[1, 0, 0], [0, 0, 1], [1, 0, 0]]
    mixed = stats.confusion_matrix([1, "a"], ["a", 1])
    assert mixed["labels"] == [1, "a"]  # by type name: int < str
    assert mixed["matrix"] == [[0, 1], [1, 0]]


def test_labels_sort_naturally_and_mixed_types_by_type_then_repr() -> None:
    assert stats.confusion_matrix([10, 9, 10], [9, 9, 10])["labels"] == [9, 10]  # not "10" < "9"
    mixed = stats.confusion_matrix([1, "b", "a"], ["c", "a", 1])["labels"]
    assert mixed == [1, "a", "b", "c"]


def test_bootstrap_kappa_interval_reproducible_and_sensible() -> None:
    a, b = _from_table([[20, 5], [10, 15]], ["yes", "no"])
    first = stats.bootstrap_kappa_interval(a, b, seed=7)
    assert first == stats.bootstrap_kappa_interval(a, b, seed=7)
    assert first != stats.bootstrap_kappa_interval(a, b, seed=8)
    low, high = first
    assert low < 0.4 < high
    narrow = stats.bootstrap_kappa_interval(a, b, confidence=0.5, seed=7)
    assert low < narrow[0] < narrow[1] < high


def test_bootstrap_kappa_interval_agrees_with_numpy_bootstrap() -> None:
    a, b = _from_table([[60, 15], [25, 100]], ["yes", "no"])
    x = np.array([v == "yes" for v in a])
    y = np.array([v == "yes" for v in b])
    rng = np.random.default_rng(12345)
    kappas = []
    for _ in range(4000):
        idx = rng.integers(0, len(x), len(x))
        xs, ys = x[idx], y[idx]
        po = np.mean(xs == ys)
        pe = xs.mean() * ys.mean() + (1 - xs.mean()) * (1 - ys.mean())
        kappas.append((po - pe) / (1 - pe))
    ref = np.percentile(kappas, [2.5, 97.5])
    low, high = stats.bootstrap_kappa_interval(a, b, n_boot=4000, seed=3)
    assert low == pytest.approx(ref[0], abs=0.02)
    assert high == pytest.approx(ref[1], abs=0.02)


def test_bootstrap_kappa_interval_edges() -> None:
    assert stats.bootstrap_kappa_interval([1, 2, 3] * 4, [1, 2, 3] * 4) == (1.0, 1.0)
    with pytest.raises(ValueError):
        stats.bootstrap_kappa_interval([1, 2], [1, 2], n_boot=0)
    with pytest.raises(ValueError):
        stats.bootstrap_kappa_interval([1, 2], [1, 2], confidence=1.0)


# two raters' labels of 12 items (the bootstrap's edges and the bad-input table)
A = [1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0]
B = [1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0]


def _resampled(a: list[str], b: list[str], n_boot: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    kappas = []
    for _ in range(n_boot):
        picks = [rng.randrange(len(a)) for _ in a]
        kappas.append(stats.cohen_kappa([a[i] for i in picks], [b[i] for i in picks]))
    return kappas


def test_bootstrap_interval_matches_an_independent_resampling() -> None:
    # 40 items of 3 labels: kappa takes enough values that one resample more, another seed
    # or another percentile moves the bounds
    rng = random.Random(7)
    a = [rng.choice("abc") for _ in range(40)]
    b = [x if rng.random() < 0.6 else rng.choice("abc") for x in a]
    # the defaults: 2000 resamples of random.Random(0), the 2.5th and 97.5th percentiles
    low, high = np.percentile(_resampled(a, b, 2000, 0), [2.5, 97.5])
    assert stats.bootstrap_kappa_interval(a, b) == pytest.approx((low, high), abs=1e-12)
    low, high = np.percentile(_resampled(a, b, 2000, 0), [5, 95])
    got = stats.bootstrap_kappa_interval(a, b, confidence=0.9)
    assert got == pytest.approx((low, high), abs=1e-12)
    assert low < high  # precondition: the interval is not degenerate


def test_bootstrap_interval_with_a_single_resample() -> None:
    low, high = stats.bootstrap_kappa_interval(A, B, n_boot=1, confidence=0.5)
    assert low == high  # one replicate: both percentiles are that replicate


# --------------------------------------------------------------------------- many raters

# Wikipedia "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories.
FLEISS_EXAMPLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_worked_example() -> None:
    assert round(stats.fleiss_kappa(FLEISS_EXAMPLE), 3) == 0.210


@given(
    st.integers(2, 6).flatmap(
        lambda raters: st.lists(
            st.lists(st.integers(0, 2), min_size=raters, max_size=raters),
            min_size=1,
            max_size=15,
        )
    )
)
def test_fleiss_matches_per_subject_formula_and_alpha(ratings: list[list[int]]) -> None:
    counts = [[row.count(cat) for cat in range(3)] for row in ratings]
    m = len(ratings[0])
    c = np.array(counts, dtype=float)
    p_i = ((c * c).sum(axis=1) - m) / (m * (m - 1))
    p_j = c.sum(axis=0) / c.sum()
    p_bar, p_e = p_i.mean(), float((p_j**2).sum())
    kappa = stats.fleiss_kappa(counts)
    alpha = stats.krippendorff_alpha([list(r) for r in zip(*ratings, strict=True)])
    if p_e >= 1.0 - 1e-12:
        assert kappa == 1.0 and alpha == 1.0
        return
    assert kappa == pytest.approx((p_bar - p_e) / (1.0 - p_e), abs=1e-9)
    # With complete data: alpha = 1 - (n - 1)/n * (1 - kappa_Fleiss), n = number of ratings.
    n = c.sum()
    assert alpha == pytest.approx(1.0 - (n - 1) / n * (1.0 - kappa), abs=1e-9)


def test_fleiss_kappa_edges() -> None:
    assert stats.fleiss_kappa([[3, 0], [3, 0]]) == 1.0  # one category used: defined as 1.0
    assert stats.fleiss_kappa([[3, 0], [0, 3]]) == 1.0
    assert stats.fleiss_kappa([[1, 1], [1, 1]]) == pytest.approx(-1.0)
    bad_tables: list[list[list[int]]] = [
        [],
        [[]],
        [[2, 1], [1, 1]],
        [[1, 0], [0, 1]],
        [[2, 0], [1, 1, 0]],
        [[3, -1]],
    ]
    for bad in bad_tables:
        with pytest.raises(ValueError):
            stats.fleiss_kappa(bad)


def test_one_category_only_is_perfect_agreement_not_an_error() -> None:
    assert stats.fleiss_kappa([[2], [2]]) == 1.0


# Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability": 4 observers, 12 units.
KRIPP_NOMINAL = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
# Same paper, first example: two observers, binary data, 10 units.
KRIPP_BINARY = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]


def test_krippendorff_alpha_worked_examples() -> None:
    assert round(stats.krippendorff_alpha(KRIPP_NOMINAL), 3) == 0.743
    assert round(stats.krippendorff_alpha(KRIPP_BINARY), 3) == 0.095


def test_krippendorff_alpha_missing_data() -> None:
    base = stats.krippendorff_alpha(KRIPP_BINARY)
    # Units rated by one rater or none cannot be paired and must not change alpha.
    extended = [KRIPP_BINARY[0] + [1, None], KRIPP_BINARY[1] + [None, None]]
    assert stats.krippendorff_alpha(extended) == pytest.approx(base, abs=1e-15)
    assert stats.krippendorff_alpha([["a", None, "b"], ["a", "b", "b"]]) == 1.0
    assert stats.krippendorff_alpha([["a", "b", None], ["b", "a", "a"]]) < 0.0


def test_alpha_skips_a_unit_with_one_rating_and_reads_the_units_after_it() -> None:
    data: list[list[int | None]] = [[1, 1, 2, 1, 2], [1, None, 2, 2, 2]]  # unit 2: one rating
    without: list[list[int | None]] = [[1, 2, 1, 2], [1, 2, 2, 2]]
    assert stats.krippendorff_alpha(data) == pytest.approx(stats.krippendorff_alpha(without))
    alone: list[list[int | None]] = [[1], [1]]  # what is left when the loop stops there
    assert stats.krippendorff_alpha(data) != pytest.approx(stats.krippendorff_alpha(alone))


def test_krippendorff_alpha_edges() -> None:
    assert stats.krippendorff_alpha([["x", "x", None], ["x", "x", "y"]]) == 1.0
    for bad in ([], [[1, None], [None, 2]], [[1, 2], [1]]):
        with pytest.raises(ValueError):
            stats.krippendorff_alpha(bad)


# --------------------------------------------------------------------------- Fisher


@pytest.mark.parametrize("n1", [0, 1, 3, 8])
@pytest.mark.parametrize("n2", [0, 2, 5, 9])
def test_fisher_exact_matches_scipy_small_tables(n1: int, n2: int) -> None:
    for x1 in range(n1 + 1):
        for x2 in range(n2 + 1):
            ref = sps.fisher_exact([[x1, n1 - x1], [x2, n2 - x2]]).pvalue
            assert stats.fisher_exact(x1, n1, x2, n2) == pytest.approx(ref, rel=1e-9, abs=1e-15)


@settings(max_examples=200)
@given(st.integers(0, 80), st.integers(0, 80), st.integers(0, 80), st.integers(0, 80))
def test_fisher_exact_matches_scipy(a: int, b: int, c: int, d: int) -> None:
    ref = sps.fisher_exact([[a, b], [c, d]]).pvalue
    assert stats.fisher_exact(a, a + b, c, c + d) == pytest.approx(ref, rel=1e-9, abs=1e-300)


def test_fisher_exact_known_values() -> None:
    assert stats.fisher_exact(1, 10, 8, 10) == pytest.approx(0.005477, abs=1e-6)
    assert stats.fisher_exact(5, 10, 5, 10) == 1.0
    assert stats.fisher_exact(0, 0, 3, 7) == 1.0
    with pytest.raises(ValueError):
        stats.fisher_exact(4, 3, 1, 2)


# --------------------------------------------------------------------------- Holm


def test_holm_worked_example() -> None:
    assert stats.holm_correction([0.01, 0.04, 0.03, 0.005]) == pytest.approx(
        [0.03, 0.06, 0.06, 0.02]
    )
    assert stats.holm_correction([0.5, 0.6]) == [1.0, 1.0]
    assert stats.holm_correction([]) == []
    assert stats.holm_correction([0.2]) == [0.2]
    for bad in ([1.5], [-0.1], [math.nan]):
        with pytest.raises(ValueError):
            stats.holm_correction(bad)


def _holm_step_down(pvalues: list[float], alpha: Fraction) -> set[int]:
    """Holm's procedure as written in the textbook: reject until the first acceptance."""
    m = len(pvalues)
    rejected: set[int] = set()
    for rank, index in enumerate(sorted(range(m), key=lambda i: pvalues[i])):
        if Fraction(pvalues[index]) > alpha / (m - rank):
            break
        rejected.add(index)
    return rejected


@given(
    st.lists(st.integers(0, 1024), min_size=1, max_size=8),
    st.integers(1, 1023),
)
def test_holm_agrees_with_step_down_procedure(ticks: list[int], alpha_ticks: int) -> None:
    pvalues = [t / 1024 for t in ticks]  # dyadic, so k * p is exact in floating point
    adjusted = stats.holm_correction(pvalues)
    alpha = alpha_ticks / 1024
    assert {i for i, q in enumerate(adjusted) if q <= alpha} == _holm_step_down(
        pvalues, Fraction(alpha)
    )
    assert all(p <= q <= 1.0 for p, q in zip(pvalues, adjusted, strict=True))


# --------------------------------------------------------------------------- percentile


@given(
    st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=1, max_size=50),
    st.floats(min_value=0.0, max_value=100.0),
)
def test_percentile_matches_numpy(values: list[float], q: float) -> None:
    assert stats.percentile(values, q) == pytest.approx(
        float(np.percentile(values, q)), rel=1e-12, abs=1e-9
    )


def test_percentile_known_values_and_edges() -> None:
    latencies = [120.0, 80.0, 100.0, 300.0, 90.0]
    assert stats.percentile(latencies, 50) == 100.0
    assert stats.percentile(latencies, 95) == pytest.approx(264.0)
    assert stats.percentile(latencies, 0) == 80.0
    assert stats.percentile(latencies, 100) == 300.0
    assert stats.percentile([1, 2, 3, 4], 25) == 1.75
    assert stats.percentile([7.5], 95) == 7.5
    for values, q in (([], 50), ([1.0], -1), ([1.0], 101), ([1.0, math.nan], 50)):
        with pytest.raises(ValueError):
            stats.percentile(values, q)


# --------------------------------------------------------------------------- bad input

# Each bad input is refused with a message naming the argument and its value; the message
# is pinned whole, so a changed word or bound fails.
BAD: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], type[Exception], str]] = [
    (stats.wilson_interval, (5, 3), {}, ValueError, "successes (5) cannot exceed n (3)"),
    (stats.wilson_interval, (-1, 3), {}, ValueError, "successes must be >= 0, got -1"),
    (stats.wilson_interval, (1, -3), {}, ValueError, "n must be >= 0, got -3"),
    (stats.wilson_interval, (1.5, 3), {}, TypeError, "successes must be an integer, got 1.5"),
    (stats.wilson_interval, (1, 3, 1.0), {}, ValueError,
     "confidence must be strictly between 0 and 1, got 1.0"),
    (stats.wilson_interval, (1, 3, 0.0), {}, ValueError,
     "confidence must be strictly between 0 and 1, got 0.0"),
    (stats.newcombe_diff_interval, (5, 3, 1, 3), {}, ValueError, "x1 (5) cannot exceed n1 (3)"),
    (stats.newcombe_diff_interval, (-1, 3, 1, 3), {}, ValueError, "x1 must be >= 0, got -1"),
    (stats.newcombe_diff_interval, (1, -3, 1, 3), {}, ValueError, "n1 must be >= 0, got -3"),
    (stats.newcombe_diff_interval, (1, 3, 5, 3), {}, ValueError, "x2 (5) cannot exceed n2 (3)"),
    (stats.newcombe_diff_interval, (1, 3, -1, 3), {}, ValueError, "x2 must be >= 0, got -1"),
    (stats.newcombe_diff_interval, (1, 3, 1, -3), {}, ValueError, "n2 must be >= 0, got -3"),
    (stats.fisher_exact, (5, 3, 1, 3), {}, ValueError, "x1 (5) cannot exceed n1 (3)"),
    (stats.fisher_exact, (-1, 3, 1, 3), {}, ValueError, "x1 must be >= 0, got -1"),
    (stats.fisher_exact, (1, -3, 1, 3), {}, ValueError, "n1 must be >= 0, got -3"),
    (stats.fisher_exact, (1, 3, 5, 3), {}, ValueError, "x2 (5) cannot exceed n2 (3)"),
    (stats.fisher_exact, (1, 3, -1, 3), {}, ValueError, "x2 must be >= 0, got -1"),
    (stats.fisher_exact, (1, 3, 1, -3), {}, ValueError, "n2 must be >= 0, got -3"),
    (stats.pass_at_k, (3, 5, 1), {}, ValueError, "c (5) cannot exceed n (3)"),
    (stats.pass_at_k, (3, -1, 1), {}, ValueError, "c must be >= 0, got -1"),
    (stats.pass_at_k, (-3, 0, 1), {}, ValueError, "n must be >= 0, got -3"),
    (stats.pass_at_k, (3, 1, 0), {}, ValueError, "k must be >= 1"),
    (stats.pass_at_k, (3, 1, -1), {}, ValueError, "k must be >= 0, got -1"),
    (stats.pass_hat_k, (3, 1, 0), {}, ValueError, "k must be >= 1"),
    (stats.holm_correction, ([0.5, 1.5],), {}, ValueError, "p-values must lie in [0, 1], got 1.5"),
    (stats.percentile, ([], 50), {}, ValueError, "percentile of an empty sequence"),
    (stats.percentile, ([1.0, math.nan], 50), {}, ValueError, "percentile values contain NaN"),
    (stats.percentile, ([1.0], 101), {}, ValueError, "q must be between 0 and 100, got 101"),
    (stats.percentile, ([1.0], "50"), {}, ValueError, "q must be between 0 and 100, got '50'"),
    (stats.cohen_kappa, ([1, 2], [1]), {}, ValueError,
     "raters rated different numbers of items: 2 vs 1"),
    (stats.cohen_kappa, ([], []), {}, ValueError, "no items rated"),
    (stats.cohen_kappa, ([None], [1]), {}, ValueError,
     "None (a missing rating) is not allowed here; use krippendorff_alpha"),
    (stats.bootstrap_kappa_interval, (A, B), {"confidence": 1.0}, ValueError,
     "confidence must be strictly between 0 and 1, got 1.0"),
    (stats.bootstrap_kappa_interval, (A, B), {"confidence": 0.0}, ValueError,
     "confidence must be strictly between 0 and 1, got 0.0"),
    (stats.bootstrap_kappa_interval, (A, B), {"n_boot": 0}, ValueError, "n_boot must be >= 1"),
    (stats.bootstrap_kappa_interval, (A, B), {"n_boot": -1}, ValueError,
     "n_boot must be >= 0, got -1"),
    (stats.fleiss_kappa, ([],), {}, ValueError, "no subjects"),
    (stats.fleiss_kappa, ([[]],), {}, ValueError,
     "every subject needs the same, non-zero number of categories"),
    (stats.fleiss_kappa, ([[1, 0]],), {}, ValueError, "each subject needs at least 2 ratings"),
    (stats.fleiss_kappa, ([[2, 0], [1, 2]],), {}, ValueError,
     "every subject must have the same number of ratings"),
    (stats.fleiss_kappa, ([[-1, 3]],), {}, ValueError, "count must be >= 0, got -1"),
    (stats.krippendorff_alpha, ([],), {}, ValueError, "no raters"),
    (stats.krippendorff_alpha, ([[1, 2], [1]],), {}, ValueError,
     "every rater row must cover the same units (use None for missing)"),
    (stats.krippendorff_alpha, ([[1, None], [None, 2]],), {}, ValueError,
     "no unit has two or more ratings, so alpha cannot be computed"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "args", "kwargs", "error", "message"), BAD)
def test_bad_input_is_refused_with_its_whole_message(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    error: type[Exception],
    message: str,
) -> None:
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        fn(*args, **kwargs)
