"""A third-party agent behind agenttest's native protocol: pydantic-ai over MCP.

Run: ``python -m tests.thirdparty.shim --model-url URL --mcp-url URL``; it prints the URL it
serves at (``--port``, or a free one) on its first line of output once it is listening.
``--mcp-config FILE`` instead of ``--mcp-url`` reads a shared ``mcpServers`` file (the shape
Claude Desktop and Cursor read) with the framework's ``load_mcp_toolsets``, which prefixes
each tool with its server's name and can spawn a stdio server.

The agent is a `pydantic-ai <https://ai.pydantic.dev>`_ ``Agent`` (the maintained framework
on PyPI, package ``pydantic-ai-slim[openai,mcp]``) whose only tools come from one MCP server
(``--mcp-url``, agenttest's host in the tests) through the framework's own MCP client
(``pydantic_ai.mcp.MCPToolset``), and whose model is an OpenAI-compatible chat-completions
server (``--model-url``; the scripted one in tests/thirdparty/model.py). Nothing in the tool
path is ours: the framework lists the tools, validates the model's arguments against their
JSON Schemas and calls them over streamable HTTP.

Why pydantic-ai, of the three frameworks issue 28 names:

* its run result is a typed message history (``ToolCallPart``, ``ToolReturnPart`` with its
  ``outcome``, ``RetryPromptPart``), so the shim reports the calls the framework made, and
  whether each failed, from the framework's own record instead of wrapping the tools;
* it talks to any OpenAI-compatible chat-completions server (``OpenAIChatModel`` with a
  ``base_url``), which is what a scripted model on loopback is; openai-agents works too but
  defaults to OpenAI's Responses API and a trace exporter, both to be switched off;
* its MCP client is in the slim package's ``mcp`` extra and runs on the MCP SDK's current
  major, the one agenttest's host uses, so both share the test environment; smolagents'
  adapter (``mcpadapt``) still imports the previous major's client, and its
  ``ToolCallingAgent`` ends a run through a ``final_answer`` tool a script would have to play.

The shim speaks SPEC section 5: ``GET /health``, ``POST /v1/turn`` (one turn at a time: a
second is ``409``), ``POST /v1/reset``. A reply's ``tool_calls`` are what the framework
did on that turn, unless told otherwise:

* ``--report none``: the framework makes its calls and the reply reports none of them (an
  agent that keeps quiet about its tools);
* ``--claim JSON``: a call, ``{"name", "arguments", "result"}``, is added to every reply's
  report without being made (the liar: a calculator call and its result, never sent).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset, load_mcp_toolsets
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.toolsets import AbstractToolset

INSTRUCTIONS = "You are a careful assistant. Use the tools you are given; never guess a result."


def reported_calls(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    """The tool calls in a run's new messages, each with what came back, as SPEC's
    ``{"name", "arguments", "ok", "result"}``, in the order the model asked for them."""
    asked: list[ToolCallPart] = []
    answers: dict[str, tuple[bool, str]] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(message, ModelResponse) and isinstance(part, ToolCallPart):
                asked.append(part)
            elif isinstance(part, ToolReturnPart):
                # a tool error comes back as a return too (outcome "retried" or "failed")
                ok = part.outcome == "success"
                answers[part.tool_call_id] = (ok, part.model_response_str())
            elif isinstance(part, RetryPromptPart) and part.tool_name is not None:
                answers[part.tool_call_id] = (False, part.model_response())
    calls = []
    for part in asked:
        ok, result = answers.get(part.tool_call_id, (False, "no result"))
        calls.append(
            {"name": part.tool_name, "arguments": part.args_as_dict(), "ok": ok, "result": result}
        )
    return calls


class Shim:
    """The framework's agent, one session history per ``session_id``, on its own loop."""

    def __init__(
        self, model_url: str, toolsets: list[AbstractToolset[Any]], report: str, claims: list[Any]
    ) -> None:
        provider = OpenAIProvider(base_url=model_url, api_key="scripted")
        model = OpenAIChatModel("scripted-mcp-model", provider=provider)
        # the MCP servers are the only tool source: no function tools, no other toolset
        self.agent = Agent(model, toolsets=toolsets, instructions=INSTRUCTIONS)
        self.report = report
        self.claims = claims
        self.sessions: dict[str, list[ModelMessage]] = {}
        self.busy = threading.Lock()
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    async def _run(self, session_id: str, message: str) -> dict[str, Any]:
        history = self.sessions.get(session_id, [])
        result = await self.agent.run(message, message_history=history)
        self.sessions[session_id] = result.all_messages()
        made = reported_calls(result.new_messages())
        calls = made if self.report == "all" else []
        calls += [{"ok": True, **claim} for claim in self.claims]
        trace = f"pydantic-ai agent; {len(made)} MCP tool call(s) made"
        return {"response": str(result.output), "tool_calls": calls, "trace": trace}

    def turn(self, session_id: str, message: str) -> dict[str, Any]:
        done: Future[dict[str, Any]] = asyncio.run_coroutine_threadsafe(
            self._run(session_id, message), self.loop
        )
        return done.result()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    shim: Shim

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path != "/health":
            self._send(404, {"error": "not found"})
            return
        self._send(200, {"status": "busy" if self.shim.busy.locked() else "ready"})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send(400, {"error": "the body is not JSON"})
            return
        if not isinstance(body, dict):
            self._send(400, {"error": "the body is not an object"})
        elif self.path == "/v1/reset":
            self.shim.sessions.pop(str(body.get("session_id")), None)
            self._send(200, {"ok": True})
        elif self.path == "/v1/turn":
            self._turn(body)
        else:
            self._send(404, {"error": "not found"})

    def _turn(self, body: dict[str, Any]) -> None:
        if not self.shim.busy.acquire(blocking=False):
            self._send(409, {"status": "busy"}, {"retry-after": "0"})
            return
        try:
            reply = self.shim.turn(str(body.get("session_id")), str(body.get("message")))
        except Exception as exc:  # the framework's failure is the agent's: a 500 that says it
            self._send(500, {"error": f"{type(exc).__name__}: {exc}"})
        else:
            self._send(200, reply)
        finally:
            self.shim.busy.release()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.thirdparty.shim")
    parser.add_argument("--port", type=int, default=0, help="0 (the default): a free port")
    parser.add_argument("--model-url", required=True, help="OpenAI-compatible base URL (…/v1)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--mcp-url", help="the MCP server (streamable HTTP)")
    source.add_argument("--mcp-config", help="a JSON file of mcpServers")
    parser.add_argument("--report", choices=("all", "none"), default="all")
    parser.add_argument("--claim", action="append", default=[], type=json.loads)
    args = parser.parse_args(argv)
    toolsets: list[AbstractToolset[Any]] = (
        load_mcp_toolsets(args.mcp_config) if args.mcp_config else [MCPToolset(args.mcp_url)]
    )
    shim = Shim(args.model_url, toolsets, args.report, args.claim)
    handler = type("Handler", (_Handler,), {"shim": shim})
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    server.daemon_threads = True
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
