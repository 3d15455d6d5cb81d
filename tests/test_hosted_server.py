"""The host over MCP: a real client from the `mcp` SDK against a real HostedTools on a free
loopback port. It lists the tools with their schemas, serves each on the attempt's world,
records every call itself, refuses calls outside an attempt, and answers every bad input with
a clear MCP error while it keeps serving."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from agenttest.blocks import HOSTED_ROLES
from agenttest.errors import UsageError
from agenttest.hosted import HostedTools, HostLimits, tool_specs

Session = Callable[[Client], Awaitable[Any]]


def _run(host: HostedTools, session: Session, **client: Any) -> Any:
    async def main() -> Any:
        async with Client(host.url, **client) as c:
            return await session(c)

    return asyncio.run(main())


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = tmp_path / "world"
    root.mkdir()
    (root / "todo.txt").write_text("buy milk\n", encoding="utf-8")
    return root


@pytest.fixture
def host() -> Iterator[HostedTools]:
    with HostedTools("http://127.0.0.1:0/mcp") as h:
        yield h


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def test_the_host_lists_every_hosted_role_with_its_schema(host: HostedTools) -> None:
    async def session(c: Client) -> Any:
        return (await c.list_tools()).tools

    tools = _run(host, session)
    assert tuple(t.name for t in tools) == HOSTED_ROLES
    by_name = {s.name: s for s in tool_specs()}
    for tool in tools:
        assert tool.input_schema == by_name[tool.name].input_schema
        assert tool.description == by_name[tool.name].description
        assert tool.annotations.read_only_hint is by_name[tool.name].read_only
    read_only = {t.name for t in tools if t.annotations.read_only_hint}
    assert {"file_read", "web_fetch", "docs_search"} <= read_only
    assert not read_only & {"file_write", "file_delete", "memory", "ticket", "message"}


def test_each_tool_works_on_the_attempt_world_and_each_call_is_recorded(
    host: HostedTools, world: Path
) -> None:
    (world / ".web" / "news.test").mkdir(parents=True)
    (world / ".web" / "news.test" / "index.html").write_text("<title>News</title><p>Rain.</p>")
    (world / ".docs").mkdir()
    (world / ".docs" / "faq.md").write_text("# FAQ\nRefunds take five days.\n")
    (world / ".docs" / "_index.json").write_text('{"pages": ["faq"]}')
    (world / ".tickets").mkdir()
    ticket = {"id": "T-1", "title": "t", "state": "open", "transitions": {"open": ["done"]}}
    (world / ".tickets" / "T-1.json").write_text(json.dumps(ticket))
    (world / ".data").mkdir()
    (world / ".data" / "contacts.json").write_text('[{"name": "Ada", "phone": "5"}]')
    (world / ".data" / "weather.json").write_text('{"Oslo": {"today": {"condition": "snow"}}}')
    subprocess.run(["git", "init", "-q", "-b", "main", str(world / "repo")], check=True)
    calls = [
        ("calculator", {"expression": "6*7"}, "6*7 = 42"),
        ("clock", {"timezone": "UTC"}, "(UTC, UTC+0000)"),
        ("weather", {"location": "Oslo"}, "Oslo today: snow"),
        ("contacts", {"name": "ada"}, '"phone": "5"'),
        ("message", {"recipient": "Ada", "text": "hi"}, "message sent to Ada"),
        ("file_read", {"path": "todo.txt"}, "buy milk"),
        ("file_write", {"path": "new.txt", "content": "x"}, "created new.txt"),
        ("file_list", {}, "new.txt (1 bytes)"),
        ("file_patch", {"path": "new.txt", "append": "y"}, "appended 1 characters"),
        ("file_move", {"source": "new.txt", "destination": "moved.txt"}, "moved new.txt"),
        ("file_delete", {"path": "moved.txt"}, "deleted moved.txt"),
        ("git", {"action": "branch", "path": "repo"}, "(no output)"),
        ("web_fetch", {"url": "https://news.test/"}, "News (https://news.test/)\nRain."),
        ("web_search", {"query": "rain"}, "- News <https://news.test/>"),
        ("docs_search", {"query": "refunds"}, '"id": "faq"'),
        ("docs_index", {}, '{"pages": ["faq"]}'),
        ("memory", {"action": "save", "text": "Ada likes tea"}, "saved (1 note(s)"),
        ("ticket", {"action": "move", "ticket_id": "T-1", "state": "done"}, "moved from"),
    ]
    assert sorted(name for name, _, _ in calls) == sorted(HOSTED_ROLES)  # every tool, once

    async def session(c: Client) -> list[str]:
        return [_text(await c.call_tool(name, args)) for name, args, _ in calls]

    host.begin(world)
    texts = _run(host, session)
    info = host.end()
    records = host.take_calls()
    for (name, _, expected), text in zip(calls, texts, strict=True):
        assert expected in text, (name, text)
    assert [(r.name, r.origin, r.ok) for r in records] == [
        (n, "harness", True) for n, _, _ in calls
    ]
    assert [r.arguments for r in records] == [args for _, args, _ in calls]
    assert [r.result for r in records] == texts
    assert all(r.started_at and r.duration_ms is not None for r in records)
    assert info.url == host.url and info.refused == 0 and info.faults_fired == 0
    assert json.loads((world / ".tickets" / "T-1.json").read_text())["state"] == "done"


def test_calls_outside_an_attempt_are_refused_and_counted_and_not_served(
    host: HostedTools, world: Path
) -> None:
    async def write(c: Client) -> str:
        try:
            await c.call_tool("file_write", {"path": "late.txt", "content": "x"})
        except MCPError as exc:
            return exc.message
        return "served"

    assert _run(host, write).startswith("no attempt is running on this host")
    host.begin(world)
    assert _run(host, write) == "served"
    host.end()
    assert _run(host, write).startswith("no attempt is running")
    assert host.refused_outside == 2
    records = host.take_calls()
    assert [r.arguments["path"] for r in records] == ["late.txt"]  # only the attempt's
    assert (world / "late.txt").is_file()
    (world / "late.txt").unlink()
    _run(host, write)
    assert not (world / "late.txt").exists()


def test_take_calls_gives_each_call_once_turn_by_turn(host: HostedTools, world: Path) -> None:
    async def calc(c: Client) -> None:
        await c.call_tool("calculator", {"expression": "1+1"})

    host.begin(world)
    _run(host, calc)
    first = host.take_calls()
    _run(host, calc)
    _run(host, calc)
    second = host.take_calls()
    host.end()
    assert (len(first), len(second), host.take_calls()) == (1, 2, [])
    host.begin(world)  # a new attempt starts empty
    assert host.take_calls() == []
    host.end()


async def _error_of(c: Client, name: str, args: dict[str, Any]) -> str:
    try:
        result = await c.call_tool(name, args)
    except MCPError as exc:
        return f"mcp error {exc.code}: {exc.message}"
    return ("tool error: " if result.is_error else "ok: ") + _text(result)


@pytest.mark.parametrize(
    ("name", "args", "answer"),
    [
        ("shell", {"command": "ls"}, "mcp error -32602: unknown tool `shell` (the tools are:"),
        ("file_read", {"path": 7}, "tool error: file_read: argument `path` must be a string"),
        ("file_read", {}, "tool error: file_read: missing required argument `path`"),
        ("memory", {"action": "forget"}, "tool error: memory: argument `action` must be one of"),
        ("file_read", {"path": "../../etc/passwd"}, "tool error: path outside the world"),
        ("file_write", {"path": "/tmp/x", "content": "x"}, "tool error: path outside the world"),
        (
            "file_write",
            {"path": "big.txt", "content": "x" * 5000},
            "mcp error -32602: arguments too large",
        ),
    ],
)
def test_each_bad_call_is_a_clear_error_recorded_and_the_host_keeps_serving(
    world: Path, name: str, args: dict[str, Any], answer: str
) -> None:
    with HostedTools("http://127.0.0.1:0/mcp", HostLimits(max_argument_chars=1000)) as host:

        async def session(c: Client) -> tuple[str, str]:
            bad = await _error_of(c, name, args)
            good = _text(await c.call_tool("file_read", {"path": "todo.txt"}))
            return bad, good

        host.begin(world)
        bad, good = _run(host, session)
        host.end()
        records = host.take_calls()
    assert bad.startswith(answer), bad
    assert good == "buy milk\n"
    assert [(r.name, r.ok) for r in records] == [(name, False), ("file_read", True)]
    assert records[0].error and records[0].error in bad
    assert not (world / "big.txt").exists()
    if name == "file_write" and "content" in args and len(args["content"]) > 1000:
        assert records[0].arguments["content"].endswith("… [5000 characters]")


def test_a_malformed_request_gets_a_json_rpc_error_and_the_host_keeps_serving(
    host: HostedTools, world: Path
) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=10) as http:
        broken = http.post(host.url, content=b"{not json", headers=headers)
        no_method = http.post(host.url, json={"jsonrpc": "2.0", "id": 1}, headers=headers)
        huge = http.post(host.url, content=b"x" * 2_000_000, headers=headers)
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700
    assert no_method.status_code == 400 and "error" in no_method.json()
    assert huge.status_code == 413
    assert host.refused_outside == 3  # no attempt ran: counted as refused outside one

    async def calc(c: Client) -> str:
        return _text(await c.call_tool("calculator", {"expression": "2+3"}))

    host.begin(world)
    with httpx.Client(timeout=10) as http:  # during an attempt: the attempt's record says so
        assert http.post(host.url, content=b"[", headers=headers).status_code == 400
    assert _run(host, calc) == "2+3 = 5"
    assert [c.name for c in host.take_calls()] == ["calculator"]  # no tool ran: no call
    assert host.end().malformed == 1


def test_a_flood_of_calls_is_bounded_per_attempt_and_the_excess_counted(world: Path) -> None:
    with HostedTools("http://127.0.0.1:0/mcp", HostLimits(max_calls=3)) as host:

        async def flood(c: Client) -> list[str]:
            return [await _error_of(c, "calculator", {"expression": f"{i}+1"}) for i in range(5)]

        host.begin(world)
        answers = _run(host, flood)
        info = host.end()
        records = host.take_calls()
        host.begin(world)  # the bound is per attempt: the next one is served again
        again = _run(host, flood)
        host.end()
    assert answers[:3] == ["ok: 0+1 = 1", "ok: 1+1 = 2", "ok: 2+1 = 3"]
    assert all(
        a.startswith("mcp error -32600: refused: this attempt already made 3") for a in answers[3:]
    )
    assert info.refused == 2
    assert [r.ok for r in records] == [True, True, True, False, False]
    assert again[0] == "ok: 0+1 = 1"


def test_a_long_result_is_capped_the_same_for_the_agent_and_the_record(world: Path) -> None:
    (world / "long.txt").write_text("a" * 100, encoding="utf-8")
    with HostedTools("http://127.0.0.1:0/mcp", HostLimits(max_result_chars=30)) as host:

        async def read(c: Client) -> str:
            return _text(await c.call_tool("file_read", {"path": "long.txt"}))

        host.begin(world)
        seen = _run(host, read)
        host.end()
        (record,) = host.take_calls()
    assert seen == "a" * 30 + "\n[... 70 more characters not shown]"
    assert record.result == seen and record.result_chars == 100


def test_a_client_on_the_legacy_handshake_is_served_too(host: HostedTools, world: Path) -> None:
    async def calc(c: Client) -> str:
        return _text(await c.call_tool("calculator", {"expression": "2^10"}))

    host.begin(world)
    assert _run(host, calc, mode="legacy") == "2^10 = 1024"
    host.end()


def test_a_busy_or_non_loopback_address_is_a_usage_error(host: HostedTools) -> None:
    with pytest.raises(UsageError, match="cannot serve at"):
        HostedTools(host.url).start()
    for url in ("http://0.0.0.0:8765/mcp", "http://10.0.0.5:8765/mcp", "https://127.0.0.1:1/m"):
        with pytest.raises(UsageError, match="not an http URL on the loopback"):
            HostedTools(url).start()


def test_close_frees_the_port(world: Path) -> None:
    host = HostedTools("http://127.0.0.1:0/mcp")
    host.start()
    url = host.url
    with pytest.raises(RuntimeError, match="already serving"):
        host.start()
    host.close()
    host.close()  # twice is fine
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))


def test_importing_the_hosted_package_loads_no_mcp_server_code() -> None:
    code = (
        "import sys, agenttest.hosted\n"
        "heavy = [m for m in ('mcp', 'uvicorn', 'starlette', 'mcp_types') if m in sys.modules]\n"
        "print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
