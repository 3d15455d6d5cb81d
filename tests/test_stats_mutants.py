"""Tests that kill the survivors of mutmut on ``agenttest.stats`` (issue 13).

Each bad input must be refused with a message naming the argument and its value, so the
message is pinned whole; the bootstrap interval is recomputed here independently; the
boundaries a one-token change moves (n_boot 1, confidence 0 and 1, one category) are
pinned. The survivors that are equivalent are listed in docs/development.md.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from agenttest import stats

A = [1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0]
B = [1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0]

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


def test_one_category_only_is_perfect_agreement_not_an_error() -> None:
    assert stats.fleiss_kappa([[2], [2]]) == 1.0


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


def test_labels_sort_naturally_and_mixed_types_by_type_then_repr() -> None:
    assert stats.confusion_matrix([10, 9, 10], [9, 9, 10])["labels"] == [9, 10]  # not "10" < "9"
    mixed = stats.confusion_matrix([1, "b", "a"], ["c", "a", 1])["labels"]
    assert mixed == [1, "a", "b", "c"]


def test_alpha_skips_a_unit_with_one_rating_and_reads_the_units_after_it() -> None:
    data: list[list[int | None]] = [[1, 1, 2, 1, 2], [1, None, 2, 2, 2]]  # unit 2: one rating
    without: list[list[int | None]] = [[1, 2, 1, 2], [1, 2, 2, 2]]
    assert stats.krippendorff_alpha(data) == pytest.approx(stats.krippendorff_alpha(without))
    alone: list[list[int | None]] = [[1], [1]]  # what is left when the loop stops there
    assert stats.krippendorff_alpha(data) != pytest.approx(stats.krippendorff_alpha(alone))
