"""Which verdict counts: the one definition reporting and rating share (issue 12, class 10).

A stored attempt (or grade) record carries the methodology verdict in ``verdict`` and, beside
it, the agenttest-origin criteria that failed without counting (``strict_warnings``, see
docs/grading.md "Which criteria count"). :func:`counted_verdict` turns a record into the
verdict a reader counts, with or without ``--strict``; :class:`TrustCounts` gathers what the
report shows about it: strict-check warnings per block and the attempts graded without the
block's fixtures. Library only (no CLI imports).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TrustCounts", "TrustSummary", "counted_verdict", "strict_failures"]


def strict_failures(rec: Mapping[str, Any]) -> tuple[int, int]:
    """(failed, undecided) agenttest-origin criteria the record's verdict left out."""
    failed = undecided = 0
    for w in rec.get("strict_warnings") or ():
        if isinstance(w, Mapping) and w.get("state") == "undecided":
            undecided += 1
        else:
            failed += 1
    return failed, undecided


def counted_verdict(rec: Mapping[str, Any], strict: bool = False) -> Any:
    """The verdict that counts for ``rec``.

    Without ``strict`` it is the stored (methodology) verdict. With ``strict`` the warnings
    count as the grader's own ``--strict`` would: a failed one makes the attempt FAIL, an
    undecided one turns a PASS into ERROR (``ungraded``); a FAIL or ERROR stays as it is.
    """
    verdict = rec.get("verdict")
    if not strict or verdict not in ("PASS", "ERROR"):
        return verdict
    failed, undecided = strict_failures(rec)
    if failed and (verdict == "PASS" or rec.get("error_cause") == "ungraded"):
        return "FAIL"
    if undecided and verdict == "PASS":
        return "ERROR"
    return verdict


@dataclass(frozen=True)
class TrustSummary:
    """What the report shows beside the methodology verdicts."""

    strict: bool
    warnings: int  # strict-check warnings over the counted attempts
    attempts_with_warnings: int
    by_block: tuple[tuple[str, int], ...]  # (test id, warnings), most first
    without_fixtures: int  # attempts graded with the fixture-free rules
    precondition_errors: int  # ERROR (precondition): the block's premise did not hold


@dataclass
class TrustCounts:
    """Per-slot facts, kept for the newest attempt of each slot (a retry replaces them)."""

    slots: dict[Any, tuple[str, int, bool, bool]] = field(default_factory=dict)

    def add(self, key: Any, test_id: str, rec: Mapping[str, Any]) -> None:
        failed, undecided = strict_failures(rec)
        self.slots[key] = (
            test_id,
            failed + undecided,
            rec.get("fixtures_applied") is False,
            rec.get("error_cause") == "precondition",
        )

    def summary(self, strict: bool) -> TrustSummary:
        by_block: Counter[str] = Counter()
        with_warnings = unfixed = precondition = 0
        for test_id, warnings, no_fixtures, pre in self.slots.values():
            if warnings:
                by_block[test_id] += warnings
                with_warnings += 1
            unfixed += no_fixtures
            precondition += pre
        return TrustSummary(
            strict=strict,
            warnings=sum(by_block.values()),
            attempts_with_warnings=with_warnings,
            by_block=tuple(sorted(by_block.items(), key=lambda kv: (-kv[1], kv[0]))),
            without_fixtures=unfixed,
            precondition_errors=precondition,
        )
