"""Tests that kill mutants of ``runner/_client.py`` no other test noticed (issue 13).

Found by ``python tools/mutation.py client``. Every test talks to a real loopback server and
reads what it recorded; none measures wall-clock time. Where a virtual clock is used, it
advances only when the client sleeps, so the numbers are exact.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path
from typing import Any

import httpcore
import pytest

from agenttest.runner import (
    AgentClient,
    AgentNotReady,
    OverlapError,
    TurnLost,
    parse_agent_config,
    retry_after_s,
)
from agenttest.runner._sender import StreamIdle
from agenttest.runner._stream import StreamDecoder, StreamError, framing_of
from agenttest.runner._workspace import PreconditionUnmet

from ._patience import EVENTUALLY_S
from ._servers import Behaviour, LoopbackAgent, RouteServer, agent_yaml, free_port
from .test_runner_client import client_for
from .test_runner_stream import agent_with, first_events, write_stream
from .test_stream import native_sse, openai_sse


@contextlib.contextmanager
def served(
    routes: dict[str, Any], tmp_path: Path, **extra: object
) -> Iterator[tuple[LoopbackAgent, AgentClient]]:
    with RouteServer(routes) as server, client_for(server.url, tmp_path, **extra) as client:
        yield server, client


def answer(status: int, body: Any) -> Any:
    return lambda _method, _body: (status, body)


# -- stored(): the agent's own copy of a reply ----------------------------------------------

STORE = "/v1/sessions/s1/messages"


def test_stored_reads_the_last_message_by_get_at_the_rendered_path(tmp_path: Path) -> None:
    body = {"messages": [{"content": "first"}, {"content": "the last one"}]}
    with served({STORE: answer(200, body)}, tmp_path) as (server, client):
        assert client.stored("s1", 1) == "the last one"
    (request,) = server.state.requests
    assert request[:2] == ("GET", STORE)


def test_stored_without_a_store_is_lost_as_no_store(tmp_path: Path) -> None:
    with served({}, tmp_path, mode="rest") as (server, client):
        assert client.config.store is None  # precondition: rest mode has no store
        with pytest.raises(TurnLost) as info:
            client.stored("s1", 1)
    assert info.value.cause == "no_store"
    assert info.value.message == "the agent config has no `store` to read replies back"
    assert server.state.requests == []


@pytest.mark.parametrize("status", [300, 404, 500])
def test_a_store_answering_non_2xx_is_an_http_error_with_the_body_cut_at_200(
    tmp_path: Path, status: int
) -> None:
    text = "e" * 300
    with (
        served({STORE: answer(status, text.encode())}, tmp_path) as (_server, client),
        pytest.raises(TurnLost) as info,
    ):
        client.stored("s1", 1)
    assert info.value.cause == "http_error" and info.value.http_status == status
    assert info.value.message == f"store: HTTP {status}: {'e' * 200!r}"


def test_a_store_answering_2xx_at_the_edge_is_read(tmp_path: Path) -> None:
    body = {"messages": [{"content": "kept"}]}
    with served({STORE: answer(299, body)}, tmp_path) as (_server, client):
        assert client.stored("s1", 1) == "kept"


def test_a_stored_reply_without_text_is_garbage(tmp_path: Path) -> None:
    with (
        served({STORE: answer(200, {"messages": []})}, tmp_path) as (_server, client),
        pytest.raises(TurnLost) as info,
    ):
        client.stored("s1", 1)
    assert info.value.cause == "garbage" and info.value.http_status is None
    assert info.value.message.startswith("store: the stored reply has no text at")


# -- seed_memory(): a memory_seed fixture ---------------------------------------------------

SEED = "/v1/memory/seed"


def test_seeding_posts_the_session_and_items_as_json(tmp_path: Path) -> None:
    with served({SEED: answer(200, {"ok": True})}, tmp_path) as (server, client):
        client.seed_memory("s1", ["a note", "b"])
    (sent,) = server.state.bodies
    assert sent["path"] == SEED and sent["body"] == {"session_id": "s1", "items": ["a note", "b"]}
    assert sent["headers"]["content-type"] == "application/json"
    assert server.state.requests[0][0] == "POST"


def test_seeding_an_agent_whose_protocol_has_no_seed_is_a_precondition(tmp_path: Path) -> None:
    with (
        served({}, tmp_path, mode="rest") as (server, client),
        pytest.raises(PreconditionUnmet) as info,
    ):
        client.seed_memory("s1", ["x"])
    assert str(info.value) == "the agent's protocol offers no way to seed its memory"
    assert server.state.requests == []


@pytest.mark.parametrize("status", [404, 405, 501])
def test_an_agent_without_the_seed_endpoint_is_a_precondition(tmp_path: Path, status: int) -> None:
    with (
        served({SEED: answer(status, {})}, tmp_path) as (_server, client),
        pytest.raises(PreconditionUnmet) as info,
    ):
        client.seed_memory("s1", ["x"])
    assert str(info.value) == f"the agent cannot be seeded (HTTP {status})"


@pytest.mark.parametrize("status", [300, 400, 500])
def test_a_seed_answering_another_non_2xx_is_an_http_error(tmp_path: Path, status: int) -> None:
    text = "s" * 300
    with (
        served({SEED: answer(status, text.encode())}, tmp_path) as (_server, client),
        pytest.raises(TurnLost) as info,
    ):
        client.seed_memory("s1", ["x"])
    assert info.value.cause == "http_error" and info.value.http_status == status
    assert info.value.message == f"memory seed: HTTP {status}: {'s' * 200!r}"


def test_a_seed_answering_2xx_at_the_edge_is_accepted(tmp_path: Path) -> None:
    with served({SEED: answer(299, {})}, tmp_path) as (server, client):
        client.seed_memory("s1", ["x"])  # accepted: nothing raised
    assert [b["path"] for b in server.state.bodies] == [SEED]  # sent once, not retried


# -- Retry-After as an HTTP date ------------------------------------------------------------


def test_a_retry_after_date_without_a_zone_is_read_as_utc() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert parsedate_to_datetime("Thu, 01 Jan 2026 00:00:30 -0000").tzinfo is None  # naive
    assert retry_after_s("Thu, 01 Jan 2026 00:00:30 -0000", now) == 30.0


def test_a_retry_after_date_in_the_past_means_now() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    past = format_datetime(now - timedelta(seconds=30), usegmt=True)
    assert retry_after_s(past, now) == 0.0


def test_a_retry_after_date_is_measured_from_the_real_now_by_default() -> None:
    # an hour ahead of the real clock: whatever the machine's speed, well within the hour
    later = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    wait = retry_after_s(later)
    assert wait is not None and 3000 < wait <= 3600


# -- the idle gap of a stream, on a virtual clock -------------------------------------------


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


# -- a readiness check of the port only (readiness.path: null) ------------------------------


class _Dial:
    """socket.create_connection as the probe sees it: records the call, then refuses or
    connects."""

    def __init__(self, error: OSError | None = None) -> None:
        self.calls: list[tuple[tuple[str, int], dict[str, Any]]] = []
        self.error = error

    def __call__(self, address: tuple[str, int], **kw: Any) -> contextlib.nullcontext[None]:
        self.calls.append((address, kw))
        if self.error is not None:
            raise self.error
        return contextlib.nullcontext()


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("http://localhost", ("localhost", 80)),
        ("https://agent.invalid", ("agent.invalid", 443)),
        ("http://127.0.0.1:8123", ("127.0.0.1", 8123)),
    ],
)
def test_a_port_only_probe_dials_the_scheme_default_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, address: tuple[str, int]
) -> None:
    dial = _Dial()
    monkeypatch.setattr(socket, "create_connection", dial)
    client = client_for(url, tmp_path, readiness={"path": None}, timeouts={"connect_s": 1.5})
    assert client.probe() == "ready"
    assert dial.calls == [(address, {"timeout": 1.5})]


@pytest.mark.parametrize(
    ("error", "state"),
    [
        (ConnectionRefusedError(111, "Connection refused"), "unreachable (Connection refused)"),
        (TimeoutError("timed out"), "unreachable (timed out)"),
    ],
)
def test_a_port_only_probe_names_why_it_could_not_connect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, state: str
) -> None:
    monkeypatch.setattr(socket, "create_connection", _Dial(error))
    client = client_for("http://127.0.0.1:8123", tmp_path, readiness={"path": None})
    assert client.probe() == state


# -- reset ----------------------------------------------------------------------------------


def test_a_reset_sends_the_session_and_forgets_no_memory_unless_asked(tmp_path: Path) -> None:
    with LoopbackAgent() as agent, client_for(agent.url, tmp_path) as client:
        assert client.reset("s1") == 200
        assert client.reset("s2", memory=True) == 200
    assert agent.state.resets == [
        {"session_id": "s1", "memory": False},
        {"session_id": "s2", "memory": True},
    ]


def test_a_reset_drops_what_the_runner_keeps_of_the_session(tmp_path: Path) -> None:
    with served({}, tmp_path, mode="openai") as (server, client):
        history = client.adapter.history  # type: ignore[attr-defined]
        history["s1"] = [{"role": "user", "content": "hi"}]
        history["s2"] = [{"role": "user", "content": "kept"}]
        assert client.reset("s1") is None  # openai: no reset call, only forgetting
    assert "s1" not in history and "s2" in history
    assert server.state.requests == []


@pytest.mark.parametrize("status", [300, 500])
def test_a_reset_answering_non_2xx_is_an_http_error(tmp_path: Path, status: int) -> None:
    with (
        served({"/v1/reset": answer(status, b"r" * 300)}, tmp_path) as (_server, client),
        pytest.raises(TurnLost) as info,
    ):
        client.reset("s1")
    assert info.value.cause == "http_error" and info.value.http_status == status
    assert info.value.message == f"reset: HTTP {status}: {'r' * 200!r}"


# -- a streamed reply that ends badly -------------------------------------------------------


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


def polled_between(requests: list[tuple[str, str, float]]) -> list[str]:
    """The paths asked, with a run of health polls as one: how many polls it takes until the
    agent has finished an abandoned request depends on the machine, that it polls does not."""
    paths: list[str] = []
    for _m, path, _t in requests:
        if not (path == "/health" and paths and paths[-1] == "/health"):
            paths.append(path)
    return paths


def stream_client_at(url: str, tmp_path: Path, extra: str = "") -> AgentClient:
    text = f"model: m\nbase_url: {url}\nstream: true\n{extra}"
    return AgentClient(parse_agent_config(text, str(tmp_path / "a.yaml"), tmp_path))


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


# -- on a virtual clock: latencies, waits and back-off are exact ----------------------------


class Clock:
    """A monotonic clock that starts at 1000 s and moves only when told: by the client's
    sleeps, or by the agent while it "works" on a request (``Behaviour.on_turn``)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> Callable[[int], None]:
        return lambda _turn: setattr(self, "now", self.now + seconds)


class Clocked(AgentClient):
    """A client on a :class:`Clock` that keeps what it logged in ``lines``."""

    def __init__(self, url: str, tmp_path: Path, clock: Clock, **extra: object) -> None:
        text = agent_yaml(url, **extra)
        self.lines: list[str] = []
        cfg = parse_agent_config(text, str(tmp_path / "agent.yaml"), tmp_path)
        super().__init__(cfg, log=self.lines.append, clock=clock, sleep=clock.sleep)


clocked = Clocked


def test_a_turn_s_latency_is_the_time_the_agent_took(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(on_turn=clock.advance(1.5))) as agent:
        ex = clocked(agent.url, tmp_path, clock, timeouts={"answer_s": 60}).turn("s", "hi", 1)
    assert ex.latency_ms == 1500


def test_a_dropped_connection_is_lost_with_its_latency_and_the_agent_awaited(
    tmp_path: Path,
) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(on_turn=clock.advance(0.25), drop_turns={1})) as agent:
        client = clocked(agent.url, tmp_path, clock, timeouts={"answer_s": 60})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
        client.turn("s", "again", 2)
    lost = info.value
    assert lost.cause == "lost" and lost.latency_ms == 250
    assert lost.message.startswith("turn 1: the connection broke before the answer (")
    assert lost.message.endswith("); did the agent crash or restart?")
    assert "NoneType" not in lost.message and "Error" in lost.message  # httpx's class named
    assert polled_between(agent.state.requests) == ["/v1/turn", "/health", "/v1/turn"]
    assert client.lines[0] == (
        "the abandoned request may still be running: waiting for ready first"
    )


def test_a_timed_out_turn_is_lost_with_the_latency_the_client_saw(tmp_path: Path) -> None:
    clock = Clock()
    behaviour = Behaviour(on_turn=clock.advance(0.25), hang_turns={1}, hang_s=30.0)
    with LoopbackAgent(behaviour) as agent:
        client = clocked(agent.url, tmp_path, clock, timeouts={"answer_s": 0.5})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
    assert info.value.cause == "timeout" and info.value.latency_ms == 250


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


def raw_reply(data: bytes, content_type: str, **headers: str) -> Callable[[Any], bool]:
    """A raw handler that sends ``data`` whole as a 200 reply of ``content_type``."""

    def write(handler: Any) -> bool:
        handler.send_response(200)
        handler.send_header("content-type", content_type)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
        return True

    return write


def labelled_gzip(data: bytes) -> Callable[[Any], bool]:
    """A raw turn that sends ``data`` as a JSON reply marked ``content-encoding: gzip``."""
    return raw_reply(data, "application/json", **{"content-encoding": "gzip"})


gzip_garbage = labelled_gzip(b"this is not gzip at all")


def test_an_undecodable_reply_is_garbage_named_by_the_turn(tmp_path: Path) -> None:
    agent = LoopbackAgent(Behaviour(raw_turns={1: gzip_garbage}))
    with agent, pytest.raises(TurnLost) as info:
        client_for(agent.url, tmp_path).turn("s", "hi", 1)
    assert info.value.cause == "garbage"
    assert info.value.message.startswith("turn 1: unreadable reply: ")


def test_busy_waits_follow_retry_after_and_add_up(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(busy_first=2, retry_after="0.25")) as agent:
        client = clocked(agent.url, tmp_path, clock, timeouts={"retry_after_cap_s": 10})
        client.waits.busy_ms = 1000  # waited earlier in this attempt
        assert client.turn("s", "hi", 1).http_status == 200
    assert clock.sleeps == [0.25, 0.25]
    assert client.waits.busy_ms == 1500 and client.waits.busy_replies == 2
    assert client.waits.as_dict() == {"ready_ms": 0, "busy_ms": 1500, "busy_replies": 2}
    assert client.lines == ["agent busy (HTTP 409); retrying turn 1 in 0.25s (Retry-After)"] * 2


def test_busy_without_retry_after_backs_off_from_half_a_second(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(busy_first=3, retry_after=None)) as agent:
        client = clocked(
            agent.url, tmp_path, clock, timeouts={"retry_after_cap_s": 10, "busy_s": 60}
        )
        client.turn("s", "hi", 1)
    assert clock.sleeps == [0.5, 1.0, 2.0]
    assert client.lines[0] == "agent busy (HTTP 409); retrying turn 1 in 0.50s"


def test_a_reset_is_not_held_to_the_stream_s_idle_limit(tmp_path: Path) -> None:
    # a reset's reply is read with the answer limit, never the idle gap of a stream
    def slow_reset(_body: Any) -> None:
        time.sleep(0.6)

    with LoopbackAgent(Behaviour(on_reset=slow_reset)) as agent:
        text = agent_yaml(agent.url, stream=True, timeouts={"idle_s": 0.1, "answer_s": 60})
        client = AgentClient(parse_agent_config(text, str(tmp_path / "a.yaml"), tmp_path))
        assert client.reset("s1") == 200


def test_a_turn_lost_says_its_message() -> None:
    lost = TurnLost("busy", "the message", 409, 12)
    assert str(lost) == "the message"
    assert (lost.cause, lost.http_status, lost.latency_ms) == ("busy", 409, 12)


# -- readiness: what the probe reports, and how long wait_ready waited -----------------------


def health(status: int, body: Any, delay: float = 0.0) -> dict[str, Any]:
    def reply(_method: str, _body: Any) -> tuple[int, Any]:
        time.sleep(delay)
        return status, body

    return {"/health": reply}


@pytest.mark.parametrize(
    ("status", "body", "state"),
    [
        (300, {}, "HTTP 300 at /health"),
        (404, {}, "HTTP 404 at /health (is readiness.path right?)"),
        (405, {}, "HTTP 405 at /health (is readiness.path right?)"),
        (406, {}, "HTTP 406 at /health"),
        (500, {}, "HTTP 500 at /health"),
        (200, b"<html>", "health reply is not JSON"),
        (200, {"status": 0}, "status=0"),
        (200, {"status": "warming up"}, "warming up"),
        (200, {"status": "ready"}, "ready"),
    ],
)
def test_the_probe_says_what_the_health_check_answered(
    tmp_path: Path, status: int, body: Any, state: str
) -> None:
    with served(health(status, body), tmp_path) as (_server, client):
        assert client.probe() == state


def test_a_health_check_without_a_ready_field_is_ready_on_any_2xx(tmp_path: Path) -> None:
    with served(health(299, b"<html>"), tmp_path, readiness={"field": None}) as (
        _server,
        client,
    ):
        assert client.probe() == "ready"


def test_a_health_check_slower_than_its_limit_is_not_answering(tmp_path: Path) -> None:
    routes = health(200, {"status": "ready"}, delay=1.0)
    with served(routes, tmp_path, readiness={"probe_timeout_s": 0.1}) as (_server, client):
        assert client.probe() == "not answering its health check"


def test_a_health_check_that_hangs_up_names_the_error(tmp_path: Path) -> None:
    def hang_up(handler: Any) -> bool:
        handler.close_connection = True
        handler.connection.shutdown(socket.SHUT_RDWR)
        return True

    with LoopbackAgent(Behaviour(raw_health=hang_up)) as agent:
        state = client_for(agent.url, tmp_path).probe()
    assert state == "unreachable (RemoteProtocolError)"


def test_an_agent_ready_at_once_is_not_announced(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent() as agent:
        client = clocked(agent.url, tmp_path, clock)
        client.waits.ready_ms = 1000
        assert client.wait_ready() == 0.0
    assert client.lines == []
    assert client.waits.ready_ms == 1000


def test_the_readiness_wait_is_added_to_the_attempt_s_waits(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        readiness = {"timeout_s": 3600, "poll_s": 0.25, "max_poll_s": 0.25}
        client = clocked(agent.url, tmp_path, clock, readiness=readiness)
        client.waits.ready_ms = 1000
        real_sleep = client.sleep

        def sleep(seconds: float) -> None:
            if len(clock.sleeps) == 3:
                agent.state.started = time.monotonic() - 7200  # ready from the next poll
            real_sleep(seconds)

        client.sleep = sleep
        assert client.wait_ready() == 1.0
    assert client.waits.ready_ms == 2000
    assert client.lines[-1] == "agent ready after 1.0s"


def test_a_readiness_timeout_is_added_to_the_attempt_s_waits(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        readiness = {"timeout_s": 2, "poll_s": 0.25, "max_poll_s": 0.25}
        client = clocked(agent.url, tmp_path, clock, readiness=readiness)
        client.waits.ready_ms = 1000
        with pytest.raises(AgentNotReady):
            client.wait_ready()
    assert client.waits.ready_ms == 3000


def test_the_readiness_back_off_grows_by_half(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        readiness = {"timeout_s": 0.5, "poll_s": 0.04, "max_poll_s": 10}
        with pytest.raises(AgentNotReady):
            clocked(agent.url, tmp_path, clock, readiness=readiness).wait_ready()
    assert clock.sleeps[:3] == pytest.approx([0.04, 0.06, 0.09])


def heartbeats(tmp_path: Path, timeout_s: float, poll_s: float) -> list[tuple[float, str]]:
    """(time since the start, line) of every heartbeat of a wait that never ends."""
    clock = Clock()
    beats: list[tuple[float, str]] = []
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        readiness = {"timeout_s": timeout_s, "poll_s": poll_s, "max_poll_s": poll_s}
        client = clocked(agent.url, tmp_path, clock, readiness=readiness)
        client.log = lambda line: beats.append((clock.now - 1000, line))
        with pytest.raises(AgentNotReady):
            client.wait_ready()
    return [(t, line) for t, line in beats if line.startswith("still waiting")]


def test_the_heartbeat_comes_every_tenth_of_the_limit_while_time_is_left(tmp_path: Path) -> None:
    beats = heartbeats(tmp_path, timeout_s=10, poll_s=0.125)
    assert [t for t, _line in beats] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert beats[0][1] == (
        "still waiting for the agent (loading): 1s so far, 9s left of readiness.timeout_s=10"
    )


def test_the_first_heartbeat_comes_at_a_tenth_of_the_limit_not_sooner(tmp_path: Path) -> None:
    # polls every 1/16 s, so a beat due earlier (at 1/11 of the limit: 1.875 s) shows
    clock = Clock()
    beats: list[tuple[float, str]] = []
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        readiness = {"timeout_s": 20, "poll_s": 0.0625, "max_poll_s": 0.0625}
        client = clocked(agent.url, tmp_path, clock, readiness=readiness)

        def log(line: str) -> None:
            if line.startswith("still waiting"):
                beats.append((clock.now - 1000, line))
                agent.state.started = time.monotonic() - 7200  # ready from the next poll

        client.log = log
        assert client.wait_ready() == 2.0625
    assert beats == [
        (
            2.0,
            "still waiting for the agent (loading): 2s so far, 18s left of readiness.timeout_s=20",
        )
    ]


def test_the_heartbeat_comes_at_most_every_minute(tmp_path: Path) -> None:
    beats = heartbeats(tmp_path, timeout_s=900, poll_s=30)
    assert [t for t, _line in beats] == [60.0 * n for n in range(1, 15)]


# -- what the agent receives and what comes back --------------------------------------------

NATIVE_REPLY = {"response": "hello", "tool_calls": [], "trace": ""}


def test_a_turn_sends_json_with_the_configured_headers_and_asks_for_no_compression(
    tmp_path: Path,
) -> None:
    routes = {"/v1/turn": answer(200, NATIVE_REPLY), "/health": answer(200, {"status": "ready"})}
    with served(routes, tmp_path, headers={"x-api-key": "k1"}) as (server, client):
        assert client.probe() == "ready"
        assert client.turn("s1", "hi", 1).reply.response == "hello"
    probe, turn = server.state.bodies
    assert turn["body"] == {"session_id": "s1", "message": "hi"}
    for sent in (probe, turn):
        headers = {k.lower(): v for k, v in sent["headers"].items()}
        assert headers["x-api-key"] == "k1" and headers["accept-encoding"] == "identity"
    assert {k.lower(): v for k, v in turn["headers"].items()}["content-type"] == (
        "application/json"
    )
    assert "content-type" not in {k.lower() for k in probe["headers"]}  # a GET has no body


def test_a_rest_turn_renders_the_turn_number(tmp_path: Path) -> None:
    rest = {"request": {"path": "/t/{{ turn }}", "body": '{"n": {{ turn }}}'},
            "response": {"text": "response"}}  # fmt: skip
    routes = {"/t/3": answer(200, NATIVE_REPLY)}
    with served(routes, tmp_path, mode="rest", rest=rest) as (server, client):
        assert client.turn("s1", "hi", 3).reply.response == "hello"
    assert server.state.bodies[0]["body"] == {"n": 3}


gzip_reply = labelled_gzip(gzip.compress(json.dumps(NATIVE_REPLY).encode()))


def test_a_reply_compressed_anyway_is_decoded_once(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(raw_turns={1: gzip_reply})) as agent:
        assert client_for(agent.url, tmp_path).turn("s", "hi", 1).reply.response == "hello"


def test_a_non_2xx_turn_is_an_http_error_with_its_latency_and_the_body_cut_at_200(
    tmp_path: Path,
) -> None:
    clock = Clock()

    def slow_error(_method: str, _body: Any) -> tuple[int, Any]:
        clock.now += 0.25
        return 300, b"t" * 300

    with RouteServer({"/v1/turn": slow_error}) as server:
        client = clocked(server.url, tmp_path, clock, timeouts={"answer_s": 60})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
    lost = info.value
    assert (lost.cause, lost.http_status, lost.latency_ms) == ("http_error", 300, 250)
    assert lost.message == f"turn 1: HTTP 300: {'t' * 200!r}"


def test_a_garbage_turn_is_lost_with_its_status_and_latency(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(on_turn=clock.advance(0.25), garbage_turns={1})) as agent:
        client = clocked(agent.url, tmp_path, clock, timeouts={"answer_s": 60})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
    lost = info.value
    assert (lost.cause, lost.http_status, lost.latency_ms) == ("garbage", 200, 250)
    assert lost.message.startswith("turn 1: ")


def test_an_openai_answer_keeps_session_and_prompt_in_the_history(tmp_path: Path) -> None:
    reply = {"choices": [{"message": {"role": "assistant", "content": "hey"}}]}
    extra: dict[str, Any] = {"mode": "openai", "openai": {"path": "/v1/turn"}}
    with served({"/v1/turn": answer(200, reply)}, tmp_path, **extra) as (_server, client):
        client.turn("s1", "the prompt", 1)
    history = client.adapter.history  # type: ignore[attr-defined]
    assert history["s1"][-2:] == [
        {"role": "user", "content": "the prompt"},
        {"role": "assistant", "content": "hey"},
    ]


def test_busy_to_the_end_names_the_turn(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(busy_always=True, retry_after="1")) as agent:
        client = clocked(agent.url, tmp_path, clock, timeouts={"busy_s": 3, "retry_after_cap_s": 5})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
    assert info.value.message == (
        "turn 1: the agent stayed busy for 3.0s (4 busy replies, last HTTP 409); "
        "limit timeouts.busy_s=3"
    )
    assert clock.sleeps == [1.0, 1.0, 1.0] and client.waits.busy_ms == 3000


def test_a_request_while_one_is_in_flight_is_refused_at_once(tmp_path: Path) -> None:
    with served({}, tmp_path) as (server, client):
        assert client._sender._in_flight.acquire(blocking=False)  # a request is in flight
        with pytest.raises(OverlapError) as info:
            client.probe()
    assert str(info.value) == "a second request while one is in flight"
    assert server.state.requests == []


def test_the_configured_secrets_never_reach_a_message(tmp_path: Path) -> None:
    routes = {"/v1/reset": answer(500, b"bad token s3cret-value")}
    extra: dict[str, Any] = {"headers": {"authorization": "s3cret-value"}}
    with served(routes, tmp_path, **extra) as (_server, client), pytest.raises(TurnLost) as info:
        client.reset("s1")
    assert "s3cret-value" not in info.value.message and "bad token" in info.value.message


@pytest.mark.parametrize(
    ("call", "what"),
    [
        (lambda c: c.reset("s1"), "reset"),
        (lambda c: c.seed_memory("s1", ["x"]), "memory seed"),
        (lambda c: c.stored("s1", 1), "store"),
    ],
)
def test_a_request_that_cannot_connect_is_named_in_the_message(
    tmp_path: Path, call: Callable[[AgentClient], object], what: str
) -> None:
    client = client_for(f"http://127.0.0.1:{free_port()}", tmp_path)
    with client, pytest.raises(TurnLost) as info:
        call(client)
    assert info.value.cause == "unreachable"
    assert info.value.message.startswith(f"{what}: cannot connect to the agent")


def test_a_store_path_renders_the_turn(tmp_path: Path) -> None:
    store = {"path": "/s/{{ session_id }}/{{ turn }}", "text": "text"}
    with served({"/s/s1/4": answer(200, {"text": "four"})}, tmp_path, store=store) as (
        _server,
        client,
    ):
        assert client.stored("s1", 4) == "four"


def test_a_connection_never_accepted_is_unreachable_within_the_connect_limit(
    tmp_path: Path,
) -> None:
    # a listener whose accept queue is full drops every further SYN: connect never completes
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        for _ in range(3):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            fillers.append(filler)
        try:
            client = client_for(
                f"http://127.0.0.1:{port}",
                tmp_path,
                timeouts={"connect_s": 0.5},  # short on purpose: the connect must time out
            )
            with client, pytest.raises(TurnLost) as info:
                client.turn("s1", "hi", 1)
        finally:
            for filler in fillers:
                filler.close()
    assert info.value.cause == "unreachable"
    assert info.value.message == "turn 1: no connection within 0.5s"


# -- the sender: a reply's cap, a non-turn reply read whole, a quiet stream's limit ----------


def test_a_reply_past_the_cap_is_garbage_that_names_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agenttest.runner._sender.MAX_REPLY_BYTES", 1000)
    with (
        served({"/v1/turn": answer(200, b"x" * 1001)}, tmp_path) as (_server, client),
        pytest.raises(TurnLost) as info,
    ):
        client.turn("s1", "hi", 1)
    assert info.value.cause == "garbage"
    assert info.value.message == "turn 1: reply larger than 1000 bytes once decoded"


def test_a_health_reply_labelled_as_a_stream_is_read_whole(tmp_path: Path) -> None:
    # Only a turn is read as a stream. An NDJSON reader would stop at this body's first line
    # ("{" is not JSON), and more than one read's worth (64 KiB) of it would be missing.
    body = json.dumps({"status": "ready", "pad": "p" * 256 * 1024}, indent=1).encode()
    assert body.startswith(b"{\n")  # precondition: the first line alone is not JSON
    reply = raw_reply(body, "application/x-ndjson")
    with LoopbackAgent(Behaviour(raw_health=reply)) as agent:
        assert client_for(agent.url, tmp_path).probe() == "ready"


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


@pytest.mark.parametrize("ask", ["reset", "turn", "probe"])
def test_every_request_dials_within_the_connect_limit_not_its_answer_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ask: str
) -> None:
    # The dial is refused at once; what matters is the limit it was given: the connect
    # limit, not the time left of the answer (or probe) limit the deadline would allow.
    dialled: list[float | None] = []

    def dial(_backend: Any, _host: str, _port: int, timeout: float | None, *_: Any) -> Any:
        dialled.append(timeout)
        raise httpcore.ConnectTimeout("dial refused by the test")

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", dial)
    client = client_for(
        f"http://127.0.0.1:{free_port()}",
        tmp_path,
        timeouts={"connect_s": 0.5, "answer_s": 120},
        readiness={"probe_timeout_s": 60},
    )
    with client:
        if ask == "probe":
            assert client.probe() == "not answering its health check"
        else:
            with pytest.raises(TurnLost) as info:
                client.reset("s1") if ask == "reset" else client.turn("s1", "hi", 1)
            assert info.value.cause == "unreachable"
    assert dialled == [0.5]


def test_a_redirect_is_an_http_error_not_followed(tmp_path: Path) -> None:
    def moved(handler: Any) -> bool:
        handler.send_response(302)
        handler.send_header("location", "/health")
        handler.send_header("content-length", "0")
        handler.end_headers()
        return True

    with LoopbackAgent(Behaviour(raw_turns={1: moved})) as agent:
        with client_for(agent.url, tmp_path) as client, pytest.raises(TurnLost) as info:
            client.turn("s1", "hi", 1)
        paths = [p for (_m, p, _t) in agent.state.requests]
    assert info.value.cause == "http_error" and info.value.http_status == 302
    assert paths == ["/v1/turn"]  # the redirect's target was never asked
