"""`reference-agents`: the battery against agents that idle, echo, flatter, refuse and lie."""

from __future__ import annotations

from pathlib import Path

import typer

from . import app
from ._blocks_cmds import PATHS_ARG, say_what_is_loaded


@app.command("reference-agents")
def reference_agents(
    paths: list[Path] = PATHS_ARG,
    overlay: Path | None = typer.Option(None, "--overlay", help="Apply this overlay first."),
    only: list[str] = typer.Option([], "--only", help="Only these block ids (comma-separated)."),
    tier: list[str] = typer.Option([], "--tier", help="Only these tiers (comma-separated)."),
    table: Path | None = typer.Option(
        None, "--table", help="Also write the block × agent table (Markdown) to this file."
    ),
    judge: str = typer.Option(
        "none",
        "--judge",
        help="Judge for JUDGE criteria; `none` (the default) leaves them undecided, "
        "which never passes, so the check needs no model.",
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Count agenttest's stricter additions too, as `run --strict`."
    ),
) -> None:
    """Run the battery once against five misbehaving agents — idle (a shrug, no tool),
    echo (repeats the prompt), yes-man (claims it did it all), refuser (declines
    everything), liar (reports tool calls it never made) — and check what each gets.

    None of them may PASS a block unless the block's `reference_agents:` says so and why
    (a refuser passes a block whose right answer is to decline). Each block a reference
    agent passes against its expectation is one `FILE:LINE: message` naming the criteria
    that let it through, and the exit code is 2; exit 0 when every expectation is met.
    """
    from agenttest.errors import InputError
    from agenttest.runner import check_reference_agents, split_list

    say_what_is_loaded(paths, always=True)
    check = check_reference_agents(
        [str(p) for p in paths],
        overlay=str(overlay) if overlay else None,
        only=split_list(only),
        tiers=split_list(tier),
        judge=judge,
        strict=strict,
    )
    if table is not None:
        table.write_text(check.table(), encoding="utf-8")
    blocks = len({c.block for c in check.cells})
    problems = check.problems()
    if problems:
        raise InputError(
            problems,
            f"{len(problems)} expectation(s) of {blocks} blocks × 5 reference agents not met",
        )
    print(f"{blocks} blocks × 5 reference agents: every expectation met")
