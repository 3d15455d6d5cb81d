"""The ETA: from observed per-attempt durations (per block, per replica), with a range.

What `run`, `batch` and a plan's expected duration show. Durations are fed by hand here
(seconds), so nothing depends on the clock.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agenttest.results import Attempt, RunMeta, RunWriter
from agenttest.runner import UNKNOWN, Durations, Estimate, attempt_seconds, estimate_time, eta_text

FORM = re.compile(r"^\d+:\d\d:\d\d \(\d+:\d\d:\d\d to \d+:\d\d:\d\d\)$")


def test_no_estimate_before_the_first_attempt_ends() -> None:
    assert estimate_time(Durations(), ["L1-A-01"] * 10) is None
    assert eta_text(None) == UNKNOWN == "-:--:--"


def test_a_slow_agent_after_one_attempt_is_remaining_times_its_pace() -> None:
    # the complaint: a 20-minute-per-attempt model showed "eta 0:00:26"
    seen = Durations()
    seen.add("L1-A-01", 20 * 60)
    eta = estimate_time(seen, ["L1-A-01"] * 19)
    assert eta is not None
    assert eta.expected_s == pytest.approx(19 * 20 * 60)
    assert eta.low_s < eta.expected_s < eta.high_s
    assert eta.low_s > 19 * 60 * 5  # hours, not seconds, even at the low end
    assert FORM.match(eta.text()), eta.text()
    assert eta.text().startswith("6:20:00 (")


def test_the_estimate_scales_with_what_is_left() -> None:
    seen = Durations()
    for seconds in (9.0, 10.0, 11.0):
        seen.add("L1-A-01", seconds)
    ten, twenty = estimate_time(seen, ["L1-A-01"] * 10), estimate_time(seen, ["L1-A-01"] * 20)
    assert ten is not None and twenty is not None
    assert twenty.expected_s == pytest.approx(2 * ten.expected_s)
    assert twenty.expected_s == pytest.approx(200.0)


def test_each_block_is_expected_to_take_its_own_time_and_an_unseen_one_the_mean() -> None:
    seen = Durations()
    seen.add("FAST", 10.0)
    seen.add("SLOW", 100.0)
    slow, unseen = estimate_time(seen, ["SLOW"]), estimate_time(seen, ["NEW"])
    assert slow is not None and unseen is not None
    assert slow.expected_s == pytest.approx(100.0)
    assert unseen.expected_s == pytest.approx(55.0)


def test_the_range_narrows_as_steady_attempts_are_seen() -> None:
    one, many = Durations(), Durations()
    one.add("A", 30.0)
    for i in range(20):
        many.add("A", 30.0 + (i % 3))
    wide, narrow = estimate_time(one, ["A"] * 10), estimate_time(many, ["A"] * 10)
    assert wide is not None and narrow is not None
    assert narrow.high_s / narrow.low_s < wide.high_s / wide.low_s
    assert narrow.low_s <= narrow.expected_s <= narrow.high_s


def test_a_pool_divides_the_work_by_its_live_replicas_weighted_by_speed() -> None:
    seen = Durations()
    for _ in range(4):
        seen.add("A", 10.0, replica=0)
        seen.add("A", 10.0, replica=1)
    one = estimate_time(seen, ["A"] * 10, replicas=[0])
    two = estimate_time(seen, ["A"] * 10, replicas=[0, 1])
    assert one is not None and two is not None
    assert two.expected_s == pytest.approx(one.expected_s / 2)
    assert estimate_time(seen, ["A"] * 10, replicas=[]) is None  # every replica down

    uneven = Durations()
    for _ in range(4):
        uneven.add("A", 10.0, replica=0)
        uneven.add("A", 40.0, replica=1)  # four times slower
    assert uneven.speed(0) == pytest.approx(4 * uneven.speed(1))
    both = estimate_time(uneven, ["A"] * 10, replicas=[0, 1])
    fast_only = estimate_time(uneven, ["A"] * 10, replicas=[0])
    assert both is not None and fast_only is not None
    # the slow replica helps, but far less than a second fast one would
    assert fast_only.expected_s * 0.75 < both.expected_s < fast_only.expected_s


def test_an_attempt_in_flight_counts_what_is_left_of_it() -> None:
    seen = Durations()
    seen.add("A", 60.0)
    half = estimate_time(seen, [], running=[("A", 30.0)])
    over = estimate_time(seen, [], running=[("A", 90.0)])
    assert half is not None and over is not None
    assert half.expected_s == pytest.approx(30.0)
    assert over.expected_s == 0.0


def test_an_estimate_counts_down_but_never_below_zero() -> None:
    later = Estimate(100.0, 200.0, 400.0).later(150.0)
    assert (later.low_s, later.expected_s, later.high_s) == (0.0, 50.0, 250.0)


def test_recorded_attempts_give_durations_from_their_times_else_their_latency(
    tmp_path: Path,
) -> None:
    timed = Attempt(
        test_id="A",
        run=1,
        started_at="2026-12-05T01:00:00+00:00",
        completed_at="2026-12-05T01:20:00+00:00",
        latency_ms=1000,
    )
    untimed = Attempt(test_id="B", run=1, latency_ms=2500)
    assert attempt_seconds(timed) == 1200.0
    assert attempt_seconds(untimed) == 2.5
    assert attempt_seconds(Attempt(test_id="C", run=1)) is None
    path = tmp_path / "baseline.jsonl"
    with RunWriter(path, create=True) as writer:
        writer.append(RunMeta(run_id="r"))
        for record in (timed, untimed):
            writer.append(record)
    baseline = Durations.from_run_file(path)
    assert baseline.count == 2
    plan = estimate_time(baseline, ["A", "A", "B"])
    assert plan is not None
    assert plan.expected_s == pytest.approx(2 * 1200 + 2.5)
