"""What a hosted tool is to a client (:class:`ToolSpec`) and what one call came to
(:class:`ToolOutcome`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolSpec:
    """A hosted tool as ``tools/list`` shows it: its role name, what it does, and the JSON
    Schema (draft 2020-12) its arguments must satisfy."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    #: changes nothing in the world (an MCP read-only hint: a client may run such calls
    #: side by side)
    read_only: bool = False


@dataclass(frozen=True)
class ToolOutcome:
    """One call's outcome before it is recorded: the full result text (the recorder caps it),
    whether the tool succeeded, its error message when not, and the fault that fired, if any."""

    ok: bool
    result: str
    error: str | None = None
    fault: str | None = None
