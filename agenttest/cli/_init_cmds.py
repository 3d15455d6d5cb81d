"""`init`: write a commented starting file (agenttest.starters)."""

from __future__ import annotations

from pathlib import Path

import typer

from . import app


@app.command()
def init(
    kind: str = typer.Argument(
        ..., help="What to write: agent (a config), overlay, block or batch (a nightly file)."
    ),
    path: Path | None = typer.Argument(
        None,
        help="The new file (default in this folder: agent.yaml, overlay.yaml, "
        "MY-CALC-01.yaml, nightly.yaml; a folder gets that name inside it).",
    ),
    force: bool = typer.Option(False, "--force", help="Replace a file that already exists."),
) -> None:
    """Write a commented starting file that already loads: edit it, then run the command it
    prints. An existing file is kept (exit 2) unless --force."""
    from agenttest.starters import NEXT_STEP, write_starter

    written = write_starter(kind, path, force=force)
    print(f"wrote {written}")
    print(f"next: {NEXT_STEP[kind].format(path=written)}")
