"""The stdio bridge (`agenttest hosted-tools --stdio URL`), spawned as a real subprocess by a
real MCP client, as an agent that spawns its tool servers does: its calls are served and
recorded by the harness's host, attributed to the attempt, and refused outside one."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from agenttest.blocks import HOSTED_ROLES
from agenttest.hosted import HostedTools


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def _bridge(url: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "agenttest", "hosted-tools", "--stdio", url]
    )


def test_calls_over_stdio_are_served_and_recorded_by_the_host(tmp_path: Path) -> None:
    (tmp_path / "todo.txt").write_text("buy milk\n", encoding="utf-8")
    with HostedTools("http://127.0.0.1:0/mcp") as host:

        async def main() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with Client(_bridge(host.url)) as c:
                out["tools"] = [t.name for t in (await c.list_tools()).tools]
                try:
                    await c.call_tool("file_read", {"path": "todo.txt"})
                except MCPError as exc:
                    out["outside"] = exc.message
                host.begin(tmp_path)
                result = await c.call_tool("file_read", {"path": "todo.txt"})
                out["read"] = (result.is_error, _text(result))
                result = await c.call_tool("file_read", {"path": "../x"})
                out["escape"] = (result.is_error, _text(result))
                try:
                    await c.call_tool("shell", {"command": "ls"})
                except MCPError as exc:
                    out["unknown"] = exc.message
                out["info"] = host.end()
            return out

        out = asyncio.run(main())
        records = host.take_calls()
        outside = host.refused_outside
    assert tuple(out["tools"]) == HOSTED_ROLES
    assert out["outside"].startswith("no attempt is running") and outside == 1
    assert out["read"] == (False, "buy milk\n")
    assert out["escape"] == (True, "path outside the world: '../x'")
    assert out["unknown"].startswith("unknown tool `shell`")
    assert [(r.name, r.ok, r.origin) for r in records] == [
        ("file_read", True, "harness"),
        ("file_read", False, "harness"),
        ("shell", False, "harness"),
    ]


def test_the_bridge_exits_2_when_no_host_answers() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agenttest", "hosted-tools", "--stdio", "http://127.0.0.1:1/mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "nothing answers at http://127.0.0.1:1/mcp" in done.stderr
    assert "Traceback" not in done.stderr


def test_without_options_it_lists_each_tool_and_its_arguments() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agenttest", "hosted-tools"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert [ln.split("(")[0] for ln in lines[::2]] == list(HOSTED_ROLES)
    assert "file_move(source, destination)" in lines
    assert "git(action, count?, path?)" in lines
