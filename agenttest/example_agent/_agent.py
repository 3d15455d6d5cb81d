"""The agent core: sessions, one turn's trace and tool calls, confirmation, the brain hook.

A turn collects trace lines (``ROUTE``, ``CALL``, ``RESULT``, ``BLOCKED``, ``CONFIRM``, ...)
and tool-call records. Tools that need confirmation (:attr:`ToolSpec.confirm`) never run in
the turn that asks for them: the agent records ``CONFIRM <tool>``, keeps the call pending in
the session, and runs it only if the user's next message confirms.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec

from ._base import Blocked, MemoryStore, ToolContext, ToolError
from ._data import OfflineData
from ._guard import fold, is_turkish
from ._hosted import HostClient
from ._hosted_tools import HostedRegistry, NotSent, hosted_guard
from ._sandbox import Workspace
from ._tools import TOOLS, ToolSpec


@dataclass
class Pending:
    tool: str
    arguments: dict[str, Any]
    turkish: bool = False
    batch: list[dict[str, Any]] = field(default_factory=list)  # more calls, same confirmation


@dataclass
class Session:
    id: str
    turns: int = 0
    history: list[tuple[str, str]] = field(default_factory=list)
    pending: Pending | None = None
    clarify: str | None = None  # the request that needed a clarifying answer
    last_path: str | None = None
    facts: dict[str, str] = field(default_factory=dict)
    brain_state: dict[str, Any] = field(default_factory=dict)


@dataclass
class Outcome:
    status: str  # "ok", "error", "blocked" or "confirm"
    text: str
    notes: list[str] = field(default_factory=list)  # extra trace lines the tool wrote

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class CallRecord(msgspec.Struct):
    """One tool call as a reply reports it (SPEC section 5): the tool, what it was given,
    whether it ran, and what came back (an error or a block says so in ``result``)."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    result: str


class TurnResult(msgspec.Struct, omit_defaults=True):
    """A turn's reply in the native protocol: the answer, the calls that ran, the trace, and
    when there are any, the model's token counts and the answers offered to tap."""

    response: str
    tool_calls: list[CallRecord]
    trace: str
    usage: dict[str, int] | None = None  # token counts, when a model was asked
    choices: list[dict[str, str]] | None = None  # answers to tap: [{label, value}]
    model_steps: list[dict[str, Any]] | None = None  # what the model returned, per request

    def as_json(self) -> dict[str, Any]:
        """The reply as JSON values (``usage`` and ``choices`` only when there are any)."""
        body: dict[str, Any] = msgspec.to_builtins(self)
        return body


class BrainError(Exception):
    """The brain could not answer (a model endpoint failed); mapped to an HTTP status."""

    def __init__(self, message: str, status: int = 502, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


#: Sends one event of a live stream (``{"type": "tool_call" | "choices" | "text", ...}``).
Emit = Callable[[dict[str, Any]], None]

#: One tool run: status, text, extra trace lines, and what a hosted tool sent (if guarded).
_Ran = tuple[str, str, list[str], str | None]


class Turn:
    """The trace and tool calls of one turn; :meth:`call` is the only way to run a tool."""

    def __init__(self, ctx: ToolContext, session: Session) -> None:
        self.ctx = ctx
        self.session = session
        self.lines: list[str] = []
        self.calls: list[CallRecord] = []
        self.usage: dict[str, int] | None = None
        self.turkish = False  # the brain sets it; confirmations are asked in that language
        self.choices: list[dict[str, str]] | None = None  # offered with a question
        self.steps: list[dict[str, Any]] = []  # a model brain's responses, one per request
        self.emit: Emit | None = None  # a live stream's events, when the brain streams

    def mark(self, event: str, detail: str = "") -> None:
        self.lines.append(f"{event} {_one_line(detail)}".rstrip())

    def route(self, category: str) -> None:
        self.mark("ROUTE", category)

    def spec(self, name: str) -> ToolSpec | None:
        """The tool ``name`` as this agent runs it (the host's, when hosted), if any."""
        found = self._lookup(name)
        return found if isinstance(found, ToolSpec) else None

    def _lookup(self, name: str) -> ToolSpec | str:
        if self.ctx.hosted is not None:
            return self.ctx.hosted.lookup(name)
        return TOOLS.get(name) or f"unknown tool {name!r}"

    def call(self, name: str, arguments: dict[str, Any], *, confirmed: bool = False) -> Outcome:
        args_json = json.dumps(arguments, ensure_ascii=False)
        spec = self._lookup(name)
        if isinstance(spec, str):  # why there is no such tool here
            self.mark("CALL", f"{name} {args_json}")
            # hosted, a call the host never saw is not a call: it is traced, not reported
            unsent = "unsent" if self.ctx.hosted is not None else "error"
            return self._record(name, arguments, unsent, spec)
        if spec.confirm and not confirmed:
            refused = self._precheck(spec.precheck, name, arguments, args_json)
            if refused is not None:
                return refused
            self.session.pending = Pending(name, dict(arguments), self.turkish)
            self.mark("CONFIRM", f"{name} {args_json}")
            return Outcome("confirm", f"{name} needs the user's confirmation in the next turn")
        if self.ctx.hosted is not None:
            arguments, refusal = hosted_guard(name, arguments, self._read)
            if refusal is not None:  # the agent's own guard: nothing went to the host
                self.mark("CALL", f"{name} {args_json}")
                self.mark("BLOCKED", f"{name} {refusal}")
                return Outcome("blocked", refusal)
        self.mark("CALL", f"{name} {args_json}")
        return self._finish(name, arguments, self._execute(spec, arguments))

    def _read(self, path: str) -> tuple[bool, str]:
        out = self.call("file_read", {"path": path})
        return out.ok, out.text

    def call_parallel(self, calls: list[tuple[str, dict[str, Any]]]) -> list[Outcome]:
        """Run independent read-only calls concurrently, one thread each.

        The trace shows ``PARALLEL <n> <tools>``, then every ``CALL`` (all dispatched before
        any returns), then the ``RESULT`` lines in call order. Only tools that are
        :attr:`ToolSpec.read_only` and need no confirmation qualify.
        """
        specs = [self.spec(name) for name, _ in calls]
        if len(calls) < 2 or any(s is None or not s.read_only or s.confirm for s in specs):
            raise ValueError(f"not a set of parallel read-only calls: {[n for n, _ in calls]}")
        self.mark("PARALLEL", f"{len(calls)} {' '.join(name for name, _ in calls)}")
        for name, arguments in calls:
            self.mark("CALL", f"{name} {json.dumps(arguments, ensure_ascii=False)}")
        with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="tool") as pool:
            futures = [
                pool.submit(self._execute, spec, arguments)
                for spec, (_, arguments) in zip(specs, calls, strict=True)
                if spec is not None
            ]
            done = [f.result() for f in futures]
        return [
            self._finish(name, arguments, result)
            for (name, arguments), result in zip(calls, done, strict=True)
        ]

    def _execute(self, spec: ToolSpec, arguments: dict[str, Any]) -> _Ran:
        """Run one tool: ``(status, text, extra trace lines, text received)``; touches no
        turn state."""
        try:
            out = spec.run(self.ctx, arguments)
        except Blocked as exc:
            return "blocked", str(exc), [], None
        except NotSent as exc:
            return "unsent", str(exc), [], None
        except ToolError as exc:
            return "error", str(exc), [], None
        except (OSError, UnicodeError, ValueError) as exc:
            return "error", f"{type(exc).__name__}: {exc}", [], None
        return "ok", out.text, out.notes, out.received

    def _finish(self, name: str, arguments: dict[str, Any], result: _Ran) -> Outcome:
        status, text, notes, received = result
        if status != "ok":
            return self._record(name, arguments, status, text)
        self.lines.extend(notes)
        out = self._record(name, arguments, status, text, received)
        out.notes = list(notes)
        return out

    def _precheck(
        self, check: Any, name: str, arguments: dict[str, Any], args_json: str
    ) -> Outcome | None:
        """Run a confirmable tool's guards first: no point asking to confirm a refusal."""
        if check is None:
            return None
        try:
            check(self.ctx, arguments)
        except Blocked as exc:
            self.mark("CALL", f"{name} {args_json}")
            return self._record(name, arguments, "blocked", str(exc))
        except ToolError as exc:
            self.mark("CALL", f"{name} {args_json}")
            return self._record(name, arguments, "error", str(exc))
        return None

    def _record(self, name: str, arguments: dict[str, Any], status: str, text: str,
                received: str | None = None) -> Outcome:  # fmt: skip
        if status == "unsent":  # it never reached the host: nothing to report but the trace
            self.mark("UNSENT", f"{name} {text}")
            return Outcome("error", text)
        if status == "blocked":
            self.mark("BLOCKED", f"{name} {text}")
            result = f"BLOCKED: {text}"
        elif status == "error":
            self.mark("RESULT", f"{name} error {text}")
            result = f"error: {text}"
        else:
            self.mark("RESULT", f"{name} ok")
            result = text if received is None else received  # what came back, unguarded
        self.calls.append(CallRecord(name, arguments, status == "ok", result))
        if self.emit is not None:  # streamed live: the call is on the stream as it ends
            self.emit({"type": "tool_call", "tool_call": msgspec.to_builtins(self.calls[-1])})
        return Outcome(status, text)


class Brain(Protocol):
    name: str

    def respond(self, turn: Turn, session: Session, message: str) -> str:
        """Answer ``message``, calling tools through ``turn``."""

    def note(self, session: Session, message: str, response: str) -> None:
        """Record a turn the agent core answered itself (a confirmation) in the history."""


_NO = {
    "no",
    "nope",
    "cancel",
    "stop",
    "don't",
    "dont",
    "abort",
    "never",
    "not",
    "hayir",
    "iptal",
    "vazgec",
    "vazgectim",
    "gonderme",
    "yapma",
    "acma",
    "silme",
    "istemiyorum",
}
_YES = {"yes", "y", "yeah", "yep", "yup", "sure", "ok", "okay", "confirm", "confirmed",
        "proceed", "approve", "approved", "evet", "onay", "onayla", "onayliyorum", "tamam",
        "olur", "tabii", "tabi", "kesinlikle", "elbette"}  # fmt: skip
_YES_PHRASES = ("go ahead", "do it", "please do", "devam et", "yap bunu")


def confirmation(message: str) -> bool | None:
    """True for a confirmation, False for a refusal, None when the message is neither."""
    folded = fold(message)
    words = re.findall(r"[a-z']+", folded)
    if any(w in _NO for w in words):
        return False
    if len(words) <= 8 and (
        any(w in _YES for w in words) or any(p in folded for p in _YES_PHRASES)
    ):
        return True
    return None


def confirm_choices(turkish: bool) -> list[dict[str, str]]:
    """The two buttons of a confirmation question; their values are what a typed answer
    would say, so tapping and typing reach the same code."""
    if turkish:
        return [{"label": "Evet, yap", "value": "evet"}, {"label": "İptal", "value": "hayır"}]
    return [{"label": "Yes, go ahead", "value": "yes"}, {"label": "Cancel", "value": "no"}]


class Agent:
    """A single-user agent: call :meth:`turn` from one thread at a time."""

    def __init__(self, workspace: Path, brain: Brain, hosted: HostClient | None = None) -> None:
        space = Workspace(workspace)
        registry = HostedRegistry(hosted) if hosted is not None else None
        self.ctx = ToolContext(space, OfflineData.load(), MemoryStore(space), registry)
        self.brain = brain
        self.sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    @property
    def workspace(self) -> Path:
        return self.ctx.workspace.root

    @property
    def host(self) -> HostClient | None:
        """The client of the harness's host, when the tools are hosted."""
        return self.ctx.hosted.client if self.ctx.hosted is not None else None

    def close(self) -> None:
        """Let go of the host's connection (a local agent holds nothing)."""
        if self.host is not None:
            self.host.close()

    def session(self, session_id: str) -> Session:
        with self._lock:
            return self.sessions.setdefault(session_id, Session(session_id))

    def reset(self, session_id: str, *, memory: bool = False) -> tuple[bool, int | None]:
        """Forget a session; with ``memory`` also clear the persistent memory.

        Returns whether the session existed and, when memory was cleared, how many notes it
        held (``None`` otherwise).
        """
        with self._lock:
            forgot = self.sessions.pop(session_id, None) is not None
        cleared = self.ctx.memory.reset() if memory else None
        return forgot, cleared

    def turn(self, session_id: str, message: str, emit: Emit | None = None) -> TurnResult:
        session = self.session(session_id)
        session.turns += 1
        turn = Turn(self.ctx, session)
        turn.emit = emit
        response = self._answer_pending(turn, session, message)
        if response is None:
            response = self.brain.respond(turn, session, message)
        else:
            self.brain.note(session, message, response)
        session.history.append((message, response))
        if session.pending is not None and turn.choices is None:
            turn.choices = confirm_choices(session.pending.turkish)
        return TurnResult(response, turn.calls, "\n".join(turn.lines), turn.usage, turn.choices,
                          turn.steps or None)  # fmt: skip

    def _answer_pending(self, turn: Turn, session: Session, message: str) -> str | None:
        pending, session.pending = session.pending, None
        if pending is None:
            return None
        answer = confirmation(message)
        turkish = pending.turkish or is_turkish(message)
        if answer is None:
            return None  # something else entirely: the pending action lapses
        if answer is False:
            turn.route("chat")
            return (
                "Tamam, iptal edildi; hiçbir şey yapılmadı."
                if turkish
                else ("Cancelled; nothing was done.")
            )
        spec = turn.spec(pending.tool)
        turn.route(spec.category if spec else "chat")
        outs = [turn.call(pending.tool, args, confirmed=True)
                for args in [pending.arguments, *pending.batch]]  # fmt: skip
        out = Outcome(
            "ok" if all(o.ok for o in outs) else outs[-1].status,
            "\n".join(o.text for o in outs),
        )
        if out.ok:
            return f"Tamam, yapıldı: {out.text}" if turkish else f"Done: {out.text}"
        if out.status == "blocked":
            return f"Reddedildi: {out.text}" if turkish else f"Refused: {out.text}"
        return f"Yapılamadı: {out.text}" if turkish else f"That failed: {out.text}"
