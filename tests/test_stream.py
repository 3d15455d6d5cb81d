"""The incremental stream parsers: the same reply at every chunk boundary.

Each stream is fed whole, one byte at a time, and at random splits (hypothesis); the
nastiest boundaries (inside a multi-byte UTF-8 character, inside ``data:``, inside a JSON
string, between the CR and LF of a line end) are also pinned one by one.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenttest.agents import (
    NDJSONParser,
    SSEParser,
    StreamAgentError,
    StreamDecoder,
    StreamError,
    StreamTruncated,
    framing_of,
)

TEXT = ["Merhaba ", "dünya — ", "çğış 😀 ", '"quoted" \\ back', "slash\nnew line"]
CALL = {"name": "file_read", "arguments": {"path": "notlar/ödev.txt"}, "ok": True, "result": "7"}
CHOICES = [{"label": "Masaüstü", "value": "desktop"}, {"label": "Belgeler", "value": "docs"}]
FINAL = {"response": "".join(TEXT), "tool_calls": [CALL], "choices": CHOICES, "trace": "T"}


def _sse(obj: object, event: str | None = None, eol: str = "\n") -> str:
    head = f"event: {event}{eol}" if event else ""
    return head + f"data: {json.dumps(obj, ensure_ascii=False)}{eol}{eol}"


def native_sse(eol: str = "\n") -> bytes:
    parts = [f": keep-alive{eol}"]
    parts += [_sse({"type": "text", "delta": t}, eol=eol) for t in TEXT[:2]]
    parts.append(_sse({"type": "tool_call", "tool_call": CALL}, eol=eol))
    parts.append(_sse({"delta": TEXT[2]}, event="text", eol=eol))  # type from `event:`
    parts += [_sse({"type": "text", "delta": t}, eol=eol) for t in TEXT[3:]]
    parts.append(_sse({"type": "choices", "choices": CHOICES}, eol=eol))
    parts.append(_sse({"type": "something-new", "x": 1}, eol=eol))  # ignored
    parts.append(_sse({"type": "final", "reply": FINAL}, eol=eol))
    return "".join(parts).encode("utf-8")


def native_ndjson(eol: str = "\n") -> bytes:
    events: list[dict[str, object]] = [{"type": "text", "delta": t} for t in TEXT[:3]]
    events.append({"type": "tool_call", "tool_call": CALL})
    events += [{"type": "text", "delta": t} for t in TEXT[3:]]
    events.append({"type": "choices", "choices": CHOICES})
    events.append({"type": "final", "reply": FINAL})
    return eol.join(json.dumps(e, ensure_ascii=False) for e in events).encode() + eol.encode()


def openai_sse() -> bytes:
    def chunk(delta: dict[str, object], finish: str | None = None) -> str:
        body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    parts = [chunk({"role": "assistant"})]
    parts += [chunk({"content": t}) for t in TEXT[:3]]
    args = json.dumps({"path": "notlar/ödev.txt"}, ensure_ascii=False)
    parts.append(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c1", "function": {"name": "file_", "arguments": ""}}
                ]
            }
        )
    )
    parts.append(
        chunk({"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": args[:9]}}]})
    )
    parts.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[9:]}}]}))
    parts += [chunk({"content": t}) for t in TEXT[3:]]
    parts.append(chunk({}, "tool_calls"))
    parts.append('data: {"choices": [], "usage": {"total_tokens": 42}}\n\n')
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode("utf-8")


STREAMS = {
    "sse": ("sse", "native", native_sse()),
    "sse-crlf": ("sse", "native", native_sse("\r\n")),
    "sse-cr": ("sse", "native", native_sse("\r")),
    "ndjson": ("ndjson", "native", native_ndjson()),
    "ndjson-crlf": ("ndjson", "native", native_ndjson("\r\n")),
    "openai": ("sse", "openai", openai_sse()),
}


Decoded = tuple[str, list[Any], list[Any] | None, Any, list[str]]


def decode(name: str, pieces: list[bytes]) -> Decoded:
    framing, dialect, _ = STREAMS[name]
    dec = StreamDecoder(framing, dialect)  # type: ignore[arg-type]
    for i, piece in enumerate(pieces):
        dec.feed(piece, i)
    out = dec.finish()
    return (out.text, out.tool_calls, out.choices, out.final, out.timeline.order)


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def test_whole_streams_say_what_was_sent() -> None:
    text, calls, choices, final, order = decode("sse", [STREAMS["sse"][2]])
    assert text == "".join(TEXT)
    assert calls == [CALL] and choices == CHOICES and final == FINAL
    assert order == ["text", "tool_call", "text", "choices", "final"]
    text, calls, choices, final, order = decode("ndjson", [STREAMS["ndjson"][2]])
    assert (text, calls, choices, final) == ("".join(TEXT), [CALL], CHOICES, FINAL)
    text, calls, _c, final, order = decode("openai", [STREAMS["openai"][2]])
    assert text == "".join(TEXT)
    assert order == ["text", "tool_call", "text", "final"]
    message = final["choices"][0]["message"]
    assert message["tool_calls"][0]["function"] == {
        "name": "file_read",
        "arguments": json.dumps({"path": "notlar/ödev.txt"}, ensure_ascii=False),
    }
    assert final["choices"][0]["finish_reason"] == "tool_calls"
    assert final["usage"] == {"total_tokens": 42}


@pytest.mark.parametrize("name", list(STREAMS))
def test_one_byte_at_a_time(name: str) -> None:
    data = STREAMS[name][2]
    whole = decode(name, [data])
    assert decode(name, [data[i : i + 1] for i in range(len(data))]) == whole


@pytest.mark.parametrize("name", list(STREAMS))
@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0), max_size=40))
def test_random_splits(name: str, cuts: list[int]) -> None:
    data = STREAMS[name][2]
    assert decode(name, split_at(data, cuts)) == decode(name, [data])


def _cut_where(data: bytes, found: int, what: str) -> list[bytes]:
    assert found > 0, f"the stream has no {what}"
    return [data[:found], data[found:]]


@pytest.mark.parametrize("name", list(STREAMS))
def test_named_boundaries(name: str) -> None:
    data = STREAMS[name][2]
    whole = decode(name, [data])
    emoji = data.index("😀".encode()) + 2  # between the 2nd and 3rd byte of a 4-byte char
    assert data[emoji] & 0xC0 == 0x80  # precondition: a continuation byte
    turkish = data.index("ğ".encode()) + 1
    assert data[turkish] & 0xC0 == 0x80
    in_string = data.index(b'quoted\\" ') + 3  # inside a JSON string, next to an escape
    cuts = [emoji, turkish, in_string]
    if name.startswith("sse") or name == "openai":
        cuts.append(data.index(b"data:") + 2)  # inside `data:`
    if b"\r\n" in data:
        cuts.append(data.index(b"\r\n") + 1)  # between CR and LF
    for cut in cuts:
        assert decode(name, _cut_where(data, cut, str(cut))) == whole, cut


@pytest.mark.parametrize("name", list(STREAMS))
def test_a_stream_cut_before_its_final_event_is_truncated(name: str) -> None:
    framing, dialect, data = STREAMS[name]
    marker = b"[DONE]" if dialect == "openai" else b'"final"'
    cut = data.rindex(marker) - 2
    dec = StreamDecoder(framing, dialect)  # type: ignore[arg-type]
    dec.feed(data[:cut], 1)
    assert not dec.done
    with pytest.raises(StreamTruncated, match=r"ended (without|inside)"):
        dec.finish()
    full = StreamDecoder(framing, dialect)  # type: ignore[arg-type]
    full.feed(data, 1)
    assert full.finish().text  # the same stream, whole, is not truncated


def test_ndjson_last_line_without_newline_counts() -> None:
    data = native_ndjson().rstrip(b"\n")
    dec = StreamDecoder("ndjson", "native")
    dec.feed(data, 0)
    assert dec.finish().final == FINAL


def test_timeline_times_and_bounded_order() -> None:
    dec = StreamDecoder("ndjson", "native")
    lines = [{"type": "tool_call", "tool_call": {"name": f"t{i}"}} for i in range(100)]
    dec.feed(json.dumps({"type": "text", "delta": "a"}).encode() + b"\n", 5)
    dec.feed(json.dumps({"type": "text", "delta": "b"}).encode() + b"\n", 7)
    for i, line in enumerate(lines):
        dec.feed(json.dumps(line).encode() + b"\n", 10 + i)
    dec.feed(b'{"type": "final"}\n', 500)
    out = dec.finish()
    tl = out.timeline.as_dict()
    assert tl["first_byte_ms"] == 5 and tl["first_text_ms"] == 5 and tl["final_ms"] == 500
    assert tl["tool_call_ms"][:2] == [10, 11] and len(tl["tool_call_ms"]) == 64
    assert tl["order"][:2] == ["text", "tool_call"] and len(tl["order"]) == 64
    assert tl["order_truncated"] is True
    assert tl["max_gap_ms"] == 500 - 109
    assert out.final is None and out.text == "ab"  # no `reply`: the deltas are the reply


def test_bad_events() -> None:
    dec = StreamDecoder("sse", "native")
    with pytest.raises(StreamError, match="not JSON"):
        dec.feed(b"data: {nope\n\n", 0)
    dec = StreamDecoder("ndjson", "native")
    with pytest.raises(StreamAgentError, match="model crashed"):
        dec.feed(b'{"type": "error", "message": "model crashed"}\n', 0)
    dec = StreamDecoder("sse", "native")
    with pytest.raises(StreamError, match="UTF-8"):
        dec.feed(b"data: \xff\xfe\n\n", 0)


def test_sse_field_rules() -> None:
    p = SSEParser()
    events = p.feed(b"\xef\xbb\xbfdata:a\ndata:  b\nid: 7\nevent: x\nretry: 5\n\n: c\n\ndata\n\n")
    assert [(e.event, e.data, e.id) for e in events] == [("x", "a\n b", "7"), ("message", "", "7")]
    assert NDJSONParser().feed(b'{"a": 1}\n\n  \n[2]\n') == [{"a": 1}, [2]]


def test_framing_of_content_types() -> None:
    assert framing_of("text/event-stream; charset=utf-8") == "sse"
    assert framing_of("application/x-ndjson") == "ndjson"
    assert framing_of("application/json") is None
    assert framing_of(None) is None


@pytest.mark.parametrize("framing", ["sse", "ndjson"])
def test_a_long_event_in_small_chunks_is_framed_in_one_pass(framing: str) -> None:
    # Each chunk used to rescan the whole pending line in Python: a 4 MiB event cost 9 s of
    # CPU and an 8 MiB one outlived the stream's deadline (quadratic in the line's length).
    # Framing looks at each byte once, so 8 MiB in 1 KiB chunks is framed at once.
    import threading

    from ._patience import EVENTUALLY_S

    text = "a" * (8 << 20)
    if framing == "sse":
        raw = b"data: " + json.dumps({"delta": text}).encode() + b"\r\n\r\n"
    else:
        raw = json.dumps({"delta": text}).encode() + b"\n"
    parser = SSEParser() if framing == "sse" else NDJSONParser()
    events: list[Any] = []

    def frame() -> None:
        for i in range(0, len(raw), 1024):
            events.extend(parser.feed(raw[i : i + 1024]))

    worker = threading.Thread(target=frame, daemon=True)
    worker.start()
    worker.join(EVENTUALLY_S)
    assert not worker.is_alive(), "framing is quadratic in the line's length"
    (event,) = events
    data = json.loads(event.data) if framing == "sse" else event
    assert data == {"delta": text}
