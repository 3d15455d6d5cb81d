"""The example agent's HTTP protocol (SPEC section 5) and its fault knobs, over real HTTP."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agenttest.example_agent import CRASH_EXIT_CODE, AgentServer, Faults, serve

from ._patience import EVENTUALLY_S

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def server(tmp_path: Path) -> Iterator[AgentServer]:
    with serve(workspace=tmp_path).start() as srv:
        yield srv


def post(url: str, path: str, body: dict[str, Any], timeout: float = 30) -> httpx.Response:
    return httpx.post(url + path, json=body, timeout=timeout)


def turn(url: str, message: str, session: str = "s1", timeout: float = 30) -> httpx.Response:
    return post(url, "/v1/turn", {"session_id": session, "message": message}, timeout)


def health(url: str) -> str:
    return str(httpx.get(url + "/health", timeout=5).json()["status"])


def wait_for(predicate: Any, timeout: float = EVENTUALLY_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


# --------------------------------------------------------------------------- conformance


def test_binds_loopback_by_default_and_reports_ready(server: AgentServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    reply = httpx.get(server.url + "/health", timeout=5)
    assert reply.status_code == 200
    assert reply.json() == {"status": "ready"}


def test_turn_has_the_protocol_shape(server: AgentServer) -> None:
    reply = turn(server.url, "what is 1847 times 293?")
    assert reply.status_code == 200
    body = reply.json()
    assert set(body) == {"response", "tool_calls", "trace"}
    assert isinstance(body["response"], str) and isinstance(body["trace"], str)
    (call,) = body["tool_calls"]
    assert set(call) == {"name", "arguments", "ok", "result"}
    assert call["name"] == "calculator" and call["ok"] is True
    assert "541171" in body["response"]
    assert body["trace"].splitlines()[0] == "ROUTE calc"


def test_reset_forgets_the_session_only(server: AgentServer) -> None:
    assert turn(server.url, "my name is Deniz", "a").status_code == 200
    assert turn(server.url, "my name is Ayla", "b").status_code == 200
    assert "Deniz" in turn(server.url, "what is my name?", "a").json()["response"]
    reset = post(server.url, "/v1/reset", {"session_id": "a"})
    assert reset.status_code == 200
    assert reset.json()["forgotten"] is True
    after = turn(server.url, "what is my name?", "a").json()["response"]
    assert "Deniz" not in after
    assert "Ayla" in turn(server.url, "what is my name?", "b").json()["response"]


def test_reset_with_memory_also_clears_persistent_memory(server: AgentServer) -> None:
    assert turn(server.url, "remember that my locker code is 4711", "a").status_code == 200
    memory_file = server.workspace / ".agent" / "memory.json"
    assert "4711" in memory_file.read_text(encoding="utf-8")
    plain = post(server.url, "/v1/reset", {"session_id": "a", "memory": False}).json()
    assert "memory_cleared" not in plain
    assert "4711" in turn(server.url, "what do you remember?", "b").json()["response"]
    reset = post(server.url, "/v1/reset", {"session_id": "b", "memory": True})
    assert reset.status_code == 200
    assert reset.json() == {"status": "ok", "session_id": "b", "forgotten": True,
                            "memory_cleared": 1}  # fmt: skip
    assert "4711" not in memory_file.read_text(encoding="utf-8")
    assert "4711" not in turn(server.url, "what do you remember?", "c").json()["response"]


def test_reset_with_memory_replaces_an_unreadable_memory_file(server: AgentServer) -> None:
    (server.workspace / ".agent").mkdir()
    (server.workspace / ".agent" / "memory.json").write_text("{not json", encoding="utf-8")
    reset = post(server.url, "/v1/reset", {"session_id": "x", "memory": True})
    assert reset.status_code == 200 and reset.json()["memory_cleared"] == 0
    assert "memory is empty" in turn(server.url, "what do you remember?", "x").json()["response"]


def test_reset_memory_flag_must_be_a_boolean(server: AgentServer) -> None:
    assert post(server.url, "/v1/reset", {"session_id": "a", "memory": "yes"}).status_code == 400


def test_answers_are_not_delayed_by_nagle(server: AgentServer) -> None:
    """Headers and body go out together with TCP_NODELAY: no ~40 ms delayed-ACK stall."""
    with httpx.Client(timeout=5) as client:  # one keep-alive connection, as the runner uses
        client.get(server.url + "/health")
        times = []
        for _ in range(15):
            start = time.perf_counter()
            assert client.get(server.url + "/health").status_code == 200
            times.append(time.perf_counter() - start)
    # The stall is the client's delayed-ACK timer, at least 40 ms on Linux, on every request:
    # a median below 35 ms cannot have it, and leaves a loaded machine room (20 ms did not).
    assert sorted(times)[len(times) // 2] < 0.035, times


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/turn", {"message": "hi"}, 400),
        ("/v1/turn", {"session_id": "s"}, 400),
        ("/v1/turn", {"session_id": "", "message": "hi"}, 400),
        ("/v1/reset", {}, 400),
        ("/v1/nothing", {"session_id": "s"}, 404),
    ],
)
def test_bad_requests_are_refused(
    server: AgentServer, path: str, body: dict[str, Any], status: int
) -> None:
    reply = post(server.url, path, body)
    assert reply.status_code == status
    assert "error" in reply.json()


def test_non_json_body_is_a_400(server: AgentServer) -> None:
    reply = httpx.post(server.url + "/v1/turn", content=b"{not json", timeout=5)
    assert reply.status_code == 400


def test_overlapping_turn_gets_409_with_retry_after(tmp_path: Path) -> None:
    # Only one turn is ever in flight, so "busy" seen before the second turn and again after
    # the reset means both arrived while the first turn ran. On a machine too loaded for that
    # to hold, the same check runs again with a longer first turn, never a weaker assertion.
    for latency_s in (1.0, 4.0, 16.0):
        with serve(workspace=tmp_path, faults=Faults(latency_s=latency_s)).start() as srv:
            first: list[httpx.Response] = []
            worker = threading.Thread(target=lambda out=first: out.append(turn(srv.url, "hello")))
            worker.start()
            assert wait_for(lambda: health(srv.url) == "busy"), "the first turn never started"
            second = turn(srv.url, "what time is it?", session="other")
            reset = post(srv.url, "/v1/reset", {"session_id": "s1"})
            overlapped = health(srv.url) == "busy"
            worker.join(EVENTUALLY_S)
            if not overlapped:
                continue
            assert second.status_code == 409
            assert int(second.headers["Retry-After"]) >= 1
            assert reset.status_code == 409
            assert first and first[0].status_code == 200
            assert health(srv.url) == "ready"
            return
    pytest.fail("the first turn never outlasted the second turn and the reset")


# --------------------------------------------------------------------------- faults


def test_loading_period(tmp_path: Path) -> None:
    # an hour of loading, which the test then ends by moving the start back: the checks
    # while loading cannot come too late on a busy machine
    with serve(workspace=tmp_path, faults=Faults(loading_s=3600.0)).start() as srv:
        assert health(srv.url) == "loading"
        early = turn(srv.url, "hi")
        assert early.status_code == 503
        assert int(early.headers["Retry-After"]) >= 1
        srv.started -= 7200
        assert wait_for(lambda: health(srv.url) == "ready")
        assert turn(srv.url, "hi").status_code == 200


def test_busy_probability_one_always_busy_zero_never(tmp_path: Path) -> None:
    with serve(workspace=tmp_path, faults=Faults(busy_probability=1.0, seed=3)).start() as srv:
        replies = [turn(srv.url, "hi") for _ in range(3)]
        assert [r.status_code for r in replies] == [503, 503, 503]
        assert all(r.headers.get("Retry-After") for r in replies)
    with serve(workspace=tmp_path, faults=Faults(busy_probability=0.0)).start() as srv:
        assert [turn(srv.url, "hi").status_code for _ in range(3)] == [200, 200, 200]


def test_busy_probability_is_reproducible_with_a_seed(tmp_path: Path) -> None:
    runs = []
    for _ in range(2):
        with serve(workspace=tmp_path, faults=Faults(busy_probability=0.5, seed=7)).start() as srv:
            runs.append([turn(srv.url, "hi").status_code for _ in range(12)])
    assert runs[0] == runs[1]
    assert set(runs[0]) == {200, 503}


def test_garbage_reply_is_not_json_but_the_turn_ran(tmp_path: Path) -> None:
    with serve(workspace=tmp_path, faults=Faults(garbage_probability=1.0)).start() as srv:
        reply = turn(srv.url, "create a file g.txt with the content 'made'")
        assert reply.status_code == 200
        with pytest.raises(ValueError):
            json.loads(reply.content)
    assert (tmp_path / "g.txt").read_text() == "made"


def test_latency_is_added_per_turn(tmp_path: Path) -> None:
    with serve(workspace=tmp_path, faults=Faults(latency_s=0.4)).start() as srv:
        start = time.monotonic()
        assert turn(srv.url, "hi").status_code == 200
        assert time.monotonic() - start >= 0.4


def test_hang_after_n_turns(tmp_path: Path) -> None:
    srv = serve(workspace=tmp_path, faults=Faults(hang_after=1)).start()
    try:
        assert turn(srv.url, "hi").status_code == 200
        with pytest.raises(httpx.ReadTimeout):
            turn(srv.url, "hi again", timeout=1.0)
        assert health(srv.url) == "busy"
    finally:
        stopper = threading.Thread(target=srv.stop)
        stopper.start()
        stopper.join(EVENTUALLY_S)
        assert not stopper.is_alive(), "stop waited for the hung turn"


def _start_main(workspace: Path | None, **options: Any) -> tuple[subprocess.Popen[str], str]:
    args = ", ".join(f"{k}={v!r}" for k, v in options.items())
    ws = repr(str(workspace)) if workspace else "None"
    code = (
        "from pathlib import Path\n"
        "from agenttest.example_agent import main\n"
        f"main('127.0.0.1', 0, None if {ws} is None else Path({ws}), 'rules', {args})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    return proc, first


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_main_prints_url_first_and_stops_on_sigterm(sig: int) -> None:
    proc, url = _start_main(None)
    try:
        assert url.startswith("http://127.0.0.1:"), url
        assert health(url) == "ready"
        reply = turn(url, "create a file probe.txt with the content 'x'")
        assert reply.json()["tool_calls"][0]["ok"] is True
        proc.send_signal(sig)
        assert proc.wait(timeout=EVENTUALLY_S) == 0
        assert proc.stderr is not None
        err = proc.stderr.read()
        workspace = Path(err.split("workspace=", 1)[1].split()[0])
        assert not workspace.exists(), "the temporary workspace was left behind"
    finally:
        if proc.poll() is None:
            proc.kill()


def test_crash_after_n_turns(tmp_path: Path) -> None:
    proc, url = _start_main(tmp_path, crash_after=2)
    try:
        assert turn(url, "hi").status_code == 200
        assert turn(url, "what is 2 plus 2?").status_code == 200  # the 2nd answer arrives
        assert proc.wait(timeout=EVENTUALLY_S) == CRASH_EXIT_CODE
        with pytest.raises(httpx.ConnectError):
            httpx.get(url + "/health", timeout=2)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_fault_values_are_validated() -> None:
    with pytest.raises(ValueError):
        Faults(busy_probability=1.5)
    with pytest.raises(ValueError):
        Faults(latency_s=-1)


# --------------------------------------------------------------------------- request bodies


CHAT = "/v1/chat/completions"
USER_HI = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("path", "body", "status", "error"),
    [
        ("/v1/turn", [1], 400, "body must be a JSON object"),
        ("/v1/turn", "hi", 400, "body must be a JSON object"),
        ("/v1/turn", None, 400, "body must be a JSON object"),
        ("/v1/turn", {"message": "hi"}, 400, "session_id must be a non-empty string"),
        ("/v1/turn", {"session_id": 5, "message": "hi"}, 400, "session_id must be a non-empty string"),
        ("/v1/turn", {"message": 5, "session_id": ""}, 400, "session_id must be a non-empty string"),
        ("/v1/turn", {"session_id": "s"}, 400, "message must be a string"),
        ("/v1/turn", {"session_id": "s", "message": None}, 400, "message must be a string"),
        ("/v1/turn", {"session_id": "s", "message": ["hi"]}, 400, "message must be a string"),
        ("/v1/reset", {"memory": True}, 400, "session_id must be a non-empty string"),
        ("/v1/reset", {"session_id": "s", "memory": 1}, 400, "memory must be true or false"),
        ("/v1/reset", {"session_id": "s", "memory": None}, 400, "memory must be true or false"),
        ("/v1/memory/seed", {"items": ["a"]}, 400, "session_id must be a non-empty string"),
        ("/v1/memory/seed", {"session_id": "s"}, 400, "items must be a list of non-empty strings"),
        ("/v1/memory/seed", {"session_id": "s", "items": "a"}, 400,
         "items must be a list of non-empty strings"),
        ("/v1/memory/seed", {"session_id": "s", "items": ["a", ""]}, 400,
         "items must be a list of non-empty strings"),
        ("/v1/memory/seed", {"session_id": "s", "items": ["a", 3]}, 400,
         "items must be a list of non-empty strings"),
        (CHAT, [1], 400, "body must be a JSON object"),
        (CHAT, {}, 400, "messages must be a non-empty list"),
        (CHAT, {"messages": []}, 400, "messages must be a non-empty list"),
        (CHAT, {"messages": "hi"}, 400, "messages must be a non-empty list"),
        (CHAT, {"messages": ["hi"]}, 400, "the last message must be the user's"),
        (CHAT, {"messages": [{"content": "hi"}]}, 400, "the last message must be the user's"),
        (CHAT, {"messages": [{"content": 5, "role": "system"}]}, 400,
         "the last message must be the user's"),
        (CHAT, {"messages": [*USER_HI, {"role": "assistant", "content": "x"}]}, 400,
         "the last message must be the user's"),
        (CHAT, {"messages": [{"role": "user", "content": None}]}, 400,
         "the user message's content must be a string"),
        (CHAT, {"messages": [{"role": "user"}]}, 400,
         "the user message's content must be a string"),
        (CHAT, {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
         400, "the user message's content must be a string"),
    ],
)  # fmt: skip
def test_a_request_body_that_does_not_fit_is_a_400_that_says_why(
    server: AgentServer, path: str, body: Any, status: int, error: str
) -> None:
    reply = httpx.post(server.url + path, content=json.dumps(body).encode(), timeout=30)
    assert (reply.status_code, reply.json()) == (status, {"error": error})


def test_a_request_body_may_say_more_than_is_read(server: AgentServer) -> None:
    extra = {"session_id": "s", "message": "hi", "turn": 1, "stream": "yes", "meta": {"a": 1}}
    reply = post(server.url, "/v1/turn", extra)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("application/json")
    assert set(reply.json()) >= {"response", "tool_calls", "trace"}
    reset = post(server.url, "/v1/reset", {"session_id": "s", "why": "new attempt"})
    assert reset.json() == {"status": "ok", "session_id": "s", "forgotten": True}
    seeded = post(server.url, "/v1/memory/seed", {"session_id": "s", "items": ["a note"], "x": 1})
    assert seeded.json() == {"status": "ok", "seeded": 1, "items": 1}


def test_a_turn_streams_when_its_body_says_stream_true(server: AgentServer) -> None:
    asked = post(server.url, "/v1/turn", {"session_id": "s", "message": "hi", "stream": True})
    assert asked.headers["content-type"].startswith("text/event-stream")
    assert b'"type": "final"' in asked.content


@pytest.mark.parametrize(
    ("extra", "session", "model"),
    [
        ({"user": "u1", "model": "m-1"}, "u1", "m-1"),
        ({"user": "", "model": ""}, "openai-default", "example-agent"),
        ({"user": 5, "model": 5}, "openai-default", "5"),
        ({}, "openai-default", "example-agent"),
    ],
)
def test_a_chat_completion_request_is_a_turn_of_its_user(
    server: AgentServer, extra: dict[str, Any], session: str, model: str
) -> None:
    messages = [{"role": "system", "content": 5}, *USER_HI]
    reply = post(server.url, CHAT, {"messages": messages, "temperature": 0, **extra})
    assert reply.status_code == 200
    assert reply.json()["model"] == model and reply.json()["object"] == "chat.completion"
    kept = httpx.get(f"{server.url}/v1/sessions/{session}/messages", timeout=30).json()
    assert kept["messages"][0] == {"role": "user", "content": "hi"}


def test_a_chat_completion_request_streams_when_it_says_stream_true(server: AgentServer) -> None:
    body = {"messages": USER_HI, "stream": True, "model": "m-1"}
    reply = post(server.url, CHAT, body)
    assert reply.headers["content-type"].startswith("text/event-stream")
    assert b'"object": "chat.completion.chunk", "model": "m-1"' in reply.content
    assert reply.content.endswith(b"data: [DONE]\n\n")
