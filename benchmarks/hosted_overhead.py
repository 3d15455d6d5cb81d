"""The hosted tools' cost per call over MCP, against calling the same tool function directly.

    python benchmarks/hosted_overhead.py                 # 300 calls a tool, best of 3
    python benchmarks/hosted_overhead.py --calls 1000 --rounds 5

Both sides run the same tools on the same world (a scratch folder beside this script):
``calculator`` (no I/O: the overhead alone) and ``file_read`` (a small file). The direct side
calls ``agenttest.hosted.call_tool`` in a loop: schema check, faults, the tool, nothing else.
The hosted side is a real client of the official ``mcp`` SDK calling a real ``HostedTools``
on 127.0.0.1 in one kept-open session: JSON-RPC over streamable HTTP, attribution to the
attempt, the call recorded as the harness's ``ToolCall``. The client and the server share
this process (the server in its own thread), so the wall time includes both ends.

A third side posts bare JSON-RPC ``tools/call`` requests with httpx on one kept-alive
connection: the server's share of the round trip without the SDK client's own work.

Printed per tool: milliseconds per call for each side, the difference between the MCP and
the direct side (the host's overhead per call) and their ratio. On a shared machine the wall times swing with the neighbours' load;
the ratio within one run is the figure to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agenttest.hosted import HostedTools, HostLimits, call_tool  # noqa: E402

CASES: dict[str, dict[str, Any]] = {
    "calculator": {"expression": "sqrt(144) + 3^4 * (2 - 0.5)"},
    "file_read": {"path": "notes/todo.txt"},
}


def direct(world: Path, name: str, args: dict[str, Any], calls: int) -> float:
    """Seconds per call of the tool function itself."""
    started = time.perf_counter()
    for _ in range(calls):
        out = call_tool(world, None, name, args)
        assert out.ok, out.error
    return (time.perf_counter() - started) / calls


def hosted(host: HostedTools, name: str, args: dict[str, Any], calls: int) -> float:
    """Seconds per call through an MCP client session against the host."""
    from mcp import Client

    async def main() -> float:
        async with Client(host.url) as client:
            await client.call_tool(name, args)  # the session's first call outside the timing
            started = time.perf_counter()
            for _ in range(calls):
                result = await client.call_tool(name, args)
                assert not result.is_error, result
            return (time.perf_counter() - started) / calls

    return asyncio.run(main())


def raw(host: HostedTools, name: str, args: dict[str, Any], calls: int) -> float:
    """Seconds per call as bare JSON-RPC POSTs on one kept-alive connection: the server's
    share of the round trip, without the SDK client's own work."""
    import httpx

    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    body["params"] = {"name": name, "arguments": args}
    with httpx.Client(timeout=30, headers=headers) as client:
        client.post(host.url, json=body).raise_for_status()
        started = time.perf_counter()
        for _ in range(calls):
            reply = client.post(host.url, json=body)
            assert not reply.json()["result"]["isError"], reply.text
        return (time.perf_counter() - started) / calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls a tool per side")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many")
    args = parser.parse_args()
    world = Path(__file__).resolve().parent / ".hosted_overhead_scratch"
    shutil.rmtree(world, ignore_errors=True)
    (world / "notes").mkdir(parents=True)
    (world / "notes" / "todo.txt").write_text("buy milk\ncall Ada\n" * 20, encoding="utf-8")
    results = {}
    try:
        # the per-attempt bound is lifted: here the calls are the point, not a runaway agent
        limits = HostLimits(max_calls=2 * args.calls + 2)
        with HostedTools("http://127.0.0.1:0/mcp", limits) as host:
            for name, tool_args in CASES.items():
                best_direct = best_hosted = best_raw = float("inf")
                for _ in range(args.rounds):
                    best_direct = min(best_direct, direct(world, name, tool_args, args.calls))
                    host.begin(world)
                    best_hosted = min(best_hosted, hosted(host, name, tool_args, args.calls))
                    best_raw = min(best_raw, raw(host, name, tool_args, args.calls))
                    host.end()
                    recorded = len(host.take_calls())
                    assert recorded == 2 * args.calls + 2, recorded
                results[name] = (best_direct, best_hosted, best_raw)
    finally:
        shutil.rmtree(world, ignore_errors=True)
    print(f"calls per side         {args.calls} a tool (best of {args.rounds})")
    for name, (d, h, r) in results.items():
        print(f"{name:<12} direct     {d * 1000:8.3f} ms/call")
        print(f"{name:<12} over MCP   {h * 1000:8.3f} ms/call  (mcp SDK client; recorded by the harness)")  # fmt: skip
        print(f"{name:<12} raw POSTs  {r * 1000:8.3f} ms/call  (bare JSON-RPC: the server's share)")  # fmt: skip
        print(f"{name:<12} overhead   {(h - d) * 1000:8.3f} ms/call, ratio {h / d:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
