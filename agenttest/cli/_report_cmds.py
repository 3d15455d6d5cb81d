"""`report`, `compare` and `batch`: commands over agenttest.reporting."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from . import app

if TYPE_CHECKING:
    from agenttest.reporting import Decision


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from agenttest.errors import UsageError

    if not output.parent.is_dir():
        raise UsageError(f"-o {output}: the folder {output.parent} does not exist")
    if output.exists() and not output.is_file():
        # A device or a pipe (-o /dev/null, /dev/stdout, a FIFO): write into it. Replacing
        # it with the finished file, as for a regular file, would put a regular file in
        # place of /dev/null for the whole machine when run as root.
        if output.is_dir():
            raise UsageError(f"-o {output}: is a folder")
        with output.open("w", encoding="utf-8") as sink:
            sink.write(text)
        return
    part = output.with_name(output.name + ".part")
    part.write_text(text, encoding="utf-8")
    part.replace(output)
    print(output, file=sys.stderr)


@app.command()
def report(
    runs: list[Path] = typer.Argument(
        ..., help="Run files (JSONL). Several files of the same battery are merged."
    ),
    fmt: str = typer.Option("md", "--format", "-f", help="md, html, json or junit."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write here, not stdout."),
    baseline: list[Path] = typer.Option(
        [],
        "--baseline",
        help="Earlier run(s) to compare with, or a baseline file (`agenttest baseline`): "
        "regression per block and tier, and each block's §2.2 threshold.",
    ),
    reference: list[Path] = typer.Option(
        [], "--reference", help="Reference-agent run(s): class each block both-pass ... both-fail."
    ),
    rater: str | None = typer.Option(
        None, "--rater", help="Take verdicts from this rater's grades (default: each attempt's)."
    ),
    battery: Path | None = typer.Option(
        None, "--battery", help="Battery for block titles and OWASP items (default: the run's)."
    ),
    allow_mixed: bool = typer.Option(
        False, "--allow-mixed", help="Merge run files of different batteries anyway."
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Count agenttest's stricter additions (strict-check warnings) as failures.",
    ),
    summary: bool = typer.Option(
        False, "--summary", help="With --format md: a short GitHub-flavoured summary (PR comment)."
    ),
    gate: bool = typer.Option(
        False,
        "--gate",
        help="After writing the report, exit with its deployment decision: 1 blocked by the "
        "agent's results, 5 blocked because attempts were lost, 0 otherwise (README, Exit codes).",
    ),
) -> None:
    """Render a report: pass@1 with n and a 95% Wilson interval everywhere, pass@k, pass^k.

    `--format json` prints the machine-readable summary (SPEC section 6); `junit` one
    testcase per block. Runs with k < 5 are marked exploratory. Markdown printed to a
    terminal is rendered for it; to a file or a pipe it stays plain Markdown.
    """
    from agenttest.errors import UsageError
    from agenttest.reporting import FORMATS, build_report, render

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")
    if summary and fmt != "md":
        raise UsageError(f"--summary is a Markdown summary; use it with --format md, not {fmt}")
    result = build_report(
        runs,
        rater=rater,
        baseline=baseline or None,
        reference=reference or None,
        battery=battery if battery is not None else "auto",
        allow_mixed=allow_mixed,
        details=fmt in ("md", "html", "junit"),
        strict=strict,
        viewer=fmt == "html",
    )
    if summary:
        from agenttest.reporting import render_summary

        text = render_summary(result)
    else:
        text = render(result, fmt)
    if fmt == "md" and output is None and sys.stdout.isatty():
        _print_markdown(text)
    else:
        _write(text, output)
    if gate:
        gate_exit(result.decision)


def gate_exit(decision: Decision | None) -> None:
    """The decision's one line on stderr; a blocked decision ends the command (exit 1 or 5).
    ``run --gate``, ``report --gate`` and ``compare --gate`` all end here."""
    from agenttest.reporting import enforce

    if decision is None:
        raise AssertionError("a report built for a gate carries its decision")
    if decision.status != "blocked":
        print(f"agenttest: {decision.line}", file=sys.stderr)
    enforce(decision)  # blocked: main prints "agenttest: blocked: <reason>" once


def _print_markdown(text: str) -> None:
    """Markdown for a person at a terminal: rendered (no ``\\_`` escapes, tables drawn);
    files and pipes get the plain Markdown."""
    from rich.console import Console
    from rich.markdown import Markdown

    Console(soft_wrap=False).print(Markdown(text, code_theme="ansi_dark", hyperlinks=False))


@app.command()
def compare(
    run: Path = typer.Argument(..., help="The run to judge (JSONL)."),
    baseline: Path = typer.Argument(
        ..., help="The baseline run (JSONL), or a baseline file written by `agenttest baseline`."
    ),
    gate: bool = typer.Option(
        False,
        "--gate",
        help="Exit with RUN's deployment decision: 1 blocked by the agent's results (a SEC "
        "FAIL, a significant regression, ...), 5 blocked because attempts were lost, 0 "
        "otherwise; its reason in one line on stderr.",
    ),
    alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate for Holm."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    rater: str | None = typer.Option(
        None, "--rater", help="Verdicts of this rater on both sides (where it graded)."
    ),
    allow_mixed: bool = typer.Option(False, "--allow-mixed", help="See `report --help`."),
) -> None:
    """Per block and tier: change in pass@1, 95% Newcombe interval, Fisher p, Holm-corrected.

    Each row is a regression, an improvement or noise. With --gate, exit with the
    deployment decision about RUN (docs/reports.md, "The decision"): the same one the
    report's checklist shows.
    """
    import json

    from agenttest.errors import UsageError
    from agenttest.reporting import compare_table, decide_runs, to_plain

    if not 0.0 < alpha < 1.0:
        raise UsageError(f"--alpha {alpha}: must lie strictly between 0 and 1")
    result, decision = decide_runs(
        [run], [baseline], alpha=alpha, allow_mixed=allow_mixed, rater=rater
    )
    if as_json:
        data = {**to_plain(result), "decision": decision.plain()}
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(compare_table(result, alpha))
        # a row that is noise can still block (a SEC FAIL): the table ends with the decision
        print(f"\nDecision about {run.name}: {decision.line}")
    for note in result.notes:  # a CI log shows stderr even when stdout is parsed
        print(f"agenttest: warning: {note}", file=sys.stderr)
    if gate:
        gate_exit(decision)


@app.command()
def batch(
    nightly: Path = typer.Argument(..., help="Batch file (YAML): out, jobs (see docs/nightly.md)."),
) -> None:
    """Run the batch's jobs one after another, report each, compare each with its last run.

    The entry point for cron. Exit 130 interrupted; 3 a job's agent was never ready;
    2 bad batch file or a job refused; 1 a gated job's decision is blocked by the agent's
    results; 5 blocked because attempts were lost; 0 otherwise. The last line says why.
    """
    from agenttest.batch import batch_exit_code, batch_reason, run_batch
    from agenttest.errors import EXIT_OK, ExitStatus

    from ._progress import make_progress

    # each job's attempts as `run` shows them: a bar on a terminal, timestamped lines elsewhere
    outcomes = run_batch(nightly, progress=lambda: make_progress(quiet=False))
    code = batch_exit_code(outcomes)
    if code != EXIT_OK:
        raise ExitStatus(code, f"batch finished with exit status {code}: {batch_reason(outcomes)}")
