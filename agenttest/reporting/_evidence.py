"""Which evidence decided each attempt (issue 28): the harness's record of hosted calls, the
agent's own report, or the agent's log, per block and per attempt.

Every grade records its ``evidence_source`` (agenttest.grading: ``harness`` when the attempt
ran on hosted tools, ``log`` for an import read from the agent's log, ``agent`` otherwise)
and, on hosted tools, ``evidence_notes``: calls the harness served that the agent did not
report. The sink keeps one small pair per attempt slot (a retry replaces it); the section is
left out unless some attempt was decided by the harness's record or a log (a run without
hosted tools, or written before grades said, reports as it always did).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from agenttest.results import Attempt

from ._slots import SlotKey

#: The sources in the order a reader trusts them, and what each means.
SOURCES = ("harness", "log", "agent")
MEANING = {
    "harness": "the harness's record of the hosted tool calls it served",
    "log": "the agent's log (an imported transcript)",
    "agent": "the tool calls the agent reported in its reply",
}
UNRECORDED = "unrecorded"


@dataclass(frozen=True)
class EvidenceRow:
    """One block: how many of its attempts each source decided, and the unreported calls."""

    test_id: str
    counts: tuple[tuple[str, int], ...]  # (source, attempts), in SOURCES order, then unrecorded
    unreported: int  # served calls the agent did not report, over the block's attempts

    def count(self, source: str) -> int:
        return next((n for s, n in self.counts if s == source), 0)


@dataclass(frozen=True)
class EvidenceAttempt:
    run_id: str
    test_id: str
    run: int
    source: str  # harness | log | agent | unrecorded
    unreported: int


@dataclass(frozen=True)
class EvidenceSection:
    totals: tuple[tuple[str, int], ...]
    rows: tuple[EvidenceRow, ...]
    attempts: tuple[EvidenceAttempt, ...]

    @property
    def columns(self) -> tuple[str, ...]:
        """The sources some attempt was decided by, in :data:`SOURCES` order."""
        return tuple(s for s, _ in self.totals)

    @property
    def meaning(self) -> dict[str, str]:
        return MEANING


Kept = tuple[str, int]
_PLAIN: dict[str | None, Kept] = {s: (s or UNRECORDED, 0) for s in (*SOURCES, None)}


class EvidenceSink:
    """Keeps each slot's source and unreported-call count as the report's pass reads it."""

    def __init__(self) -> None:
        self.latest: dict[SlotKey, Kept] = {}

    def attempt(self, key: SlotKey, rec: Attempt) -> None:
        notes = len(rec.evidence_notes)
        source = rec.evidence_source
        # most attempts: a shared pair, nothing built per attempt
        self.latest[key] = _PLAIN[source] if not notes else (source or UNRECORDED, notes)

    def result(self) -> EvidenceSection | None:
        """The section, or None when every attempt was decided by the agent's own report or
        did not say (a run without hosted tools reads as it always did)."""
        if not any(source in ("harness", "log") for source, _ in self.latest.values()):
            return None
        per_block: dict[str, Counter[str]] = {}
        unreported: Counter[str] = Counter()
        attempts: list[EvidenceAttempt] = []
        for (run_id, test_id, run), (source, notes) in sorted(self.latest.items()):
            per_block.setdefault(test_id, Counter())[source] += 1
            unreported[test_id] += notes
            attempts.append(EvidenceAttempt(run_id, test_id, run, source, notes))
        total: Counter[str] = Counter()
        for counts in per_block.values():
            total.update(counts)
        rows = tuple(
            EvidenceRow(test_id, _ordered(counts), unreported[test_id])
            for test_id, counts in sorted(per_block.items())
        )
        return EvidenceSection(_ordered(total), rows, tuple(attempts))


def _ordered(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple((s, counts[s]) for s in (*SOURCES, UNRECORDED) if counts[s])


def counts_text(counts: tuple[tuple[str, int], ...]) -> str:
    """``harness 3, agent 1`` (JUnit and the summary lines)."""
    return ", ".join(f"{source} {n}" for source, n in counts)
