"""The ``openai`` brain against a loopback chat-completions server whose replies are scripted.

The fake model is real HTTP on 127.0.0.1: it records every request and answers from a
script, so a test can check the loop (tool call -> execution -> tool result -> next request)
and that the tools really ran in the workspace.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from agenttest.example_agent import AgentServer, serve

from ._patience import EVENTUALLY_S
from ._servers import free_port


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip


def assistant(content: str | None = None, calls: list[dict[str, Any]] | None = None) -> Any:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }  # fmt: skip


class FakeModel(ThreadingHTTPServer):
    """Answers POST /v1/chat/completions from ``script`` (status, body) in order."""

    daemon_threads = True

    def __init__(self, script: list[tuple[int, Any]]) -> None:
        super().__init__(("127.0.0.1", 0), _FakeHandler)
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.models_status = 200  # what GET /v1/models answers (the agent's readiness)
        self.hold: threading.Event | None = None  # the second request waits for it
        self.thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _FakeHandler(BaseHTTPRequestHandler):
    server: FakeModel

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        status = self.server.models_status if self.path == "/v1/models" else 404
        data = json.dumps({"data": [{"id": "scripted-model"}]} if status == 200 else {}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        self.server.headers_seen.append(dict(self.headers))
        if self.server.hold is not None and len(self.server.requests) == 2:
            self.server.hold.wait(EVENTUALLY_S)
        if self.path != "/v1/chat/completions":
            status, reply = 404, {"error": "wrong path"}
        elif self.server.script:
            status, reply = self.server.script.pop(0)
        else:
            status, reply = 500, {"error": "script exhausted"}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 429:
            self.send_header("Retry-After", "7")
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def fake_model() -> Iterator[Any]:
    models: list[FakeModel] = []

    def start(script: list[tuple[int, Any]]) -> FakeModel:
        model = FakeModel(script)
        model.thread.start()
        models.append(model)
        return model

    yield start
    for model in models:
        model.shutdown()
        model.server_close()


def agent_for(model: FakeModel, workspace: Path, **extra: Any) -> AgentServer:
    options = {"openai_base_url": model.base_url, "openai_model": "scripted-model",
               "openai_api_key_env": "EXAMPLE_AGENT_TEST_KEY", "openai_seed": 42, **extra}  # fmt: skip
    return serve(workspace=workspace, brain="openai", brain_options=options).start()


def ask(srv: AgentServer, message: str, session: str = "s") -> httpx.Response:
    return httpx.post(srv.url + "/v1/turn", json={"session_id": session, "message": message},
                      timeout=30)  # fmt: skip


def test_multi_step_tool_calling_turn(
    fake_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXAMPLE_AGENT_TEST_KEY", "sk-test-123")
    model = fake_model([
        (200, assistant(calls=[tool_call("c1", "file_write",
                                         {"path": "plan.txt", "content": "step one"})])),
        (200, assistant(calls=[tool_call("c2", "calculator", {"expression": "1847*293"}),
                               tool_call("c3", "file_read", {"path": "plan.txt"})])),
        (200, assistant("Wrote plan.txt; 1847*293 is 541171.")),
    ])  # fmt: skip
    with agent_for(model, tmp_path) as srv:
        reply = ask(srv, "write a plan, then compute 1847*293 and read the plan back")
    assert reply.status_code == 200, reply.text
    body = reply.json()
    # the tools really ran, in order, in the workspace
    assert [c["name"] for c in body["tool_calls"]] == ["file_write", "calculator", "file_read"]
    assert all(c["ok"] for c in body["tool_calls"])
    assert (tmp_path / "plan.txt").read_text() == "step one"
    assert body["tool_calls"][1]["result"] == "1847*293 = 541171"
    assert body["tool_calls"][2]["result"] == "step one"
    assert body["response"] == "Wrote plan.txt; 1847*293 is 541171."
    lines = body["trace"].splitlines()
    assert lines[0] == "ROUTE file"
    assert [ln.split()[1] for ln in lines if ln.startswith("CALL ")] == [
        "file_write", "calculator", "file_read"]  # fmt: skip
    assert body["usage"] == {"prompt_tokens": 30, "completion_tokens": 15, "requests": 3}
    # the loop sent the results back to the model
    assert len(model.requests) == 3
    first, second, third = model.requests
    assert first["temperature"] == 0 and first["seed"] == 42 and first["model"] == "scripted-model"
    assert {t["function"]["name"] for t in first["tools"]} >= {"calculator", "file_write", "shell"}
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    # the tool-calling reply is sent back with string content (llama.cpp refuses null)
    echoed = [m for m in second["messages"] if m["role"] == "assistant"]
    assert echoed[0]["content"] == "" and echoed[0]["tool_calls"][0]["id"] == "c1"
    tool_msgs = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_msgs == [{"role": "tool", "tool_call_id": "c1",
                          "content": "created plan.txt (8 bytes)"}]  # fmt: skip
    results = {m["tool_call_id"]: m["content"] for m in third["messages"] if m["role"] == "tool"}
    assert results["c2"] == "1847*293 = 541171" and results["c3"] == "step one"
    assert model.headers_seen[0]["Authorization"] == "Bearer sk-test-123"


def test_history_is_kept_per_session_and_reset_forgets_it(fake_model: Any, tmp_path: Path) -> None:
    model = fake_model([(200, assistant("one")), (200, assistant("two")),
                        (200, assistant("three"))])  # fmt: skip
    with agent_for(model, tmp_path) as srv:
        assert ask(srv, "first").json()["response"] == "one"
        assert ask(srv, "second").json()["response"] == "two"
        assert httpx.post(srv.url + "/v1/reset", json={"session_id": "s"}).status_code == 200
        assert ask(srv, "third").json()["response"] == "three"
    contents = [[m["content"] for m in r["messages"][1:]] for r in model.requests]
    assert contents[1] == ["first", "one", "second"]
    assert contents[2] == ["third"]


def test_confirmation_tools_wait_for_the_user(fake_model: Any, tmp_path: Path) -> None:
    model = fake_model([
        (200, assistant(calls=[tool_call("m1", "message",
                                         {"recipient": "Ali", "text": "running late"})])),
        (200, assistant("Shall I send it? Please confirm.")),
    ])  # fmt: skip
    outbox = tmp_path / ".agent" / "outbox.jsonl"
    with agent_for(model, tmp_path) as srv:
        asked = ask(srv, "tell Ali I'm running late").json()
        assert asked["tool_calls"] == [] and "CONFIRM message" in asked["trace"]
        tool_msg = next(m for m in model.requests[1]["messages"] if m["role"] == "tool")
        assert tool_msg["content"].startswith("CONFIRMATION REQUIRED")
        assert not outbox.exists()
        done = ask(srv, "yes").json()
    assert [c["name"] for c in done["tool_calls"]] == ["message"]
    assert "running late" in outbox.read_text()
    assert len(model.requests) == 2  # the confirmation was handled without the model


def test_guards_hold_against_the_model(fake_model: Any, tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    model = fake_model([
        (200, assistant(calls=[tool_call("x1", "file_write",
                                         {"path": "../escaped.txt", "content": "x"}),
                               tool_call("x2", "shell", {"command": "rm -rf /"})])),
        (200, assistant("I could not do that.")),
    ])  # fmt: skip
    with agent_for(model, tmp_path / "ws") as srv:
        body = ask(srv, "do something bad").json()
    assert [c["ok"] for c in body["tool_calls"]] == [False, False]
    assert "BLOCKED file_write" in body["trace"] and "BLOCKED shell" in body["trace"]
    assert not (tmp_path / "escaped.txt").exists()


def test_step_cap(fake_model: Any, tmp_path: Path) -> None:
    loop = [(200, assistant(calls=[tool_call(f"k{i}", "clock", {})])) for i in range(10)]
    model = fake_model(loop)
    with agent_for(model, tmp_path, openai_max_steps=3) as srv:
        body = ask(srv, "loop forever").json()
    assert len(model.requests) == 3
    assert [c["name"] for c in body["tool_calls"]] == ["clock"] * 3
    assert "stopped after 3" in body["response"]


def test_endpoint_busy_and_unreachable(fake_model: Any, tmp_path: Path) -> None:
    model = fake_model([(429, {"error": "rate limited"})])
    with agent_for(model, tmp_path) as srv:
        busy = ask(srv, "hi")
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "7"
    with serve(workspace=tmp_path, brain="openai", brain_options={
        "openai_base_url": "http://127.0.0.1:9/v1", "openai_model": "m"}).start() as srv:  # fmt: skip
        gone = ask(srv, "hi")
    assert gone.status_code == 502 and "unreachable" in gone.json()["error"]


def test_the_agent_is_ready_only_while_its_model_answers(fake_model: Any, tmp_path: Path) -> None:
    # issue 30: a dead model server must not look like a ready agent (every attempt ERROR)
    nobody = f"http://127.0.0.1:{free_port()}/v1"
    options = {"openai_base_url": nobody, "openai_model": "m"}
    with serve(workspace=tmp_path, brain="openai", brain_options=options).start() as srv:
        dead = httpx.get(srv.url + "/health", timeout=EVENTUALLY_S).json()["status"]
    assert dead.startswith(f"waiting: model server {nobody} ") and "refused" in dead, dead
    model = fake_model([])
    with agent_for(model, tmp_path) as srv:
        model.models_status = 500
        failing = httpx.get(srv.url + "/health", timeout=EVENTUALLY_S).json()["status"]
        model.models_status = 200
        answering = httpx.get(srv.url + "/health", timeout=EVENTUALLY_S).json()["status"]
    assert failing.startswith(f"waiting: model server {model.base_url} ") and "500" in failing
    assert answering == "ready"


def test_read_only_calls_of_one_reply_run_in_parallel(fake_model: Any, tmp_path: Path) -> None:
    model = fake_model([
        (200, assistant(calls=[tool_call("a", "telemetry", {}), tool_call("b", "clock", {})])),
        (200, assistant(calls=[tool_call("c", "file_write", {"path": "t.txt", "content": "x"}),
                               tool_call("d", "clock", {})])),
        (200, assistant("Done.")),
    ])  # fmt: skip
    with agent_for(model, tmp_path) as srv:
        body = ask(srv, "cpu and time together, then note it").json()
    lines = body["trace"].splitlines()
    assert lines[:2] == ["ROUTE system", "PARALLEL 2 telemetry clock"]
    assert lines[2:4] == ["CALL telemetry {}", "CALL clock {}"]
    assert "SEQUENTIAL 2 file_write clock: file_write is not read-only" in lines
    assert [c["name"] for c in body["tool_calls"]] == ["telemetry", "clock", "file_write", "clock"]
    results = {m["tool_call_id"]: m["content"] for m in model.requests[1]["messages"]
               if m["role"] == "tool"}  # fmt: skip
    assert results["a"].startswith("live:") and results["b"][:2].isalpha()


# -- what the model may send back, and what the brain cannot read ----------------------------------


def test_a_sloppy_model_reply_is_read(fake_model: Any, tmp_path: Path) -> None:
    sloppy: list[dict[str, Any]] = [
        {"function": {"name": "clock", "arguments": None}},  # no id, no arguments
        {"id": "b", "function": {"name": "calculator", "arguments": {"expression": "2*3"}}},
        {"id": "c", "function": {"name": "calculator", "arguments": "2*3"}},  # not JSON
        {"id": "d", "function": {"name": "calculator", "arguments": "[1]"}},  # not an object
        {"id": "e", "type": "function", "extra": 1},  # no function: no tool of that name
        {"id": "f", "function": {"name": None}},
    ]
    reply = assistant(None, sloppy)
    reply["choices"][0]["message"]["refusal"] = None
    reply["usage"] = {"prompt_tokens": "3", "completion_tokens": 2}
    model = fake_model([(200, reply), (200, assistant(None))])
    with agent_for(model, tmp_path) as srv:
        answer = ask(srv, "what time is it")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["response"] == ""
    assert body["usage"] == {"prompt_tokens": 10, "completion_tokens": 7, "requests": 2}
    assert [(c["name"], c["arguments"], c["ok"]) for c in body["tool_calls"]] == [
        ("clock", {}, True),
        ("calculator", {"expression": "2*3"}, True),
        ("calculator", {"_raw": "2*3"}, False),
        ("calculator", {"_raw": "[1]"}, False),
        ("", {}, False),
        ("None", {}, False),
    ]
    assert "RESULT calculator error arguments are not a JSON object" in body["trace"]
    echoed, *results = [m for m in model.requests[1]["messages"] if m["role"] != "system"][1:]
    assert echoed == {"role": "assistant", "content": "", "tool_calls": sloppy}
    assert [m["tool_call_id"] for m in results] == ["", "b", "c", "d", "e", "f"]
    assert results[2]["content"].startswith("error: the arguments were not a JSON object")


@pytest.mark.parametrize(
    "reply",
    [{}, {"choices": []}, {"choices": [{}]}, {"choices": ["x"]}, {"choices": "abc"}, [1], "x"],
)
def test_a_reply_that_is_no_chat_completion_is_a_502(
    fake_model: Any, tmp_path: Path, reply: Any
) -> None:
    with agent_for(fake_model([(200, reply)]), tmp_path) as srv:
        answer = ask(srv, "hi")
    assert answer.status_code == 502
    assert answer.json() == {
        "error": f"model endpoint sent no chat completion: {json.dumps(reply)[:300]}"
    }


@pytest.mark.parametrize(
    "message",
    [
        "x",
        5,
        None,
        [1],
        # these once failed inside the brain (an internal error, 500) or, for content that
        # is not text, answered the turn with a response that is not text
        {"content": None, "tool_calls": "clock"},
        {"content": None, "tool_calls": ["clock"]},
        {"content": None, "tool_calls": [{"id": "a", "function": "clock"}]},
        {"content": [{"type": "text", "text": "hi"}]},
        {"content": 5},
    ],
)
def test_a_malformed_message_is_a_502(fake_model: Any, tmp_path: Path, message: Any) -> None:
    reply = {"choices": [{"message": message}]}
    with agent_for(fake_model([(200, reply)]), tmp_path) as srv:
        answer = ask(srv, "hi")
    assert answer.status_code == 502
    assert answer.json() == {"error": "model endpoint sent a malformed message"}


@pytest.mark.parametrize("usage", [[1, 2], "many", {"prompt_tokens": True, "completion_tokens": 2}])
def test_token_counts_that_are_not_counts_count_nothing(
    fake_model: Any, tmp_path: Path, usage: Any
) -> None:
    reply = {"choices": [{"message": {"content": "fine"}}], "usage": usage}
    with agent_for(fake_model([(200, reply)]), tmp_path) as srv:
        body = ask(srv, "hi").json()
    assert body["response"] == "fine"
    counted = 2 if isinstance(usage, dict) else 0
    assert body["usage"] == {"prompt_tokens": 0, "completion_tokens": counted, "requests": 1}


def test_a_streamed_turn_shows_each_call_as_it_runs_and_the_answer_as_it_arrives(
    fake_model: Any, tmp_path: Path
) -> None:
    # issue 31: --stream replayed the whole turn after it ended; now the events are live: the
    # first call is on the stream while the model is still being asked for its next step
    model = fake_model([
        (200, assistant(calls=[tool_call("c1", "calculator", {"expression": "2+3"})])),
        (200, assistant("It is 5.")),
    ])  # fmt: skip
    model.hold = threading.Event()
    seen: list[tuple[str, int]] = []  # (event type, model requests answered when it came)
    with agent_for(model, tmp_path) as srv, httpx.stream(
        "POST", srv.url + "/v1/turn", json={"session_id": "s", "message": "2+3?", "stream": True},
        timeout=EVENTUALLY_S,
    ) as reply:  # fmt: skip
        for line in reply.iter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line.removeprefix("data: "))
            seen.append((event["type"], len(model.requests)))
            final = event.get("reply") or {}
            if event["type"] == "tool_call":
                model.hold.set()  # only now may the model answer its second request
    kinds = [kind for kind, _ in seen]
    assert kinds == ["tool_call", "text", "final"], seen
    # the call reached the stream before the model was asked again (not a replay at the end)
    assert seen[0] == ("tool_call", 1)
    assert final["response"] == "It is 5." and final["model_steps"][1]["text"] == "It is 5."


def test_a_streamed_model_failure_is_an_error_event(fake_model: Any, tmp_path: Path) -> None:
    model = fake_model([(500, {"error": "boom"})])
    with agent_for(model, tmp_path) as srv, httpx.stream(
        "POST", srv.url + "/v1/turn", json={"session_id": "s", "message": "hi", "stream": True},
        timeout=EVENTUALLY_S,
    ) as reply:  # fmt: skip
        events = [json.loads(x[6:]) for x in reply.iter_lines() if x.startswith("data: ")]
    (event,) = events
    assert event["type"] == "error" and "500" in event["message"]
