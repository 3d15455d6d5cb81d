"""The hosted tools over stdio, for agents that spawn their tool servers themselves.

``agenttest hosted-tools --stdio URL`` is what such an agent spawns: an MCP server on its
stdin and stdout that passes every ``tools/list`` and ``tools/call`` on to the harness's
host at URL, and its answers (results, tool errors, MCP errors) back unchanged. The tools
still run, and are still recorded and attributed to the attempt, inside the harness: the
bridge holds no world and no record of its own, so an agent that spawns it gets the same
evidence as one that connects over HTTP.

Both ends are the official ``mcp`` SDK (a low-level server on stdio, a client on HTTP), so
whatever protocol revision the agent speaks on stdio, the bridge speaks to the host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agenttest.errors import UsageError

from ._server import loopback_address

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import ServerRequestContext


async def _bridge(url: str) -> None:
    from mcp import Client
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async with Client(url) as upstream:

        async def list_tools(
            ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
        ) -> mcp_types.ListToolsResult:
            return await upstream.list_tools()

        async def call_tool(
            ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
        ) -> mcp_types.CallToolResult:
            # an MCPError from the host (outside an attempt, over the bound, an unknown
            # tool) propagates to the agent as the same error
            return await upstream.call_tool(params.name, params.arguments)

        server: Server[Any] = Server(
            "agenttest-hosted-tools",
            version="1",
            instructions="The tools of an agenttest attempt; the harness records every call.",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def serve_stdio(url: str) -> None:
    """Serve the harness's hosted tools at ``url`` on stdin/stdout until stdin closes;
    UsageError when the URL is not a loopback host or nothing answers there."""
    import anyio
    import httpx2  # the SDK's HTTP client

    loopback_address(url)
    try:
        anyio.run(_bridge, url)
    except* (OSError, httpx2.TransportError) as group:
        reason = group.exceptions[0]
        raise UsageError(f"hosted tools: nothing answers at {url}: {reason}") from None
