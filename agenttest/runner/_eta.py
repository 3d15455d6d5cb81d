"""How long what is left will take: observed per-attempt durations and an estimate with a range.

One estimator for every place that shows or plans a run's length: the live ETA of `run`
and `batch` (fed as attempts end) and a plan's expected duration (fed from an earlier run
file). Durations are wall seconds per attempt, kept per block and per replica:

- an attempt of a block seen before is expected to take that block's mean; any other, the
  mean of every attempt seen (a slow agent's first 20-minute attempt makes the next
  nineteen 20 minutes each, not a few seconds);
- a pool's work is divided by its live replicas, each weighted by its observed speed;
- an attempt in flight counts what is left of its expected time.

The range is a 90% interval under a log-normal model of attempt times: the uncertainty of
the mean (wide after one attempt, narrower with each one seen) and the spread of a sum of
independent attempts. Before any attempt has ended there is no estimate (``-:--:--``): a
guess from the number of turns would be a number without a unit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttest.results import Attempt, iter_records
from agenttest.results import parse_timestamp as timestamp

UNKNOWN = "-:--:--"
_Z90 = 1.645  # two-sided 90%
# Before attempts show their own spread, assume they differ by about a factor of two; the
# prior weighs as much as two observations, so a steady agent narrows the range quickly.
_PRIOR_SIGMA = math.log(2.0)
_PRIOR_WEIGHT = 2.0


def attempt_seconds(record: Attempt) -> float | None:
    """An attempt's wall duration: start to end when both are recorded, else its latency."""
    start, end = timestamp(record.started_at), timestamp(record.completed_at)
    if start is not None and end is not None and end >= start:
        return end - start
    if record.latency_ms is not None and record.latency_ms >= 0:
        return record.latency_ms / 1000
    return None


class Durations:
    """Observed per-attempt durations in seconds, per block and per replica."""

    def __init__(self) -> None:
        self.by_block: dict[str, list[float]] = {}
        self.by_replica: dict[int, list[tuple[str, float]]] = {}
        self.seconds: list[float] = []

    def add(self, block_id: str, seconds: float, replica: int | None = None) -> None:
        seconds = max(0.0, seconds)
        self.by_block.setdefault(block_id, []).append(seconds)
        self.seconds.append(seconds)
        if replica is not None:
            self.by_replica.setdefault(replica, []).append((block_id, seconds))

    def add_record(self, record: Attempt) -> bool:
        """Add a recorded attempt; False when it carries no duration."""
        seconds = attempt_seconds(record)
        if seconds is None:
            return False
        self.add(record.test_id, seconds, record.replica)
        return True

    @classmethod
    def from_records(cls, records: Iterable[object]) -> Durations:
        """From records of a run file (anything but attempts is passed over)."""
        durations = cls()
        for record in records:
            if isinstance(record, Attempt):
                durations.add_record(record)
        return durations

    @classmethod
    def from_run_file(cls, path: str | Path) -> Durations:
        """From every attempt of a run file (a baseline for a plan's expected duration)."""
        return cls.from_records(iter_records(Path(path)))

    @property
    def count(self) -> int:
        return len(self.seconds)

    def mean(self, block_id: str | None = None) -> float | None:
        """The block's mean duration (None: never seen), or every attempt's with no id."""
        values = self.seconds if block_id is None else self.by_block.get(block_id, [])
        return sum(values) / len(values) if values else None

    def expected(self, block_id: str) -> float | None:
        """One attempt of ``block_id``: its own mean, else every attempt's."""
        own = self.mean(block_id)
        return own if own is not None else self.mean()

    def speed(self, replica: int) -> float:
        """How fast a replica works against the blocks' means: 2.0 does them in half the
        time; 1.0 for one not seen yet."""
        ratios = []
        for block_id, seconds in self.by_replica.get(replica, []):
            mean = self.mean(block_id)
            if mean and seconds > 0:
                ratios.append(math.log(seconds / mean))
        return math.exp(-sum(ratios) / len(ratios)) if ratios else 1.0

    def spread(self) -> float:
        """Standard deviation of log durations, shrunk towards the prior while few are seen."""
        logs = [math.log(s) for s in self.seconds if s > 0]
        centre = sum(logs) / len(logs) if logs else 0.0
        squares = sum((x - centre) ** 2 for x in logs)
        dof = max(len(logs) - 1, 0)
        return math.sqrt((_PRIOR_WEIGHT * _PRIOR_SIGMA**2 + squares) / (_PRIOR_WEIGHT + dof))


@dataclass(frozen=True)
class Estimate:
    """Seconds left: expected, and a 90% range (low, high)."""

    low_s: float
    expected_s: float
    high_s: float
    attempts: int = 0  # attempts it covers, in flight included
    observed: int = 0  # attempts it was estimated from

    def later(self, elapsed_s: float) -> Estimate:
        """The same estimate ``elapsed_s`` seconds on: each bound less that, never below 0."""
        return Estimate(
            max(0.0, self.low_s - elapsed_s),
            max(0.0, self.expected_s - elapsed_s),
            max(0.0, self.high_s - elapsed_s),
            self.attempts,
            self.observed,
        )

    def text(self) -> str:
        """``0:40:00 (0:13:00 to 2:05:00)``."""
        if self.high_s - self.low_s < 1:
            return clock(self.expected_s)
        return f"{clock(self.expected_s)} ({clock(self.low_s)} to {clock(self.high_s)})"


def clock(seconds: float) -> str:
    """``H:MM:SS`` (hours past 24 stay hours: ``30:00:00``)."""
    minutes, secs = divmod(round(max(0.0, seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def eta_text(estimate: Estimate | None) -> str:
    """What a progress line shows: the estimate with its range, or ``-:--:--``."""
    return UNKNOWN if estimate is None else estimate.text()


def estimate_time(
    durations: Durations,
    remaining: Sequence[str],
    *,
    replicas: int | Sequence[int] = 1,
    running: Sequence[tuple[str, float]] = (),
) -> Estimate | None:
    """Seconds until ``remaining`` (block ids, one per attempt still to run) and
    ``running`` ((block id, seconds it has run so far) per attempt in flight) are done on
    ``replicas`` (a count, or the indices of the live ones, weighted by their speed).

    None before any attempt was observed, or with no live replica.
    """
    if durations.count == 0:
        return None
    live = [1.0] * replicas if isinstance(replicas, int) else [durations.speed(r) for r in replicas]
    capacity = sum(live)
    if capacity <= 0:
        return None
    work = [durations.expected(b) or 0.0 for b in remaining]
    work += [max(0.0, (durations.expected(b) or 0.0) - ran) for b, ran in running]
    total = sum(work) / capacity
    attempts = len(remaining) + len(running)
    if attempts == 0 or total <= 0:
        return Estimate(0.0, 0.0, 0.0, attempts, durations.count)
    sigma = durations.spread()
    # the mean's own uncertainty (shared by every attempt left) and a sum's spread
    relative = math.sqrt(sigma**2 / durations.count + (math.exp(sigma**2) - 1) / attempts)
    factor = math.exp(_Z90 * relative)
    return Estimate(total / factor, total, total * factor, attempts, durations.count)
