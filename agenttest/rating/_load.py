"""Who rated which attempt: the attempts of run files and every rater's newest verdict on each.

Rules, shared by ``rate`` and ``agreement``:

* An attempt is identified by (run, test id, run number); the run is the ``run_id`` of the
  file's ``run_meta`` (so a copy of a run file merges with its original instead of
  counting twice).
* A later ``attempt`` record for the same key supersedes the earlier one (a retried
  attempt). Grades given before it graded the old attempt and are dropped. A record that
  repeats the same attempt (same ``started_at``, e.g. from a copy) supersedes nothing.
* A ``grade`` whose ``attempt_started_at`` names another attempt than the current one is
  stale and dropped.
* The attempt's own ``rater`` and ``verdict`` count as one rating. Per rater the newest
  rating wins: by ``graded_at``, and by position (later files, later lines) when times tie
  or cannot be read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttest.results import (
    Attempt,
    Grade,
    ReadNotes,
    RunMeta,
    iter_records,
    slot_key,
)
from agenttest.results import parse_timestamp as _stamp
from agenttest.verdicts import is_retry, is_stale

VERDICTS = ("PASS", "FAIL", "ERROR", "UNDECIDED")

UnitKey = tuple[str, str, int]  # (run id, test id, run number)


@dataclass
class Rating:
    verdict: str
    stamp: float | None
    position: int  # global order of the record across all files read
    undecided: bool = False  # a judge left one of its JUDGE criteria to a human


#: How a judge's abstention reads in a criterion's evidence note (grading/_state_criteria).
UNDECIDED_NOTE = ": UNDECIDED"


def judge_undecided(record: Attempt | Grade) -> bool:
    """Did the judge abstain on a JUDGE criterion of this attempt or grade record?"""
    for c in record.criteria:
        if c.tag != "JUDGE" or c.passed is not None or c.evidence is None:
            continue
        note = c.evidence.note
        if note is not None and UNDECIDED_NOTE in note:
            return True
    return False


@dataclass
class Unit:
    """One attempt and the newest rating of every rater on it."""

    key: UnitKey
    path: str
    attempt: Attempt
    ratings: dict[str, Rating] = field(default_factory=dict)

    @property
    def test_id(self) -> str:
        return self.key[1]

    @property
    def run(self) -> int:
        return self.key[2]

    def verdicts(self) -> dict[str, str]:
        return {rater: rating.verdict for rater, rating in self.ratings.items()}

    def judge_undecided(self) -> bool:
        """A judge's newest grade left a JUDGE criterion of this attempt to a human."""
        return any(r.undecided for rater, r in self.ratings.items() if "+" in rater)

    def awaiting(self) -> bool:
        """No verdict yet: its grade is UNDECIDED (a deciding criterion waits for a rating)
        or a judge left a JUDGE criterion to a human; a person's rating settles it."""
        return self.judge_undecided() or any(
            r.verdict == "UNDECIDED" for r in self.ratings.values()
        )


@dataclass
class Collection:
    units: dict[UnitKey, Unit] = field(default_factory=dict)
    metas: dict[str, RunMeta] = field(default_factory=dict)  # run id -> run_meta
    paths: list[str] = field(default_factory=list)
    superseded: int = 0
    stale_grades: int = 0
    orphan_grades: int = 0
    malformed: int = 0
    notes: list[str] = field(default_factory=list)

    def messages(self) -> list[str]:
        out = list(self.notes)
        if self.superseded:
            out.append(f"{self.superseded} attempt(s) were superseded by a later attempt record")
        if self.stale_grades:
            out.append(f"{self.stale_grades} grade(s) of superseded attempts were left out")
        if self.orphan_grades:
            out.append(
                f"{self.orphan_grades} grade(s) name no attempt in the files and were left out"
            )
        if self.malformed:
            out.append(
                f"{self.malformed} record(s) without a test id, run number, rater or verdict were skipped"
            )
        return out


def _offer(unit: Unit, rater: str, rating: Rating) -> None:
    previous = unit.ratings.get(rater)
    if (
        previous is not None
        and rating.stamp is not None
        and previous.stamp is not None
        and rating.stamp < previous.stamp
    ):
        return
    unit.ratings[rater] = rating


def collect(paths: Iterable[str | Path]) -> Collection:
    """Read run files (streaming) into units with their raters' newest verdicts."""
    out = Collection()
    seen_paths: set[Path] = set()
    position = 0
    pending: dict[UnitKey, list[tuple[str, Rating, Any]]] = {}
    for raw in paths:
        path = Path(raw)
        resolved = path.resolve()
        if resolved in seen_paths:
            out.notes.append(f"{path} was given twice; read once")
            continue
        seen_paths.add(resolved)
        out.paths.append(str(path))
        notes = ReadNotes(str(path))
        run_id = str(path)
        for record in iter_records(path, notes):
            position += 1
            if isinstance(record, RunMeta):
                run_id = record.run_id or str(path)
                out.metas.setdefault(run_id, record)
                continue
            if not isinstance(record, Attempt | Grade):
                continue
            # (test_id and run are typed and required: the reader skips a record without)
            key = slot_key(run_id, record.agent, record.test_id, record.run)
            if isinstance(record, Attempt):
                _attempt(out, key, str(path), record, position)
                for held_by, rating, started in pending.pop(key, []):
                    _grade(out, key, held_by, rating, started)
            else:
                grader, verdict = record.rater, record.verdict
                if not grader or verdict is None:
                    out.malformed += 1
                    continue
                rating = Rating(
                    verdict, _stamp(record.graded_at), position, judge_undecided(record)
                )
                started = record.attempt_started_at
                if key in out.units:
                    _grade(out, key, grader, rating, started)
                else:  # a grade before its attempt (merged files): hold it until the end
                    pending.setdefault(key, []).append((grader, rating, started))
        out.notes.extend(notes.messages())
    out.orphan_grades += sum(len(v) for v in pending.values())
    return out


def _attempt(out: Collection, key: UnitKey, path: str, record: Attempt, position: int) -> None:
    rater = record.rater or "unknown"
    verdict = record.verdict
    current = out.units.get(key)
    if current is not None and not is_retry(current.attempt.started_at, record.started_at):
        unit = current  # the same attempt again (a copy of the file): keep its grades
        unit.attempt = record
    else:
        if current is not None:
            out.superseded += 1
            out.stale_grades += sum(1 for r in current.ratings if r != current.attempt.rater)
        unit = Unit(key, path, record)
        out.units[key] = unit
    if verdict is not None:
        stamp = _stamp(record.completed_at)
        _offer(unit, rater, Rating(verdict, stamp, position, judge_undecided(record)))


def _grade(out: Collection, key: UnitKey, rater: str, rating: Rating, started: Any) -> None:
    unit = out.units[key]
    if is_stale(started, unit.attempt.started_at):
        out.stale_grades += 1
        return
    _offer(unit, rater, rating)
