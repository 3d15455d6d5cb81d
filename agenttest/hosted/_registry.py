"""The hosted tools by role name: their specs, and one call of one tool on a world."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._faults import FaultState
from ._spec import ToolOutcome, ToolSpec


def tool_specs() -> list[ToolSpec]:
    """Every hosted tool: name (its battery role), description, JSON Schema of arguments."""
    return []


def call_tool(
    world_root: Path,
    faults_state: FaultState | None,
    name: str,
    arguments: Mapping[str, Any],
) -> ToolOutcome:
    """Run one hosted tool on the world at ``world_root`` (no MCP in between): the fault
    the call meets applies; an unknown tool or bad arguments is a failed outcome."""
    return ToolOutcome(ok=False, result="", error=f"unknown tool `{name}`")
