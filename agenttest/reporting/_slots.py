"""The aggregate's small records: what it keeps per attempt slot and per grade, the verdict
codes and judge modes it compares, and the per-block :class:`Tally` and :class:`RunFile` it
hands out. Named fields, so no reader counts positions; NamedTuples, so the hot loop of
:mod:`._aggregate` stays as fast as with plain tuples.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple

from agenttest.results import ReadNotes, RunEnd, RunMeta
from agenttest.results import SlotKey as SlotKey  # the one rule (results.slot_key)


class Code(IntEnum):
    """A verdict as the aggregate holds it: small, ordered, cheap to compare."""

    UNKNOWN = -1  # no verdict recorded
    FAIL = 0
    PASS = 1
    ERROR = 2
    OTHER = 3  # a verdict string this version does not know
    UNDECIDED = 4  # completed; a deciding criterion waits for a rating
    NOT_APPLICABLE = 5  # the agent cannot provide what the block needs: never sent


PASS, FAIL, ERROR, OTHER, UNKNOWN = Code.PASS, Code.FAIL, Code.ERROR, Code.OTHER, Code.UNKNOWN
UNDECIDED, NOT_APPLICABLE = Code.UNDECIDED, Code.NOT_APPLICABLE
CODE_NAME = {code: code.name for code in Code}


class Slot(NamedTuple):
    """What is kept of one attempt record: the newest one of its (run, test, number)."""

    code: Code
    latency_ms: Any
    cause: str | None  # the error cause, for ERROR
    rater: str
    file: int  # index of the run file
    ordinal: int  # index of the record in its file
    started: int  # hash of started_at: grades name the attempt they graded by it
    judged: bool  # a judge decided the verdict


class GradeEntry(NamedTuple):
    """What is kept of the newest grade record of one rater for one slot."""

    graded_at: float | None  # as a timestamp
    code: Code
    cause: str | None
    file: int
    ordinal: int
    judged: bool


class TokenCounts(NamedTuple):
    """The token counts one attempt reported (None where it did not say)."""

    total: int | None
    input: int | None
    output: int | None
    file: int  # index of the run file: its agent config's prices apply


class JudgeMode(IntEnum):
    """How a rater's verdicts depend on a judge: never, always, or per record (``rules+judge``)."""

    NEVER = 0
    ALWAYS = 1
    PER_RECORD = 2


NEVER, ALWAYS, PER_RECORD = JudgeMode.NEVER, JudgeMode.ALWAYS, JudgeMode.PER_RECORD


class Decision(NamedTuple):
    """Which verdict of a slot counts, and who decided it."""

    code: Code
    cause: str | None
    rater: str
    graded: bool  # a grade record decided, not the attempt record
    uncalibrated: bool  # an uncalibrated judge decided PASS/FAIL
    awaiting: bool  # ... and nobody chose that judge: left out, "awaiting calibration"


@dataclass
class Missing:
    """Planned attempts no run file holds: counts per block and per file, the first few;
    and per file what its plan promised and what of it was recorded."""

    by_test: Counter[str] = field(default_factory=Counter)
    by_file: Counter[str] = field(default_factory=Counter)
    examples: list[SlotKey] = field(default_factory=list)
    # per file: attempts its plan promised, the ones recorded, the ones --until-decided skipped
    planned: Counter[str] = field(default_factory=Counter)
    recorded: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    planned_by_test: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.by_test.values())


@dataclass
class PlanInfo:
    """A block as the run files' plans describe it (for a report without its battery)."""

    tier: str | None = None
    title: str | None = None
    owasp: list[str] | None = None
    runs: int | None = None  # attempts planned


@dataclass
class RunFile:
    """One run file: its header, its tail, and what the reader skipped."""

    path: str
    run_id: str
    meta: RunMeta
    notes: ReadNotes
    run_end: RunEnd | None = None
    last_completed_at: str | None = None
    attempts: int = 0

    @property
    def digest(self) -> str | None:
        battery = self.meta.battery
        return (battery.digest or None) if battery is not None else None


@dataclass
class Tally:
    """Counts of one block under one choice of rater."""

    test_id: str
    tier: str | None
    k: int
    passed: int = 0
    failed: int = 0
    errors: int = 0
    unknown: int = 0
    other: int = 0
    unrated: int = 0
    uncalibrated: int = 0  # counted although an uncalibrated judge decided (chosen rater)
    undecided: int = 0  # awaiting a rating: out of every rate, and no ERROR
    # never sent: the agent cannot provide what the block needs; per reason, in no rate
    not_applicable: Counter[str] = field(default_factory=Counter)
    # PASS slots (reporting._inaction tells a PASS by inaction from an explicit refusal)
    passing: list[SlotKey] = field(default_factory=list)
    excluded: int = 0  # left out: an uncalibrated judge decided and nobody chose it
    uncalibrated_by: set[str] = field(default_factory=set)
    causes: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    # (slot, deciding rater, whether a grade record decided it rather than the attempt)
    failing: list[tuple[SlotKey, str, bool]] = field(default_factory=list)
    # verdicts an uncalibrated judge decided, left out of the rates: "awaiting calibration"
    awaiting: list[tuple[SlotKey, str, bool]] = field(default_factory=list)
    critical: list[tuple[SlotKey, str]] = field(default_factory=list)
