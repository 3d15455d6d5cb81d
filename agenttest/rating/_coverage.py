"""Judge coverage: of the JUDGE criteria a judge was asked, how many it decided.

A judge may abstain (``UNDECIDED``): the criterion stays ungraded and the attempt goes to
human rating (``agenttest rate --undecided``). Its κ against humans is therefore measured
on the attempts it decided, and must be read together with this coverage: a judge that
decides 5 % of what it is asked proves little, however high its κ.

Counted from the newest record (attempt or grade) of each judge rater per attempt: every
JUDGE criterion whose evidence names the judge (``judge NAME: VERDICT``) was asked; it was
decided unless the judge said UNDECIDED or could not decide (ERROR). The kind (``act``,
``covers``, ``consistent``; ``other`` for an untyped request or an empty reply) is read off
the evidence text the judge wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agenttest.results import (
    Attempt,
    CriterionResult,
    Grade,
    ReadNotes,
    SlotKey,
    iter_records,
    slot_key,
)

_JUDGE_NOTE = re.compile(r"judge [\w.:@+-]+: (PASS|FAIL|ERROR|UNDECIDED)\b")
_KIND = re.compile(r"^(act|covers|consistent):")


@dataclass
class Coverage:
    rater: str
    asked: int = 0
    decided: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [decided, asked]

    @property
    def share(self) -> float | None:
        return self.decided / self.asked if self.asked else None

    def line(self) -> str:
        share = f"{self.share:.0%}" if self.share is not None else "—"
        kinds = ", ".join(f"{k} {d}/{a}" for k, (d, a) in sorted(self.by_kind.items()))
        return (
            f"{self.rater}: decided {self.decided} of {self.asked} JUDGE criteria asked "
            f"({share})" + (f" — {kinds}" if kinds else "")
        )


def _judged(criteria: Iterable[CriterionResult]) -> Iterable[tuple[str, bool]]:
    for c in criteria:
        if c.tag != "JUDGE" or c.evidence is None:
            continue
        found = _JUDGE_NOTE.search(c.evidence.note or "")
        if found is None:
            continue
        kind = _KIND.match(c.evidence.text or "")
        yield (kind.group(1) if kind else "other"), found.group(1) in ("PASS", "FAIL")


#: One record's JUDGE criteria as (kind, decided), for callers that read the records themselves.
judged = _judged


def judge_coverage(paths: Iterable[str | Path]) -> list[Coverage]:
    """Coverage per judge rater over the run files (newest record per attempt)."""
    newest: dict[tuple[SlotKey, str], list[CriterionResult]] = {}  # (slot, rater)
    for path in paths:
        for record in iter_records(Path(path), ReadNotes(str(path))):
            if not isinstance(record, Attempt | Grade):
                continue
            rater = record.rater or ""
            if "+" not in rater:  # only rules+JUDGE raters ask a judge
                continue
            # a --parity run's two agents answer the same (test, run): both count
            key = slot_key(str(path), record.agent, record.test_id, record.run)
            newest[(key, rater)] = list(record.criteria)
    out: dict[str, Coverage] = {}
    for (_, rater), criteria in newest.items():
        row = out.setdefault(rater, Coverage(rater))
        for kind, decided in _judged(criteria):
            row.asked += 1
            row.decided += decided
            tally = row.by_kind.setdefault(kind, [0, 0])
            tally[0] += decided
            tally[1] += 1
    return [out[r] for r in sorted(out) if out[r].asked]
