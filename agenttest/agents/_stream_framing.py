"""The framing of a streamed reply: SSE events and NDJSON lines out of byte chunks.

Nothing here depends on where a chunk boundary falls: framing splits on the bytes ``\\n``
and ``\\r``, which never occur inside a multi-byte UTF-8 character, and a line is decoded
only once it is complete, so a boundary inside a character, inside ``data:`` or inside a
JSON string changes nothing. What the events mean is :mod:`._stream`'s business.
"""

from __future__ import annotations

import json
from typing import Any, Literal, NamedTuple

Framing = Literal["sse", "ndjson"]

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
        buf = self._buf
        # what is pending holds no line end: only the new bytes are searched (scanning the
        # whole line again on every chunk made a 4 MiB event cost 9 s of CPU), and in C
        pos = len(buf)
        buf += chunk
        n = len(buf)
        lines: list[bytes] = []
        start = 0
        lf = cr = -2  # the next LF / CR at or after pos; -1: none left; -2: not looked yet
        while True:
            if -1 != lf < pos:
                lf = buf.find(b"\n", pos)
            if not self._crlf_only and -1 != cr < pos:
                cr = buf.find(b"\r", pos)
            if self._crlf_only or cr == -1 or (lf != -1 and lf < cr):
                if lf == -1:
                    break
                end = lf
                if self._crlf_only and end > start and buf[end - 1] == 0x0D:
                    end -= 1
                lines.append(bytes(buf[start:end]))
                start = pos = lf + 1
                continue
            lines.append(bytes(buf[start:cr]))  # a CR, alone or as CRLF
            if cr + 1 < n:
                start = pos = cr + 2 if buf[cr + 1] == 0x0A else cr + 1
            else:
                self._skip_lf = True
                start = pos = cr + 1
        del buf[:start]
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

    def __init__(self, notes: list[str] | None = None) -> None:
        self._lines = _Lines(crlf_only=True)
        self._notes = notes  # what was repaired in the events (json_event)

    def feed(self, chunk: bytes) -> list[Any]:
        return [
            json_event(_decode(raw), self._notes) for raw in self._lines.feed(chunk) if raw.strip()
        ]

    def close(self) -> list[Any]:
        """A last line without its newline still counts (many servers omit it); one that
        is not JSON was cut off: the stream is truncated."""
        rest = self._lines.pending
        if not rest.strip():
            return []
        text = _decode(rest)  # not UTF-8: garbage, as on every other line
        try:
            json.loads(text)
        except ValueError:
            raise StreamTruncated(f"the stream ended inside an event: {rest[:80]!r}") from None
        except RecursionError:
            pass  # garbage, said by json_event
        return [json_event(text, self._notes)]  # bounded and repaired like every event


def json_event(text: str, notes: list[str] | None = None) -> Any:
    """One event's JSON, bounded like a whole reply: nesting beyond reason is the agent's
    garbage (it was a RecursionError, blamed on the harness), not a harness failure. What
    was repaired to store it is added to ``notes``, as a whole reply's repairs are noted."""
    from agenttest.sanitize import TooDeep, encodable

    try:
        value = json.loads(text)
    except RecursionError:
        raise StreamError("stream event is nested too deeply to be a reply") from None
    except ValueError:
        raise StreamError(f"stream event is not JSON: {text[:120]!r}") from None
    try:
        fixed, repaired = encodable(value)
    except TooDeep as exc:
        raise StreamError(f"stream event is {exc}") from None
    if notes is not None:
        notes.extend(repaired)
    return fixed
