"""The MCP client of ``--hosted-tools URL``: the harness's host, called from plain threads.

The agent answers turns on the HTTP server's threads (and runs read-only calls on a pool);
the official ``mcp`` SDK is async. :class:`HostClient` keeps one event loop on a thread of
its own and one MCP connection (``mcp.Client``) on it for the whole process: a keeper task
enters the client and holds it open, and any thread submits a request to that loop and
waits for the answer. A connection that drops (the host restarted, the transport died) is
opened again once per call before the call says the host is unreachable.

``mcp`` is imported only when a connection opens, and ``asyncio`` when a client is made, so
an agent without hosted tools (and the runner, which imports this package for its option
table) never pays for either.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # asyncio is imported by the client only: an agent without it never pays
    import asyncio

#: Seconds a tool call may take on the host: more than the longest fault delay the host
#: allows (a `timeout` fault hangs at most 30 s), so a hanging tool is the host's to report.
CALL_TIMEOUT_S = 90.0
#: Seconds to open a connection (and list the tools) before the host counts as unreachable.
CONNECT_TIMEOUT_S = 10.0
#: Pages of ``tools/list`` read at most (a host that pages forever is not believed).
MAX_PAGES = 50

_T = TypeVar("_T")


class HostUnreachable(Exception):
    """No connection to the host could be opened (or kept long enough for one call)."""


@dataclass(frozen=True)
class HostedTool:
    """A tool as the host lists it: its role name, what it does, its arguments' JSON Schema."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True)
class HostedResult:
    """What one call came to: the tool's text, and whether the host says it succeeded.

    ``refused`` is set when the host answered with a protocol error (the call was not run:
    outside an attempt, over the bound, arguments against the schema, ...)."""

    ok: bool
    text: str
    refused: bool = False


class _Dropped(Exception):
    """The connection a request went out on is gone; a fresh one may still work."""


@dataclass
class _Connection:
    stop: asyncio.Event
    client: Any = None  # mcp.Client, entered by the keeper task
    task: asyncio.Task[None] | None = None
    error: str | None = None  # why the keeper ended, when it did

    @property
    def alive(self) -> bool:
        return self.task is not None and not self.task.done()


class HostClient:
    """One MCP connection to ``url``, shared by every thread of the agent."""

    def __init__(
        self,
        url: str,
        *,
        call_timeout_s: float = CALL_TIMEOUT_S,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> None:
        self.url = url
        self.call_timeout_s = call_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.reconnects = 0  # connections opened after the first (dropped sessions)
        import asyncio

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="hosted-tools", daemon=True
        )
        self._thread.start()
        self._lock = threading.Lock()  # one thread opens a connection; the others wait
        self._conn: _Connection | None = None
        self._opened = 0
        self._tools: list[HostedTool] | None = None
        self._closed = False

    # -- what the agent asks --------------------------------------------------------------

    def tools(self, *, refresh: bool = False) -> list[HostedTool]:
        """The host's tools (listed once, then kept; ``refresh`` asks again)."""
        if self._tools is None or refresh:
            try:
                # bounded like a connection, not like a tool: /health waits on it
                listed = self._request(self._list, "list the host's tools", self.connect_timeout_s)
                self._tools = listed
            except HostUnreachable:
                raise
            except Exception as exc:  # an MCP error, a listing that is not one, no answer
                raise HostUnreachable(
                    f"hosted tools at {self.url}: tools/list failed: {_describe(exc)}"
                ) from None
        return self._tools

    def check(self) -> str | None:
        """None when the host answers ``tools/list`` now, else why not (for ``/health``)."""
        try:
            self.tools(refresh=True)
        except HostUnreachable as exc:
            return str(exc)
        return None

    def call(self, name: str, arguments: Mapping[str, Any]) -> HostedResult:
        """Run one tool on the host. :class:`HostUnreachable` when no connection works;
        a refusal or a failed tool is a result that says so."""
        from mcp import MCPError

        args = dict(arguments)

        async def send(client: Any) -> Any:
            return await client.call_tool(name, args, read_timeout_seconds=self.call_timeout_s)

        try:
            answer = self._request(send, f"call {name}", self.call_timeout_s)
        except MCPError as exc:
            return HostedResult(False, f"the host refused the call: {exc.message}", True)
        except TimeoutError:
            return HostedResult(False, f"the host did not answer within {self.call_timeout_s:g} s")
        except HostUnreachable:
            raise
        except Exception as exc:  # an answer the SDK could not read as a tool result
            return HostedResult(False, f"the host's answer could not be read: {_describe(exc)}")
        return _result(answer)

    def close(self) -> None:
        """Close the connection and stop the loop's thread (idempotent)."""
        if self._closed:
            return
        self._closed = True
        conn, self._conn = self._conn, None
        if conn is not None:
            import asyncio

            self._loop.call_soon_threadsafe(conn.stop.set)
            if conn.task is not None:
                done = asyncio.run_coroutine_threadsafe(_settle(conn.task), self._loop)
                # past that, the process is ending; the host forgets the session on its own
                with contextlib.suppress(TimeoutError):
                    done.result(5.0)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5.0)

    # -- connections ----------------------------------------------------------------------

    def _request(
        self, make: Callable[[Any], Coroutine[Any, Any, _T]], what: str, timeout_s: float
    ) -> _T:
        """``make(client)`` on the loop, its answer awaited ``timeout_s`` at most; a dropped
        connection is opened again, once."""
        import asyncio

        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        for attempt in (1, 2):
            conn = self._connection()
            future = asyncio.run_coroutine_threadsafe(make(conn.client), self._loop)
            try:
                return future.result(timeout_s + 5.0)
            except TimeoutError:  # concurrent.futures' is this one
                future.cancel()
                raise TimeoutError(what) from None
            except Exception as exc:  # concurrent.futures.CancelledError is one too
                dropped = not conn.alive or (
                    isinstance(exc, MCPError)
                    and (exc.code == CONNECTION_CLOSED or exc.message == "Session terminated")
                )
                if not dropped:
                    raise
                self._forget(conn)
                if attempt == 2:
                    raise HostUnreachable(
                        f"hosted tools at {self.url}: the connection dropped twice "
                        f"({conn.error or _describe(exc)}) while trying to {what}"
                    ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _connection(self) -> _Connection:
        if self._closed:
            raise HostUnreachable(f"hosted tools at {self.url}: the client is closed")
        with self._lock:
            conn = self._conn
            if conn is not None and conn.alive:
                return conn
            import asyncio

            opening = asyncio.run_coroutine_threadsafe(self._open(), self._loop)
            try:
                conn = opening.result(self.connect_timeout_s + 5.0)
            except TimeoutError:
                opening.cancel()
                raise HostUnreachable(
                    f"hosted tools at {self.url}: no connection within {self.connect_timeout_s:g} s"
                ) from None
            self._opened += 1
            self.reconnects = max(0, self._opened - 1)
            self._conn = conn
            return conn

    def _forget(self, conn: _Connection) -> None:
        with self._lock:
            if self._conn is conn:
                self._conn = None
        self._loop.call_soon_threadsafe(conn.stop.set)

    async def _open(self) -> _Connection:
        """Start a keeper task that enters ``mcp.Client`` and holds it until ``stop``."""
        import asyncio

        from mcp import Client

        conn = _Connection(asyncio.Event())
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def keep() -> None:
            try:
                async with Client(self.url, read_timeout_seconds=self.call_timeout_s) as client:
                    conn.client = client
                    ready.set_result(None)
                    await conn.stop.wait()
            except Exception as exc:  # the transport's task group ends in an ExceptionGroup
                conn.error = _describe(exc)
                if not ready.done():
                    ready.set_exception(
                        HostUnreachable(f"hosted tools at {self.url}: {conn.error}")
                    )

        conn.task = asyncio.ensure_future(keep())
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout_s)
        except TimeoutError:
            conn.stop.set()
            conn.task.cancel()
            raise HostUnreachable(
                f"hosted tools at {self.url}: no answer within {self.connect_timeout_s:g} s"
            ) from None
        return conn

    async def _list(self, client: Any) -> list[HostedTool]:
        tools: list[HostedTool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            tools += [
                HostedTool(t.name, t.description or "", dict(t.input_schema)) for t in page.tools
            ]
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools


async def _settle(task: asyncio.Task[None]) -> None:
    import asyncio

    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(task, 4.0)


def _describe(exc: BaseException) -> str:
    """The first real cause inside (nested) exception groups, as ``Type: message``."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or "no detail"
    return f"{type(exc).__name__}: {text}"


def _result(answer: Any) -> HostedResult:
    """A ``CallToolResult`` as text: its text blocks, else its structured content."""
    parts = []
    for block in answer.content or []:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{block.type} content]")
    if not parts and answer.structured_content is not None:
        parts.append(json.dumps(answer.structured_content, ensure_ascii=False))
    return HostedResult(not answer.is_error, "\n".join(parts))
