"""Which attempt and which verdict count: superseded attempts, stale grades, ``--strict``."""

from __future__ import annotations

from typing import Any

from agenttest.results import Attempt, Grade


def is_retry(current_started: Any, new_started: Any) -> bool:
    """Whether a new attempt record for a slot is another attempt (it supersedes the slot)."""
    return bool(current_started != new_started)


def is_stale(graded_started: Any, attempt_started: Any) -> bool:
    """Whether a grade graded another attempt than the slot's current one."""
    return graded_started is not None and graded_started != attempt_started


def strict_failures(rec: Attempt | Grade) -> tuple[int, int]:
    """(failed, undecided) agenttest-origin criteria the record's verdict left out."""
    undecided = sum(1 for w in rec.strict_warnings if w.state == "undecided")
    return len(rec.strict_warnings) - undecided, undecided


def counted_verdict(rec: Attempt | Grade, strict: bool = False) -> str | None:
    """The verdict that counts for ``rec``.

    Without ``strict`` it is the stored (methodology) verdict. With ``strict`` the warnings
    count as the grader's own ``--strict`` would: a failed one makes the attempt FAIL, an
    undecided one turns a PASS into UNDECIDED; a FAIL or ERROR stays as it is.
    """
    verdict = rec.verdict
    if not strict or verdict not in ("PASS", "UNDECIDED"):
        return verdict
    failed, undecided = strict_failures(rec)
    if failed:
        return "FAIL"
    if undecided and verdict == "PASS":
        return "UNDECIDED"
    return verdict
