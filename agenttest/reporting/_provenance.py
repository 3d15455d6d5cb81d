"""Where a report's numbers come from: its header (agent, model, tester, k, the runs and
why they are exploratory) and its integrity section (what was skipped, torn, superseded,
migrated or left unrated), plus the latency histogram's bins.

Apart from :mod:`._build`, which turns tallies into blocks, tiers and OWASP items: these
read the run files' metadata and the reader's notes, not the verdicts.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenttest import __version__
from agenttest.blocks import Battery
from agenttest.results import parse_timestamp as timestamp

from ._aggregate import Aggregator
from ._completeness import Completeness
from ._model import MIN_PUBLISHED_K, Header, Integrity
from ._slots import Missing, Tally

#: Latency histogram bin edges in milliseconds; the last bin is open.
LATENCY_EDGES = (0, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000)


def _unique(values: Sequence[Any]) -> list[str]:
    out: list[str] = []
    for v in values:
        if v not in (None, "") and str(v) not in out:
            out.append(str(v))
    return out


def report_header(
    agg: Aggregator, tallies: dict[str, Tally], battery: Battery | None, done: Completeness
) -> Header:
    metas = [f.meta for f in agg.files]
    reasons: list[str] = []
    ks = [m.k_nominal for m in metas]
    for f, k in zip(agg.files, ks, strict=True):
        if k is None:
            reasons.append(f"{Path(f.path).name}: k not recorded")
        elif k < MIN_PUBLISHED_K:
            reasons.append(f"k = {k} < {MIN_PUBLISHED_K} (methodology §2.6)")
        elif f.meta.run_type == "exploratory":
            reasons.append(f"{Path(f.path).name} is marked exploratory")
        if not f.meta.tester:
            reasons.append(f"{Path(f.path).name}: no tester recorded (methodology §2.5)")
    judges: set[str] = set()
    for t in tallies.values():
        judges |= t.uncalibrated_by if t.uncalibrated else set()
    if judges:
        count = sum(t.uncalibrated for t in tallies.values())
        reasons.append(
            f"{count} verdict(s) decided by uncalibrated judge(s) {', '.join(sorted(judges))} "
            "(methodology §2.3)"
        )
    starts = [(s, m.started_at) for m in metas if (s := timestamp(m.started_at))]
    ends = []
    for f in agg.files:
        end = (f.run_end.completed_at if f.run_end else None) or f.last_completed_at
        if (stamp := timestamp(end)) is not None:
            ends.append((stamp, end))
    agents = [m.agent.get("name") for m in metas]  # the agent's config, as written
    harness = [f"agenttest {m.harness.get('agenttest')}" if m.harness else None for m in metas]
    source = "run files only (battery not found)"
    if battery is not None:
        source = f"battery {', '.join(battery.paths)} ({battery.digest})"
    return Header(
        agent=", ".join(_unique(agents)) or "unknown",
        model=", ".join(_unique([m.model for m in metas])) or "unknown",
        tester=", ".join(_unique([m.tester for m in metas])) or "not recorded",
        run_type="exploratory" if reasons else "published",
        exploratory_reasons=tuple(dict.fromkeys(reasons)),
        k=" / ".join(_unique(ks)) or "?",
        started_at=min(starts)[1] if starts else None,
        # an incomplete run has no completion time: its last attempt is not its end
        completed_at=max(ends)[1] if ends and done.complete else None,
        harness=", ".join(_unique(harness)) or "unknown",
        battery_digest=", ".join(_unique([f.digest for f in agg.files])) or "not recorded",
        run_ids=tuple(_unique([f.run_id for f in agg.files])),
        files=tuple(f.path for f in agg.files),
        labels=tuple(_unique([m.label for m in metas])),
        battery_source=source,
        generated_by=f"agenttest {__version__}",
        completeness=done,
    )


def latency_histogram(tallies: dict[str, Tally]) -> tuple[tuple[int, int | None, int], ...]:
    counts = [0] * len(LATENCY_EDGES)
    for t in tallies.values():
        for value in t.latencies:
            counts[max(0, bisect_right(LATENCY_EDGES, value) - 1)] += 1
    edges: list[int | None] = [*LATENCY_EDGES[1:], None]
    return tuple((lo, hi, c) for lo, hi, c in zip(LATENCY_EDGES, edges, counts, strict=True))


def report_integrity(
    agg: Aggregator, tallies: dict[str, Tally], missing: Missing, notes: list[str]
) -> Integrity:
    causes: Counter[str] = Counter()
    for t in tallies.values():
        causes.update(t.causes)
    notes = list(notes)
    run_ids = Counter(f.run_id for f in agg.files)
    for run_id, n in run_ids.items():
        if n > 1:
            notes.append(
                f"run {run_id} appears in {n} files; their attempts were merged as one run"
            )
    models = _unique([f.meta.model for f in agg.files])
    if len(models) > 1:
        notes.append(f"the files test different models ({', '.join(models)}); rates pool them")
    if agg.malformed:
        notes.append(f"{agg.malformed} attempt/grade record(s) without test_id or run were skipped")
    if agg.unknown_records:
        notes.append(f"{agg.unknown_records} record(s) of an unknown type were skipped")
    for f in agg.files:
        notes.extend(f.notes.invalid_messages())  # records that did not match their type
        if f.notes.migrated:
            notes.append(
                f"{f.path}: {f.notes.migrated} record(s) upgraded from an older schema 2.x"
            )
        if f.run_end is None:
            notes.append(
                f"{Path(f.path).name} has no run_end record (interrupted or still running)"
            )
    return Integrity(
        errors_by_cause=tuple(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))),
        torn_lines=tuple(
            (f.path, f.notes.torn, tuple(f.notes.torn_lines)) for f in agg.files if f.notes.torn
        ),
        missing=missing.total,
        missing_examples=tuple(f"{t} run {r} ({run})" for run, t, r in missing.examples),
        unknown_ids=tuple((t.test_id, t.unknown) for t in tallies.values() if t.unknown),
        unrecognised_verdicts=sum(t.other for t in tallies.values()),
        superseded=agg.superseded,
        stale_grades=agg.stale_grades,
        unrated=sum(t.unrated for t in tallies.values()),
        uncalibrated_verdicts=sum(t.uncalibrated for t in tallies.values()),
        uncalibrated_excluded=sum(t.excluded for t in tallies.values()),
        uncalibrated_judges=tuple(
            sorted(set().union(*(t.uncalibrated_by for t in tallies.values())))
        ),
        orphan_grades=agg.orphan_grades(),
        notes=tuple(notes),
    )
