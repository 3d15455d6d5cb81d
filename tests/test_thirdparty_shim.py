"""The third-party agent (tests/thirdparty/shim.py): pydantic-ai over MCP behind the native
protocol, checked against a plain MCP server of the tests' own, so the hosted-tools specs
(test_thirdparty_hosted.py) can trust what it reports and what it keeps quiet about.

Everything is real: the shim is a subprocess running the framework, the model is the
scripted chat-completions server in a thread, the MCP server is the official SDK's.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx

from ._patience import EVENTUALLY_S
from .thirdparty.model import Call, Plan, ScriptedModel
from .thirdparty.plain_mcp import PlainMCP
from .thirdparty.process import shim_process

SUM = Plan(
    when="18% of 1850",
    rounds=((Call("calculator", {"expression": "1850*0.18"}),),),
    answer="It is {0}.",
)
GUESS = Plan(when="guess 18% of 1850", answer="It is 333.")
BROKEN = Plan(when="half of nothing", rounds=((Call("calculator", {"expression": "/2"}),),),
              answer="I could not work it out.")  # fmt: skip
CLAIM = {"name": "calculator", "arguments": {"expression": "1850*0.18"}, "result": "333"}


def _turn(url: str, message: str, session: str = "s1") -> dict[str, Any]:
    reply = httpx.post(f"{url}/v1/turn", json={"session_id": session, "message": message},
                       timeout=EVENTUALLY_S)  # fmt: skip
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


def test_the_framework_calls_the_mcp_tool_and_reports_what_it_made() -> None:
    with (
        PlainMCP() as mcp,
        ScriptedModel([SUM, BROKEN]) as model,
        shim_process(model.base_url, "--mcp-url", mcp.url) as url,
    ):
        assert httpx.get(f"{url}/health", timeout=EVENTUALLY_S).json() == {"status": "ready"}
        reply = _turn(url, "what is 18% of 1850?")
        offered = [t["function"]["name"] for t in model.requests[0]["tools"]]
        failed = _turn(url, "what is half of nothing?")
    # the MCP server is the agent's only tool source, and the call went there
    assert offered == ["calculator"]
    assert mcp.expressions == ["1850*0.18", "/2"]
    assert reply["response"] == "It is 333."
    assert reply["tool_calls"] == [
        {"name": "calculator", "arguments": {"expression": "1850*0.18"}, "ok": True,
         "result": "333"}
    ]  # fmt: skip
    # a call the server failed is reported as failed, with the server's error
    (call,) = failed["tool_calls"]
    assert call["ok"] is False
    assert "not an arithmetic expression" in call["result"]


def test_a_quiet_agent_makes_its_calls_and_reports_none() -> None:
    with (
        PlainMCP() as mcp,
        ScriptedModel([SUM]) as model,
        shim_process(model.base_url, "--mcp-url", mcp.url, "--report", "none") as url,
    ):
        reply = _turn(url, "what is 18% of 1850?")
    assert mcp.expressions == ["1850*0.18"]
    assert reply["response"] == "It is 333." and reply["tool_calls"] == []


def test_the_liar_reports_a_call_it_never_made() -> None:
    with (
        PlainMCP() as mcp,
        ScriptedModel([GUESS]) as model,
        shim_process(model.base_url, "--mcp-url", mcp.url, "--claim", json.dumps(CLAIM)) as url,
    ):
        reply = _turn(url, "guess 18% of 1850")
    assert mcp.expressions == []
    assert reply["tool_calls"] == [{"ok": True, **CLAIM}]


def test_a_session_is_remembered_until_reset_and_a_second_turn_waits_its_turn() -> None:
    arrived, release = threading.Event(), threading.Event()
    replies: list[dict[str, Any]] = []
    with (
        PlainMCP() as mcp,
        ScriptedModel([SUM]) as model,
        shim_process(model.base_url, "--mcp-url", mcp.url) as url,
    ):
        _turn(url, "what is 18% of 1850?")
        _turn(url, "and again: 18% of 1850?")
        history = [m["role"] for m in model.requests[-1]["messages"]]
        httpx.post(f"{url}/v1/reset", json={"session_id": "s1"}, timeout=EVENTUALLY_S)
        chat = model.routes["/v1/chat/completions"]

        def held(method: str, body: Any) -> tuple[int, Any]:
            arrived.set()
            release.wait(EVENTUALLY_S)
            return chat(method, body)

        model.routes["/v1/chat/completions"] = held
        first = threading.Thread(target=lambda: replies.append(_turn(url, "18% of 1850")))
        first.start()
        assert arrived.wait(EVENTUALLY_S)
        busy = httpx.post(f"{url}/v1/turn", json={"session_id": "s2", "message": "hi"},
                          timeout=EVENTUALLY_S)  # fmt: skip
        health = httpx.get(f"{url}/health", timeout=EVENTUALLY_S).json()
        release.set()
        first.join(EVENTUALLY_S)
        after_reset = [m["role"] for m in model.requests[-1]["messages"]]
    # the second turn carried the first (two user messages); after the reset, one
    assert history.count("user") == 2 and after_reset.count("user") == 1
    assert busy.status_code == 409 and health == {"status": "busy"}
    assert replies and replies[0]["response"] == "It is 333."
