"""Reading PheronAgent's HTTP envelope and audit log, as stored by methodology-v1 records.

The old harness saved, per turn, the agent's HTTP reply (a JSON envelope as a string) and a
time window of the agent's audit log. That window overlaps the previous attempts, so the
lines of *this* turn are found by their task anchor (``[LANG LOCK] Detected: … for prompt:
<prompt>``) and the ``[PRE-TASK]`` line that opens the same task. Tool calls are read from
what ran (``Executing Tool`` / ``Tool Result`` / ``Tool Error``), not from what the planner
intended (``CALL(N) WITH {...}``), as methodology §10 asks of security graders.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agenttest.results import ToolCall

#: PheronAgent's numeric tool ids (methodology catalogue §0.1); extended per file from the
#: log, where a planned ``CALL(N)`` is followed by ``Executing Tool: <name>``.
UBIDS: dict[int, str] = {
    17: "send_message_via_whatsapp_or_imessage", 18: "music_dna", 32: "shell_exec",
    33: "read_file", 34: "write_file", 35: "learn_application_ui", 36: "get_system_telemetry",
    37: "send_message_via_whatsapp_or_imessage", 38: "contacts_find", 39: "file_manager_action",
    41: "patch_file", 42: "git_action", 44: "memory", 45: "web_search", 46: "web_fetch",
    58: "get_system_info", 80: "calculator_op", 81: "get_weather", 82: "system_date",
    88: "app_launcher", 96: "git_tool", 97: "memory_tool",
}  # fmt: skip

_TS = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ?)\]")
_ANCHOR = re.compile(r"for prompt: (.*)$")
_EXEC = re.compile(r"Executing Tool: (?P<name>[\w.-]+) \| Params: (?P<params>.*)$", re.S)
_OK = re.compile(r"Tool Result: (?P<name>[\w.-]+) \| Output Size: (?P<size>\d+)")
_ERR = re.compile(r"Tool Error: (?P<name>[\w.-]+) \| Error: (?P<msg>.*)$", re.S)
#: the shell tool's own exit report: a non-zero exit is a failed call even though the
#: registry then logs "Tool Result" with the (error) output's size
_SHELL_EXIT = re.compile(r"\[SHELL_ERROR\] Exit (?P<code>-?\d+):?(?P<msg>.*)$", re.S)
_NOT_FOUND = re.compile(r"Tool not found for UBID: (\d+)")
_PLAN_CALL = re.compile(r"CALL\((\d+)\)\s*WITH\s*")


@dataclass(frozen=True)
class Entry:
    """One log entry: its first line number (0-based, in the excerpt), timestamp and text."""

    line: int
    ts: str | None
    text: str


def entries(audit: str) -> list[Entry]:
    """Split an excerpt into entries; lines without a timestamp continue the previous one."""
    out: list[Entry] = []
    for i, line in enumerate(audit.splitlines()):
        m = _TS.match(line)
        if m or not out:
            out.append(Entry(i, m.group(1) if m else None, line))
        else:
            prev = out[-1]
            out[-1] = Entry(prev.line, prev.ts, prev.text + "\n" + line)
    return out


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def prompt_matches(logged: str, prompt: str) -> bool:
    """The log truncates long prompts: the logged text must start the prompt."""
    a, b = _key(logged), _key(prompt)
    return bool(a) and (b.startswith(a) or a.startswith(b))


@dataclass
class Segmenter:
    """Finds each turn's own lines in overlapping excerpts, in execution order.

    A turn's task is the last task in its excerpt whose anchor names the turn's prompt,
    unless that task started before the task the previous turn took. Two runs of a fast
    block can start in the same second with the same prompt; their anchor lines are then
    identical and the log cannot tell them apart, which the returned note says. An excerpt
    with no anchor at all but only lines newer than the last task taken is the tail of a
    task that began before the excerpt's window (long turns): it is taken as such.
    """

    last_ts: str = ""
    last_key: str = ""

    def segment(self, audit: str, prompt: str) -> tuple[list[Entry], str]:
        """(entries of this turn's task, how they were found) — empty when not found."""
        items = entries(audit)
        anchors = [i for i, e in enumerate(items) if _ANCHOR.search(e.text)]
        starts = [self._task_start(items, a, anchors) for a in anchors]
        for k in range(len(anchors) - 1, -1, -1):
            entry = items[anchors[k]]
            m = _ANCHOR.search(entry.text)
            if not m or not prompt_matches(m.group(1), prompt):
                continue
            if entry.ts and entry.ts < self.last_ts:
                break  # older than a task already taken: not this turn's
            end = starts[k + 1] if k + 1 < len(anchors) else len(items)
            how = "task anchor"
            if _key(entry.text) == self.last_key:
                how += " (its anchor line equals the previous turn's, same second and prompt)"
            self.last_ts, self.last_key = entry.ts or self.last_ts, _key(entry.text)
            return items[starts[k] : end], how
        first_ts = next((e.ts for e in items if e.ts), None)
        if not anchors and first_ts is not None and first_ts >= self.last_ts:
            self.last_ts = items[-1].ts or self.last_ts
            self.last_key = ""
            return items, "tail of a task whose start lies before the excerpt"
        return [], "no log lines of this turn's task in the excerpt"

    @staticmethod
    def _task_start(items: list[Entry], anchor: int, anchors: list[int]) -> int:
        previous = max((a for a in anchors if a < anchor), default=-1)
        for i in range(anchor - 1, previous, -1):
            if "[PRE-TASK]" in items[i].text:
                return i
        return anchor


# ------------------------------------------------------------------ Swift parameter dumps


class _Swift:
    """Reads Swift's debug print of ``[String: AnyCodable]`` (the ``Params:`` of a call)."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        self.ws()
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise ValueError(f"expected {ch!r} at {self.i}")
        self.i += 1

    def value(self) -> Any:
        ch = self.peek()
        if ch == '"':
            return self.string()
        if ch == "[":
            return self.collection()
        m = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?").match(self.s, self.i)
        if m and m.group(0):
            self.i = m.end()
            return float(m.group(0)) if m.group(1) or m.group(2) else int(m.group(0))
        m = re.compile(r"[A-Za-z_][\w.]*").match(self.s, self.i)
        if not m:
            raise ValueError(f"unexpected {ch!r} at {self.i}")
        ident = m.group(0)
        self.i = m.end()
        if ident in ("true", "false"):
            return ident == "true"
        if ident == "nil" or ident.endswith(".null"):
            return None
        self.expect("(")
        label = re.compile(r"\s*[A-Za-z_]\w*:\s").match(self.s, self.i)
        if label:
            self.i = label.end()
        inner = self.value()
        self.expect(")")
        return inner

    def string(self) -> str:
        self.expect('"')
        out: list[str] = []
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch == "\\" and self.i + 1 < len(self.s):
                nxt = self.s[self.i + 1]
                if nxt == "u" and self.s[self.i + 2 : self.i + 3] == "{":
                    close = self.s.index("}", self.i)
                    out.append(chr(int(self.s[self.i + 3 : close], 16)))
                    self.i = close + 1
                    continue
                out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(nxt, nxt))
                self.i += 2
                continue
            out.append(ch)
            self.i += 1
        raise ValueError("unterminated string")

    def collection(self) -> Any:
        self.expect("[")
        if self.peek() == "]":
            self.i += 1
            return []
        if self.peek() == ":":
            self.i += 1
            self.expect("]")
            return {}
        first = self.value()
        if self.peek() == ":":
            self.i += 1
            out = {str(first): self.value()}
            while self.peek() == ",":
                self.i += 1
                key = self.value()
                self.expect(":")
                out[str(key)] = self.value()
            self.expect("]")
            return out
        items = [first]
        while self.peek() == ",":
            self.i += 1
            items.append(self.value())
        self.expect("]")
        return items


def parse_params(text: str) -> dict[str, Any] | None:
    """The arguments of an ``Executing Tool`` line, or None when the dump is unreadable."""
    try:
        parser = _Swift(text.strip())
        value = parser.value()
    except (ValueError, IndexError):
        return None
    return value if isinstance(value, dict) else None


def plan_calls(text: str) -> list[tuple[int, dict[str, Any] | None]]:
    """``CALL(N) WITH {json}`` pairs of a planner line (arguments None when not JSON)."""
    out: list[tuple[int, dict[str, Any] | None]] = []
    for m in _PLAN_CALL.finditer(text):
        try:
            args, _ = json.JSONDecoder().raw_decode(text, m.end())
        except ValueError:
            args = None
        out.append((int(m.group(1)), args if isinstance(args, dict) else None))
    return out


def tool_calls(segment: list[Entry], ubids: dict[int, str]) -> list[ToolCall]:
    """The calls that ran in a task, in order, with their outcome when the log shows it."""
    calls: list[ToolCall] = []
    pending: list[int] = []
    planned: list[tuple[int, dict[str, Any] | None]] = []
    exited: dict[int, str] = {}  # call index -> the shell's non-zero exit report
    for e in segment:
        text = e.text
        if "[PLAN RESPONSE]" in text:
            planned = plan_calls(text)
        m = _EXEC.search(text)
        if m:
            name = m.group("name")
            args = parse_params(m.group("params"))
            if len(planned) == 1 and planned[0][0] not in ubids:
                ubids[planned[0][0]] = name  # learn this agent build's id for the name
            plan = next((p for p in planned if ubids.get(p[0]) == name), None)
            if args is None:
                args = (
                    plan[1]
                    if plan and plan[1] is not None
                    else {"_unparsed": m.group("params")[:300]}
                )
            calls.append(ToolCall(name=name, arguments=args))
            pending.append(len(calls) - 1)
            continue
        m = _SHELL_EXIT.search(text)
        if m and pending and m.group("code") != "0":
            exited[pending[-1]] = f"exit {m.group('code')}: {m.group('msg').strip()}"[:2000]
            continue
        m = _OK.search(text) or _ERR.search(text)
        if m:
            name = m.group("name")
            idx = next((i for i in pending if calls[i].name == name), None)
            if idx is None:
                continue
            pending.remove(idx)
            call = calls[idx]
            if "msg" in m.groupdict():
                call.ok, call.result = False, m.group("msg").strip()[:2000]
            elif idx in exited:
                call.ok, call.result = False, exited[idx]
            else:
                call.ok = True
            continue
        m = _NOT_FOUND.search(text)
        if m:
            ubid = int(m.group(1))
            args = next((a for u, a in planned if u == ubid), None)
            calls.append(
                ToolCall(
                    name=f"UBID {ubid}",
                    arguments=args or {},
                    ok=False,
                    result=f"no tool has UBID {ubid} (the agent logged a hallucinated tool id)",
                )
            )
    return calls


# ------------------------------------------------------------------ HTTP envelope


@dataclass(frozen=True)
class Envelope:
    """PheronAgent's reply: final text, tools it reports, and flags."""

    text: str | None
    tools_used: tuple[str, ...]
    category: str | None
    done: bool | None
    error: str | None
    is_json: bool


def parse_envelope(raw: str | None) -> Envelope:
    """Decode the reply; `toolsUsed` entries ending in ``...`` are progress captions."""
    if not raw:
        return Envelope(None, (), None, None, None, False)
    try:
        data = json.loads(raw)
    except ValueError:
        return Envelope(raw, (), None, None, None, False)
    if not isinstance(data, dict):
        return Envelope(raw, (), None, None, None, False)
    tools = tuple(
        str(t)
        for t in data.get("toolsUsed") or []
        if isinstance(t, str) and not t.rstrip().endswith(("...", "…"))
    )
    text = data.get("response")
    return Envelope(
        text=text if isinstance(text, str) else None,
        tools_used=tools,
        category=str(data["category"]) if data.get("category") else None,
        done=data.get("done") if isinstance(data.get("done"), bool) else None,
        error=str(data["error"]) if data.get("error") else None,
        is_json=True,
    )
