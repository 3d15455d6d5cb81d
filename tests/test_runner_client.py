"""The agent client against real loopback servers: readiness, turns, lost turns, busy agents.

Every test talks to a real loopback server and reads what it recorded; none measures
wall-clock time to decide. Where exact latencies, waits and back-off are asserted, the
client runs on a virtual clock (``tests/_clients.py``) that advances only when the client
sleeps or the agent works. Messages, states and request headers are pinned whole (the tests
written against the survivors of ``python tools/mutation.py client``).
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
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

from agenttest.agents import (
    AgentClient,
    AgentNotReady,
    OverlapError,
    PreconditionUnmet,
    TurnLost,
    parse_agent_config,
    retry_after_s,
)

from ._clients import Clock, clocked, polled_between
from ._patience import EVENTUALLY_S
from ._servers import Behaviour, LoopbackAgent, RouteServer, agent_yaml, free_port


def client_for(url: str, tmp_path: Path, **extra: object) -> AgentClient:
    cfg = parse_agent_config(agent_yaml(url, **extra), str(tmp_path / "agent.yaml"), tmp_path)
    return AgentClient(cfg)


@contextlib.contextmanager
def served(
    routes: dict[str, Any], tmp_path: Path, **extra: object
) -> Iterator[tuple[LoopbackAgent, AgentClient]]:
    with RouteServer(routes) as server, client_for(server.url, tmp_path, **extra) as client:
        yield server, client


def answer(status: int, body: Any) -> Any:
    return lambda _method, _body: (status, body)


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


# -- readiness: waiting until the agent says it is ready, and how long that took ------------------


def test_waits_while_loading_then_answers(tmp_path: Path) -> None:
    # Loading ends when the client has polled three times, not after a wall-clock span:
    # building the client can take longer than any short loading window on a busy machine.
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        client = client_for(agent.url, tmp_path)
        pauses: list[float] = []
        said: list[str] = []
        client.log = said.append
        real_sleep = client.sleep

        def sleep(seconds: float) -> None:
            pauses.append(seconds)
            if len(pauses) == 3:
                agent.state.started = time.monotonic() - 7200  # the server is now ready
            real_sleep(seconds)

        client.sleep = sleep
        client.wait_ready()
        assert client.turn("s1", "hello", 1).reply.response == "echo 1: hello"
    polls = [t for (_m, path, t) in agent.state.requests if path == "/health"]
    turns = [t for (_m, path, t) in agent.state.requests if path == "/v1/turn"]
    assert len(polls) == 4  # three answered "loading", the fourth "ready"
    assert turns and turns[0] > polls[-1]  # by the server's clock: no turn before ready
    assert said[0] == "waiting for the agent to be ready: loading"
    assert said[-1].startswith("agent ready after")
    assert pauses == sorted(pauses) and pauses[0] < pauses[-1]  # it backed off


def test_refused_connection_counts_as_not_yet(tmp_path: Path) -> None:
    port = free_port()
    agent = LoopbackAgent(port=port)
    client = client_for(f"http://127.0.0.1:{port}", tmp_path)
    said: list[str] = []
    client.log = said.append
    real_sleep = client.sleep

    def sleep(seconds: float) -> None:
        if agent._server is None:  # the first refusal was seen: now the agent comes up
            agent.start()
        real_sleep(seconds)

    client.sleep = sleep
    try:
        client.wait_ready()
        assert said[0] == "waiting for the agent to be ready: unreachable (connection refused)"
        assert client.turn("s", "hi", 1).http_status == 200
    finally:
        agent.stop()


def test_never_ready_gives_up_after_the_limit(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(loading_s=60)) as agent:
        client = client_for(agent.url, tmp_path, readiness={"timeout_s": 0.3})
        started = time.monotonic()
        with pytest.raises(AgentNotReady, match="loading"):
            client.wait_ready()
        # it waited its limit; giving up while the agent still loads (60 s) shows the limit,
        # not the end of loading, ended the wait
        assert time.monotonic() - started >= 0.25


def test_the_readiness_back_off_stops_growing_at_max_poll_s(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        client = client_for(
            agent.url, tmp_path, readiness={"timeout_s": 3600, "poll_s": 0.01, "max_poll_s": 0.04}
        )
        pauses: list[float] = []

        def sleep(seconds: float) -> None:
            pauses.append(seconds)
            if len(pauses) == 8:
                agent.state.started = time.monotonic() - 7200  # ready from now on
            time.sleep(seconds)

        client.sleep = sleep
        client.wait_ready()
    assert pauses[0] == pytest.approx(0.01)
    assert max(pauses) == pytest.approx(0.04)  # it grew to the cap ...
    assert pauses[-3:] == pytest.approx([0.04, 0.04, 0.04])  # ... and stayed there


def test_the_readiness_back_off_grows_by_half(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        readiness = {"timeout_s": 0.5, "poll_s": 0.04, "max_poll_s": 10}
        with pytest.raises(AgentNotReady):
            clocked(agent.url, tmp_path, clock, readiness=readiness).wait_ready()
    assert clock.sleeps[:3] == pytest.approx([0.04, 0.06, 0.09])


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


def test_waiting_for_readiness_prints_a_heartbeat_with_the_time_left(tmp_path: Path) -> None:
    # a virtual clock: sleeping advances it, so 15 minutes of waiting take a few probes
    now = [0.0]
    lines: list[str] = []
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        readiness = {"timeout_s": 900, "poll_s": 5, "max_poll_s": 30}
        cfg = parse_agent_config(
            agent_yaml(agent.url, readiness=readiness), str(tmp_path / "a.yaml"), tmp_path
        )
        client = AgentClient(
            cfg,
            log=lines.append,
            clock=lambda: now[0],
            sleep=lambda s: now.__setitem__(0, now[0] + s),
        )
        with pytest.raises(AgentNotReady):
            client.wait_ready()
    assert lines[0] == "waiting for the agent to be ready: loading"  # precondition
    beats = [ln for ln in lines if ln.startswith("still waiting")]
    assert len(beats) >= 10, lines  # about one a minute over 15 minutes, not one line only
    assert "left of readiness.timeout_s=900" in beats[0] and "(loading)" in beats[0]
    left = [int(b.split("s so far, ")[1].split("s left")[0]) for b in beats]
    assert left == sorted(left, reverse=True) and left[0] < 900


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


# -- the health check: what one probe reports -----------------------------------------------------


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


def test_a_huge_health_reply_is_not_ready_rather_than_a_crash(tmp_path: Path) -> None:
    # The 32 MiB reply cap fires in the readiness probe too; it must end as "not ready"
    # (exit 3), never let ReplyTooLarge escape wait_ready as an internal error (exit 4).
    from agenttest.agents import MAX_REPLY_BYTES

    huge = b'{"status": "' + b"x" * MAX_REPLY_BYTES + b'"}'
    with RouteServer({"/health": lambda _m, _b: (200, huge)}) as server:
        # the probe's own limit is generous: moving 32 MiB over loopback takes seconds on a
        # loaded machine, and a probe that timed out would hide the cap (found by mutmut's
        # clean run under load)
        readiness = {"timeout_s": 0.2, "probe_timeout_s": 120}
        client = client_for(server.url, tmp_path, readiness=readiness)
        with pytest.raises(AgentNotReady, match="health reply larger than"):
            client.wait_ready()


def test_a_health_reply_labelled_as_a_stream_is_read_whole(tmp_path: Path) -> None:
    # Only a turn is read as a stream. An NDJSON reader would stop at this body's first line
    # ("{" is not JSON), and more than one read's worth (64 KiB) of it would be missing.
    body = json.dumps({"status": "ready", "pad": "p" * 256 * 1024}, indent=1).encode()
    assert body.startswith(b"{\n")  # precondition: the first line alone is not JSON
    reply = raw_reply(body, "application/x-ndjson")
    with LoopbackAgent(Behaviour(raw_health=reply)) as agent:
        assert client_for(agent.url, tmp_path).probe() == "ready"


def test_health_field_and_port_only_readiness(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(loading_s=60)) as agent:
        # "loading" is not ready under the default condition ...
        strict = client_for(agent.url, tmp_path, readiness={"timeout_s": 0.2})
        with pytest.raises(AgentNotReady):
            strict.wait_ready()
        # ... but it is when the config accepts "loading", or only checks the port.
        loose = client_for(agent.url, tmp_path, readiness={"ready": ["ready", "loading"]})
        assert loose.wait_ready() < 0.5
        port_only = client_for(agent.url, tmp_path, readiness={"path": None})
        assert port_only.probe() == "ready"
    assert port_only.probe().startswith("unreachable")


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


# -- a turn: what the agent receives and what comes back ------------------------------------------


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


def test_a_turn_s_latency_is_the_time_the_agent_took(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(on_turn=clock.advance(1.5))) as agent:
        ex = clocked(agent.url, tmp_path, clock, timeouts={"answer_s": 60}).turn("s", "hi", 1)
    assert ex.latency_ms == 1500


# -- a lost turn: each broken reply, timeout or dropped connection with its cause -----------------


@pytest.mark.parametrize(
    ("behaviour", "cause", "status"),
    [
        (Behaviour(garbage_turns={1}), "garbage", 200),
        (Behaviour(error_turns={1}), "http_error", 500),
        (Behaviour(drop_turns={1}), "lost", None),
    ],
)
def test_broken_replies_are_lost_with_their_cause(
    tmp_path: Path, behaviour: Behaviour, cause: str, status: int | None
) -> None:
    with LoopbackAgent(behaviour) as agent:
        client = client_for(agent.url, tmp_path)
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
        assert info.value.cause == cause
        assert info.value.http_status == status
        assert client.turn("s", "again", 2).reply.response.startswith("echo")


def test_a_turn_lost_says_its_message() -> None:
    lost = TurnLost("busy", "the message", 409, 12)
    assert str(lost) == "the message"
    assert (lost.cause, lost.http_status, lost.latency_ms) == ("busy", 409, 12)


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


gzip_garbage = labelled_gzip(b"this is not gzip at all")


def test_an_undecodable_reply_is_garbage_named_by_the_turn(tmp_path: Path) -> None:
    agent = LoopbackAgent(Behaviour(raw_turns={1: gzip_garbage}))
    with agent, pytest.raises(TurnLost) as info:
        client_for(agent.url, tmp_path).turn("s", "hi", 1)
    assert info.value.cause == "garbage"
    assert info.value.message.startswith("turn 1: unreadable reply: ")


def test_a_reply_past_the_cap_is_garbage_that_names_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agenttest.agents._sender.MAX_REPLY_BYTES", 1000)
    with (
        served({"/v1/turn": answer(200, b"x" * 1001)}, tmp_path) as (_server, client),
        pytest.raises(TurnLost) as info,
    ):
        client.turn("s1", "hi", 1)
    assert info.value.cause == "garbage"
    assert info.value.message == "turn 1: reply larger than 1000 bytes once decoded"


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


def test_answer_timeout_then_nothing_is_sent_until_ready(tmp_path: Path) -> None:
    release = threading.Event()
    ended: list[float] = []

    def hold(n: int) -> None:  # the agent keeps turn 1 until the test lets it go
        if n == 1:
            release.wait(EVENTUALLY_S)
            ended.append(time.monotonic())

    with LoopbackAgent(Behaviour(on_turn=hold)) as agent:
        client = client_for(agent.url, tmp_path, timeouts={"answer_s": 0.3})
        try:
            with pytest.raises(TurnLost) as info:
                client.turn("s", "slow", 1)
            assert info.value.cause == "timeout"
            assert not ended  # the answer limit ended the wait: the agent still holds the turn
            polls_before = len(agent.state.requests)
            resetter = threading.Thread(target=client.reset, args=("s2",))
            resetter.start()  # it must first wait for the abandoned turn to finish
            deadline = time.monotonic() + EVENTUALLY_S
            while len(agent.state.requests) < polls_before + 2 and time.monotonic() < deadline:
                time.sleep(0.01)  # two health polls seen while the turn is held
        finally:
            release.set()
        resetter.join(EVENTUALLY_S)
        reset_at = next(t for (m, p, t) in agent.state.requests if p == "/v1/reset")
        assert ended and reset_at >= ended[0]  # nothing was sent while the agent was busy
        assert agent.state.max_work_in_flight == 1


def test_a_timed_out_turn_is_lost_with_the_latency_the_client_saw(tmp_path: Path) -> None:
    clock = Clock()
    behaviour = Behaviour(on_turn=clock.advance(0.25), hang_turns={1}, hang_s=30.0)
    with LoopbackAgent(behaviour) as agent:
        client = clocked(agent.url, tmp_path, clock, timeouts={"answer_s": 0.5})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
    assert info.value.cause == "timeout" and info.value.latency_ms == 250


def test_a_reply_trickling_past_the_answer_limit_times_out(tmp_path: Path) -> None:
    # each byte comes within any read timeout, but the whole body takes ~50 s
    with LoopbackAgent(Behaviour(trickle_turns={1}, trickle_byte_s=1.0)) as agent:
        client = client_for(agent.url, tmp_path, timeouts={"answer_s": 0.5})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
        gave_up = time.monotonic()
        assert info.value.cause == "timeout"
        sent_at = next(t for (m, p, t) in agent.state.requests if p == "/v1/turn")
        assert gave_up - sent_at < 40  # the answer limit ended it long before the body could


# -- an unreachable agent: the connect limit ------------------------------------------------------


def test_unreachable_agent_is_lost_as_unreachable(tmp_path: Path) -> None:
    client = client_for(f"http://127.0.0.1:{free_port()}", tmp_path)
    with pytest.raises(TurnLost) as info:
        client.turn("s", "hi", 1)
    assert info.value.cause == "unreachable"


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


# -- a busy agent: Retry-After honoured, capped and added up --------------------------------------


def test_busy_replies_are_waited_out_honouring_retry_after(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(busy_first=3, retry_after="0.15")) as agent:
        client = client_for(agent.url, tmp_path)
        exchange = client.turn("s", "hi", 1)
        assert exchange.http_status == 200
        assert client.waits.busy_replies == 3
        times = [t for (_m, path, t) in agent.state.requests if path == "/v1/turn"]
        assert len(times) == 4
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert min(gaps) >= 0.14  # Retry-After honoured, not hammered
        assert agent.state.max_in_flight == 1


def test_retry_after_is_capped(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(busy_first=2, retry_after="3600")) as agent:
        client = client_for(agent.url, tmp_path)  # retry_after_cap_s 0.2
        client.turn("s", "hi", 1)
        times = [t for (_m, path, t) in agent.state.requests if path == "/v1/turn"]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        # capped: two waits of 0.2 s; honoured as sent, each gap would be an hour (and the
        # test would hang, which a mutation tool counts as killed)
        assert len(gaps) == 2 and max(gaps) < 600


def test_busy_forever_is_lost_to_busy(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(busy_always=True, busy_status=503, retry_after=None)) as agent:
        client = client_for(agent.url, tmp_path, timeouts={"busy_s": 0.6})
        with pytest.raises(TurnLost) as info:
            client.turn("s", "hi", 1)
        assert info.value.cause == "busy" and info.value.http_status == 503
        assert client.waits.busy_replies >= 2


def test_busy_waits_follow_retry_after_and_add_up(tmp_path: Path) -> None:
    clock = Clock()
    with LoopbackAgent(Behaviour(busy_first=2, retry_after="0.25")) as agent:
        client = clocked(agent.url, tmp_path, clock, timeouts={"retry_after_cap_s": 10})
        client.waits.busy_ms = 1000  # waited earlier in this attempt
        assert client.turn("s", "hi", 1).http_status == 200
    assert clock.sleeps == [0.25, 0.25]
    assert client.waits.busy_ms == 1500 and client.waits.busy_replies == 2
    waits = client.waits
    assert (waits.ready_ms, waits.busy_ms, waits.busy_replies) == (0, 1500, 2)
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


def test_retry_after_parsing() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after_s("7") == 7.0
    assert retry_after_s(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30.0
    assert retry_after_s("soon") is None
    assert retry_after_s(None) is None
    assert retry_after_s("-3") == 0.0


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


# -- one request at a time ------------------------------------------------------------------------


def test_a_second_concurrent_request_is_refused(tmp_path: Path) -> None:
    arrived, release = threading.Event(), threading.Event()

    def hold(_n: int) -> None:  # the first turn stays in flight until the second was refused
        arrived.set()
        release.wait(EVENTUALLY_S)

    with LoopbackAgent(Behaviour(on_turn=hold)) as agent:
        client = client_for(agent.url, tmp_path)
        first = threading.Thread(target=client.turn, args=("s", "one", 1))
        first.start()
        try:
            assert arrived.wait(EVENTUALLY_S)
            with pytest.raises(OverlapError):
                client.turn("s", "two", 2)
        finally:
            release.set()
        first.join(EVENTUALLY_S)
        assert agent.state.turns == 1
        assert agent.state.max_work_in_flight == 1


def test_a_request_while_one_is_in_flight_is_refused_at_once(tmp_path: Path) -> None:
    with served({}, tmp_path) as (server, client):
        assert client._sender._in_flight.acquire(blocking=False)  # a request is in flight
        with pytest.raises(OverlapError) as info:
            client.probe()
    assert str(info.value) == "a second request while one is in flight"
    assert server.state.requests == []


# -- reset(): a fresh session ---------------------------------------------------------------------


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


# -- seed_memory(): a memory_seed fixture ---------------------------------------------------------


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


# -- stored(): the agent's own copy of a reply ----------------------------------------------------


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


def test_a_store_path_renders_the_turn(tmp_path: Path) -> None:
    store = {"path": "/s/{{ session_id }}/{{ turn }}", "text": "text"}
    with served({"/s/s1/4": answer(200, {"text": "four"})}, tmp_path, store=store) as (
        _server,
        client,
    ):
        assert client.stored("s1", 4) == "four"


# -- secrets --------------------------------------------------------------------------------------


def test_the_configured_secrets_never_reach_a_message(tmp_path: Path) -> None:
    routes = {"/v1/reset": answer(500, b"bad token s3cret-value")}
    extra: dict[str, Any] = {"headers": {"authorization": "s3cret-value"}}
    with served(routes, tmp_path, **extra) as (_server, client), pytest.raises(TurnLost) as info:
        client.reset("s1")
    assert "s3cret-value" not in info.value.message and "bad token" in info.value.message
