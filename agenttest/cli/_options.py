"""Options that several commands share, spelled once so their help cannot drift apart."""

from __future__ import annotations

from typing import Any

import typer


def strict_option() -> Any:
    """``--strict`` of the commands that grade (run, grade)."""
    return typer.Option(
        False,
        "--strict",
        help="agenttest's stricter additions (origin `agenttest`) count toward the verdict "
        "instead of being reported as strict-check warnings.",
    )


def allow_temp_option() -> Any:
    """``--allow-temp`` of the commands that write a run file (run, import)."""
    return typer.Option(
        False, "--allow-temp", help="Allow writing under /tmp and other temp folders."
    )


def k_option() -> Any:
    """``--k`` of the commands that select blocks to run (run, plan)."""
    return typer.Option(None, "--k", help="Attempts per block (default: each block's k).")


def only_option() -> Any:
    """``--only`` of the commands that select blocks (run, plan)."""
    return typer.Option([], "--only", help="Only these block ids (comma-separated).")


def tier_option() -> Any:
    """``--tier`` of the commands that select blocks (run, plan)."""
    return typer.Option([], "--tier", help="Only these tiers (comma-separated).")


def overlay_option() -> Any:
    """``--overlay`` of the commands that load a battery for an agent (run, plan)."""
    return typer.Option(None, "--overlay", help="Overlay for another agent.")
