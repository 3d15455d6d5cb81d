"""Agreement between raters (rules, judges, humans) over the same attempts.

Two raters: percent agreement, a confusion matrix, Cohen's kappa and a bootstrap interval
for it. More raters: Fleiss' kappa (complete data) and Krippendorff's alpha (nominal, with
missing ratings). All labels are nominal; order between categories is never used.

Degenerate data convention: when chance agreement is already certain (every rating falls
in one category) the kappa/alpha ratio is 0/0. We return 1.0 there, because the raters
did agree perfectly; callers that care should report the label distribution alongside.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

from ._common import as_count, check_pair, percentile, sorted_labels


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Share of items on which raters a and b gave the same label (0.0 to 1.0)."""
    left, right = check_pair(a, b)
    return sum(x == y for x, y in zip(left, right, strict=True)) / len(left)


def confusion_matrix(a: Sequence[Hashable], b: Sequence[Hashable]) -> dict[str, Any]:
    """Cross-tabulation of two raters' labels.

    Returns ``{"labels": [...], "matrix": [[...], ...]}`` where labels are the union of
    both raters' labels, sorted (mixed unorderable types: by type name, then repr), and
    ``matrix[i][j]`` counts items rater a labelled ``labels[i]`` and rater b ``labels[j]``.
    """
    left, right = check_pair(a, b)
    labels = sorted_labels(set(left) | set(right))
    where = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for x, y in zip(left, right, strict=True):
        matrix[where[x]][where[y]] += 1
    return {"labels": labels, "matrix": matrix}


def _kappa_from_lists(left: list[Hashable], right: list[Hashable]) -> float:
    n = len(left)
    agree = sum(x == y for x, y in zip(left, right, strict=True))
    count_a, count_b = Counter(left), Counter(right)
    chance = sum(count_a[label] * count_b[label] for label in count_a)
    # kappa = (po - pe) / (1 - pe) with po = agree/n and pe = chance/n², kept in integers.
    denominator = n * n - chance
    if denominator == 0:
        return 1.0
    return (n * agree - chance) / denominator


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa for two raters labelling the same items (nominal labels).

    Agreement corrected for the agreement expected by chance from each rater's own label
    frequencies: 1 is perfect, 0 is chance level, negative is worse than chance. If both
    raters used one and the same label for every item, chance agreement is 1 and kappa is
    0/0; we return 1.0 (perfect agreement) in that case.
    """
    left, right = check_pair(a, b)
    return _kappa_from_lists(left, right)


def bootstrap_kappa_interval(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval for Cohen's kappa, resampling items with replacement.

    Kappa has no simple closed-form interval for small samples, so the items are resampled
    ``n_boot`` times with ``random.Random(seed)``; the same inputs and seed always give the
    same interval. Resamples where all labels coincide count as kappa 1.0, as in
    :func:`cohen_kappa`. Bounds are linear-interpolated percentiles of the replicates.
    """
    left, right = check_pair(a, b)
    if not isinstance(confidence, int | float) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    replicates = as_count(n_boot, "n_boot")
    if replicates < 1:
        raise ValueError("n_boot must be >= 1")
    rng = random.Random(seed)
    n = len(left)
    kappas = []
    for _ in range(replicates):
        picks = [rng.randrange(n) for _ in range(n)]
        kappas.append(_kappa_from_lists([left[i] for i in picks], [right[i] for i in picks]))
    tail = (1.0 - confidence) / 2.0 * 100.0
    return (percentile(kappas, tail), percentile(kappas, 100.0 - tail))


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa for several raters: ``counts[i][j]`` raters put subject i in category j.

    Every subject must be rated by the same number of raters (at least 2); rows must all
    have the same number of categories. Raters need not be the same people per subject.
    If every rating falls in a single category the statistic is 0/0 and 1.0 is returned.
    """
    rows = [[as_count(v, "count") for v in row] for row in counts]
    if not rows:
        raise ValueError("no subjects")
    width = len(rows[0])
    if width == 0 or any(len(row) != width for row in rows):
        raise ValueError("every subject needs the same, non-zero number of categories")
    raters = sum(rows[0])
    if raters < 2:
        raise ValueError("each subject needs at least 2 ratings")
    if any(sum(row) != raters for row in rows):
        raise ValueError("every subject must have the same number of ratings")
    subjects = len(rows)
    total = subjects * raters
    # Observed: mean over subjects of agreeing rater pairs / all rater pairs.
    agreeing_pairs = sum(v * (v - 1) for row in rows for v in row)
    observed = agreeing_pairs / (subjects * raters * (raters - 1))
    column_totals = [sum(row[j] for row in rows) for j in range(width)]
    expected = sum(t * t for t in column_totals) / (total * total)
    if expected == 1.0:
        return 1.0
    return (observed - expected) / (1.0 - expected)


def krippendorff_alpha(data: Sequence[Sequence[Hashable | None]]) -> float:
    """Krippendorff's alpha for nominal data: ``data[r][u]`` is rater r's label of unit u.

    ``None`` marks a missing rating; units with fewer than two ratings cannot be paired and
    are ignored, as Krippendorff prescribes. Works for any number of raters and tolerates
    gaps, which is why it is the measure for judges that sometimes fail to answer.
    ``alpha = 1 − D_o / D_e`` from the coincidence matrix. If all pairable ratings share one
    label, alpha is 0/0 and 1.0 is returned. ValueError if no unit has two ratings.
    """
    table = [list(row) for row in data]
    if not table:
        raise ValueError("no raters")
    units = len(table[0])
    if any(len(row) != units for row in table):
        raise ValueError("every rater row must cover the same units (use None for missing)")
    pairable = 0  # n: number of pairable values
    matching = 0.0  # sum over c of o_cc, the coincidences of a label with itself
    label_totals: Counter[Hashable] = Counter()  # n_c
    for u in range(units):
        values = [row[u] for row in table if row[u] is not None]
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        pairable += m
        label_totals.update(counts)
        matching += sum(v * (v - 1) for v in counts.values()) / (m - 1)
    if pairable == 0:
        raise ValueError("no unit has two or more ratings, so alpha cannot be computed")
    n = pairable
    chance_matching = sum(v * (v - 1) for v in label_totals.values())
    # alpha = 1 − D_o/D_e, with D_o = (n − Σo_cc)/n and D_e = (n(n−1) − Σn_c(n_c−1))/(n(n−1)).
    expected_disagreement = n * (n - 1) - chance_matching
    if expected_disagreement == 0:
        return 1.0
    return 1.0 - (n - 1) * (n - matching) / expected_disagreement
