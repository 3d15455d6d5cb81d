"""Tokens and cost per block, from the counts attempts reported (``cost_tokens``, ``usage``)
and the prices in the run's agent config (``prices:``, per million tokens)."""

from __future__ import annotations

from typing import NamedTuple

from agenttest.results import RunMeta

from ._aggregate import Aggregator
from ._model import Usage


class _Prices(NamedTuple):
    input: float  # per million tokens
    output: float
    currency: str


def _prices(meta: RunMeta) -> _Prices | None:
    prices = meta.agent.get("prices")  # the agent's config: free-form, as the user wrote it
    if not isinstance(prices, dict):
        return None
    try:
        pin, pout = (
            float(prices.get("input_per_mtok") or 0),
            float(prices.get("output_per_mtok") or 0),
        )
    except (TypeError, ValueError):
        return None
    return _Prices(pin, pout, str(prices.get("currency") or "USD"))


def block_usage(agg: Aggregator) -> dict[str, Usage]:
    """Per block: tokens the attempts reported, and what they cost at the run's prices."""
    prices = [_prices(f.meta) for f in agg.files]
    per_block: dict[str, list[Usage | None]] = {}
    for key, counts in agg.usage.items():
        total, inp, out = counts.total, counts.input, counts.output
        if key not in agg.slots or total is None:
            continue
        price = prices[counts.file]
        cost = None
        if price is not None and inp is not None and out is not None:
            cost = (inp * price.input + out * price.output) / 1_000_000
        one = Usage(
            1, total, inp, out, cost, price.currency if price and cost is not None else None
        )
        per_block.setdefault(key[1], []).append(one)
    return {t: u for t, parts in per_block.items() if (u := Usage.total(parts)) is not None}
