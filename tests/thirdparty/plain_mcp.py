"""A plain MCP server of the tests' own (the official SDK, streamable HTTP, 127.0.0.1):
one ``calculator`` tool that records each expression it is sent (one it cannot work out is
a tool error: an ``isError`` result).

It checks the shim's side of the wire without agenttest's host in between:
``with PlainMCP() as server: server.url, server.expressions``.
"""

from __future__ import annotations

import ast
import operator
import socket
import threading
from typing import Any

_OPS: dict[type, Any] = {ast.Add: operator.add, ast.Sub: operator.sub,
                         ast.Mult: operator.mul, ast.Div: operator.truediv}  # fmt: skip


def _value(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return float(_OPS[type(node.op)](_value(node.left), _value(node.right)))
    raise ValueError("only + - * / of numbers")


class PlainMCP:
    """The server in a thread; ``expressions`` lists the calls it received, in order."""

    def __init__(self) -> None:
        self.expressions: list[str] = []
        self.url = ""
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PlainMCP:
        import uvicorn
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError

        mcp = MCPServer("plain")

        @mcp.tool()
        def calculator(expression: str) -> str:
            """Work out an arithmetic expression (+ - * / of numbers)."""
            self.expressions.append(expression)
            try:
                result = _value(ast.parse(expression, mode="eval").body)
            except (SyntaxError, ValueError):  # a tool error the client sees, not a crash
                raise ToolError("not an arithmetic expression") from None
            return f"{result:g}"

        # the socket is bound and listening before the server runs: its port is known now,
        # and a client that comes early waits in the backlog instead of being refused
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, args=([sock],), daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join()
