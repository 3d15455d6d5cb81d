"""Reports from run files: one data model, rendered as Markdown, HTML, JSON and JUnit.

:func:`build_report` reads one or more JSONL run files of one battery (streaming, see
:mod:`._aggregate`) into a :class:`Report`, optionally compared with a baseline and
calibrated against a reference run, with the methodology's deployment checklist
evaluated. :func:`render` turns it into any of the formats; :func:`compare_runs` and
:func:`check_gate` back ``agenttest compare``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from ._baseline import (
    Baseline,
    baseline_from_runs,
    baseline_json,
    baseline_side,
    baseline_summary,
    is_baseline_file,
    make_baseline,
    read_baseline,
)
from ._build import BatteryArg, aggregate_report, aggregate_side
from ._checklist import evaluate_checklist
from ._compare import DEFAULT_ALPHA, calibrate, check_gate, compare_reports, compare_runs
from ._compare_table import compare_table
from ._coverage import CoverageSink
from ._decision import (
    MAX_LOST_SHARE,
    Decision,
    Reason,
    baseline_pass_rates,
    decide,
    decide_runs,
    enforce,
)
from ._evidence import EvidenceSink
from ._json_junit import render_json, render_junit, report_dict, to_plain
from ._model import Comparison, Rate
from ._parity import ParitySink, parity, render_parity_markdown
from ._plan import Plan, PlannedBlock, gate_plan, plan_text, wall_durations
from ._render import render_html, render_markdown, render_summary
from ._report import Report
from ._run_summary import run_summary
from ._ttft import TtftSink
from ._viewer import ViewerData, collect_attempts

FORMATS = ("md", "html", "json", "junit")


def build_report(
    paths: Sequence[str | Path],
    *,
    rater: str | None = None,
    baseline: Sequence[str | Path] | None = None,
    reference: Sequence[str | Path] | None = None,
    battery: BatteryArg = "auto",
    allow_mixed: bool = False,
    details: bool = True,
    alpha: float = DEFAULT_ALPHA,
    strict: bool = False,
    viewer: bool = False,
) -> Report:
    """The full report: aggregate, then baseline regression, reference calibration, checklist.

    ``details`` fetches the transcripts of failing attempts (a second, selective read);
    JSON and JUnit do not show them and pass ``details=False``. ``rater`` also picks the
    verdicts of the baseline and reference runs where that rater graded them. ``viewer``
    reads every attempt (and the baseline's) back for the HTML report's attempt viewer.
    """
    ttft, parity_sink = TtftSink(), ParitySink()  # fed in the aggregator's one pass
    coverage, evidence = CoverageSink(), EvidenceSink()
    report = aggregate_report(
        paths,
        rater=rater,
        battery=battery,
        allow_mixed=allow_mixed,
        details=details,
        strict=strict,
        sinks=(ttft, parity_sink, coverage, evidence),
    )
    regression: Comparison | None = None
    if baseline:
        base, notes = baseline_side(baseline, rater, allow_mixed)
        regression = compare_reports(report, base, alpha, notes)
    calibration = None
    if reference:
        ref, notes = aggregate_side(reference, rater, allow_mixed)
        calibration = calibrate(report, ref, notes)
    data = None
    if viewer:
        data = ViewerData(
            attempts=collect_attempts(paths, rater, allow_mixed),
            baseline=collect_attempts(baseline, rater, allow_mixed)
            if baseline and not any(is_baseline_file(p) for p in baseline)
            else None,  # a baseline file holds counts, no attempts to show
        )
    decision = decide(report, regression, baseline_pass_rates(baseline))
    return dataclasses.replace(
        report,
        viewer=data,
        regression=regression,
        calibration=calibration,
        decision=decision,
        checklist=evaluate_checklist(report, regression, decision),
        ttft=ttft.section(),
        parity=parity_sink.result(),
        coverage=coverage.result(),
        evidence=evidence.result(),
    )


def parity_markdown(paths: Sequence[str | Path]) -> str:
    """The parity table of a `run --parity` file (empty text for an ordinary run)."""
    return render_parity_markdown(parity(paths))


def render(report: Report, fmt: str) -> str:
    """The report as text in one of :data:`FORMATS`."""
    renderers = {
        "md": render_markdown,
        "html": render_html,
        "json": render_json,
        "junit": render_junit,
    }
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderers[fmt](report)


__all__ = [
    "DEFAULT_ALPHA",
    "FORMATS",
    "MAX_LOST_SHARE",
    "Baseline",
    "Comparison",
    "Decision",
    "Plan",
    "PlannedBlock",
    "Rate",
    "Reason",
    "Report",
    "baseline_from_runs",
    "baseline_json",
    "baseline_side",
    "baseline_summary",
    "build_report",
    "calibrate",
    "check_gate",
    "compare_reports",
    "compare_runs",
    "compare_table",
    "decide",
    "decide_runs",
    "enforce",
    "evaluate_checklist",
    "gate_plan",
    "is_baseline_file",
    "make_baseline",
    "parity_markdown",
    "plan_text",
    "read_baseline",
    "render",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_summary",
    "report_dict",
    "run_summary",
    "to_plain",
    "wall_durations",
]
