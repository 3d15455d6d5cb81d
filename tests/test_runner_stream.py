"""Streamed replies through the real client against loopback agents, in every mode.

The agents write real HTTP/1.1 chunked streams, one event per chunk, and can stop short
(truncated) or go quiet (idle) on cue; the quiet ones are held by an event, released when
the test ends, so nothing depends on how fast the machine is.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agenttest.runner._client import AgentClient, TurnLost
from agenttest.runner._config import parse_agent_config
from tests._servers import Behaviour, LoopbackAgent
from tests.test_stream import CALL, CHOICES, FINAL, TEXT, native_ndjson, native_sse, openai_sse


def write_stream(
    handler: Any,
    content_type: str,
    pieces: list[bytes],
    *,
    hold: threading.Event | None = None,
    trickle: threading.Event | None = None,
) -> bool:
    """A chunked reply: each piece its own chunk; then hold (go quiet) or end."""
    handler.send_response(200)
    handler.send_header("content-type", content_type)
    handler.send_header("transfer-encoding", "chunked")
    handler.end_headers()
    for piece in pieces:
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        handler.wfile.flush()
    if hold is not None:
        hold.wait(30)  # short on purpose: a hold the test forgot to release ends
    while trickle is not None and not trickle.wait(
        0.05
    ):  # short on purpose: keep-alive comments, forever
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(b": ping\n"), b": ping\n"))
        handler.wfile.flush()
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()
    handler.close_connection = True
    return True


def first_events(data: bytes, n: int = 2) -> bytes:
    """The first n whole SSE events (and the comment before them)."""
    end = 0
    for _ in range(n + 1):
        end = data.index(b"\n\n", end) + 2
    return data[:end]


def events_of(data: bytes) -> list[bytes]:
    """Split a stream into pieces that end mid-event, to exercise the client's parser."""
    return [data[i : i + 37] for i in range(0, len(data), 37)]


@pytest.fixture
def release() -> Iterator[threading.Event]:
    done = threading.Event()
    yield done
    done.set()


def client(url: str, tmp_path: Path, extra: str = "") -> AgentClient:
    text = f"model: m\nbase_url: {url}\n{extra}"
    return AgentClient(parse_agent_config(text, str(tmp_path / "a.yaml"), tmp_path))


def agent_with(reply: Callable[[Any], bool]) -> LoopbackAgent:
    return LoopbackAgent(Behaviour(raw_turns={1: reply})).start()


@pytest.mark.parametrize(
    "content_type,data",
    [("text/event-stream", native_sse()), ("application/x-ndjson", native_ndjson())],
    ids=["sse", "ndjson"],
)
def test_native_stream_asked_for(content_type: str, data: bytes, tmp_path: Path) -> None:
    agent = agent_with(lambda h: write_stream(h, content_type, events_of(data)))
    try:
        c = client(agent.url, tmp_path, "stream: true\ntimeouts: {idle_s: 20}\n")
        ex = c.turn("s1", "hi", 1)
    finally:
        agent.stop()
    body = agent.state.bodies[0]
    assert body["stream"] is True  # asked for in the body too
    reply = ex.reply
    assert reply.response == FINAL["response"] and reply.stream_text == "".join(TEXT)
    assert reply.tool_calls == [CALL] and reply.choices == CHOICES
    tl = reply.timeline
    assert tl is not None and tl["order"][-1] == "final"
    assert 0 <= tl["first_byte_ms"] <= tl["first_text_ms"] <= tl["final_ms"]


def test_a_stream_not_asked_for_is_read_by_its_content_type(tmp_path: Path) -> None:
    agent = agent_with(lambda h: write_stream(h, "text/event-stream", [native_sse()]))
    try:
        ex = client(agent.url, tmp_path).turn("s1", "hi", 1)
    finally:
        agent.stop()
    assert "stream" not in agent.state.bodies[0]  # precondition: not asked for
    assert ex.reply.response == FINAL["response"] and ex.reply.timeline is not None


def test_rest_stream_maps_paths(tmp_path: Path) -> None:
    final = {"out": {"answer": "hey", "buttons": [{"t": "Evet", "v": "yes"}, "Hayır"]}}
    data = (
        'data: {"type": "text", "delta": "he"}\n\n'
        'data: {"type": "tool_call", "tool_call": {"tool": "calc", "args": "{\\"x\\": 1}"}}\n\n'
        f"data: {json.dumps({'type': 'final', 'reply': final})}\n\n"
    ).encode()
    agent = agent_with(lambda h: write_stream(h, "text/event-stream", events_of(data)))
    extra = (
        "mode: rest\nstream: true\nrest:\n  request: {path: /v1/turn, body: "
        '\'{"session_id": {{ session_id | tojson }}, "s": {{ stream | tojson }}}\'}\n'
        "  response: {text: out.answer, choices: out.buttons, choice: {label: t, value: v},"
        " tool_call: {name: tool, arguments: args}}\n"
    )
    try:
        ex = client(agent.url, tmp_path, extra).turn("s1", "hi", 1)
    finally:
        agent.stop()
    assert agent.state.bodies[0]["s"] is True
    assert ex.reply.response == "hey" and ex.reply.stream_text == "he"
    assert ex.reply.choices == [
        {"label": "Evet", "value": "yes"},
        {"label": "Hayır", "value": "Hayır"},
    ]
    assert ex.reply.tool_calls[0]["name"] == "calc"
    assert ex.reply.tool_calls[0]["arguments"] == {"x": 1}


def test_openai_stream(tmp_path: Path) -> None:
    agent = agent_with(lambda h: write_stream(h, "text/event-stream", events_of(openai_sse())))
    extra = "mode: openai\nstream: true\nopenai: {path: /v1/turn}\nreadiness: {path: /health}\n"
    try:
        c = client(agent.url, tmp_path, extra)
        ex = c.turn("s1", "hi", 1)
    finally:
        agent.stop()
    assert agent.state.bodies[0]["stream"] is True
    assert ex.reply.response == "".join(TEXT) and ex.reply.tokens == 42
    assert ex.reply.tool_calls[0]["name"] == "file_read"
    assert ex.reply.tool_calls[0]["arguments"] == {"path": "notlar/ödev.txt"}
    assert "FINISH tool_calls" in ex.reply.trace
    # the streamed answer joined the history the next turn resends
    assert c.adapter.history["s1"][-1] == {"role": "assistant", "content": "".join(TEXT)}  # type: ignore[attr-defined]


def lost_turn(
    reply: Callable[[Any], bool], tmp_path: Path, extra: str = "", release: Any = None
) -> TurnLost:
    """Run one turn against an agent answering with `reply`; the turn must be lost."""
    agent = agent_with(reply)
    try:
        with pytest.raises(TurnLost) as lost:
            client(agent.url, tmp_path, extra).turn("s1", "hi", 1)
    finally:
        if release is not None:
            release.set()
        agent.stop()
    return lost.value


@pytest.mark.parametrize(
    "content_type,data,marker",
    [
        ("text/event-stream", native_sse(), b'"final"'),
        ("application/x-ndjson", native_ndjson(), b'"final"'),
        ("text/event-stream", openai_sse(), b"[DONE]"),
    ],
    ids=["sse", "ndjson", "openai"],
)
def test_truncated_stream_is_lost_as_truncated(
    content_type: str, data: bytes, marker: bytes, tmp_path: Path
) -> None:
    cut = data[: data.rindex(marker) - 2]
    assert marker not in cut  # precondition: the final event is what is missing
    extra = "mode: openai\nreadiness: {path: /health}\nopenai: {path: /v1/turn}\n"
    lost = lost_turn(
        lambda h: write_stream(h, content_type, events_of(cut)),
        tmp_path,
        extra if marker == b"[DONE]" else "",
    )
    assert lost.cause == "truncated", lost.message


def test_idle_stream_is_lost_as_idle(tmp_path: Path, release: threading.Event) -> None:
    start = first_events(native_sse())
    lost = lost_turn(
        lambda h: write_stream(h, "text/event-stream", [start], hold=release),
        tmp_path,
        "stream: true\ntimeouts: {idle_s: 0.3, answer_s: 60}\n",
        release,
    )
    assert lost.cause == "idle" and "idle_s" in lost.message


def test_answer_limit_bounds_the_whole_stream(tmp_path: Path, release: threading.Event) -> None:
    start = first_events(native_sse())
    lost = lost_turn(
        lambda h: write_stream(h, "text/event-stream", [start], trickle=release),
        tmp_path,
        "stream: true\ntimeouts: {idle_s: 30, answer_s: 0.5}\n",
        release,
    )
    assert lost.cause == "timeout"


@pytest.mark.parametrize(
    "data,cause",
    [
        (b'data: {"type": "error", "message": "model died"}\n\n', "stream_error"),
        (b"data: <html>\n\n", "garbage"),
    ],
    ids=["error-event", "not-json"],
)
def test_error_event_and_bad_event(data: bytes, cause: str, tmp_path: Path) -> None:
    lost = lost_turn(lambda h: write_stream(h, "text/event-stream", [data]), tmp_path)
    assert lost.cause == cause
