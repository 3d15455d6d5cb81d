"""What the report shows beside the methodology verdicts: strict-check warnings, attempts
without fixtures, unmet preconditions (the trust section)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from agenttest.results import Attempt


@dataclass(frozen=True)
class TrustAttempt:
    """One attempt the trust section names: a strict-check warning or a failed precondition."""

    test_id: str
    run_id: str
    run: int
    criteria: tuple[str, ...]  # the criterion ids (warnings) or the unmet precondition's id
    note: str = ""  # what the precondition says and why it did not hold


@dataclass(frozen=True)
class TrustSummary:
    """What the report shows beside the methodology verdicts (Markdown, HTML and JSON)."""

    strict: bool
    warnings: int  # strict-check warnings over the counted attempts
    attempts_with_warnings: int
    by_block: tuple[tuple[str, int], ...]  # (test id, warnings), most first
    without_fixtures: int  # attempts graded with the fixture-free rules
    precondition_errors: int  # ERROR (precondition): the block's premise did not hold
    #: the attempts behind the counts, in (test id, run id, run) order
    warning_attempts: tuple[TrustAttempt, ...] = ()
    without_fixtures_by_block: tuple[tuple[str, int], ...] = ()  # (test id, attempts), most first
    precondition_attempts: tuple[TrustAttempt, ...] = ()


class _SlotTrust(NamedTuple):
    test_id: str
    warned: tuple[str, ...]  # criterion ids of the strict-check warnings
    no_fixtures: bool
    precondition: tuple[str, str] | None  # (criterion id, note) of an ERROR (precondition)


def _precondition(rec: Attempt) -> tuple[str, str] | None:
    if rec.error_cause != "precondition":
        return None
    pre = rec.precondition
    if pre is None:
        return ("?", rec.error or "")
    note = pre.evidence.note if pre.evidence is not None else None
    says = pre.says or ""
    return (pre.id or "?", f"{says}: {note}" if note else says)


def _most_first(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass
class TrustCounts:
    """Per-slot facts, kept for the newest attempt of each slot (a retry replaces them).

    Only attempts that carry something are kept (most carry nothing), so a large report
    holds a few short tuples per warned or unfixed attempt."""

    slots: dict[Any, _SlotTrust] = field(default_factory=dict)

    def add(self, key: Any, test_id: str, rec: Attempt) -> None:
        if (
            not rec.strict_warnings
            and rec.fixtures_applied is not False
            and rec.error_cause != "precondition"
        ):  # carries nothing (nearly every attempt): no tuples built per attempt of a report
            if self.slots:
                self.slots.pop(key, None)
            return
        warned = tuple(w.criterion or "?" for w in rec.strict_warnings)
        fact = _SlotTrust(test_id, warned, rec.fixtures_applied is False, _precondition(rec))
        if warned or fact.no_fixtures or fact.precondition:
            self.slots[key] = fact
        else:
            self.slots.pop(key, None)  # a retry that carries nothing replaces one that did

    def summary(self, strict: bool) -> TrustSummary:
        by_block: Counter[str] = Counter()
        unfixed: Counter[str] = Counter()
        warned: list[TrustAttempt] = []
        unmet: list[TrustAttempt] = []
        for key in sorted(self.slots, key=_slot_order):
            fact = self.slots[key]
            run_id, run = _run_of(key)
            if fact.warned:
                by_block[fact.test_id] += len(fact.warned)
                warned.append(TrustAttempt(fact.test_id, run_id, run, fact.warned))
            unfixed[fact.test_id] += fact.no_fixtures
            if fact.precondition:
                crit, note = fact.precondition
                unmet.append(TrustAttempt(fact.test_id, run_id, run, (crit,), note))
        return TrustSummary(
            strict=strict,
            warnings=sum(by_block.values()),
            attempts_with_warnings=len(warned),
            by_block=_most_first(by_block),
            without_fixtures=sum(unfixed.values()),
            precondition_errors=len(unmet),
            warning_attempts=tuple(warned),
            without_fixtures_by_block=_most_first(+unfixed),
            precondition_attempts=tuple(unmet),
        )


def _run_of(key: Any) -> tuple[str, int]:
    """(run id, run number) of a report slot key ``(run id, test id, run)``."""
    if isinstance(key, tuple) and len(key) == 3:
        return str(key[0]), int(key[2]) if isinstance(key[2], int) else 0
    return str(key), 0


def _slot_order(key: Any) -> tuple[str, str, int]:
    run_id, run = _run_of(key)
    test_id = str(key[1]) if isinstance(key, tuple) and len(key) == 3 else ""
    return (test_id, run_id, run)
