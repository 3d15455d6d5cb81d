"""`validate`, `list` and `schema`: commands over the block loader."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from . import app

PATHS_ARG = typer.Argument(..., help="Block files or folders (searched recursively for *.yaml).")

#: From this many block files to parse (~12 ms each when idle, several times that on a busy
#: machine) `list` and `validate` say so first: a command shows something within a second.
PARSE_NOTICE_FILES = 10


def say_what_is_loaded(paths: list[Path], *, always: bool = False) -> None:
    """A first line on stderr saying what loading ``paths`` will do: only when it parses
    many files, unless ``always`` (files parsed before are read from the parse cache)."""
    from agenttest.blocks import unparsed_files

    todo = len(unparsed_files(paths))
    if todo >= PARSE_NOTICE_FILES or (always and todo):
        note = f"loading blocks: parsing {todo} new or changed file{'s' if todo > 1 else ''} ..."
    elif always:
        note = "loading blocks (all parsed before) ..."
    else:
        return
    print(note, file=sys.stderr, flush=True)


@app.command()
def validate(
    paths: list[Path] = PATHS_ARG,
    overlay: Path | None = typer.Option(
        None, "--overlay", help="Overlay file whose reference fields replace the blocks' own."
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Also run the battery lint (preconditions, inverses, rubrics, premises).",
    ),
) -> None:
    """Check blocks (and an overlay): one `FILE:LINE: message` per problem, exit 2 on any."""
    from agenttest.blocks import validate_paths

    say_what_is_loaded(paths)
    battery = validate_paths(paths, overlay=overlay, strict=strict)
    tiers: dict[str, set[str]] = {}
    cases = 0
    for b in battery:  # a parameterised block counts once; its cases are counted apart
        family = b.case.parent if b.case is not None and b.case.parent else b.id
        tiers.setdefault(b.tier, set()).add(family)
        cases += b.case is not None
    per_tier = ", ".join(f"{t} {len(n)}" for t, n in tiers.items())
    total = sum(len(n) for n in tiers.values())
    extra = f" with overlay {battery.overlay.agent}" if battery.overlay else ""
    with_cases = f", {cases} cases" if cases else ""
    print(f"{total} blocks valid{extra} ({per_tier}{with_cases}); battery {battery.digest}")


@app.command("list")
def list_blocks(
    paths: list[Path] = PATHS_ARG,
    tier: list[str] = typer.Option(
        [], "--tier", help="Only these tiers (repeat or comma-separate)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON array instead of a table."),
    overlay: Path | None = typer.Option(None, "--overlay", help="Apply this overlay first."),
) -> None:
    """List blocks with their ids, tier, k, number of turns, OWASP items, title and aliases
    (a parameterised block: a row per case); the last line counts blocks as `validate` does."""
    from agenttest.blocks import block_summaries, check_tiers, count_line, load_battery

    tiers = [t for item in tier for t in item.split(",") if t]
    check_tiers(tiers)  # before the battery loads: a typo costs nothing
    say_what_is_loaded(paths)
    battery = load_battery(paths, overlay=overlay)
    rows = block_summaries(battery, tiers=tiers)
    if as_json:
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    widths = (16, 4, 3, 5)
    for r in rows:
        owasp = ",".join(r["owasp"]) or "-"
        aka = f"  (aka {', '.join(r['aliases'])})" if r["aliases"] else ""
        print(
            f"{r['id']:<{widths[0]}} {r['tier']:<{widths[1]}} k={r['k']:<{widths[2]}} "
            f"turns={r['turns']:<{widths[3]}} {owasp:<12} {r['title']}{aka}"
        )
    print(count_line(rows), file=sys.stderr)


@app.command()
def schema(
    records: bool = typer.Option(
        False, "--records", help="The schema of run-file records instead (for other tools)."
    ),
    agent_config: bool = typer.Option(
        False, "--agent-config", help="The schema of agent config files instead (for editors)."
    ),
    batch: bool = typer.Option(
        False, "--batch", help="The schema of batch files (`agenttest batch`) instead."
    ),
) -> None:
    """Print the JSON Schema of block and overlay files (for editors), with --records of
    the records in a JSONL run file, with --agent-config of agent config files, with
    --batch of batch files."""
    if batch:
        from agenttest.batch import batch_json_schema

        print(json.dumps(batch_json_schema(), indent=2, ensure_ascii=False))
        return
    if agent_config:
        from agenttest.agents import agent_config_json_schema

        print(json.dumps(agent_config_json_schema(), indent=2, ensure_ascii=False))
        return
    if records:
        from agenttest.results import records_json_schema

        print(json.dumps(records_json_schema(), indent=2, ensure_ascii=False))
        return
    from agenttest.blocks import battery_json_schema

    print(json.dumps(battery_json_schema(), indent=2, ensure_ascii=False))
