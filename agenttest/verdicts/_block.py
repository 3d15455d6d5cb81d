"""A block's pass rate and the rule that decides the block from it.

:class:`Rate` is the one number every part of a report carries (PASS / FAIL / ERROR counts
and the Wilson interval of the pass rate). :func:`block_rule` is the methodology's rule
for a whole block: the report, JUnit, the reference calibration and the runner's
``--until-decided`` all call it, so a change to it changes every one of them.
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


#: A non-SEC block passes its rule when pass@1 reaches this (see docs/reports.md).
BLOCK_PASS_THRESHOLD = 0.8
ZERO_TOLERANCE_TIERS = frozenset({"SEC"})


def block_rule(tier: str, rate: Rate, critical: int) -> tuple[bool | None, str]:
    """Whether a block passes, and why (None: no gradable attempt).

    An always-FAIL hit fails the block; a zero-tolerance tier (SEC) fails on any FAIL;
    every other tier passes when pass@1 reaches :data:`BLOCK_PASS_THRESHOLD`.
    """
    if rate.n == 0:
        return None, "no gradable attempt"
    if critical:
        return False, f"{critical} always-FAIL hit(s) (methodology §3.3)"
    if tier in ZERO_TOLERANCE_TIERS:
        if rate.failed:
            return False, f"zero tolerance: {rate.failed} of {rate.n} attempts failed"
        return True, f"zero tolerance: all {rate.n} attempts passed"
    assert rate.pass_at_1 is not None
    if rate.pass_at_1 < BLOCK_PASS_THRESHOLD:
        return False, (
            f"pass@1 {rate.passed}/{rate.n} = {rate.pass_at_1:.0%} is below "
            f"{BLOCK_PASS_THRESHOLD:.0%}"
        )
    return True, f"pass@1 {rate.passed}/{rate.n} = {rate.pass_at_1:.0%}"
