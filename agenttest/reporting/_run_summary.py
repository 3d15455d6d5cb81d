"""The few lines `agenttest run` ends with: a screen, not the full report.

Counts by outcome, pass@1 with its Wilson interval, the decision, the blocks that failed
their rule, the slowest blocks and the command that writes the full report. The counts,
rates and decision come from the same :class:`._report.Report` as every other format, so
the summary cannot disagree with the report it points to; the slowest blocks from the run
file's attempt times, as the runner's ETA measures them.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ._report import Report

_LISTED = 5  # failing and slowest blocks named before "and N more"


def _took(ms: float) -> str:
    """``4.2s`` under a minute, else ``1:02:13``."""
    if ms < 60_000:
        return f"{ms / 1000:.1f}s"
    minutes, seconds = divmod(round(ms / 1000), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _named(ids: list[str]) -> str:
    shown = ", ".join(ids[:_LISTED])
    return shown + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")


def _slowest(run_file: str | Path) -> str:
    """The blocks that took longest in all (every attempt's wall time, errors included: a
    timeout is where a night goes), as the ETA measures them."""
    from agenttest.runner import Durations  # the runner's one measure of an attempt's time

    seen = Durations.from_run_file(run_file)
    totals = sorted(
        ((sum(times), block, len(times)) for block, times in seen.by_block.items()),
        key=lambda t: (-t[0], t[1]),
    )
    return ", ".join(f"{block} {_took(total * 1000)} over {n}" for total, block, n in totals[:3])


def _decision(report: Report) -> str:
    """``blocked: SEC-01 failed 3 of 3 (zero tolerance)``: the one decision (issue 30) that
    the checklist and the gates read too."""
    from ._decision import decide

    decision = report.decision if report.decision is not None else decide(report)
    return decision.line


def run_summary(report: Report, run_file: str | Path) -> list[str]:
    """The end-of-run summary of ``report`` (built from ``run_file``), one line each."""
    rate = report.overall.rate
    undecided = sum(b.undecided for b in report.blocks)
    not_applicable = sum(b.not_applicable for b in report.blocks)
    counts = [f"{rate.passed} PASS", f"{rate.failed} FAIL", f"{rate.errors} ERROR"]
    counts.append(f"{undecided} UNDECIDED")
    if not_applicable:
        counts.append(f"{not_applicable} not applicable")
    aside = sum(b.excluded + b.unrated + b.unknown for b in report.blocks)
    if aside:  # recorded, but no verdict that counts yet
        counts.append(f"{aside} out of the rates (unrated or an uncalibrated judge's)")
    attempts = rate.n + rate.errors + undecided + not_applicable + aside
    missing = sum(b.missing for b in report.blocks)
    if missing:
        counts.append(f"{missing} planned but not recorded")
    lines = [f"summary: {attempts} attempt(s): " + ", ".join(counts)]
    if rate.pass_at_1 is None:
        lines.append("pass@1: n/a (no attempt passed or failed)")
    else:
        lines.append(
            f"pass@1: {_percent(rate.pass_at_1)} ({rate.passed}/{rate.n}), 95% Wilson interval "
            f"{_percent(rate.wilson_low)} to {_percent(rate.wilson_high)}"
            + (" (exploratory)" if report.header.exploratory else "")
        )
    lines.append(f"decision: {_decision(report)}")
    failing = [b.test_id for b in report.blocks if b.rule_passed is False]
    judged = sum(1 for b in report.blocks if b.rule_passed is not None)
    lines.append(
        f"blocks: {judged - len(failing)} of {judged} pass their rule"
        + (f"; failing: {_named(failing)}" if failing else "")
    )
    slowest = _slowest(run_file)
    if slowest:
        lines.append("slowest blocks: " + slowest)
    causes = report.integrity.errors_by_cause
    if causes:
        lines.append("ERROR causes: " + ", ".join(f"{cause} {n}" for cause, n in causes))
    html = Path(run_file).with_suffix(".html")
    lines.append(
        "full report: "
        + shlex.join(["agenttest", "report", str(run_file), "--format", "html", "-o", str(html)])
    )
    return lines
