"""Which verdict counts: the one definition reporting and rating share (issue 12, class 10).

``report`` (reporting/_aggregate, _raters) and ``rate``/``agreement`` (rating/_load,
_agreement) both decide with these functions:

* :func:`is_retry` — a later attempt record for the same (run id, test id, run number)
  supersedes the earlier one only when it is another attempt (another ``started_at``); the
  same attempt again (a copy of the file merged with its original) supersedes nothing and
  keeps its grades.
* :func:`is_stale` — a grade whose ``attempt_started_at`` names another attempt than the
  current one is stale and left out.
* :func:`kappa_interval` — the one bootstrap rule for agreement intervals: the shared items
  in key order, ``random.Random(BOOTSTRAP_SEED)``, ``max(200, min(n_boot, 20 000 000 // n))``
  percentile-bootstrap replicates of Cohen's κ, no interval above 20 000 shared items (κ's
  sampling error is negligible there and the resampling would dominate the report).
* :func:`counted_verdict` — the verdict a reader counts, with or without ``--strict``: a
  record carries the methodology verdict in ``verdict`` and, beside it, the agenttest-origin
  criteria that failed without counting (``strict_warnings``, docs/grading.md "Which
  criteria count"). :class:`TrustCounts` gathers what the report shows about them.

Library only (no CLI imports).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BOOTSTRAP_SEED",
    "TrustCounts",
    "TrustSummary",
    "counted_verdict",
    "is_retry",
    "is_stale",
    "kappa_interval",
    "strict_failures",
]

BOOTSTRAP_SEED = 0
BOOTSTRAP_REPLICATES = 2000
BOOTSTRAP_BUDGET = 20_000_000  # resampled items in total per pair; fewer replicates above it
BOOTSTRAP_MAX_ITEMS = 20_000


def is_retry(current_started: Any, new_started: Any) -> bool:
    """Whether a new attempt record for a slot is another attempt (it supersedes the slot)."""
    return bool(current_started != new_started)


def is_stale(graded_started: Any, attempt_started: Any) -> bool:
    """Whether a grade graded another attempt than the slot's current one."""
    return graded_started is not None and graded_started != attempt_started


def kappa_interval(
    keys: Sequence[Any],
    left: Sequence[Hashable],
    right: Sequence[Hashable],
    *,
    seed: int = BOOTSTRAP_SEED,
    n_boot: int = BOOTSTRAP_REPLICATES,
    confidence: float = 0.95,
) -> tuple[float | None, float | None]:
    """Cohen's κ interval of two raters' labels on the same items (see the module doc)."""
    from agenttest.stats import bootstrap_kappa_interval

    n = len(keys)
    if n == 0 or n > BOOTSTRAP_MAX_ITEMS:
        return None, None
    order = sorted(range(n), key=lambda i: keys[i])
    a = [left[i] for i in order]
    b = [right[i] for i in order]
    replicates = max(200, min(n_boot, BOOTSTRAP_BUDGET // n))
    return bootstrap_kappa_interval(a, b, n_boot=replicates, seed=seed, confidence=confidence)


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
