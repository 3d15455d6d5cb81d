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
