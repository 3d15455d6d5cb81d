"""Streamed replies, read incrementally: SSE and NDJSON framing, and the two event dialects.

Pure and independent of the transport: the client feeds the bytes as they arrive, each
with the time it saw them, and at the end asks for the assembled reply. Nothing here
depends on where a chunk boundary falls: framing splits on the bytes ``\\n`` and ``\\r``,
which never occur inside a multi-byte UTF-8 character, and a line is decoded only once it
is complete, so a boundary inside a character, inside ``data:`` or inside a JSON string
changes nothing.

Two dialects sit on top of the framing:

* ``native`` (native and rest modes, SSE or NDJSON): every event is a JSON object with a
  ``type`` (or, in SSE, the ``event:`` name): ``text`` (``delta``), ``tool_call``
  (``tool_call``: one call), ``choices`` (``choices``: ``[{label, value}]``), ``final``
  (``reply``: the whole reply, as the agent would have answered without streaming) and
  ``error`` (``message``). Unknown types and SSE comments are ignored.
* ``openai`` (``stream: true`` chat completions, SSE): ``choices[0].delta`` chunks with
  ``content`` and ``tool_calls`` deltas (merged by ``index``), and ``data: [DONE]`` as the
  final event. The assembled completion has the shape of a non-streamed one.

A stream that ends before its final event is :class:`StreamTruncated`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

Framing = Literal["sse", "ndjson"]
Dialect = Literal["native", "openai"]

MAX_ORDER = 64  # arrival-order entries kept per turn (consecutive text deltas count once)
MAX_TOOL_TIMES = 64

SSE_TYPES = ("text/event-stream",)
NDJSON_TYPES = ("application/x-ndjson", "application/ndjson", "application/jsonl",
                "application/x-jsonlines", "application/jsonlines")  # fmt: skip


class StreamError(Exception):
    """A stream that cannot be read as a reply (an event that is not JSON, ...)."""


class StreamTruncated(StreamError):
    """The stream ended before its final event."""


class StreamAgentError(StreamError):
    """The agent sent an ``error`` event."""


def framing_of(content_type: str | None) -> Framing | None:
    """The framing a ``Content-Type`` announces, or None for an ordinary (whole) body."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in SSE_TYPES:
        return "sse"
    if media in NDJSON_TYPES:
        return "ndjson"
    return None


class SSEEvent(NamedTuple):
    event: str  # "message" unless the stream named it
    data: str
    id: str | None


class _Lines:
    """Complete lines out of byte chunks; CR, LF and CRLF all end a line (as SSE says)."""

    def __init__(self, crlf_only: bool = False) -> None:
        self._buf = bytearray()
        self._crlf_only = crlf_only  # NDJSON: only LF ends a line (a CR before it is dropped)
        self._skip_lf = False  # the previous chunk ended in CR: a leading LF belongs to it

    def feed(self, chunk: bytes) -> list[bytes]:
        if self._skip_lf and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._skip_lf = False
        self._buf += chunk
        lines: list[bytes] = []
        start = 0
        buf = self._buf
        i = 0
        n = len(buf)
        while i < n:
            byte = buf[i]
            if byte == 0x0A:
                end = i
                if self._crlf_only and end > start and buf[end - 1] == 0x0D:
                    end -= 1
                lines.append(bytes(buf[start:end]))
                start = i + 1
            elif byte == 0x0D and not self._crlf_only:
                lines.append(bytes(buf[start:i]))
                if i + 1 < n:
                    if buf[i + 1] == 0x0A:
                        i += 1
                else:
                    self._skip_lf = True
                start = i + 1
            i += 1
        del self._buf[:start]
        return lines

    @property
    def pending(self) -> bytes:
        return bytes(self._buf)


def _decode(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise StreamError(f"stream line is not UTF-8: {line[:80]!r}") from None


class SSEParser:
    """Server-sent events (the WHATWG rules): ``data`` lines joined by LF, dispatched at a
    blank line; ``event`` names it; lines starting with ``:`` are comments."""

    def __init__(self) -> None:
        self._lines = _Lines()
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._bom_checked = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        for raw in self._lines.feed(chunk):
            line = _decode(raw)
            if not self._bom_checked:
                self._bom_checked = True
                line = line.removeprefix("\ufeff")
            if not line:
                if self._data:
                    out.append(SSEEvent(self._event or "message", "\n".join(self._data), self._id))
                self._data, self._event = [], ""
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                self._data.append(value)
            elif name == "event":
                self._event = value
            elif name == "id" and "\0" not in value:
                self._id = value
        return out


class NDJSONParser:
    """One JSON value per line; blank lines are skipped."""

    def __init__(self) -> None:
        self._lines = _Lines(crlf_only=True)

    def feed(self, chunk: bytes) -> list[Any]:
        return [_json(_decode(raw)) for raw in self._lines.feed(chunk) if raw.strip()]

    def close(self) -> list[Any]:
        """A last line without its newline still counts (many servers omit it); one that
        is not JSON was cut off: the stream is truncated."""
        rest = self._lines.pending
        if not rest.strip():
            return []
        try:
            return [json.loads(rest)]
        except ValueError:
            raise StreamTruncated(f"the stream ended inside an event: {rest[:80]!r}") from None


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise StreamError(f"stream event is not JSON: {text[:120]!r}") from None


@dataclass
class Timeline:
    """When each part of a streamed reply arrived, in ms from the request being sent."""

    first_byte_ms: int | None = None
    first_text_ms: int | None = None
    tool_call_ms: list[int] = field(default_factory=list)
    choices_ms: int | None = None
    final_ms: int | None = None
    events: int = 0
    chunks: int = 0
    max_gap_ms: int = 0
    order: list[str] = field(default_factory=list)  # text | tool_call | choices | final
    order_truncated: bool = False

    def mark(self, kind: str, ms: int) -> None:
        self.events += 1
        if kind == "text" and self.first_text_ms is None:
            self.first_text_ms = ms
        elif kind == "tool_call" and len(self.tool_call_ms) < MAX_TOOL_TIMES:
            self.tool_call_ms.append(ms)
        elif kind == "choices" and self.choices_ms is None:
            self.choices_ms = ms
        elif kind == "final":
            self.final_ms = ms
        if kind == "text" and self.order and self.order[-1] == "text":
            return
        if len(self.order) < MAX_ORDER:
            self.order.append(kind)
        else:
            self.order_truncated = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "first_byte_ms": self.first_byte_ms,
            "first_text_ms": self.first_text_ms,
            "tool_call_ms": list(self.tool_call_ms),
            "choices_ms": self.choices_ms,
            "final_ms": self.final_ms,
            "events": self.events,
            "chunks": self.chunks,
            "max_gap_ms": self.max_gap_ms,
            "order": list(self.order),
            "order_truncated": self.order_truncated,
        }


@dataclass
class Streamed:
    """What a finished stream said. ``final`` is the reply the final event carried (native:
    its ``reply``; openai: the assembled completion), or None when it carried none."""

    text: str
    tool_calls: list[Any]
    choices: list[Any] | None
    final: Any
    timeline: Timeline


class StreamDecoder:
    """Feed chunks (with their arrival time in ms), then :meth:`finish`."""

    def __init__(self, framing: Framing, dialect: Dialect) -> None:
        self.framing = framing
        self.dialect = dialect
        self._sse = SSEParser() if framing == "sse" else None
        self._ndjson = NDJSONParser() if framing == "ndjson" else None
        self.timeline = Timeline()
        self._last_ms: int | None = None
        self._text: list[str] = []
        self._calls: list[Any] = []
        self._choices: list[Any] | None = None
        self._final: Any = None
        self._done = False
        self._oa = _ChatAssembler() if dialect == "openai" else None
        self.failure: StreamError | None = None  # set by a caller that stopped on an error

    @property
    def done(self) -> bool:
        return self._done

    @property
    def last_ms(self) -> int | None:
        """When the latest chunk arrived."""
        return self._last_ms

    def feed(self, chunk: bytes, ms: int) -> None:
        if not chunk:
            return
        tl = self.timeline
        tl.chunks += 1
        if tl.first_byte_ms is None:
            tl.first_byte_ms = ms
        if self._last_ms is not None:
            tl.max_gap_ms = max(tl.max_gap_ms, ms - self._last_ms)
        self._last_ms = ms
        if self._sse is not None:
            for ev in self._sse.feed(chunk):
                self._sse_event(ev, ms)
        elif self._ndjson is not None:
            for obj in self._ndjson.feed(chunk):
                self._native(obj, None, ms)

    def _sse_event(self, ev: SSEEvent, ms: int) -> None:
        if self._done:
            return
        if self._oa is not None:
            if ev.data.strip() == "[DONE]":
                self._finish_openai(ms)
                return
            for kind in self._oa.add(_json(ev.data)):
                self.timeline.mark(kind, ms)
            return
        self._native(_json(ev.data), ev.event, ms)

    def _native(self, obj: Any, sse_name: str | None, ms: int) -> None:
        if self._done:
            return
        if self._oa is not None:  # openai chunks as NDJSON lines (some servers do this)
            for part in self._oa.add(obj):
                self.timeline.mark(part, ms)
            return
        if not isinstance(obj, dict):
            raise StreamError(f"stream event is not a JSON object: {str(obj)[:120]!r}")
        kind = obj.get("type")
        if not isinstance(kind, str):
            kind = sse_name if sse_name and sse_name != "message" else ""
        if kind == "text":
            delta = obj.get("delta", obj.get("text", ""))
            if not isinstance(delta, str):
                raise StreamError(f"text event without a string delta: {str(obj)[:120]!r}")
            if delta:
                self._text.append(delta)
                self.timeline.mark("text", ms)
        elif kind == "tool_call":
            self._calls.append(obj.get("tool_call", obj))
            self.timeline.mark("tool_call", ms)
        elif kind == "choices":
            choices = obj.get("choices")
            self._choices = choices if isinstance(choices, list) else []
            self.timeline.mark("choices", ms)
        elif kind == "final":
            self._final = obj.get("reply")
            self._done = True
            self.timeline.mark("final", ms)
        elif kind == "error":
            raise StreamAgentError(str(obj.get("message") or obj.get("error") or obj)[:300])

    def _finish_openai(self, ms: int) -> None:
        assert self._oa is not None
        self._final = self._oa.completion()
        self._text = [self._oa.content]
        self._done = True
        self.timeline.mark("final", ms)

    def finish(self) -> Streamed:
        """The assembled reply; :class:`StreamTruncated` if the final event never came."""
        if self._ndjson is not None and not self._done:
            for obj in self._ndjson.close():
                self._native(obj, None, self._last_ms or 0)
        if not self._done:
            seen = self.timeline.events
            want = "data: [DONE]" if self.dialect == "openai" else "a `final` event"
            raise StreamTruncated(
                f"the stream ended without {want} ({seen} events, {self.timeline.chunks} chunks)"
            )
        if self._oa is not None:
            self._text = [self._oa.content]
        return Streamed(
            text="".join(self._text),
            tool_calls=list(self._calls),
            choices=self._choices,
            final=self._final,
            timeline=self.timeline,
        )


class _ChatAssembler:
    """Merges ``stream: true`` chat-completion chunks into one non-streamed completion."""

    def __init__(self) -> None:
        self._content: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.extra: dict[str, Any] = {}

    @property
    def content(self) -> str:
        return "".join(self._content)

    def add(self, chunk: Any) -> list[str]:
        """Merge one chunk; return the kinds of event it carried (text, tool_call)."""
        if not isinstance(chunk, dict):
            raise StreamError(f"chat chunk is not a JSON object: {str(chunk)[:120]!r}")
        if "error" in chunk and "choices" not in chunk:
            raise StreamAgentError(str(chunk["error"])[:300])
        if chunk.get("usage") is not None:
            self.usage = chunk["usage"]
        kinds: list[str] = []
        choices = chunk.get("choices") or []
        if not isinstance(choices, list):
            raise StreamError("chat chunk `choices` is not a list")
        for choice in choices[:1]:  # the runner asks for one completion
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta, dict):
                content = delta.get("content")
                if isinstance(content, str) and content:
                    self._content.append(content)
                    kinds.append("text")
                for raw in delta.get("tool_calls") or []:
                    if isinstance(raw, dict) and self._call_delta(raw):
                        kinds.append("tool_call")
                for key, value in delta.items():
                    if key not in ("content", "tool_calls", "role") and value is not None:
                        self.extra[key] = value  # e.g. a server's own `choices` extension
                        if key == "choices":
                            kinds.append("choices")
            if isinstance(choice.get("finish_reason"), str):
                self.finish_reason = choice["finish_reason"]
        return kinds

    def _call_delta(self, raw: dict[str, Any]) -> bool:
        """Merge a tool-call delta; True when it starts a new call."""
        index = raw.get("index")
        if not isinstance(index, int):
            index = len(self._calls)
        new = index not in self._calls
        call = self._calls.setdefault(
            index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if isinstance(raw.get("id"), str):
            call["id"] = raw["id"]
        fn = raw.get("function") or {}
        if isinstance(fn, dict):
            if isinstance(fn.get("name"), str):
                call["function"]["name"] += fn["name"]
            if isinstance(fn.get("arguments"), str):
                call["function"]["arguments"] += fn["arguments"]
        return new

    def completion(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.content, **self.extra}
        if self._calls:
            message["tool_calls"] = [self._calls[i] for i in sorted(self._calls)]
        out: dict[str, Any] = {
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}]
        }
        if self.usage is not None:
            out["usage"] = self.usage
        return out
