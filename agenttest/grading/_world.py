"""World state from the tool-call record, for attempts that left no workspace snapshot.

An imported transcript has no snapshot of the disk, but its tool-call record often settles
what a file criterion asks. The rule (docs/grading.md, "World state from the tool calls"):

* with a complete tool-call record (every turn's trace whole, every call's outcome known),
  a path no call touched is unchanged: it is in the state the block's fixtures put it in
  (without them: unknown, unless the overlay maps the path to the host path the legacy run
  used, whose state the methodology's fixture list declares);
* otherwise the last *successful* call that wrote, patched, deleted or moved the path
  decides (a failed call changed nothing);
* a call on the path whose outcome is unknown, a shell command naming it that is not
  plainly read-only, or a partial trace leaves the state undecided.

Only machine-produced fields decide (a call's ``ok`` flag; the arguments say which path the
tool acted on and what the write tool was handed, never whether it worked).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, NamedTuple

import msgspec

from agenttest.blocks import roles_of
from agenttest.results import ToolCall

from ._context import Ctx

PATH_KEYS = ("path", "file", "file_path", "filepath", "target", "source", "src", "from")
DEST_KEYS = ("destination", "dest", "dst", "to", "new_path", "target_path")
CONTENT_KEYS = ("content", "text", "data", "body")
DELETE_ACTIONS = frozenset({"delete", "remove", "rm", "trash", "unlink"})
MOVE_ACTIONS = frozenset({"move", "mv", "rename"})
COPY_ACTIONS = frozenset({"copy", "cp", "duplicate"})
CREATE_ACTIONS = frozenset({"create", "touch", "mkdir", "write"})
#: shell programs that only read (a command made of these and no redirection changes nothing)
READ_ONLY_PROGRAMS = frozenset(
    {"ls", "cat", "wc", "head", "tail", "grep", "find", "stat", "file", "echo", "pwd", "du"}
)


class Unknown(NamedTuple):
    """The state cannot be told from the record; ``why`` says what is missing."""

    why: str


class Present(NamedTuple):
    content: str | None  # None: exists, content not known


Absent = None
#: what a file reader gets for a file that exists with content the record does not show
UNKNOWN_CONTENT = Present(None)
State = Present | Unknown | None


def _norm(path: str) -> str:
    return str(PurePosixPath(path.strip().rstrip("/"))) if path.strip() else ""


def same_path(call_path: str, rel: str) -> bool:
    """A call's path names the path ``rel``: equal, or ending in ``/rel`` (``~/`` dropped)."""
    a, b = _norm(call_path), _norm(rel)
    tail = b[2:] if b.startswith("~/") else b
    return bool(tail) and (a in (b, tail) or a.endswith("/" + tail))


def _arg(call: ToolCall, keys: tuple[str, ...]) -> str | None:
    args = call.arguments
    for k in keys:
        v = args.get(k)
        if isinstance(v, str) and v.strip():
            return v
    return None


def _written(call: ToolCall) -> str | None:
    """What a write put in the file: its content argument; an empty or blank one is an
    emptied file, not an unknown content (None: the record has no content argument)."""
    content = _arg(call, CONTENT_KEYS)
    if content is not None:
        return content
    blank = [v for k in CONTENT_KEYS if isinstance(v := call.arguments.get(k), str)]
    return blank[0] if blank else None


def _roles(ctx: Ctx, call: ToolCall) -> set[str]:
    return roles_of(ctx.block.reference.tools, call) or {call.name}


class Effect(NamedTuple):
    state: Any  # a State, or NO_CHANGE
    note: str


#: a call on the path that failed: it changed nothing
NO_CHANGE = Unknown("no change")


def effect(ctx: Ctx, call: ToolCall, rel: str) -> Effect | None:
    """What one call did to ``rel`` (None: it did not touch it)."""
    name = str(call.name or "")
    roles = _roles(ctx, call)
    ok = call.ok
    src, dst = _arg(call, PATH_KEYS), _arg(call, DEST_KEYS)
    action = str(call.arguments.get("action") or "").lower()
    if "shell" in roles:
        return _shell_effect(call, rel, ok)
    touches_src = src is not None and same_path(src, rel)
    touches_dst = dst is not None and _dest_names(dst, src, rel)
    if not (touches_src or touches_dst):
        return None
    if ok is None:
        return Effect(Unknown(f"{name} acted on {rel}, outcome unknown"), "outcome unknown")
    if ok is False:
        return Effect(NO_CHANGE, f"{name} failed on {rel}: changed nothing")
    if action in DELETE_ACTIONS or (not action and "file_delete" in roles and touches_src):
        return Effect(Absent, f"{name} deleted it")
    if action in MOVE_ACTIONS or (not action and "file_move" in roles):
        if touches_dst:
            return Effect(Present(None), f"{name} moved a file here")
        return Effect(Absent, f"{name} moved it away")
    if action in COPY_ACTIONS and touches_dst:
        return Effect(Present(None), f"{name} copied a file here")
    if "file_write" in roles or action in CREATE_ACTIONS:
        content = _written(call)
        return Effect(Present(content), f"{name} wrote it" + (" empty" if content == "" else ""))
    if "file_patch" in roles:
        return Effect(Present(None), f"{name} patched it")
    return None  # a read, a listing: no change


def _dest_names(dst: str, src: str | None, rel: str) -> bool:
    if same_path(dst, rel):
        return True
    base = PurePosixPath(src).name if src else ""
    return bool(base) and same_path(f"{_norm(dst)}/{base}", rel)


_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")


def _shell_effect(call: ToolCall, rel: str, ok: bool | None) -> Effect | None:
    command = _arg(call, ("command", "cmd", "script")) or ""
    name = PurePosixPath(_norm(rel)).name
    if not name or name not in command:
        return None
    if ok is False:
        return Effect(NO_CHANGE, "a shell command naming it failed: changed nothing")
    parts = [part.split() for part in _SPLIT.split(command.strip()) if part.split()]
    programs = {words[0] for words in parts}
    if not _written_files(command) and programs <= READ_ONLY_PROGRAMS:
        return None
    if ok and _redirects_to(command, rel) and not programs & {"rm", "mv", "unlink"}:
        return Effect(Present(None), "a successful shell command wrote it (redirection)")
    return Effect(Unknown(f"a shell command may have changed {rel}: {command!r}"), "shell")


#: output redirected to a file (``2>&1`` and other descriptor copies write no file)
_REDIRECT = re.compile(r"(?<![<>])>{1,2}(?!&)\s*['\"]?([^\s'\";|&<>]+)")


def _written_files(command: str) -> list[str]:
    return [m.group(1) for m in _REDIRECT.finditer(command) if m.group(1) != "/dev/null"]


def _redirects_to(command: str, rel: str) -> bool:
    return any(same_path(target, rel) for target in _written_files(command))


def initial_state(ctx: Ctx, rel: str, fixtures_applied: bool) -> State:
    """The state the block's fixtures put ``rel`` in before the attempt."""
    mapped = rel in ctx.block.reference.paths
    if not fixtures_applied and not mapped:
        return Unknown(
            "the attempt ran without the block's fixtures, so its state before is unknown"
        )
    for fx in reversed(ctx.block.fixtures):
        if fx.path is None or _norm(fx.path) != _norm(rel):
            continue
        if fx.kind == "absent":
            return Absent
        if fx.kind in ("file", "dir", "git_repo"):
            # without our fixtures the overlay's mapped host path played the fixture's role
            # (the methodology's own fixture list declares the same file): it held the
            # declared content, so "unchanged" answers "was it emptied?"
            return Present(fx.content or "")
    return Unknown("no fixture declares its state before the attempt")


def world_state(ctx: Ctx, rel: str, initial: State) -> tuple[State, str]:
    """The state of ``rel`` after the attempt, replaying the tool-call record."""
    turns = list(range(len(ctx.turns)))
    if ctx.trace_partial(turns):
        return Unknown("the trace is partial, so calls may be missing"), "partial trace"
    if ctx.attempt.status not in (None, "completed"):
        return Unknown("the attempt did not complete"), "incomplete attempt"
    state: State = initial
    notes: list[str] = []
    for ti, ci, call in ctx.calls(turns):
        eff = effect(ctx, call, rel)
        if eff is None:
            continue
        notes.append(f"turn {ti + 1} call {ci}: {eff.note}")
        if eff.state is NO_CHANGE:
            continue
        state = eff.state
        if isinstance(state, Unknown):
            return state, "; ".join(notes)
    if not notes:
        notes.append("no call touched it: unchanged")
    return state, "; ".join(notes)


def describe(state: Any) -> str:
    if isinstance(state, Unknown):
        return state.why
    return "absent" if state is None else "exists"


#: a failed read whose result says this showed the path was absent (English and Turkish)
NOT_FOUND = re.compile(
    r"not found|no such file|does not exist|doesn't exist|could ?n[o']t (?:be )?f(?:in|ou)d|"
    r"cannot find|bulunamad|bulunmuyor|mevcut değil|böyle bir dosya yok",
    re.IGNORECASE,
)


def start_state(ctx: Ctx, rel: str) -> tuple[State, str]:
    """The state of ``rel`` before the attempt, as the tool-call record shows it.

    The first call on the path that tells decides: a successful read or listing of it (it
    existed; with its content when the result holds it), a failed read whose result says
    "not found" (it was absent). A change before any such call (a write, a move, a delete,
    a shell command that may write) hides the state before: undecided. Only the runtime's
    fields decide (``ok``, ``result``), never the arguments' claims or the reply.
    """
    for ti, ci, call in ctx.calls(list(range(len(ctx.turns)))):
        src = _arg(call, PATH_KEYS)
        ok = call.ok
        result = str(call.result or "")
        where = f"turn {ti + 1} call {ci} ({call.name})"
        names_it = src is not None and same_path(src, rel)
        if ok is False and names_it and NOT_FOUND.search(result):
            return Absent, f"{where}: it failed, not found"
        changes = effect(ctx, msgspec.structs.replace(call, ok=True), rel)  # if it worked
        if changes is not None:
            if ok is False:
                continue  # a failed change changed nothing
            return Unknown(f"{where} may have changed it before any read showed it"), where
        if names_it and ok is True:
            content = call.result
            return Present(content if isinstance(content, str) else None), f"{where}: read"
    return Unknown("no call showed its state before the attempt"), "no read of it"
