"""`baseline`: the methodology's §2.2 baseline file, from run files (agenttest.reporting)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from . import app
from ._report_cmds import _write


@app.command()
def baseline(
    runs: list[Path] = typer.Argument(
        ...,
        help="The baseline run(s) (JSONL): every L1 and L2 block × 5, e.g. from "
        "`agenttest run batteries --agent AGENT --tier L1 --tier L2 --k 5`.",
    ),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write here, not stdout."),
    rater: str | None = typer.Option(
        None, "--rater", help="Take verdicts from this rater's grades (default: each attempt's)."
    ),
    allow_mixed: bool = typer.Option(
        False, "--allow-mixed", help="Merge run files of different batteries anyway."
    ),
) -> None:
    """Write the §2.2 baseline: per L1/L2 block pass@1 and its threshold, 0.85 × pass@1.

    `compare RUN BASELINE.json` and `report RUN --baseline BASELINE.json` read it. A block
    with fewer than 5 gradable attempts gets no threshold, and the file says why; a run
    with no such block at all writes nothing (exit 2).
    """
    from agenttest.errors import UsageError
    from agenttest.reporting import baseline_from_runs, baseline_json, baseline_summary

    result = baseline_from_runs(runs, rater=rater, allow_mixed=allow_mixed)
    summary = baseline_summary(result)
    if not any(b.threshold is not None for b in result.blocks):
        raise UsageError(
            "no L1/L2 block has 5 gradable attempts: no threshold to write; "
            + "; ".join(summary[1:4])
        )
    _write(baseline_json(result), output)
    for line in summary:
        print(f"agenttest: {line}", file=sys.stderr)
