"""`rate` and `agreement`: blind human rating, and how raters agree."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from . import app


@app.command()
def rate(
    run: Path = typer.Argument(..., help="The run file (JSONL) whose attempts to rate."),
    rater: str = typer.Option(..., "--rater", help="Your name; recorded as human:NAME."),
    sample: int | None = typer.Option(
        None, "--sample", min=1, help="Rate N attempts picked at random (seeded) instead of all."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample and of the showing order."),
    battery: list[Path] = typer.Option(
        [], "--battery", help="Battery folder/files, if the ones recorded in the run moved."
    ),
    undecided: bool = typer.Option(
        False,
        "--undecided",
        help="Only the attempts a judge left to a human (a JUDGE criterion it was UNDECIDED on).",
    ),
    for_calibration: bool = typer.Option(
        False,
        "--for-calibration",
        help="The attempts that calibrate the judge fastest: whose verdict rests on one kind "
        "of JUDGE criterion, the least-rated kinds first, the judge's PASS and FAIL in turn.",
    ),
) -> None:
    """Blind human rating in the terminal: appends grade records; resumable.

    Shows each attempt's block (capability and criteria) and transcript, never another
    rater's verdict. Answer p(ass), f(ail), s(kip) or q(uit) per attempt; each answer is
    saved at once. Run the same command again to continue where you stopped.
    """
    from agenttest._util.input_files import appendable
    from agenttest.rating import rate_run, stdin_answers

    appendable(run, "the run file", "agenttest rate")
    rate_run(
        run,
        rater,
        stdin_answers(),
        sys.stdout,
        sample=sample,
        seed=seed,
        battery=list(battery) or None,
        echo=not sys.stdin.isatty(),
        undecided=undecided,
        for_calibration=for_calibration,
    )


@app.command()
def agreement(
    runs: list[Path] = typer.Argument(..., help="Run files (JSONL) holding attempts and grades."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap intervals."),
) -> None:
    """Agreement between every pair of raters over the same attempts (SPEC section 6).

    Percent agreement, Cohen's kappa with a 95% bootstrap interval and the confusion matrix
    per pair; Fleiss' kappa and Krippendorff's alpha for more than two raters. A judge or
    rules rater with kappa < 0.6 against a human, or fewer than 20 shared attempts, is
    marked uncalibrated. ERROR verdicts are left out.
    """
    from agenttest.rating import format_agreement, rater_agreement

    report = rater_agreement(runs, seed=seed)
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(format_agreement(report))
