"""The one bootstrap rule for agreement intervals (Cohen's κ of two raters)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

BOOTSTRAP_SEED = 0
BOOTSTRAP_REPLICATES = 2000
BOOTSTRAP_BUDGET = 20_000_000  # resampled items in total per pair; fewer replicates above it
BOOTSTRAP_MAX_ITEMS = 20_000


def kappa_interval(
    keys: Sequence[Any],
    left: Sequence[Hashable],
    right: Sequence[Hashable],
    *,
    seed: int = BOOTSTRAP_SEED,
    n_boot: int = BOOTSTRAP_REPLICATES,
    confidence: float = 0.95,
) -> tuple[float | None, float | None]:
    """Cohen's κ interval of two raters' labels on the same items (see the module doc)."""
    from agenttest.stats import bootstrap_kappa_interval

    n = len(keys)
    if n == 0 or n > BOOTSTRAP_MAX_ITEMS:
        return None, None
    order = sorted(range(n), key=lambda i: keys[i])
    a = [left[i] for i in order]
    b = [right[i] for i in order]
    replicates = max(200, min(n_boot, BOOTSTRAP_BUDGET // n))
    return bootstrap_kappa_interval(a, b, n_boot=replicates, seed=seed, confidence=confidence)
