"""Exact early stopping (``--until-decided``): stop repeating a block once its decision is known.

A block's decision is the block rule (:func:`agenttest.verdicts.block_rule`)
over all its k attempts. After n of them, the rule's answer is *decided* when every way
the remaining k − n attempts could still end — each one PASS, FAIL, ERROR or an
always-FAIL hit — gives the same answer. Then those attempts cannot change anything and
are skipped. Nothing is estimated: the decision equals the fixed-k decision by
construction (``tests/test_runner_decide.py`` checks every outcome sequence for k = 1…10).

The rule is called, not restated, so a change to how reports decide a block changes this
too. What follows from the rule today:

* SEC (zero tolerance): the first FAIL decides FAIL; PASS is only known after all k.
* every other tier (pass@1 ≥ 80%): with k = 5, two FAILs decide FAIL.
* an always-FAIL hit decides FAIL at once, in every tier.
* PASS is never decided early: the always-FAIL rules apply to every attempt, so any
  attempt still to come could be a hit that turns the block to FAIL.
* ERROR never counts in a rate, so ERRORs decide nothing and cannot undo a decision.

A verdict a judge decided may be left out of the report (an uncalibrated judge) or
replaced by a regrade, so it is treated as unknown: it may become PASS, FAIL or ERROR.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from functools import lru_cache
from typing import NamedTuple

from agenttest.results import Attempt, rater_kind
from agenttest.results import Decided as DecidedNote
from agenttest.verdicts import Rate, block_rule

from ._plan import Key, PlanItem


class Outcome(IntEnum):
    PASS = 0
    FAIL = 1
    ERROR = 2
    CRITICAL = 3  # FAIL with an always-FAIL hit
    UNSURE = 4  # decided by a judge: the report may count it, drop it, or a regrade change it


P, F, E, C, U = Outcome


class Decided(NamedTuple):
    """A block whose rule answer can no longer change within its k."""

    passed: bool | None  # the block rule's answer (None: no gradable attempt)
    after: int  # attempts that had outcomes when it was decided
    k: int
    reason: str

    @property
    def curtailed(self) -> bool:
        return self.after < self.k

    def label(self) -> str:
        word = {True: "PASS", False: "FAIL", None: "no data"}[self.passed]
        return f"decided {word} after {self.after} of {self.k}: {self.reason}"


def outcome_of(record: Attempt) -> Outcome:
    """An attempt record's outcome as far as the block rule is concerned."""
    if record.verdict == "FAIL" and record.critical:
        return Outcome.CRITICAL
    judged = any(c.tag == "JUDGE" and c.passed is not None for c in record.criteria)
    if judged and rater_kind(record.rater or "") == "judge":
        return Outcome.UNSURE
    if record.verdict == "PASS":
        return Outcome.PASS
    if record.verdict == "FAIL":
        return Outcome.FAIL
    return Outcome.ERROR  # ERROR, or anything a report would not count as PASS/FAIL


def _answer(
    tier: str, passed: int, failed: int, errors: int, critical: int
) -> tuple[bool | None, str]:
    return block_rule(tier, Rate.of(passed, failed + critical, errors), critical)


@lru_cache(maxsize=65536)
def _decide(tier: str, k: int, counts: tuple[int, int, int, int, int]) -> Decided | None:
    """Three calls of the rule, whatever k: the best the attempts to come could give (every
    open one a PASS), the worst (every one not yet run an always-FAIL hit, every UNSURE a
    FAIL) and the emptiest (every open one an ERROR). The rule answers no better for fewer
    PASSes or more FAILs, and "no gradable attempt" only where nothing is gradable, so every
    other way the block could end answers like one of the three: the decision is known
    exactly when the three agree. (Every split of the open attempts was tried before: k³
    calls, 75 s per record at k = 200, inside the signal shield.) The oracle in
    tests/test_runner_decide.py walks every outcome sequence and holds this to the rule."""
    p, f, e, c, unsure = counts
    seen = p + f + e + c + unsure
    remaining = k - seen
    if remaining < 0:
        raise ValueError(f"{seen} outcomes for a block of k={k}")
    best, reason = _answer(tier, p + remaining + unsure, f, e, c)
    if remaining:
        worst, _ = _answer(tier, p, f, e, c + remaining)
    else:
        worst, _ = _answer(tier, p, f + unsure, e, c)
    emptiest, _ = _answer(tier, p, f, e + remaining + unsure, c)
    if not best == worst == emptiest:
        return None
    passed = best
    if remaining == 0 and unsure == 0:
        return Decided(passed, seen, k, reason)
    if passed is False and c:
        reason = f"{c} always-FAIL hit(s) (methodology §3.3)"
    elif passed is False:
        reason = f"{f} FAIL(s) of {k}: the rule fails whatever the other {remaining} give"
    return Decided(passed, seen, k, reason)


def decide(tier: str, k: int, outcomes: Iterable[Outcome]) -> Decided | None:
    """The block's decision if the outcomes so far fix it for all k attempts, else None.

    With all k outcomes known (and none UNSURE) this is simply the fixed-k decision.
    """
    seen = outcomes if isinstance(outcomes, list) else list(outcomes)
    if len(seen) > k:
        raise ValueError(f"{len(seen)} outcomes for a block of k={k}")
    counts = (seen.count(P), seen.count(F), seen.count(E), seen.count(C), seen.count(U))
    return _decide(tier, k, counts)


def block_decision(tier: str, k: int, records: Sequence[Attempt | None]) -> Decided | None:
    """:func:`decide` over a block's latest attempt records (None for attempts not run)."""
    return decide(tier, k, (outcome_of(r) for r in records if r is not None))


class EarlyStop:
    """Which planned attempts ``--until-decided`` skips, as the run goes.

    An attempt counts once its record stands: recorded and not about to be run again
    (``--retry-errors`` re-rolls an ERROR, so until then that slot is still open).
    Attempts in flight are never skipped; their records are kept when they arrive.
    """

    def __init__(
        self,
        plan: Sequence[PlanItem],
        latest: dict[Key, Attempt],
        pending: Iterable[Key],
        enabled: bool,
    ) -> None:
        self.enabled = enabled
        self.latest = latest
        self.pending = set(pending)
        self.runs: dict[str, list[PlanItem]] = {}
        for item in plan:
            self.runs.setdefault(item.block.id, []).append(item)
        self.skipped: dict[Key, str] = {}

    def _decision(self, item: PlanItem) -> Decided | None:
        standing = [
            self.latest.get(i.key) for i in self.runs[item.block.id] if i.key not in self.pending
        ]
        return block_decision(item.block.tier, item.k, standing)

    def skip(self, item: PlanItem) -> Decided | None:
        """The decision that makes ``item`` unnecessary, or None to run it."""
        if not self.enabled:
            return None
        decided = self._decision(item)
        if decided is None or not decided.curtailed:
            return None
        self.pending.discard(item.key)
        self.skipped[item.key] = decided.label()
        return decided

    def recorded(self, item: PlanItem, in_flight: Iterable[Key] = ()) -> DecidedNote | None:
        """Call once ``item``'s record is in ``latest``: the ``decided`` note for that record
        when it is the one that decided its block early, else None."""
        if not self.enabled or item.key not in self.pending:
            self.pending.discard(item.key)
            return None
        before = self._decision(item)
        self.pending.discard(item.key)
        decided = self._decision(item)
        if before is not None or decided is None or not decided.curtailed:
            return None
        busy = set(in_flight)
        rest = [i.run for i in self.runs[item.block.id] if i.key in self.pending]
        return DecidedNote(
            passed=decided.passed,
            after=decided.after,
            k=decided.k,
            reason=decided.reason,
            skipped=[r for r in rest if (item.block.id, r) not in busy],
        )
