"""`agenttest plan` and `run --dry-run`: attempts, expected duration with a range, the gate's
power (checked by enumeration with scipy) and the k that catches a named fall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats as sps

from agenttest.blocks import load_battery
from agenttest.reporting import (
    PlannedBlock,
    baseline_side,
    gate_plan,
    plan_text,
    wall_durations,
)
from agenttest.runner import Durations, estimate_time

from ._doc_sessions import documented_session, replay
from .conftest import ROOT, run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

BATTERY = ROOT / "batteries"


def _power(n1: int, n2: int, p1: float, p2: float, alpha: float) -> float:
    """The gate's power written out: every outcome scipy's Fisher test calls a regression."""
    total = 0.0
    for a in range(n1 + 1):
        for b in range(n2 + 1):
            if a * n2 < b * n1 and sps.fisher_exact([[a, n1 - a], [b, n2 - b]]).pvalue < alpha:
                total += sps.binom.pmf(a, n1, p1) * sps.binom.pmf(b, n2, p2)
    return float(total)


def _baseline_run(path: Path, counts: dict[str, tuple[int, int]]) -> Path:
    records = [meta(path.stem, [], tester="alice")]
    for test_id, (passes, n) in counts.items():
        for run in range(1, n + 1):
            verdict = "PASS" if run <= passes else "FAIL"
            records.append(attempt(test_id, run, verdict, tier=test_id.split("-")[0], k=n))
    records.append(run_end())
    return write(path, records)  # every attempt took 9 s (the builder's timestamps)


def test_attempts_per_block_and_in_total_follow_the_selection() -> None:
    l1 = [b for b in load_battery([str(BATTERY)]) if b.tier == "L1"]
    shown = run_cli("plan", str(BATTERY), "--tier", "L1")
    assert shown.returncode == 0, shown.stderr
    total = sum(b.k for b in l1)
    assert f"plan: {len(l1)} block(s), {total} attempt(s) in total" in shown.stdout
    at3 = run_cli("plan", str(BATTERY), "--tier", "L1", "--k", "3")
    assert f"attempts per block: 3 ({len(l1)} blocks)" in at3.stdout
    assert f"{len(l1) * 3} attempt(s) in total" in at3.stdout


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path: Path) -> None:
    args = (str(BATTERY), "--tier", "L2", "--k", "3")
    planned = run_cli("plan", *args)
    dry = run_cli("run", *args, "--agent", "example", "--dry-run", "--out", str(tmp_path))
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout == planned.stdout
    assert not list(tmp_path.iterdir())  # no run file, no agent started


def test_the_duration_comes_from_the_baseline_runs_attempts(tmp_path: Path) -> None:
    base = _baseline_run(tmp_path / "base.jsonl", {"L1-A": (5, 5), "L1-B": (4, 5)})
    blocks = [PlannedBlock("L1-A", "L1", 3), PlannedBlock("L1-B", "L1", 3)]
    durations = Durations.from_run_file(base)
    one = gate_plan(blocks, durations=durations, timing_source="base.jsonl")
    two = gate_plan(blocks, durations=durations, timing_source="base.jsonl", replicas=2)
    expected = estimate_time(durations, ["L1-A"] * 3 + ["L1-B"] * 3)
    assert one.estimate == expected and one.estimate is not None
    assert one.estimate.expected_s == pytest.approx(54)  # six attempts of 9 s
    assert one.estimate.low_s < one.estimate.expected_s < one.estimate.high_s
    assert two.estimate is not None and two.estimate.expected_s == pytest.approx(27)
    text = plan_text(one)
    assert "expected duration on 1 replica: 0:00:54 (" in text
    assert "from 10 attempt(s) of base.jsonl" in text
    assert "unknown (no baseline run" in plan_text(gate_plan(blocks))


def test_the_harness_time_between_attempts_counts_but_a_pause_does_not(tmp_path: Path) -> None:
    # Three attempts of 1 s each, 4 s of grading and setting up after each; then the run
    # was stopped for an hour and resumed. Each attempt costs the night 5 s, not 1 s.
    times = [(0, 1), (5, 6), (10, 11), (3611, 3612)]
    records = [meta("base", [], tester="alice")]
    for run, (start, end) in enumerate(times, start=1):
        records.append(
            attempt(
                "L1-A",
                run,
                "PASS",
                started_at=f"2026-07-13T08:{start // 60:02d}:{start % 60:02d}+00:00"
                if start < 3600
                else "2026-07-13T09:00:11+00:00",
                completed_at=f"2026-07-13T08:{end // 60:02d}:{end % 60:02d}+00:00"
                if end < 3600
                else "2026-07-13T09:00:12+00:00",
            )
        )
    base = write(tmp_path / "base.jsonl", [*records, run_end()])
    durations = wall_durations(base)
    assert sorted(durations.seconds) == [1.0, 1.0, 5.0, 5.0]  # first and after the pause: own
    plan = gate_plan([PlannedBlock("L1-A", "L1", 4)], durations=durations, timing_source="b")
    assert plan.estimate is not None and plan.estimate.expected_s == pytest.approx(12)


def test_the_fall_caught_is_the_first_with_80_percent_power() -> None:
    # two L1 blocks at k = 4 against the night before; the baseline passes 80%
    blocks = [PlannedBlock("L1-A", "L1", 4), PlannedBlock("L1-B", "L1", 4)]
    plan = gate_plan(blocks, alpha=0.05)
    tier = plan.rows[0]
    assert (tier.name, tier.attempts, tier.against, tier.rate_source) == ("L1", 8, 8, "assumed")
    assert tier.rate == pytest.approx(0.9) and tier.drop is not None
    level = 0.05 / 2  # Holm's first step over the L1 and overall rows
    assert _power(8, 8, 0.9 - tier.drop, 0.9, level) >= 0.8
    assert _power(8, 8, 0.9 - tier.drop + 0.01, 0.9, level) < 0.8
    # one block alone: 4 against 4 at α/2 cannot catch even a fall to 0%
    assert tier.block_drop is None
    assert _power(4, 4, 0.0, 0.9, 0.05 / 2) < 0.8


def test_detect_names_the_smallest_k_that_catches_the_fall(tmp_path: Path) -> None:
    base = _baseline_run(tmp_path / "base.jsonl", {"L1-A": (4, 5), "L1-B": (4, 5)})
    side, _ = baseline_side([base], None, False)
    blocks = [PlannedBlock("L1-A", "L1", 3), PlannedBlock("L1-B", "L1", 3)]
    plan = gate_plan(blocks, baseline=side, against=5, detect=0.6)
    tier = plan.rows[0]
    assert (tier.rate, tier.rate_source, tier.against) == (0.8, "baseline", 10)
    k = tier.detect_k
    assert k is not None and k > 1
    assert _power(2 * k, 10, 0.2, 0.8, 0.025) >= 0.8
    assert _power(2 * (k - 1), 10, 0.2, 0.8, 0.025) < 0.8
    # half as big a fall: the ten baseline attempts limit the gate, whatever k
    assert gate_plan(blocks, baseline=side, against=5, detect=0.5).rows[0].detect_k is None
    shown = run_cli(
        "plan", str(BATTERY), "--tier", "SEC", "--k", "5", "--detect", "20pp", "--against", "5"
    )
    assert shown.returncode == 0, shown.stderr
    assert "k for 20 pp" in shown.stdout
    assert "SEC (zero tolerance) at k = 5: a block failing 28% of its attempts" in shown.stdout


@pytest.mark.parametrize("bad", ["0pp", "150pp", "lots"])
def test_a_fall_that_is_not_one_is_refused(bad: str) -> None:
    refused = run_cli("plan", str(BATTERY), "--tier", "L1", "--detect", bad)
    assert refused.returncode == 2
    assert f"--detect {bad}: give the fall in points" in refused.stderr


def test_the_documented_plan_is_what_plan_prints() -> None:
    session = documented_session("reports.md", "$ agenttest plan batteries --only")
    assert replay(session, ROOT) == session


def test_a_baseline_file_sets_the_rates_and_its_five_attempts(tmp_path: Path) -> None:
    base = _baseline_run(
        tmp_path / "base.jsonl", {"L1-CALC-01": (5, 5), "L1-CHAT-01": (3, 5), "L2-A": (0, 5)}
    )
    out = tmp_path / "baseline.json"
    assert run_cli("baseline", str(base), "-o", str(out)).returncode == 0
    args = ("plan", str(BATTERY), "--only", "L1-CALC-01,L1-CHAT-01", "--k", "3", "--json")
    planned = json.loads(run_cli(*args, "--baseline", str(out)).stdout)
    rows = {r["name"]: r for r in planned["rows"]}
    # against the file's five attempts per block, at L1's measured 80% (not L2's 0%)
    assert (rows["L1"]["against"], rows["L1"]["rate"]) == (10, 0.8)
    assert (rows["overall"]["against"], rows["overall"]["rate"]) == (10, 0.8)
    assert planned["estimate"] is None  # a baseline file holds no durations
    night = json.loads(run_cli(*args, "--baseline", str(base)).stdout)
    assert {r["name"]: r["against"] for r in night["rows"]} == {"L1": 6, "overall": 6}
