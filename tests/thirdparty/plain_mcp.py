"""A plain MCP server of the tests' own (the official SDK, streamable HTTP, 127.0.0.1):
one ``calculator`` tool that records each expression it is sent.

It checks the shim's side of the wire without agenttest's host in between:
``with PlainMCP() as server: server.url, server.expressions``.
"""

from __future__ import annotations

import ast
import operator
import threading
import time
from typing import Any

from .._patience import EVENTUALLY_S

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

        mcp = MCPServer("plain")

        @mcp.tool()
        def calculator(expression: str) -> str:
            """Work out an arithmetic expression (+ - * / of numbers)."""
            self.expressions.append(expression)
            result = _value(ast.parse(expression, mode="eval").body)
            return f"{result:g}"

        config = uvicorn.Config(mcp.streamable_http_app(), host="127.0.0.1", port=0,
                                log_level="warning")  # fmt: skip
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + EVENTUALLY_S
        while not self._server.started:  # port 0: the address is known once it listens
            assert self._thread.is_alive() and time.monotonic() < deadline, "no MCP server"
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join()
