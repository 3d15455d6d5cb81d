"""Streamed replies through the real client against loopback agents, in every mode.

The agents write real HTTP/1.1 chunked streams, one event per chunk, and can stop short
(truncated) or go quiet (idle) on cue; the quiet ones are held by an event, released when
the test ends, so nothing depends on how fast the machine is. The idle gap between chunks
and the time left of the answer limit are timed on virtual clocks, so their edges are exact.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agenttest.agents import (
    AgentClient,
    StreamDecoder,
    StreamError,
    StreamIdle,
    TurnLost,
    framing_of,
    parse_agent_config,
)
from agenttest.results import ToolCall
from tests._clients import Clock, clocked, polled_between
from tests._patience import EVENTUALLY_S
from tests._servers import Behaviour, LoopbackAgent, agent_yaml
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


# -- a streamed reply, read in every mode ---------------------------------------------------------


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
    assert reply.tool_calls == [msgspec.convert(CALL, ToolCall)] and reply.choices == CHOICES
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
    assert ex.reply.tool_calls[0].name == "calc"
    assert ex.reply.tool_calls[0].arguments == {"x": 1}


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
    assert ex.reply.tool_calls[0].name == "file_read"
    assert ex.reply.tool_calls[0].arguments == {"path": "notlar/ödev.txt"}
    assert "FINISH tool_calls" in ex.reply.trace
    # the streamed answer joined the history the next turn resends
    assert c.adapter.history["s1"][-1] == {"role": "assistant", "content": "".join(TEXT)}  # type: ignore[attr-defined]


def stream_client_at(url: str, tmp_path: Path, extra: str = "") -> AgentClient:
    text = f"model: m\nbase_url: {url}\nstream: true\n{extra}"
    return AgentClient(parse_agent_config(text, str(tmp_path / "a.yaml"), tmp_path))


def test_a_streamed_openai_answer_keeps_the_prompt_in_the_history(tmp_path: Path) -> None:
    agent = agent_with(lambda h: write_stream(h, "text/event-stream", [openai_sse()]))
    extra = "mode: openai\nopenai: {path: /v1/turn}\nreadiness: {path: /health}\n"
    try:
        c = stream_client_at(agent.url, tmp_path, extra)
        c.turn("s1", "the prompt", 1)
    finally:
        agent.stop()
    history = c.adapter.history["s1"]  # type: ignore[attr-defined]
    assert history[-2] == {"role": "user", "content": "the prompt"}


# -- a stream that ends badly: a lost turn with its cause, and the agent awaited ------------------


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


def streamed_turn_lost(tmp_path: Path, data: bytes, extra: str = "") -> tuple[TurnLost, Any]:
    """One streamed turn answered with ``data`` then a second turn: the first must be lost."""
    agent = agent_with(lambda h: write_stream(h, "text/event-stream", [data]))
    try:
        c = stream_client_at(agent.url, tmp_path, extra)
        with pytest.raises(TurnLost) as lost:
            c.turn("s1", "hi", 1)
        c.turn("s1", "again", 2)
    finally:
        agent.stop()
    return lost.value, agent.state.requests


def test_a_truncated_stream_is_lost_with_its_status_and_the_agent_awaited(tmp_path: Path) -> None:
    data = first_events(native_sse())
    lost, requests = streamed_turn_lost(tmp_path, data)
    assert lost.cause == "truncated" and lost.http_status == 200
    assert lost.latency_ms is not None and lost.latency_ms >= 0
    assert lost.message.startswith("turn 1: ") and "final" in lost.message
    # the agent may still be writing: the second turn waited for ready first
    assert polled_between(requests) == ["/v1/turn", "/health", "/v1/turn"]


def test_an_error_event_is_lost_with_the_agent_s_words(tmp_path: Path) -> None:
    data = b'data: {"type": "error", "message": "model died"}\n\n'
    lost, requests = streamed_turn_lost(tmp_path, data)
    assert lost.cause == "stream_error" and lost.http_status == 200
    assert lost.message == "turn 1: the agent sent an error event: model died"
    assert [p for (_m, p, _t) in requests] == ["/v1/turn", "/v1/turn"]  # nothing left running


def test_a_bad_event_is_garbage_with_the_parser_s_words(tmp_path: Path) -> None:
    lost, _requests = streamed_turn_lost(tmp_path, b"data: <html>\n\n")
    assert lost.cause == "garbage"
    assert lost.message.startswith("turn 1: ") and "None" not in lost.message
    assert len(lost.message) > len("turn 1: ") + 10


def test_an_idle_stream_is_lost_with_its_latency_and_the_agent_awaited(tmp_path: Path) -> None:
    clock = Clock()
    hold = threading.Event()
    start = first_events(native_sse())
    behaviour = Behaviour(
        on_turn=clock.advance(0.25),
        raw_turns={1: lambda h: write_stream(h, "text/event-stream", [start], hold=hold)},
    )
    try:
        with LoopbackAgent(behaviour) as agent:
            client = clocked(
                agent.url, tmp_path, clock, stream=True, timeouts={"idle_s": 0.3, "answer_s": 60}
            )
            with pytest.raises(TurnLost) as info:
                client.turn("s", "hi", 1)
            hold.set()  # the agent finishes its stream; the next turn waits for that
            client.turn("s", "again", 2)
    finally:
        hold.set()
    assert info.value.cause == "idle" and info.value.latency_ms == 250
    assert info.value.message.startswith("turn 1: the stream went quiet")
    paths = [p for (_m, p, _t) in agent.state.requests]
    assert paths[0] == "/v1/turn" and paths[-1] == "/v1/turn" and "/health" in paths


# -- the idle gap between chunks, on a virtual clock ----------------------------------------------


def stream_client(tmp_path: Path, now: list[float], **timeouts: float) -> AgentClient:
    text = agent_yaml("http://127.0.0.1:9", stream=True, timeouts=timeouts)
    cfg = parse_agent_config(text, str(tmp_path / "agent.yaml"), tmp_path)
    return AgentClient(cfg, clock=lambda: now[0])


def decoder_for(client: AgentClient) -> StreamDecoder:
    framing = framing_of("text/event-stream")
    assert framing is not None
    return StreamDecoder(framing, client.adapter.dialect)


EVENT = b'data: {"type": "text", "delta": "hi"}\n\n'


def feed_at(client: AgentClient, decoder: StreamDecoder, now: list[float], at: float) -> bool:
    now[0] = 100.0 + at  # the exchange started at 100 s on this clock
    return client._sender._stream_chunk(decoder, EVENT, 100.0)


def test_chunks_are_timed_from_the_start_of_the_exchange(tmp_path: Path) -> None:
    now = [0.0]
    client = stream_client(tmp_path, now, idle_s=2)
    decoder = decoder_for(client)
    assert feed_at(client, decoder, now, 0.25) is False
    assert feed_at(client, decoder, now, 2.25) is False  # a gap of exactly 2000 ms is allowed
    assert decoder.timeline.first_byte_ms == 250 and decoder.last_ms == 2250


def test_a_gap_just_over_the_idle_limit_ends_the_stream(tmp_path: Path) -> None:
    now = [0.0]
    client = stream_client(tmp_path, now, idle_s=2, answer_s=60)
    decoder = decoder_for(client)
    feed_at(client, decoder, now, 0.25)
    with pytest.raises(StreamIdle) as info:
        feed_at(client, decoder, now, 2.251)  # 2001 ms after the last chunk
    assert str(info.value) == (
        "the stream went quiet for more than 2s after 1 events (1 chunks); limit timeouts.idle_s"
    )


def test_a_late_first_chunk_is_not_an_idle_gap(tmp_path: Path) -> None:
    # before the first byte the wait is the answer limit's (httpx's read timeout), not idle
    now = [0.0]
    client = stream_client(tmp_path, now, idle_s=2, answer_s=60)
    decoder = decoder_for(client)
    assert feed_at(client, decoder, now, 30.0) is False
    assert decoder.timeline.first_byte_ms == 30000


def test_a_bad_event_stops_reading_and_is_kept_for_later(tmp_path: Path) -> None:
    now = [0.0]
    client = stream_client(tmp_path, now, idle_s=2)
    decoder = decoder_for(client)
    now[0] = 100.1
    assert client._sender._stream_chunk(decoder, b"data: <html>\n\n", 100.0) is True
    assert isinstance(decoder.failure, StreamError)


def test_the_idle_message_names_the_idle_limit_or_else_the_answer_limit(tmp_path: Path) -> None:
    now = [0.0]
    with_idle = stream_client(tmp_path, now, idle_s=0.5, answer_s=7)
    assert "more than 0.5s after 0 events" in with_idle._sender._idle_message(
        decoder_for(with_idle)
    )
    text = agent_yaml("http://127.0.0.1:9", stream=True, timeouts={"answer_s": 7})
    no_idle = AgentClient(parse_agent_config(text, str(tmp_path / "b.yaml"), tmp_path))
    assert no_idle._sender._idle_s is None  # precondition
    assert "more than 7s after 0 events" in no_idle._sender._idle_message(decoder_for(no_idle))


# -- a quiet stream: idle while the answer limit has time left, else a timeout --------------------


class Switch:
    """A clock that stands at ``before`` until the agent has sent the first events of its
    stream (``sent``), then at ``after``: the time left when the stream goes quiet is exact."""

    def __init__(self, before: float, after: float) -> None:
        self.before, self.after = before, after
        self.sent = threading.Event()

    def __call__(self) -> float:
        return self.after if self.sent.is_set() else self.before

    def sleep(self, seconds: float) -> None:
        raise AssertionError(f"the client slept {seconds}s")


def quiet_stream_lost(tmp_path: Path, left: float) -> TurnLost:
    """A streamed turn that goes quiet after its first events with ``left`` seconds of the
    answer limit left on the client's clock."""
    answer_s = 8.0
    started = -7.98  # near zero at the deadline, where floats have the bits for 0.01
    clock = Switch(started, started + answer_s - left)
    assert (started + answer_s) - clock.after == left  # precondition: exactly that much left
    hold = threading.Event()

    def reply(handler: Any) -> bool:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        piece = first_events(native_sse())
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        handler.wfile.flush()
        clock.sent.set()  # in the client's socket buffer already: no read waits for it
        hold.wait(EVENTUALLY_S)
        handler.close_connection = True
        return True

    try:
        with LoopbackAgent(Behaviour(raw_turns={1: reply})) as agent:
            text = agent_yaml(agent.url, stream=True, timeouts={"idle_s": 60, "answer_s": answer_s})
            cfg = parse_agent_config(text, str(tmp_path / "agent.yaml"), tmp_path)
            client = AgentClient(cfg, clock=clock, sleep=clock.sleep)
            with client, pytest.raises(TurnLost) as info:
                client.turn("s1", "hi", 1)
    finally:
        hold.set()
    assert clock.sent.is_set()  # precondition: the first events were sent
    return info.value


def test_a_stream_quiet_with_time_left_is_idle(tmp_path: Path) -> None:
    lost = quiet_stream_lost(tmp_path, 0.5)
    assert lost.cause == "idle"
    assert lost.message.startswith("turn 1: the stream went quiet for more than 60s")


def test_a_stream_quiet_until_the_answer_limit_is_a_timeout(tmp_path: Path) -> None:
    # 10 ms left or less is the answer limit's doing, not an idle gap
    lost = quiet_stream_lost(tmp_path, 0.01)
    assert lost.cause == "timeout"
    assert lost.message == "turn 1: no answer within 8s"


def test_a_reset_is_not_held_to_the_stream_s_idle_limit(tmp_path: Path) -> None:
    # a reset's reply is read with the answer limit, never the idle gap of a stream
    def slow_reset(_body: Any) -> None:
        time.sleep(0.6)

    with LoopbackAgent(Behaviour(on_reset=slow_reset)) as agent:
        text = agent_yaml(agent.url, stream=True, timeouts={"idle_s": 0.1, "answer_s": 60})
        client = AgentClient(parse_agent_config(text, str(tmp_path / "a.yaml"), tmp_path))
        assert client.reset("s1") == 200
