"""The agent client against real loopback servers: readiness, busy, timeouts, broken replies."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from agenttest.runner import (
    AgentClient,
    AgentNotReady,
    OverlapError,
    TurnLost,
    parse_agent_config,
    retry_after_s,
)

from ._patience import EVENTUALLY_S
from ._servers import Behaviour, LoopbackAgent, RouteServer, agent_yaml, free_port


def client_for(url: str, tmp_path: Path, **extra: object) -> AgentClient:
    cfg = parse_agent_config(agent_yaml(url, **extra), str(tmp_path / "agent.yaml"), tmp_path)
    return AgentClient(cfg)


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


def test_unreachable_agent_is_lost_as_unreachable(tmp_path: Path) -> None:
    client = client_for(f"http://127.0.0.1:{free_port()}", tmp_path)
    with pytest.raises(TurnLost) as info:
        client.turn("s", "hi", 1)
    assert info.value.cause == "unreachable"


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


def test_retry_after_parsing() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after_s("7") == 7.0
    assert retry_after_s(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30.0
    assert retry_after_s("soon") is None
    assert retry_after_s(None) is None
    assert retry_after_s("-3") == 0.0


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


def test_a_huge_health_reply_is_not_ready_rather_than_a_crash(tmp_path: Path) -> None:
    # The 32 MiB reply cap fires in the readiness probe too; it must end as "not ready"
    # (exit 3), never let ReplyTooLarge escape wait_ready as an internal error (exit 4).
    from agenttest.runner._client import MAX_REPLY_BYTES

    huge = b'{"status": "' + b"x" * MAX_REPLY_BYTES + b'"}'
    with RouteServer({"/health": lambda _m, _b: (200, huge)}) as server:
        # the probe's own limit is generous: moving 32 MiB over loopback takes seconds on a
        # loaded machine, and a probe that timed out would hide the cap (found by mutmut's
        # clean run under load)
        readiness = {"timeout_s": 0.2, "probe_timeout_s": 120}
        client = client_for(server.url, tmp_path, readiness=readiness)
        with pytest.raises(AgentNotReady, match="health reply larger than"):
            client.wait_ready()
