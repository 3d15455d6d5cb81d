"""What a record's `rater` name says, and record timestamps: one reading for every consumer
(reports, agreement, rating)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

HUMAN_PREFIX = "human:"
#: Rater names the runner uses when it records an ERROR itself: not a grader.
HARNESS_RATERS = frozenset({"harness", "ungraded", "unknown"})


def rater_kind(name: str) -> str:
    """``human`` (``human:*``), ``rules`` (``rules``, ``rules@<digest>``), ``harness`` (the
    runner recording an ERROR) or ``judge`` (everything else, ``rules+<judge>@…`` included:
    a judge decided its JUDGE criteria, so it needs calibrating against humans)."""
    if name.startswith(HUMAN_PREFIX):
        return "human"
    if name in HARNESS_RATERS:
        return "harness"
    if name == "rules" or name.startswith("rules@"):
        return "rules"
    return "judge"


def parse_timestamp(value: Any) -> float | None:
    """Seconds since the epoch of an ISO-8601 text (naive means UTC); None if unreadable."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


#: Methodology §2.3/§2.5: a judge's verdicts count only once Cohen's κ against human
#: ratings is at least 0.6 over at least 20 shared attempts.
KAPPA_THRESHOLD = 0.6
MIN_CALIBRATION_SAMPLES = 20


def calibration(human_pairs: list[tuple[str, int, float | None]]) -> tuple[bool, str]:
    """Whether a judge is calibrated, from its agreement with each human rater.

    ``human_pairs`` holds (human rater, shared PASS/FAIL attempts, κ or None when κ is
    undefined because every shared attempt got one label). The judge is calibrated when at
    least one human shares enough attempts and κ ≥ 0.6 against *every* human who does;
    humans with fewer shared attempts count neither way. One rule for reports and
    `agenttest agreement`, so the two can never disagree.
    """
    if not human_pairs:
        return False, "no human ratings to calibrate against (add some with `agenttest rate`)"
    enough = [p for p in human_pairs if p[1] >= MIN_CALIBRATION_SAMPLES]
    if not enough:
        most = max(n for _h, n, _k in human_pairs)
        return False, (
            f"only {most} attempt(s) shared with a human; calibration needs "
            f"≥ {MIN_CALIBRATION_SAMPLES}"
        )
    failing = []
    for human, n, kappa in sorted(enough):
        if kappa is None:
            failing.append(f"vs {human}: every shared attempt got one label, κ undefined (n={n})")
        elif kappa < KAPPA_THRESHOLD:
            failing.append(f"κ {kappa:.2f} vs {human} (n={n}) < {KAPPA_THRESHOLD}")
    if failing:
        return False, "; ".join(failing)
    return True, ", ".join(f"κ {k:.2f} vs {h} (n={n})" for h, n, k in sorted(enough))
