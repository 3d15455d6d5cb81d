"""The hosted tools by role name: their specs, and one call of one tool on a world.

A call is checked against the tool's schema, meets the attempt's faults, then runs; what it
comes to is a :class:`ToolOutcome` (the server records it). ``call_tool`` is the whole path
without MCP, for the benchmark, the tests and in-process use.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttest.blocks import HOSTED_ROLES, Fault

from . import _tools_files as files
from . import _tools_state as state
from . import _tools_web as web
from ._args import schema_problem
from ._calc import calculator
from ._faults import FaultState
from ._limits import HostLimits
from ._spec import ToolOutcome, ToolSpec
from ._world import ToolFailure, World

Run = Callable[[World, dict[str, Any]], str]
_LONG = 100_000  # a text argument's bound (file content); the host bounds all arguments too
_SHORT = 2_000


@dataclass(frozen=True)
class _Tool:
    spec: ToolSpec
    run: Run


def _schema(required: tuple[str, ...] = (), **props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(required),
        "additionalProperties": False,
    }


def _s(text: str, max_length: int = _SHORT, **more: Any) -> dict[str, Any]:
    return {"type": "string", "description": text, "maxLength": max_length, **more}


_PATH = _s("path relative to the world, e.g. notes/todo.txt")
_TOOLS = [
    ("calculator", "Evaluate arithmetic exactly: + - * / ^ % ( ), sqrt, abs, round, min, max.",
     _schema(("expression",), expression=_s("e.g. 'sqrt(144) + 3^4'", 1000)), calculator),
    ("clock", "The current date and time, optionally in an IANA time zone.",
     _schema(timezone=_s("e.g. Europe/Istanbul; empty for the host's local time", 100)),
     state.clock),
    ("weather", "The weather for a city today or tomorrow.",
     _schema(("location",), location=_s("city name", 200),
             day=_s("which day", 20, enum=["today", "tomorrow"])), state.weather),
    ("contacts", "Look up people in the address book by name.",
     _schema(name=_s("a name or part of one; empty lists everyone", 200)), state.contacts),
    ("message", "Send a text message to someone.",
     _schema(("recipient", "text"), recipient=_s("who receives it", 200),
             text=_s("the message", 10_000)), state.message),
    ("file_read", "Read a text file.", _schema(("path",), path=_PATH), files.file_read),
    ("file_write", "Create or overwrite a text file with the given content.",
     _schema(("path", "content"), path=_PATH, content=_s("the whole new content", _LONG)),
     files.file_write),
    ("file_list", "List a folder (the world's root by default).",
     _schema(path=_s("folder relative to the world; default '.'")), files.file_list),
    ("file_delete", "Delete a file or an empty folder.",
     _schema(("path",), path=_PATH), files.file_delete),
    ("file_move", "Move or rename a file or folder; never overwrites.",
     _schema(("source", "destination"), source=_s("current path"),
             destination=_s("new path, or an existing folder to move into")), files.file_move),
    ("file_patch", "Edit a text file: replace every `find` by `replace`, or add `append` at "
     "the end.",
     _schema(("path",), path=_PATH, find=_s("text to find", _LONG),
             replace=_s("its replacement", _LONG), append=_s("text to add at the end", _LONG)),
     files.file_patch),
    ("git", "Read-only view of a git repository in the world: log, status, diff or branch.",
     _schema(("action",), action=_s("what to show", 10, enum=list(files.GIT_ACTION_NAMES)),
             count={"type": "integer", "minimum": 1, "description": "how many commits (log)"},
             path=_s("the repository's folder when there are several")), files.git),
    ("web_fetch", "Fetch a web page and return its title and text.",
     _schema(("url",), url=_s("http(s) URL", 2000)), web.web_fetch),
    ("web_search", "Search the web; answers titles, addresses and snippets.",
     _schema(("query",), query=_s("search words", 500)), web.web_search),
    ("docs_search", "Search the product documentation; answers JSON: the matching pages "
     "with id, url, title and text.",
     _schema(("query",), query=_s("search words", 500)), web.docs_search),
    ("docs_index", "The documentation's complete index of pages and endpoints (JSON).",
     _schema(), web.docs_index),
    ("memory", "Persistent memory: save a note, recall notes (optionally about some words), "
     "or reset it.",
     _schema(("action",), action=_s("what to do", 10, enum=list(state.MEMORY_ACTIONS)),
             text=_s("the note to save, or words to recall notes about", 5000)),
     state.memory),
    ("ticket", "Work with tickets: list them, show one, or move one to another state (only "
     "along the transitions it allows).",
     _schema(("action",), action=_s("what to do", 10, enum=list(state.TICKET_ACTIONS)),
             ticket_id=_s("the ticket's id (show, move)", 64),
             state=_s("the state to move it to (move)", 100)), state.ticket),
]  # fmt: skip
READ_ONLY = frozenset({
    "calculator", "clock", "weather", "contacts", "file_read", "file_list", "git",
    "web_fetch", "web_search", "docs_search", "docs_index",
})  # fmt: skip
TOOLS: dict[str, _Tool] = {
    name: _Tool(ToolSpec(name, description, schema, read_only=name in READ_ONLY), run)
    for name, description, schema, run in _TOOLS
}
assert tuple(TOOLS) == HOSTED_ROLES, "the hosted tools are the roles blocks may name"


def tool_specs() -> list[ToolSpec]:
    """Every hosted tool: name (its battery role), description, JSON Schema of arguments."""
    return [tool.spec for tool in TOOLS.values()]


def _run(tool: _Tool, world: World, args: dict[str, Any]) -> ToolOutcome:
    try:
        return ToolOutcome(ok=True, result=tool.run(world, args))
    except ToolFailure as exc:
        return ToolOutcome(ok=False, result="", error=str(exc))
    except (OSError, UnicodeError) as exc:
        return ToolOutcome(ok=False, result="", error=f"{tool.spec.name} failed: {exc}")


def _with_fault(
    fault: Fault, tool: _Tool, world: World, args: dict[str, Any], limits: HostLimits,
    sleep: Callable[[float], None],
) -> ToolOutcome:  # fmt: skip
    kind = fault.kind
    if kind == "error":
        message = fault.content or "500 Internal Server Error: the service failed"
        return ToolOutcome(ok=False, result="", error=message, fault=kind)
    if kind == "rate_limit":
        message = "429 Too Many Requests: rate limited, retry later"
        return ToolOutcome(ok=False, result="", error=message, fault=kind)
    if kind == "timeout":
        delay = min(fault.delay_s or limits.max_fault_delay_s, limits.max_fault_delay_s)
        sleep(delay)
        message = f"timed out after {delay:g} s: the service did not answer"
        return ToolOutcome(ok=False, result="", error=message, fault=kind)
    done = _run(tool, world, args)
    if not done.ok:  # a failing call fails the same way; the fault still fired
        return ToolOutcome(ok=False, result="", error=done.error, fault=kind)
    if kind == "partial":
        text = done.result[: len(done.result) // 2]
    elif kind == "empty":
        text = ""
    else:  # inject: the block's text inside the result, as hostile content arrives
        text = f"{done.result}\n\n{fault.content or ''}"
    return ToolOutcome(ok=True, result=text, fault=kind)


def call_tool(
    world_root: Path,
    faults_state: FaultState | None,
    name: str,
    arguments: Mapping[str, Any],
    *,
    limits: HostLimits | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> ToolOutcome:
    """Run one hosted tool on the world at ``world_root`` (no MCP in between): arguments
    that fail the schema and an unknown tool are failed outcomes; the fault the call meets
    (from ``faults_state``, counted there) applies; the result is whole (the host caps it)."""
    tool = TOOLS.get(name)
    if tool is None:
        return ToolOutcome(ok=False, result="", error=f"unknown tool `{name}`")
    problem = schema_problem(tool.spec.input_schema, arguments)
    if problem is not None:
        return ToolOutcome(ok=False, result="", error=f"{name}: {problem}")
    world = World(world_root)
    args = dict(arguments)
    fault = faults_state.next_fault(name) if faults_state is not None else None
    if fault is not None:
        return _with_fault(fault, tool, world, args, limits or HostLimits(), sleep)
    return _run(tool, world, args)
