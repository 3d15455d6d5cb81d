"""HostedTools: one MCP server at one loopback URL, serving the hosted tools for a replica.

Built on the official MCP Python SDK (``mcp``, the Model Context Protocol's reference
implementation for Python): the clients agents use are tested against it first, it speaks
every protocol revision a client may negotiate (the legacy initialize handshake and the
2026 per-request era), and it brings streamable HTTP, request-size bounds and DNS-rebinding
protection for a loopback server. We use its low-level ``Server`` (not FastMCP): our tools
are a table with hand-written JSON Schemas, not Python functions to introspect, and the
low-level handlers let every refusal be an MCP error we word and record ourselves.

The server runs under uvicorn in a background thread with its own event loop, on a socket
bound before ``start()`` returns (so a busy port is a UsageError at once, and port 0 picks a
free one: ``url`` then names it). Stateless streamable HTTP with JSON replies: no session for
a client to lose between attempts, one round trip a call. Nothing here imports the SDK until
``start()``.
"""

from __future__ import annotations

import functools
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agenttest.blocks import Fault
from agenttest.errors import UsageError
from agenttest.results import HostedInfo, ToolCall

from ._attempts import Attribution, Refused, now_iso
from ._limits import HostLimits
from ._registry import TOOLS, call_tool
from ._spec import ToolOutcome

if TYPE_CHECKING:
    import mcp_types
    import uvicorn
    from mcp.server.context import ServerRequestContext

log = logging.getLogger(__name__)
_LOOPBACK = frozenset({"127.0.0.1", "localhost"})
START_TIMEOUT_S = 20.0
INVALID_PARAMS = -32602  # JSON-RPC's code for a call the server will not take as given


#: Answers that say the request could not be read at all (too large, a content type or an
#: Accept the transport does not take). 404 and 405 are left out: a client probing for an
#: optional GET stream gets 405 as a matter of course.
MALFORMED_STATUSES = frozenset({406, 413, 415})
_BODY_SEEN = 65536  # of a 400's body, enough for its JSON-RPC error


def _unreadable(body: bytes) -> bool:
    """A 400 whose JSON-RPC error has ``id: null``: the request could not be read as one
    (not JSON, no method). A call our handler refused carries its request's id."""
    try:
        reply = json.loads(body)
    except ValueError:
        return True
    return isinstance(reply, dict) and "error" in reply and reply.get("id") is None


def _counting_malformed(app: Any, count: Callable[[], None]) -> Any:
    """The ASGI app, counting each request it answers as malformed: such a request never
    reaches a tool handler, so without this the record would not show it at all."""

    async def counted(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        status = 0
        body = bytearray()

        async def watched(message: Any) -> None:
            nonlocal status
            if message.get("type") == "http.response.start":
                status = int(message.get("status", 0))
                if status in MALFORMED_STATUSES:
                    count()
            elif message.get("type") == "http.response.body" and status == 400:
                body.extend(message.get("body", b"")[: _BODY_SEEN - len(body)])
                if not message.get("more_body") and _unreadable(bytes(body)):
                    count()
            await send(message)

        await app(scope, receive, watched)

    return counted


def loopback_address(url: str) -> tuple[str, int, str]:
    """(host, port, path) of a hosted-tools URL; UsageError unless http on 127.0.0.1."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme != "http" or parts.hostname not in _LOOPBACK or port is None:
        raise UsageError(
            f"hosted tools: {url!r} is not an http URL on the loopback address with a port "
            "(e.g. http://127.0.0.1:8765/mcp)"
        )
    return "127.0.0.1", port, parts.path or "/mcp"


class HostedTools:
    """The hosted tools of one replica at ``url`` (``http://127.0.0.1:PORT/mcp``).

    ``start()`` serves in a background thread; between ``begin(world, faults)`` and
    ``end()`` every call belongs to that attempt and is recorded (``take_calls()``); a call
    at any other time is refused with an MCP error and counted in ``refused_outside``.
    """

    def __init__(self, url: str, limits: HostLimits | None = None) -> None:
        self.url = url
        self.limits = limits or HostLimits()
        self._attribution = Attribution(url, self.limits)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None

    @property
    def refused_outside(self) -> int:
        """Calls that arrived while no attempt was running (refused, not recorded)."""
        return self._attribution.refused_outside

    def start(self) -> None:
        """Serve at the URL in a background thread; UsageError when the address is busy or
        not loopback."""
        if self._server is not None:
            raise RuntimeError(f"hosted tools: already serving at {self.url}")
        host, port, path = loopback_address(self.url)
        # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets whose proto says TCP,
        # and without it every reply waits ~40 ms for a delayed ACK
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise UsageError(f"hosted tools: cannot serve at {self.url}: {exc.strerror}") from None
        sock.listen(64)
        if port == 0:
            parts = urlsplit(self.url)
            netloc = f"{parts.hostname}:{sock.getsockname()[1]}"
            self.url = urlunsplit(parts._replace(netloc=netloc))
            self._attribution.url = self.url
        self._sock = sock
        self._server = self._make_server(path)
        self._thread = threading.Thread(
            target=self._server.run, args=([sock],), name=f"hosted-tools {self.url}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.close()
                raise UsageError(f"hosted tools: the server at {self.url} did not start")
            time.sleep(0.01)

    def close(self) -> None:
        """Stop serving and free the port (idempotent)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=self.limits.max_fault_delay_s + 10)
        if self._sock is not None:
            self._sock.close()
        self._server = self._thread = self._sock = None

    def __enter__(self) -> HostedTools:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def begin(self, world_root: Path, faults: Sequence[Fault] = ()) -> None:
        """Calls from now on belong to an attempt whose world is ``world_root``."""
        self._attribution.begin(world_root, faults)

    def take_calls(self) -> list[ToolCall]:
        """The hosted calls recorded since the last take (``origin="harness"``); after
        ``end()``, the ended attempt's calls not taken yet."""
        return self._attribution.take()

    def end(self) -> HostedInfo:
        """End the attempt (calls are refused again, those in flight finish first): the
        host's url, the calls refused over the bound and the faults fired."""
        return self._attribution.end()

    # -- MCP ------------------------------------------------------------------------------

    def _make_server(self, path: str) -> uvicorn.Server:
        import mcp_types as types
        import uvicorn
        from mcp.server.lowlevel import Server

        # hints only: the world is closed (nothing reaches outside it), some tools change it
        tools = [
            types.Tool(name=t.spec.name, description=t.spec.description,
                       input_schema=dict(t.spec.input_schema),
                       annotations=types.ToolAnnotations(read_only_hint=t.spec.read_only,
                                                         open_world_hint=False))
            for t in TOOLS.values()
        ]  # fmt: skip

        async def list_tools(
            ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
        ) -> mcp_types.ListToolsResult:
            return types.ListToolsResult(tools=tools)

        server: Server[Any] = Server(
            "agenttest-hosted-tools",
            version="1",
            instructions="The tools of an agenttest attempt; the harness records every call.",
            on_list_tools=list_tools,
            on_call_tool=self._call_tool,
        )
        app = server.streamable_http_app(
            streamable_http_path=path,
            json_response=True,
            stateless_http=True,
            max_request_body_size=self.limits.max_request_bytes,
            host="127.0.0.1",
        )
        config = uvicorn.Config(
            _counting_malformed(app, self._attribution.malformed),
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=2,
        )
        return uvicorn.Server(config)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        import anyio.to_thread
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        name, arguments = params.name, params.arguments or {}
        started, t0 = now_iso(), time.perf_counter()
        att = self._attribution
        try:
            attempt = att.admit(name, arguments)
            if name not in TOOLS:
                known = ", ".join(TOOLS)
                raise att.refuse(attempt, name, arguments, INVALID_PARAMS,
                                 f"unknown tool `{name[:200]}` (the tools are: {known})")  # fmt: skip
            size = len(json.dumps(arguments))
            if size > self.limits.max_argument_chars:
                raise att.refuse(attempt, name, arguments, INVALID_PARAMS,
                                 f"arguments too large: {size} characters of JSON (at most "
                                 f"{self.limits.max_argument_chars})")  # fmt: skip
        except Refused as refused:
            raise MCPError(refused.code, refused.message) from None
        run = functools.partial(
            call_tool, attempt.world, attempt.faults, name, arguments, limits=self.limits
        )
        try:
            outcome = await anyio.to_thread.run_sync(run)
        except Exception as exc:  # a bug in a tool must not stop the host: record it
            log.exception("hosted tool %s failed", name)
            error = f"internal error in the hosted tool: {type(exc).__name__}: {exc}"
            outcome = ToolOutcome(ok=False, result="", error=error)
        text, is_error = att.finish(attempt, name, arguments, outcome, started, t0)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)
