"""Streamed replies, read incrementally: the two event dialects over SSE or NDJSON framing.

Pure and independent of the transport: the client feeds the bytes as they arrive, each
with the time it saw them, and at the end asks for the assembled reply. The framing (where
one event ends, whatever the chunk boundaries) is :mod:`._stream_framing`; merging OpenAI
chat deltas is :mod:`._stream_chat`; this module reads the events and keeps their times.

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

from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from agenttest._util.lenient import lenient

from ._stream_chat import ChatAssembler
from ._stream_framing import (
    Framing,
    NDJSONParser,
    SSEEvent,
    SSEParser,
    StreamAgentError,
    StreamError,
    StreamTruncated,
    framing_of,
    json_event,
)
from ._wire import NativeEvent

# the framing's names are imported from here too (the client, the tests)
__all__ = [
    "Dialect",
    "Framing",
    "NDJSONParser",
    "SSEParser",
    "StreamAgentError",
    "StreamDecoder",
    "StreamError",
    "StreamTruncated",
    "Streamed",
    "Timeline",
    "framing_of",
]

Dialect = Literal["native", "openai"]

MAX_ORDER = 64  # arrival-order entries kept per turn (consecutive text deltas count once)
MAX_TOOL_TIMES = 64


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
    #: what was repaired in its events to store them (lone surrogates, NaN), once each
    notes: list[str] = field(default_factory=list)


class StreamDecoder:
    """Feed chunks (with their arrival time in ms), then :meth:`finish`."""

    def __init__(self, framing: Framing, dialect: Dialect) -> None:
        self.framing = framing
        self.dialect = dialect
        self._sse = SSEParser() if framing == "sse" else None
        self._repairs: list[str] = []  # every event's repair notes (json_event)
        self._ndjson = NDJSONParser(self._repairs) if framing == "ndjson" else None
        self.timeline = Timeline()
        self._last_ms: int | None = None
        self._text: list[str] = []
        self._calls: list[Any] = []
        self._choices: list[Any] | None = None
        self._final: Any = None
        self._done = False
        self._oa = ChatAssembler() if dialect == "openai" else None
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
            for kind in self._oa.add(json_event(ev.data, self._repairs)):
                self.timeline.mark(kind, ms)
            return
        self._native(json_event(ev.data, self._repairs), ev.event, ms)

    def _native(self, obj: Any, sse_name: str | None, ms: int) -> None:
        if self._done:
            return
        if self._oa is not None:  # openai chunks as NDJSON lines (some servers do this)
            for part in self._oa.add(obj):
                self.timeline.mark(part, ms)
            return
        if not isinstance(obj, dict):
            raise StreamError(f"stream event is not a JSON object: {str(obj)[:120]!r}")
        event = lenient(NativeEvent, obj)
        kind = event.type
        if kind is None:
            kind = sse_name if sse_name and sse_name != "message" else ""
        if kind == "text":
            delta = event.text if event.delta is msgspec.UNSET else event.delta
            if not isinstance(delta, str):
                raise StreamError(f"text event without a string delta: {str(obj)[:120]!r}")
            if delta:
                self._text.append(delta)
                self.timeline.mark("text", ms)
        elif kind == "tool_call":
            self._calls.append(obj if event.tool_call is msgspec.UNSET else event.tool_call)
            self.timeline.mark("tool_call", ms)
        elif kind == "choices":
            self._choices = event.choices or []
            self.timeline.mark("choices", ms)
        elif kind == "final":
            self._final = event.reply
            self._done = True
            self.timeline.mark("final", ms)
        elif kind == "error":
            raise StreamAgentError(str(event.message or event.error or obj)[:300])

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
            notes=stream_notes(self._repairs),
        )


#: Distinct repair notes a stream keeps (a stream of 10,000 events each with a cut emoji
#: would otherwise note it 10,000 times).
MAX_STREAM_NOTES = 10


def stream_notes(repairs: list[str]) -> list[str]:
    """Each distinct repair once, with the number of events it was made in."""
    counts: dict[str, int] = {}
    for note in repairs:
        counts[note] = counts.get(note, 0) + 1
    out = [
        f"{note} (in {n} stream events)" if n > 1 else f"{note} (in a stream event)"
        for note, n in list(counts.items())[:MAX_STREAM_NOTES]
    ]
    if len(counts) > MAX_STREAM_NOTES:
        out.append(f"{len(counts) - MAX_STREAM_NOTES} more kinds of repair in stream events")
    return out
