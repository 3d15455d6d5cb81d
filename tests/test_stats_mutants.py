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


def test_bootstrap_interval_matches_an_independent_resampling() -> None:
    # the defaults: 2000 resamples of random.Random(0), 2.5th and 97.5th percentiles
    rng = random.Random(0)
    kappas = []
    for _ in range(2000):
        picks = [rng.randrange(len(A)) for _ in A]
        kappas.append(stats.cohen_kappa([A[i] for i in picks], [B[i] for i in picks]))
    low, high = np.percentile(kappas, [2.5, 97.5])
    assert stats.bootstrap_kappa_interval(A, B) == pytest.approx((low, high), abs=1e-12)
    assert low < high  # precondition: the interval is not degenerate


def test_bootstrap_interval_with_a_single_resample() -> None:
    low, high = stats.bootstrap_kappa_interval(A, B, n_boot=1, confidence=0.5)
    assert low == high  # one replicate: both percentiles are that replicate


def test_one_category_only_is_perfect_agreement_not_an_error() -> None:
    assert stats.fleiss_kappa([[2], [2]]) == 1.0


def test_newcombe_uses_the_confidence_it_is_given() -> None:
    narrow = stats.newcombe_diff_interval(56, 70, 48, 80, confidence=0.5)
    wide = stats.newcombe_diff_interval(56, 70, 48, 80)
    assert wide[0] < narrow[0] < narrow[1] < wide[1]


def test_labels_sort_naturally_and_mixed_types_by_type_then_repr() -> None:
    assert stats.confusion_matrix([10, 9, 10], [9, 9, 10])["labels"] == [9, 10]  # not "10" < "9"
    mixed = stats.confusion_matrix([1, "b", "a"], ["c", "a", 1])["labels"]
    assert mixed == [1, "a", "b", "c"]
