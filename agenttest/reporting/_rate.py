"""A pass rate with its Wilson interval: the one number every part of a report carries.

Apart from :mod:`._model` so that the parts the model is built from (the completeness
of a run, :mod:`._completeness`) can use it without importing the model back.
"""

from __future__ import annotations

from dataclasses import dataclass

from agenttest.stats import wilson_interval


@dataclass(frozen=True)
class Rate:
    """PASS / FAIL / ERROR counts; ``n`` = PASS + FAIL (ERROR is never in a pass rate)."""

    passed: int
    failed: int
    errors: int
    n: int
    pass_at_1: float | None
    wilson_low: float | None
    wilson_high: float | None

    @classmethod
    def of(cls, passed: int, failed: int, errors: int = 0) -> Rate:
        n = passed + failed
        if n == 0:
            return cls(passed, failed, errors, 0, None, None, None)
        low, high = wilson_interval(passed, n)
        return cls(passed, failed, errors, n, passed / n, low, high)
