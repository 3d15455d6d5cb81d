"""Which attempt a pool runs first, and where: the longest expected first in each round,
and an attempt retried with ``--retry-errors`` away from the replica that lost it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from agenttest.results import Attempt, iter_records

from ._plan import Key, PlanItem


def expected_seconds(baseline: Path | None) -> Callable[[PlanItem], float]:
    """How long an attempt is expected to take: its block's mean latency in ``baseline``
    (an earlier run of the same battery), else its number of turns (a unitless guess)."""
    means: dict[str, float] = {}
    if baseline is not None:
        sums: dict[str, list[float]] = {}
        for record in iter_records(baseline):
            if isinstance(record, Attempt) and record.latency_ms is not None:
                sums.setdefault(record.test_id, []).append(float(record.latency_ms))
        means = {test_id: sum(v) / len(v) / 1000 for test_id, v in sums.items()}
    fallback = max(means.values(), default=0.0)  # a block the baseline lacks: assume long

    def expected(item: PlanItem) -> float:
        if baseline is None:
            return float(len(item.block.prompts()))
        return means.get(item.block.id, fallback)

    return expected


def expected_order(
    items: Sequence[PlanItem], expected_s: Callable[[PlanItem], float]
) -> list[PlanItem]:
    """Round by round (so ``--until-decided`` sees each block's early runs first), and in
    each round the longest expected attempts first, so the pool's tail is short ones."""
    return sorted(items, key=lambda i: (i.run, -expected_s(i), i.block.id))


def lost_on(latest: dict[Key, Attempt], todo: Sequence[PlanItem]) -> dict[Key, int]:
    """For ``--retry-errors``: the replica that lost each attempt about to be retried."""
    out: dict[Key, int] = {}
    for item in todo:
        held = latest.get(item.key)
        replica = held.replica if held is not None else None
        if isinstance(replica, int):
            out[item.key] = replica
    return out
