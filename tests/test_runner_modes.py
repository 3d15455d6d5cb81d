"""Agents that speak something else: a templated REST API and OpenAI chat completions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from agenttest.results import Attempt, ToolCall, iter_records
from agenttest.runner import RunRequest, run

from ._servers import LoopbackAgent, RouteServer, agent_yaml, write_battery

BATTERIES = Path(__file__).resolve().parent.parent / "batteries"


def run_against(tmp_path: Path, server: RouteServer | LoopbackAgent, blocks: dict[str, tuple[int, int]], **cfg: Any) -> list[Attempt]:  # fmt: skip
    battery = write_battery(tmp_path / "battery", blocks)
    config = tmp_path / "agent.yaml"
    config.write_text(agent_yaml(server.url, **cfg), encoding="utf-8")
    path = run(
        RunRequest(
            paths=[str(battery)], agent=str(config), out=tmp_path / "out", allow_temp=True,
            quiet=True,
        )
    )  # fmt: skip
    return [r for r in iter_records(path) if isinstance(r, Attempt)]


def test_rest_mode_template_and_extraction_paths(tmp_path: Path) -> None:
    def agent(_method: str, body: Any) -> tuple[int, Any]:
        if body["n"] == 2:
            return 200, {"result": {"toolsUsed": None}}  # no text: the harness lost it
        return 200, {
            "result": {
                "answer": f"got {body['message']}",
                "toolsUsed": [
                    {"tool": "calc", "args": '{"x": 1}', "success": True, "output": 2},
                    "clock",
                ],
                "trace": ["PLAN calc", "CALL calc"],
            },
            "usage": {"total_tokens": 42},
        }

    routes = {
        "/api/ping": lambda m, b: (200, {}),
        "/api/agent": agent,
        "/api/reset": lambda m, b: (200, {"ok": True}),
    }
    with RouteServer(routes) as server:
        attempts = run_against(
            tmp_path,
            server,
            {"L1-R-01": (1, 1), "L1-S-01": (2, 1)},
            mode="rest",
            readiness={"path": "/api/ping"},
            rest={
                "request": {
                    "path": "/api/agent",
                    "body": '{"message": {{ prompt | tojson }}, "sid": {{ session_id | tojson }},'
                    ' "n": {{ turn }}}',
                },
                "response": {
                    "text": "result.answer",
                    "tool_calls": "result.toolsUsed",
                    "trace": "result.trace",
                    "tokens": "usage.total_tokens",
                    "tool_call": {"name": "tool", "arguments": "args", "ok": "success",
                                  "result": "output"},
                },
                "reset": {"path": "/api/reset",
                          "body": '{"sid": {{ session_id | tojson }}, "wipe": {{ memory | tojson }}}'},
            },
        )  # fmt: skip
        sent = [b for b in server.state.bodies if b["path"] == "/api/agent"]
        resets = [b for b in server.state.bodies if b["path"] == "/api/reset"]
    first = attempts[0]
    assert first.status == "completed"
    (turn,) = first.turns
    assert turn.response == "got L1-R-01 prompt 1"
    assert turn.tool_calls == [
        ToolCall(name="calc", arguments={"x": 1}, ok=True, result=2),
        ToolCall(name="clock", arguments={}, ok=None, result=None),
    ]
    assert turn.trace == "PLAN calc\nCALL calc"
    assert first.cost_tokens == 42
    assert sent[0]["body"]["sid"] == first.session_id
    assert sent[0]["headers"]["content-type"] == "application/json"
    assert resets[0]["body"] == {"sid": first.session_id, "wipe": False}
    second = attempts[1]
    assert (second.status, second.error_cause) == ("error", "garbage")
    assert "result.answer" in (second.error or "")


def test_openai_mode_keeps_history_per_session(tmp_path: Path) -> None:
    def chat(_method: str, body: Any) -> tuple[int, Any]:
        n_user = sum(1 for m in body["messages"] if m["role"] == "user")
        message: dict[str, Any] = {"role": "assistant", "content": f"user turns seen: {n_user}"}
        if n_user == 1:
            message["tool_calls"] = [
                {"id": "c1", "type": "function",
                 "function": {"name": "calculator", "arguments": json.dumps({"expression": "2+2"})}}
            ]  # fmt: skip
        return 200, {
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"total_tokens": 7},
        }

    routes = {"/v1/models": lambda m, b: (200, {"data": []}), "/v1/chat/completions": chat}
    with RouteServer(routes) as server:
        attempts = run_against(
            tmp_path,
            server,
            {"L1-O-01": (2, 2)},
            mode="openai",
            openai={"model": "served-name", "system": "be brief", "params": {"temperature": 0}},
        )
        sent = [b["body"] for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    assert [a.status for a in attempts] == ["completed", "completed"]
    t1, t2 = attempts[0].turns
    assert t1.response == "user turns seen: 1" and t2.response == "user turns seen: 2"
    assert t1.tool_calls[0] == ToolCall(
        name="calculator", arguments={"expression": "2+2"}, ok=None, result=None,
        requested_only=True,
    )  # fmt: skip
    assert t1.trace.splitlines() == ['CALL calculator {"expression": "2+2"}', "FINISH stop"]
    assert attempts[0].cost_tokens == 14
    assert [len(b["messages"]) for b in sent] == [2, 4, 2, 4]  # a fresh history per attempt
    assert sent[1]["messages"][0] == {"role": "system", "content": "be brief"}
    assert sent[0]["model"] == "served-name" and sent[0]["temperature"] == 0


def test_openai_mode_malformed_tool_calls_are_agent_garbage(tmp_path: Path) -> None:
    # precondition: each of these once became `ERROR (harness)` ("a bug in agenttest") or,
    # for a string, one tool call per character
    odd = [5, "calculator", [5], [{"function": "calc"}], {"function": {"name": "x"}}]
    replies = iter(odd)

    def chat(_method: str, _body: Any) -> tuple[int, Any]:
        message = {"role": "assistant", "content": "ok", "tool_calls": next(replies)}
        return 200, {"choices": [{"index": 0, "message": message}]}

    routes = {"/v1/models": lambda m, b: (200, {"data": []}), "/v1/chat/completions": chat}
    with RouteServer(routes) as server:
        attempts = run_against(tmp_path, server, {"L1-O-01": (1, len(odd))}, mode="openai")
    assert len(attempts) == len(odd)
    for attempt in attempts:
        assert (attempt.status, attempt.error_cause) == ("error", "garbage"), attempt
        assert attempt.turns[0].tool_calls == []


def test_openai_mode_a_requested_tool_call_is_not_graded_as_run(tmp_path: Path) -> None:
    """A bare chat-completions server runs no tools: the call it asks for never 'ran'."""

    def chat(_method: str, body: Any) -> tuple[int, Any]:
        call = {"id": "c1", "type": "function",
                "function": {"name": "calculator", "arguments": '{"expression": "1850*0.18"}'}}  # fmt: skip
        message = {"role": "assistant", "content": "333", "tool_calls": [call]}
        return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}

    routes = {"/v1/models": lambda m, b: (200, {"data": []}), "/v1/chat/completions": chat}
    battery = tmp_path / "battery"
    battery.mkdir()
    shutil.copy(BATTERIES / "L1" / "L1-CALC-01.yaml", battery)
    config = tmp_path / "agent.yaml"
    with RouteServer(routes) as server:
        config.write_text(agent_yaml(server.url, mode="openai"), encoding="utf-8")
        path = run(
            RunRequest(paths=[str(battery)], agent=str(config), out=tmp_path / "out",
                       allow_temp=True, quiet=True, k=1)
        )  # fmt: skip
    (attempt,) = [r for r in iter_records(path) if isinstance(r, Attempt)]
    assert attempt.turns[0].tool_calls[0].requested_only is True
    p1 = next(c for c in attempt.criteria if c.id == "P1")
    p2 = next(c for c in attempt.criteria if c.id == "P2")
    assert p2.passed is True  # precondition: the reply itself was read and graded
    assert p1.passed is False, p1
    assert attempt.verdict == "FAIL"


def test_the_shipped_openai_config_sends_the_tools_and_prepares_fixtures(
    tmp_path: Path,
) -> None:
    # issue 31: `examples/agents/openai.yaml` offered no tools and named no workspace, so six
    # of 21 L1 blocks were ERROR `fixture` and no model could ever call a tool
    import httpx

    from agenttest.example_agent import serve

    from ._patience import EVENTUALLY_S
    from .conftest import ROOT, run_cli

    def chat(_method: str, body: Any) -> tuple[int, Any]:
        message = {"role": "assistant", "content": "notes.txt says: meeting at 10."}
        return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}

    battery = tmp_path / "battery"
    battery.mkdir()
    shutil.copy(BATTERIES / "L1" / "L1-FILE-01.yaml", battery)
    routes = {"/v1/models": lambda m, b: (200, {"data": [{"id": "m"}]}),
              "/v1/chat/completions": chat}  # fmt: skip
    with RouteServer(routes) as server:
        env = {"LLM_BASE_URL": server.url, "AGENTTEST_WORKSPACE": str(tmp_path / "ws")}
        result = run_cli("run", str(battery), "--agent", str(ROOT / "examples/agents/openai.yaml"),
                         "--k", "1", "--out", str(tmp_path / "out"), "--allow-temp", "--quiet",
                         env=env)  # fmt: skip
        sent = [b["body"] for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    assert result.returncode == 0, result.stderr
    (attempt,) = [r for r in iter_records(Path(result.stdout.strip())) if isinstance(r, Attempt)]
    assert attempt.error_cause != "fixture", attempt.error
    assert list((tmp_path / "ws").iterdir()), "the block's fixture files were written"
    # what the model was offered is what the example agent serves at GET /v1/tools
    with serve(workspace=tmp_path / "agent").start() as agent:
        served = httpx.get(agent.url + "/v1/tools", timeout=EVENTUALLY_S).json()["tools"]
    assert sent and sent[0]["tools"] == served
