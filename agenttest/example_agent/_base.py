"""Shared pieces of the tools: what a tool returns, what it may use, argument helpers."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from agenttest._util.lenient import lenient

from ._data import OfflineData
from ._sandbox import Blocked, ToolError, Workspace

if TYPE_CHECKING:
    from ._hosted_tools import HostedRegistry

__all__ = [
    "Blocked",
    "MemoryStore",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "bool_arg",
    "int_arg",
    "str_arg",
]


@dataclass
class ToolOutput:
    """The text a tool hands back, plus extra trace lines it wants recorded. ``received`` is
    what a hosted tool sent when the agent's guard changed it (the reply reports that)."""

    text: str
    notes: list[str] = field(default_factory=list)
    received: str | None = None


class Note(msgspec.Struct, omit_defaults=True):
    """A note in persistent memory, and when it was saved (a hand-written file may say it
    any way, or not at all)."""

    text: str
    saved_at: object = None


class MemoryFile(msgspec.Struct):
    """``.agent/memory.json``, read leniently: what is not a note (no text) is not kept."""

    items: list[object] = []


class MemoryStore:
    """Persistent memory: a JSON list of notes in ``.agent/memory.json`` of the workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self.workspace.root / ".agent" / "memory.json"

    def items(self) -> list[Note]:
        with self._lock:
            return self._load()

    def _load(self) -> list[Note]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            raise ToolError(f"memory file unreadable: {exc}") from exc
        notes = []
        for item in lenient(MemoryFile, raw).items:
            try:
                notes.append(msgspec.convert(item, Note))
            except msgspec.ValidationError:
                continue
        return notes

    def _store(self, notes: list[Note]) -> None:
        folder = self.workspace.agent_dir()
        tmp = folder / "memory.json.tmp"
        body = {"items": msgspec.to_builtins(notes)}
        tmp.write_text(json.dumps(body, ensure_ascii=False, indent=1), "utf-8")
        tmp.replace(folder / "memory.json")

    def save(self, text: str) -> int:
        with self._lock:
            notes = self._load()
            if not any(n.text == text for n in notes):
                notes.append(Note(text, datetime.now(UTC).isoformat(timespec="seconds")))
                self._store(notes)
            return len(notes)

    def reset(self) -> int:
        """Forget every note (an unreadable memory file is replaced too); return how many."""
        with self._lock:
            try:
                count = len(self._load())
            except ToolError:
                count = 0
            self._store([])
            return count


@dataclass
class ToolContext:
    """Everything a tool may touch: the workspace, offline data and persistent memory; with
    hosted tools, the host's registry (then every tool runs there)."""

    workspace: Workspace
    data: OfflineData
    memory: MemoryStore
    hosted: HostedRegistry | None = None


def str_arg(args: Mapping[str, Any], name: str, *, required: bool = True) -> str:
    value = args.get(name)
    if value is None:
        if required:
            raise ToolError(f"missing argument {name!r}")
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise ToolError(f"argument {name!r} must be a string")
    return value


def int_arg(args: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = args.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError) as exc:
        raise ToolError(f"argument {name!r} must be a whole number") from exc
    return max(low, min(high, number))


def bool_arg(args: Mapping[str, Any], name: str) -> bool:
    value = args.get(name, False)
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)
