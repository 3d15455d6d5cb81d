"""A plan before the night: attempts, expected duration with a range, and the gate's power.

``agenttest plan`` (and ``run --dry-run``) answers, for a selection of blocks and k, what
a person should know before leaving a run overnight:

* the attempts per block and in total;
* how long it will take, from a baseline run's per-attempt durations and the replicas
  (:func:`agenttest.runner.estimate_time`: expected, with a 90% range);
* what the gate can see: per tier and over all blocks, the smallest fall in pass rate
  the comparison with the baseline catches with 80% power (the stratified rows of
  ``compare``: the exact power of the conditional test on the pooled counts, which is the
  stratified test's when the blocks share one pass rate), and for one block alone (the
  per-block Fisher row, at Holm's first step, α over the number of blocks);
* with a fall to detect (``--detect 20pp``), the k per block that catches it.

The baseline side of the comparison has ``against`` attempts per block (default: the same
k, a night compared with the night before); its pass rates are the baseline run's or
file's, per tier, pooled (a tier it did not measure takes the whole baseline's rate, and
with no baseline at all :data:`ASSUMED_RATE` is assumed and said).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agenttest.stats import attempts_to_detect, minimum_detectable_drop
from agenttest.verdicts import ZERO_TOLERANCE_TIERS

from ._model import tier_key

if TYPE_CHECKING:
    from agenttest.runner import Durations, Estimate

    from ._compare import Side

#: The pass rate assumed for the power when no baseline says otherwise.
ASSUMED_RATE = 0.9
POWER = 0.8


@dataclass(frozen=True)
class PlannedBlock:
    test_id: str
    tier: str
    k: int


@dataclass(frozen=True)
class PowerRow:
    name: str  # a tier, or "overall"
    blocks: int
    attempts: int
    against: int  # baseline attempts compared with
    rate: float  # the baseline pass rate the power is computed at
    rate_source: str  # "baseline" (the tier's), "overall" (every tier's) or "assumed"
    drop: float | None  # smallest fall caught at 80% power (None: not even to 0%)
    block_drop: float | None  # the same for one block of the tier alone
    detect_k: int | None = None  # k per block that catches --detect (None: no k ≤ 50)
    block_detect_k: int | None = None


@dataclass(frozen=True)
class Plan:
    blocks: tuple[PlannedBlock, ...]
    k_counts: tuple[tuple[int, int], ...]  # (k, blocks with that k), most blocks first
    attempts: int
    replicas: int
    estimate: Estimate | None
    timing_note: str  # where the durations came from, or why there is no estimate
    alpha: float
    power: float
    detect: float | None
    rows: tuple[PowerRow, ...]  # per tier, then overall
    notes: tuple[str, ...]


#: A gap between one attempt's end and the next one's start longer than this is a pause (a
#: run resumed later), not the harness's own work between attempts, and is not counted.
PAUSE_S = 60.0


def wall_durations(path: str | Path) -> Durations:
    """The wall time each attempt of a run file took on its replica, harness included.

    An attempt's own start-to-end time leaves out what the harness does between attempts
    (grading, laying the world, resetting the agent): with a fast agent that is most of a
    night. So each attempt is credited from the previous attempt's end on the same replica
    (its own start for the first, and after a pause longer than :data:`PAUSE_S`). The
    estimate itself is the runner's (:func:`agenttest.runner.estimate_time`).
    """
    from agenttest.results import Attempt, iter_records, parse_timestamp
    from agenttest.runner import Durations, attempt_seconds

    lanes: dict[int | None, list[tuple[float, float, Attempt]]] = {}
    durations = Durations()
    for record in iter_records(Path(path)):
        if not isinstance(record, Attempt):
            continue
        start, end = parse_timestamp(record.started_at), parse_timestamp(record.completed_at)
        if start is None or end is None or end < start:
            durations.add_record(record)  # no times to chain: its latency, if any
            continue
        lanes.setdefault(record.replica, []).append((end, start, record))
    for lane in lanes.values():
        previous: float | None = None
        for end, start, record in sorted(lane, key=lambda item: item[0]):
            chained = previous is not None and 0 <= start - previous <= PAUSE_S
            own = attempt_seconds(record) or 0.0
            seconds = end - previous if chained and previous is not None else own
            durations.add(record.test_id, seconds, record.replica)
            previous = end
    return durations


def _rates(baseline: Side | None) -> tuple[dict[str, tuple[int, int]], tuple[int, int] | None]:
    """Passed and gradable baseline attempts per tier, and over all blocks."""
    if baseline is None:
        return {}, None
    tiers: dict[str, tuple[int, int]] = {}
    for b in baseline.blocks:
        passed, n = tiers.get(b.tier, (0, 0))
        tiers[b.tier] = (passed + b.rate.passed, n + b.rate.n)
    total = (sum(p for p, _ in tiers.values()), sum(n for _, n in tiers.values()))
    return tiers, total if total[1] else None


def _power_row(
    name: str,
    blocks: Sequence[PlannedBlock],
    against: int | None,
    measured: tuple[int, int] | None,
    source: str,
    *,
    family: int,
    block_family: int,
    alpha: float,
    detect: float | None,
) -> PowerRow:
    run = sum(b.k for b in blocks)
    base = sum(against or b.k for b in blocks)
    if measured and measured[1]:
        rate = measured[0] / measured[1]
    else:
        rate, source = ASSUMED_RATE, "assumed"
    rate = round(rate, 2)  # the drops are whole points from it
    typical = Counter(b.k for b in blocks).most_common(1)[0][0]
    one_base = against or typical
    row = PowerRow(
        name,
        len(blocks),
        run,
        base,
        rate,
        source,
        minimum_detectable_drop(run, base, rate, alpha=alpha / family, power=POWER),
        minimum_detectable_drop(typical, one_base, rate, alpha=alpha / block_family, power=POWER),
    )
    if detect is None:
        return row
    return dataclasses.replace(
        row,
        detect_k=attempts_to_detect(
            detect, rate, len(blocks), against, alpha=alpha / family, power=POWER
        ),
        block_detect_k=attempts_to_detect(
            detect, rate, 1, against, alpha=alpha / block_family, power=POWER
        ),
    )


def gate_plan(
    blocks: Sequence[PlannedBlock],
    *,
    baseline: Side | None = None,
    durations: Durations | None = None,
    timing_source: str = "",
    replicas: int = 1,
    against: int | None = None,
    alpha: float = 0.05,
    detect: float | None = None,
) -> Plan:
    """The plan of ``blocks`` (each with its k): attempts, duration, the gate's power."""
    from agenttest.runner import estimate_time

    if not blocks:
        raise ValueError("no block to plan")
    if detect is not None and not 0.0 < detect <= 1.0:
        raise ValueError(f"the fall to detect must lie in (0, 1], got {detect}")
    remaining = [b.test_id for b in blocks for _ in range(b.k)]
    estimate = None
    if durations is None:
        timing = "no baseline run with durations given (--baseline RUN.jsonl)"
    else:
        estimate = estimate_time(durations, remaining, replicas=replicas)
        timing = (
            f"from {durations.count} attempt(s) of {timing_source}"
            if estimate is not None
            else f"{timing_source} holds no attempt with a duration"
        )
    tier_rates, overall_rate = _rates(baseline)
    names = sorted({b.tier for b in blocks}, key=tier_key)
    # the overall row: the selected tiers' baseline, pooled (else the whole baseline's)
    measured = [tier_rates[name] for name in names if name in tier_rates]
    if sum(n for _, n in measured):
        overall_rate = (sum(p for p, _ in measured), sum(n for _, n in measured))
    family = len(names) + 1  # the stratified rows' Holm family: every tier and overall

    def row(name: str, chosen: Sequence[PlannedBlock]) -> PowerRow:
        own = overall_rate if name == "overall" else tier_rates.get(name)
        return _power_row(
            name,
            chosen,
            against,
            own or overall_rate,
            "baseline" if own else "overall",
            family=family,
            block_family=len(blocks),
            alpha=alpha,
            detect=detect,
        )

    rows = [row(name, [b for b in blocks if b.tier == name]) for name in names]
    rows.append(row("overall", blocks))
    notes = []
    if baseline is None:
        notes.append(
            f"*: no baseline given, the power assumes a {ASSUMED_RATE:.0%} pass rate in every tier"
        )
    elif any(r.rate_source == "assumed" for r in rows):
        notes.append(f"*: the baseline measured nothing, a {ASSUMED_RATE:.0%} pass rate is assumed")
    elif any(r.rate_source == "overall" for r in rows):
        notes.append("†: a tier the baseline did not measure takes the whole baseline's pass rate")
    zero = sorted({b.k for b in blocks if b.tier in ZERO_TOLERANCE_TIERS})
    for k in zero:
        # zero tolerance blocks on any FAIL: the chance of at least one in k attempts
        notes.append(
            f"SEC (zero tolerance) at k = {k}: a block failing {1 - (1 - POWER) ** (1 / k):.0%} "
            f"of its attempts shows a FAIL with {POWER:.0%} probability"
        )
    k_counts = Counter(b.k for b in blocks).most_common()
    return Plan(
        tuple(blocks),
        tuple(k_counts),
        len(remaining),
        replicas,
        estimate,
        timing,
        alpha,
        POWER,
        detect,
        tuple(rows),
        tuple(notes),
    )


def _points(value: float | None) -> str:
    return "none" if value is None else f"{value * 100:.0f} pp"


def _k_text(value: int | None) -> str:
    return "none ≤ 50" if value is None else f"k = {value}"


_HEAD = ("scope", "blocks", "attempts", "vs", "baseline", "fall caught", "one block", "", "")
_WIDTHS = (-9, 6, 8, 6, 9, 11, 10, 13, 10)  # negative: left-aligned


def _columns(cells: Sequence[object], *, detect: bool, fall: float | None = None) -> str:
    """One line of the power table; with ``fall`` the header names the --detect column."""
    values = [str(c) for c in cells]
    if fall is not None:
        values[7:9] = [f"k for {_points(fall)}", "one block"]
    shown = values if detect else values[:7]
    out = [v.ljust(-w) if w < 0 else v.rjust(w) for v, w in zip(shown, _WIDTHS, strict=False)]
    return " ".join(out[:7]) + ("  " + " ".join(out[7:]) if detect else "")


def plan_text(plan: Plan) -> str:
    """What ``agenttest plan`` prints."""
    per_block = ", ".join(
        f"{k} ({count} block{'s' if count > 1 else ''})" for k, count in plan.k_counts
    )
    lines = [
        f"plan: {len(plan.blocks)} block(s), {plan.attempts} attempt(s) in total",
        f"attempts per block: {per_block}",
    ]
    by_tier = Counter(b.tier for b in plan.blocks)
    attempts: Counter[str] = Counter()
    for b in plan.blocks:
        attempts[b.tier] += b.k
    lines.append(
        "per tier: "
        + ", ".join(
            f"{t} {by_tier[t]} block(s) → {attempts[t]}" for t in sorted(by_tier, key=tier_key)
        )
    )
    replicas = f"{plan.replicas} replica{'s' if plan.replicas > 1 else ''}"
    if plan.estimate is None:
        lines.append(f"expected duration on {replicas}: unknown ({plan.timing_note})")
    else:
        lines.append(
            f"expected duration on {replicas}: {plan.estimate.text()} "
            f"(expected, 90% range; {plan.timing_note})"
        )
    lines.append(
        f"gate power ({plan.power:.0%}, two-sided α {plan.alpha}, Holm's first step): the "
        "smallest fall in pass rate the comparison with the baseline catches"
    )
    lines.append(_columns(_HEAD, detect=plan.detect is not None, fall=plan.detect))
    for r in plan.rows:
        rate = f"{r.rate:.0%}" + {"assumed": "*", "overall": "†"}.get(r.rate_source, "")
        cells: tuple[object, ...] = (r.name, r.blocks, r.attempts, r.against, rate)
        cells += (_points(r.drop), _points(r.block_drop))
        cells += (_k_text(r.detect_k), _k_text(r.block_detect_k))
        lines.append(_columns(cells, detect=plan.detect is not None))
    lines.append(
        "vs: baseline attempts; fall caught: in the tier's (overall: every block's) pass "
        "rate, by the test stratified by block; one block: in one block's own, by its "
        "Fisher row (α over the blocks); none: not even a fall to 0%"
    )
    lines.extend(f"note: {note}" for note in plan.notes)
    return "\n".join(lines) + "\n"
