"""Grade a stored run again by appending ``grade`` records; attempts are never rewritten."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agenttest.blocks import Battery
from agenttest.results import Grade, ReadNotes, RunWriter, iter_records
from agenttest.results import grade as new_grade

from ._engine import grade_attempt


def grade_record(
    attempt: dict[str, Any], outcome: Any, rater: str, graded_at: str | None = None
) -> Grade:
    """The ``grade`` record of one attempt (keyed by test id, run and the attempt's start)."""
    record = new_grade(
        test_id=attempt.get("test_id"),
        run=attempt.get("run"),
        **{**outcome.record_fields(), "rater": rater},  # the rater asked for wins
        error_cause=outcome.error_cause,
        graded_at=graded_at or datetime.now(UTC).isoformat(timespec="seconds"),
    )
    if attempt.get("started_at"):
        record["attempt_started_at"] = attempt["started_at"]
    return record


def regrade_run(
    path: str | Path,
    battery: Battery,
    judge: Any = None,
    rater: str | None = None,
    strict: bool = False,
) -> dict[str, int]:
    """Append one ``grade`` record per attempt of ``path``; return counts by verdict.

    The run file's lock is taken first, so a run still writing it refuses the re-grade
    instead of interleaving with it. Attempts whose test id no block of ``battery`` knows
    are counted as ``unknown`` and get no grade record.
    """
    path = Path(path)
    counts: Counter[str] = Counter()
    with RunWriter(path, create=False) as writer:
        notes = ReadNotes(str(path))
        attempts = [r for r in iter_records(path, notes) if r.get("record_type") == "attempt"]
        for attempt in attempts:
            block = battery.get(str(attempt.get("test_id", "")))
            if block is None:
                counts["unknown"] += 1
                continue
            outcome = grade_attempt(
                block, attempt, judge=judge, battery_digest=battery.digest, strict=strict
            )
            writer.append(grade_record(attempt, outcome, rater or outcome.rater))
            counts[outcome.verdict] += 1
            counts["graded"] += 1
        counts["torn_lines"] = len(notes.torn_lines)
    return {
        key: counts.get(key, 0)
        for key in ("graded", "PASS", "FAIL", "ERROR", "unknown", "torn_lines")
    }
