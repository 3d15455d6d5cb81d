"""`hosted-tools`: what the harness hosts over MCP, and the stdio bridge to a running host.

Without options it lists the hosted tools (their names are the battery's roles) and each
one's arguments. With ``--stdio URL`` it is the MCP server an agent spawns when it takes its
tools over stdio: every call goes on to the harness's host at URL, where it is served and
recorded (see :mod:`agenttest.hosted._stdio`).
"""

from __future__ import annotations

import typer

from . import app


@app.command("hosted-tools")
def hosted_tools(
    stdio: str | None = typer.Option(
        None,
        "--stdio",
        metavar="URL",
        help="Serve MCP on stdin/stdout, passing every call on to the harness's host at URL "
        "(http://127.0.0.1:PORT/mcp, the agent config's hosted_tools url).",
    ),
) -> None:
    """List the tools the harness hosts over MCP, or bridge them to stdio (--stdio URL).

    For an agent that spawns its tool servers: configure the command
    `agenttest hosted-tools --stdio http://127.0.0.1:PORT/mcp`. Exit 2 when nothing answers
    at the URL.
    """
    if stdio is not None:
        from agenttest.hosted import serve_stdio

        serve_stdio(stdio)
        return
    from agenttest.hosted import tool_specs

    for spec in tool_specs():
        required = set(spec.input_schema.get("required", ()))
        args = [
            name + ("" if name in required else "?")
            for name in spec.input_schema.get("properties", {})
        ]
        typer.echo(f"{spec.name}({', '.join(args)})")
        typer.echo(f"    {spec.description}")
