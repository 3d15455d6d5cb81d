"""Grade a stored run again by appending ``grade`` records; attempts are never rewritten."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agenttest.blocks import Battery, load_battery
from agenttest.errors import UsageError
from agenttest.results import (
    Attempt,
    BatteryInfo,
    Grade,
    ReadNotes,
    RunWriter,
    iter_records,
    read_run_meta,
    tie_to_attempt,
)

from ._engine import GradeOutcome, grade_attempt

if TYPE_CHECKING:
    from agenttest.judges import Judge


def grade_record(
    attempt: Attempt, outcome: GradeOutcome, rater: str, graded_at: str | None = None
) -> Grade:
    """The ``grade`` record of one attempt (keyed by test id, run and the attempt's start)."""
    grade = Grade(
        test_id=attempt.test_id,
        run=attempt.run,
        error_cause=outcome.error_cause,
        graded_at=graded_at or datetime.now(UTC).isoformat(timespec="seconds"),
    )
    outcome.write_into(grade)
    grade.rater = rater  # the rater asked for wins over the outcome's own
    return tie_to_attempt(grade, attempt)


def regrade_run(
    path: str | Path,
    battery: Battery,
    judge: Judge | None = None,
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
        attempts = [r for r in iter_records(path, notes) if isinstance(r, Attempt)]
        for attempt in attempts:
            block = battery.get(attempt.test_id)
            if block is None:
                counts["unknown"] += 1
                continue
            if attempt.verdict == "NOT_APPLICABLE":  # never sent: nothing to grade
                counts["NOT_APPLICABLE"] += 1
                continue
            outcome = grade_attempt(
                block, attempt, judge=judge, battery_digest=battery.digest, strict=strict
            )
            writer.append(grade_record(attempt, outcome, rater or outcome.rater))
            counts[outcome.verdict] += 1
            counts["graded"] += 1
        counts["torn_lines"] = notes.torn
    return {
        key: counts.get(key, 0)
        for key in (
            "graded",
            "PASS",
            "FAIL",
            "ERROR",
            "UNDECIDED",
            "NOT_APPLICABLE",
            "unknown",
            "torn_lines",
        )
    }


@dataclass(frozen=True)
class Regraded:
    """What :func:`regrade` did: counts by verdict (as :func:`regrade_run`) and the battery."""

    counts: dict[str, int]
    digest: str  # of the battery the attempts were graded with


def regrade_battery(
    path: str | Path, battery: Sequence[str | Path] = (), overlay: str | Path | None = None
) -> Battery:
    """The battery a re-grade of ``path`` uses: ``battery`` paths when given, else the ones
    its ``run_meta`` recorded. The overlay is ``overlay`` when given; else the recorded one,
    but only with the recorded paths (an overlay written for other blocks may not fit)."""
    recorded = read_run_meta(path).battery or BatteryInfo()
    paths = [str(p) for p in battery] or list(recorded.paths)
    if not paths:
        raise UsageError(f"{path} names no battery paths; pass --battery PATH")
    ov = str(overlay) if overlay else (None if battery else recorded.overlay)
    return load_battery(paths, overlay=ov)


def regrade(
    path: str | Path,
    battery: Sequence[str | Path] = (),
    overlay: str | Path | None = None,
    judge: Judge | str | None = None,
    rater: str | None = None,
    strict: bool = False,
    judge_options: Mapping[str, object] | None = None,
) -> Regraded:
    """``agenttest grade``: choose the battery (:func:`regrade_battery`), then append one
    ``grade`` record per attempt (:func:`regrade_run`). ``judge`` may be a judge's name; it
    is built once the battery has loaded (a bad battery is reported before a missing model),
    with ``judge_options``."""
    loaded = regrade_battery(path, battery, overlay)
    if isinstance(judge, str):
        from agenttest.judges import get_judge

        judge = get_judge(judge, **dict(judge_options or {})) if judge else None
    counts = regrade_run(path, loaded, judge=judge, rater=rater, strict=strict)
    return Regraded(counts, loaded.digest)
