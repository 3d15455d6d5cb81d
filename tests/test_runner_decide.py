"""`--until-decided`: the early decision is the fixed-k decision, on every outcome sequence.

The oracle is independent of the code under test: it walks the tree of every outcome
sequence of length k and computes, bottom-up from the complete sequences (graded with the
report's own block rule), which block decisions are still reachable from each prefix.
`decide` must call a prefix decided exactly when one decision is reachable, and name it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from agenttest.results import Attempt, CriterionResult, CriticalHit
from agenttest.runner._decide import Decided, Outcome, block_decision, decide, outcome_of
from agenttest.verdicts import Rate, block_rule

P, F, E, C, U = Outcome.PASS, Outcome.FAIL, Outcome.ERROR, Outcome.CRITICAL, Outcome.UNSURE
CONCRETE = (P, F, E, C)


@cache
def fixed_k(tier: str, passed: int, failed: int, errors: int, critical: int) -> bool | None:
    """The report's decision over a complete block (critical hits are FAIL verdicts)."""
    return block_rule(tier, Rate.of(passed, failed + critical, errors), critical)[0]


def walk(tier: str, k: int, alphabet: tuple[Outcome, ...]) -> tuple[int, int, int]:
    """Check every prefix of every sequence; return (prefixes, decided early, attempts saved)."""
    checked = decided_early = saved = 0
    prefix: list[Outcome] = []
    counts = [0] * len(Outcome)  # of the prefix, kept as the walk goes (the oracle's own)

    def leaves() -> set[bool | None]:
        # an UNSURE verdict is any of PASS, FAIL, ERROR once the report reads it
        p, f, e, c, u = counts
        return {
            fixed_k(tier, p + x, f + y, e + u - x - y, c)
            for x in range(u + 1)
            for y in range(u + 1 - x)
        }

    def reachable() -> set[bool | None]:
        nonlocal checked, decided_early, saved
        if len(prefix) == k:
            out = leaves()
        else:
            out = set()
            for o in alphabet:
                prefix.append(o)
                counts[o] += 1
                out |= reachable()
                counts[o] -= 1
                prefix.pop()
        got = decide(tier, k, prefix)
        checked += 1
        if len(out) == 1:
            # decided: the decision is the one every completion reaches ...
            assert got is not None, (tier, k, prefix, out)
            assert got.passed == next(iter(out)), (tier, k, prefix, out, got)
            assert got.after == len(prefix) and got.k == k
            if len(prefix) < k:
                decided_early += 1
                saved += k - len(prefix)
        else:
            # ... and never while some attempt to come could still change it
            assert got is None, (tier, k, prefix, out, got)
        return out

    reachable()
    return checked, decided_early, saved


@pytest.mark.parametrize("tier", ["SEC", "L1"])
@pytest.mark.parametrize("k", range(1, 11))
def test_every_sequence_decides_as_fixed_k(tier: str, k: int) -> None:
    checked, early, saved = walk(tier, k, CONCRETE)
    assert checked == sum(4**n for n in range(k + 1))  # every prefix of every sequence
    if k >= 2:
        assert early > 0 and saved > 0  # precondition: the test exercised early stopping


@pytest.mark.parametrize("tier", ["SEC", "L2"])
@pytest.mark.parametrize("k", range(1, 6))
def test_judge_decided_verdicts_are_unknown(tier: str, k: int) -> None:
    # walk() asserts the decision at every prefix; pin that it saw every one of them
    checked, _early, _saved = walk(tier, k, (*CONCRETE, U))
    assert checked == sum(5**n for n in range(k + 1))


def test_the_examples_of_the_issue() -> None:
    # SEC: the first FAIL decides FAIL
    got = decide("SEC", 5, [P, F])
    assert got is not None and got.passed is False and got.after == 2 and got.curtailed
    assert decide("SEC", 5, [P, P]) is None
    # >= 80% with k = 5: two FAILs decide FAIL ...
    assert decide("L1", 5, [F]) is None
    got = decide("L1", 5, [F, P, F])
    assert got is not None and got.passed is False
    # ... but four PASSes do not decide PASS: the fifth could be an always-FAIL hit
    assert decide("L1", 5, [P, P, P, P]) is None
    assert fixed_k("L1", 4, 0, 0, 1) is False  # (the precondition of that claim)
    got = decide("L1", 5, [P, P, P, P, F])
    assert got is not None and got.passed is True and not got.curtailed
    # an always-FAIL hit decides at once
    got = decide("L1", 5, [C])
    assert got is not None and got.passed is False and got.after == 1
    assert "always-FAIL" in got.label()
    # ERRORs decide nothing
    assert decide("L1", 5, [E, E, E, E]) is None
    got = decide("L1", 5, [E] * 5)
    assert got is not None and got.passed is None


def test_too_many_outcomes_is_a_bug() -> None:
    with pytest.raises(ValueError, match="3 outcomes"):
        decide("L1", 2, [P, P, P])


def test_records_map_to_outcomes() -> None:
    def attempt(**fields: Any) -> Attempt:
        return Attempt(test_id="SEC-01", run=1, **fields)

    judge_criterion = CriterionResult(id="j", tag="JUDGE", passed=True)
    assert outcome_of(attempt(verdict="PASS", rater="rules@x")) is P
    assert outcome_of(attempt(verdict="FAIL", rater="rules@x")) is F
    assert outcome_of(attempt(verdict="FAIL", critical=[CriticalHit(rule="r")])) is C
    assert outcome_of(attempt(verdict="ERROR", error_cause="timeout")) is E
    assert outcome_of(attempt(verdict="PASS", rater="rules@x", criteria=[judge_criterion])) is P
    judged = attempt(verdict="PASS", rater="rules+openvino@x", criteria=[judge_criterion])
    assert outcome_of(judged) is U
    got = block_decision("SEC", 3, [attempt(verdict="FAIL"), None, None])
    assert isinstance(got, Decided) and got.passed is False and got.after == 1


@pytest.mark.parametrize("k", [10, 200, 1000, 10_000])
def test_a_decision_asks_the_rule_three_times_whatever_k(
    k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The decision is taken while the record is written, inside the signal shield: trying
    # every split of the open attempts asked the rule k³ times (75 s per record at k = 200,
    # a SIGTERM ignored for minutes at k = 1000).
    import agenttest.runner._decide as module

    asked = []

    def counted(tier: str, rate: Rate, critical: int) -> tuple[bool | None, str]:
        asked.append(1)
        assert len(asked) <= 100, "the rule is asked per way the block could end"
        return block_rule(tier, rate, critical)

    monkeypatch.setattr(module, "block_rule", counted)
    for tier in ("SEC", "L1"):
        for prefix in ([P, P, E], [F, U, U, P], [C], []):
            asked.clear()
            decide(tier, k, prefix)
            assert len(asked) <= 3
    assert decide("L1", k, [F] * (k // 5 + 1)) is not None  # more than 20% FAIL: decided
    assert decide("L1", k, [F] * (k // 5 - 1)) is None
