"""Input checks and small helpers shared by the statistics modules.

Kept apart so that every public function validates the same way: counts must be integers
(``bool`` and numpy integers are accepted through :func:`operator.index`), confidences lie
strictly between 0 and 1, and a bad value raises :class:`ValueError` naming the argument.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Hashable, Sequence
from statistics import NormalDist


def as_count(value: object, name: str) -> int:
    """Return ``value`` as a non-negative ``int``; TypeError if not integral, ValueError if < 0."""
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r}") from None
    if number < 0:
        raise ValueError(f"{name} must be >= 0, got {number}")
    return number


def z_two_sided(confidence: float) -> float:
    """The standard normal quantile z with P(-z < Z < z) = ``confidence``."""
    if not isinstance(confidence, int | float) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def check_pair(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[list[Hashable], ...]:
    """Validate two raters' labels over the same items and return them as lists.

    Both must be non-empty and equally long. ``None`` is refused: in the two-rater
    measures it would silently become a category of its own, so missing ratings belong
    in :func:`krippendorff_alpha`, which is built for them.
    """
    left, right = list(a), list(b)
    if len(left) != len(right):
        raise ValueError(f"raters rated different numbers of items: {len(left)} vs {len(right)}")
    if not left:
        raise ValueError("no items rated")
    if any(x is None for x in left) or any(x is None for x in right):
        raise ValueError("None (a missing rating) is not allowed here; use krippendorff_alpha")
    return left, right


def sorted_labels(labels: set[Hashable]) -> list[Hashable]:
    """Labels in their natural order; mixed, unorderable types fall back to (type, repr)."""
    try:
        return sorted(labels)  # type: ignore[type-var]
    except TypeError:
        return sorted(labels, key=lambda x: (type(x).__name__, repr(x)))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (q in [0, 100]) by linear interpolation between order statistics.

    Same definition as numpy's default (``method="linear"``): with the values sorted,
    position ``(n - 1) * q / 100`` is interpolated between its neighbours. Used for latency
    p50/p95. Empty input or NaN values raise ValueError rather than returning NaN.
    """
    data = [float(v) for v in values]
    if not data:
        raise ValueError("percentile of an empty sequence")
    if any(math.isnan(v) for v in data):
        raise ValueError("percentile values contain NaN")
    if not isinstance(q, int | float) or math.isnan(q) or not 0.0 <= q <= 100.0:
        raise ValueError(f"q must be between 0 and 100, got {q!r}")
    data.sort()
    position = (len(data) - 1) * (q / 100.0)
    low = math.floor(position)
    high = min(low + 1, len(data) - 1)
    fraction = position - low
    a, b = data[low], data[high]
    if a == b or fraction == 0.0:
        return a
    # Interpolate from the nearer end, as numpy does, so the result stays within [a, b].
    if fraction < 0.5:
        return a + (b - a) * fraction
    return b - (b - a) * (1.0 - fraction)
