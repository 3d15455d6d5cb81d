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
