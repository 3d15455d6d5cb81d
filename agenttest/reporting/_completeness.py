"""Whether the runs behind a report finished (issue 14, defect 7).

A k = 5 run killed at attempt 8 of 25 used to be reported with a completion time and
"8/8 = 100%", as if it were the published result it was planned to be. A run is
*complete* when its last ``run_end`` says ``completed`` (or that it was imported) and
every attempt its plan promised is in the file or was skipped by ``--until-decided``.
Otherwise the report says so in its header, cards, JSON and JUnit, with the counts;
``run_type`` stays what was planned. A block with fewer recorded attempts than planned is
exploratory, and its rule's answer is *settled* only when no way the missing attempts
could end would change it (a FAIL that the missing attempts, all passing, would not
rescue); an unsettled answer is no verdict (JUnit: skipped).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttest.verdicts import Rate

from ._slots import Missing, RunFile

#: ``run_end.reason`` of a run that finished its plan (an import ends "imported from …").
FINISHED = "completed"
_REASON_CHARS = 160


@dataclass(frozen=True)
class Completeness:
    """Planned, recorded and missing attempts over every run file of a report."""

    complete: bool
    planned: int
    recorded: int
    missing: int
    skipped_as_decided: int
    reasons: tuple[str, ...]  # per file: why it is incomplete


def _ended(reason: str) -> str:
    first = reason.splitlines()[0] if reason else "without a reason"
    return first if len(first) <= _REASON_CHARS else first[: _REASON_CHARS - 1] + "…"


def completeness(files: Sequence[RunFile], missing: Missing) -> Completeness:
    reasons: list[str] = []
    for f in files:
        name = Path(f.path).name
        if f.run_end is None:
            reasons.append(f"{name}: no run_end record (killed, or still running)")
        else:
            reason = f.run_end.reason or ""
            if reason != FINISHED and not reason.startswith("imported"):
                reasons.append(f"{name}: ended {_ended(reason)}")
        gaps = missing.by_file[f.path]
        if gaps:
            reasons.append(
                f"{name}: {gaps} of {missing.planned[f.path]} planned attempts not recorded"
            )
    return Completeness(
        complete=not reasons,
        planned=sum(missing.planned.values()),
        recorded=sum(missing.recorded.values()),
        missing=missing.total,
        skipped_as_decided=sum(missing.skipped.values()),
        reasons=tuple(dict.fromkeys(reasons)),
    )


Rule = Callable[[str, Rate, int], tuple[bool | None, str]]


def rule_settled(rule: Rule, tier: str, rate: Rate, critical: int, missing: int) -> bool:
    """Whether the block rule's answer holds whatever the ``missing`` attempts give.

    PASS never holds while an attempt is missing (it could be an always-FAIL hit); a
    FAIL holds when the missing attempts all passing would still fail the rule.
    """
    if missing <= 0:
        return True
    answer, _ = rule(tier, rate, critical)
    if answer is not False:
        return False
    best = Rate.of(rate.passed + missing, rate.failed, rate.errors)
    return rule(tier, best, critical)[0] is False
