"""Hosted tools in a run: the harness serves each replica's tools over MCP, lays every
attempt's world itself and records the calls it served on their turn.

The agents here are real loopback agents (native protocol) that call the harness's tools
with the official MCP client while they answer a turn, as an agent configured with
``hosted_tools`` would. What the records say is checked against what the agents did.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from agenttest.results import ReadNotes, check_record, iter_records
from agenttest.runner import Progress, RunRequest, run

from ._patience import EVENTUALLY_S
from ._run_file import attempts_of, end_of, meta_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, free_port, run_config, write_battery
from .conftest import ROOT, run_cli

# -- a run without hosted tools pays nothing for them ---------------------------------------------

_IMPORTS = """\
import runpy, sys
sys.argv = ["agenttest", *sys.argv[1:]]
try:
    runpy.run_module("agenttest", run_name="__main__")
except SystemExit as exc:
    code = exc.code
heavy = sorted(
    m for m in sys.modules
    if m.split(".")[0] in ("mcp", "starlette", "uvicorn", "sse_starlette")
    or m.startswith("agenttest.hosted")
)
print(json.dumps({"code": code, "heavy": heavy}))
"""


def test_a_run_without_hosted_tools_imports_no_mcp_module(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-PLAIN-01": (1, 1)})
    config = tmp_path / "agent.yaml"
    with LoopbackAgent() as agent:
        config.write_text(agent_yaml(agent.url), encoding="utf-8")
        done = subprocess.run(
            [
                sys.executable, "-c", "import json\n" + _IMPORTS, "run", str(battery),
                "--agent", str(config), "--out", str(tmp_path / "out"), "--allow-temp",
                "--judge", "none", "--quiet",
            ],
            capture_output=True, text=True, timeout=EVENTUALLY_S,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["code"] in (0, None) and agent.state.turns == 1  # the run really ran
    assert seen["heavy"] == []


# -- an agent that takes its tools from the harness -----------------------------------------------


def call_tool(url: str, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """Call one hosted tool with the official MCP client: (is an error, its text). A call
    the server refuses outright (an MCP error, not a tool result) is an error too."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def go() -> tuple[bool, str]:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            result = await s.call_tool(name, arguments)
        text = "".join(getattr(part, "text", "") for part in getattr(result, "content", []))
        return bool(getattr(result, "is_error", False) or getattr(result, "isError", False)), text

    try:
        return anyio.run(go)
    except Exception as exc:  # the MCP error the client raises for a refused call
        return True, str(exc)


Script = dict[int, list[tuple[str, dict[str, Any]]]]


class Notes(Progress):
    """A run's progress that keeps what the run said."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def note(self, message: str) -> None:
        self.said.append(message)


Seen = list[tuple[int, str, bool, str]]


def hosted_agent(url: str, script: Script, seen: Seen, *, at_reset: bool = False) -> Behaviour:
    """A loopback agent that, on its n-th turn, makes the hosted calls ``script[n]`` at
    ``url`` (in ``seen``: turn, tool, error, text) and reports none of them itself;
    ``at_reset``: it also calls the calculator whenever its session is reset (turn 0),
    which is before the harness opens the attempt to calls."""

    def on_turn(n: int) -> None:
        for name, arguments in script.get(n, []):
            error, text = call_tool(url, name, arguments)
            seen.append((n, name, error, text))

    def on_reset(_body: dict[str, Any]) -> None:
        error, text = call_tool(url, "calculator", {"expression": "1+1"})
        seen.append((0, "calculator", error, text))

    return Behaviour(on_turn=on_turn, tool_calls=[], on_reset=on_reset if at_reset else None)


def hosted_url() -> str:
    return f"http://127.0.0.1:{free_port()}/mcp"


WORLD_BLOCK = """\
fixtures:
  - {kind: file, path: notes/a.txt, content: "hello world"}
  - {kind: memory_seed, content: "the deploy key lives in vault"}
  - {kind: ticket, ticket_id: T-1, state: open, transitions: {open: [done]}, content: Ship it}
"""


def hosted_battery(tmp_path: Path, k: int, turns: int = 2) -> Path:
    battery: Path = write_battery(tmp_path / "battery", {"L1-HOST-01": (turns, k)})
    block = battery / "L1-HOST-01.yaml"
    block.write_text(block.read_text("utf-8") + WORLD_BLOCK, encoding="utf-8")
    return battery


def test_hosted_calls_are_recorded_on_their_turn_in_a_fresh_world(tmp_path: Path) -> None:
    url = hosted_url()
    seen: list[tuple[int, str, bool, str]] = []
    script: Script = {}
    for n in (1, 3):  # two attempts of two turns: the same calls in each
        script[n] = [
            ("file_read", {"path": "notes/a.txt"}),
            ("file_list", {"path": "."}),
            ("file_write", {"path": "leak.txt", "content": f"written in turn {n}"}),
        ]
        script[n + 1] = [
            ("memory", {"action": "recall", "text": "deploy key"}),
            ("ticket", {"action": "show", "ticket_id": "T-1"}),
            ("ticket", {"action": "move", "ticket_id": "T-1", "state": "done"}),
        ]
    battery = hosted_battery(tmp_path, k=2)
    with LoopbackAgent(hosted_agent(url, script, seen, at_reset=True)) as agent:
        config = tmp_path / "agent.yaml"
        config.write_text(agent_yaml(agent.url, hosted_tools={"url": url}), encoding="utf-8")
        path = run_config(tmp_path, battery, config, judge="none")
    records = list(iter_records(path))
    attempts = attempts_of(records)
    assert [a.run for a in attempts] == [1, 2]
    for attempt in attempts:
        assert attempt.hosted is not None and attempt.hosted.url == url
        assert attempt.fixtures_applied is True
        first, second = attempt.turns
        assert first.tool_calls == [] and second.tool_calls == []  # the agent reported none
        assert [c.name for c in first.hosted_calls] == ["file_read", "file_list", "file_write"]
        assert [c.name for c in second.hosted_calls] == ["memory", "ticket", "ticket"]
        calls = first.hosted_calls + second.hosted_calls
        assert {c.origin for c in calls} == {"harness"}
        assert all(c.ok is True and c.started_at and c.duration_ms is not None for c in calls)
        assert first.hosted_calls[0].arguments == {"path": "notes/a.txt"}
    # what the agent saw, per attempt: the fixtures laid, and nothing the first one wrote
    by_turn = {(n, name): text for n, name, _error, text in seen}
    for n in (1, 3):
        assert "hello world" in by_turn[(n, "file_read")]
        assert "leak.txt" not in by_turn[(n, "file_list")]
        assert "vault" in by_turn[(n + 1, "memory")]
    assert [error for n, _name, error, _text in seen if n] == [False] * 12
    assert meta_of(records).agent["hosted_tools"] == {"url": url}
    # a call while no attempt runs (the agent's session being reset) is refused and counted,
    # and belongs to no attempt
    assert [error for n, _name, error, _text in seen if n == 0] == [True, True]
    assert end_of(records).hosted_refused_outside == 2
    assert all(c.name != "calculator" for a in attempts for t in a.turns for c in t.hosted_calls)
    with pytest.raises(OSError):  # the host closed with the run: nothing listens there now
        socket.create_connection(("127.0.0.1", urlsplit(url).port or 0), timeout=10).close()


def test_each_replica_of_a_pool_has_its_own_host_and_world(tmp_path: Path) -> None:
    urls = [hosted_url(), hosted_url()]
    seen: list[Seen] = [[], []]
    scripts: list[Script] = [
        {n: [("file_write", {"path": f"by-{i}-{n}.txt", "content": "x"}), ("file_list", {})]
         for n in range(1, 7)}
        for i in (0, 1)
    ]  # fmt: skip
    battery = write_battery(tmp_path / "battery", {"L1-POOL-01": (1, 6)})
    agents = [LoopbackAgent(hosted_agent(urls[i], scripts[i], seen[i])).start() for i in (0, 1)]
    try:
        replicas = [
            {"base_url": agent.url, "hosted_tools": {"url": url}}
            for agent, url in zip(agents, urls, strict=True)
        ]
        config = tmp_path / "agent.yaml"
        text = agent_yaml(agents[0].url, replicas=replicas)
        config.write_text(text, encoding="utf-8")
        request = RunRequest(
            paths=[str(battery)], agent=str(config), out=tmp_path / "out", allow_temp=True,
            judge="none",
        )  # fmt: skip
        notes = Notes()
        records = list(iter_records(run(request, progress=notes)))
    finally:
        for agent in agents:
            agent.stop()
    attempts = attempts_of(records)
    assert len(attempts) == 6
    served = {0: 0, 1: 0}
    for attempt in attempts:
        replica = attempt.replica
        assert replica in (0, 1) and attempt.hosted is not None
        assert attempt.hosted.url == urls[replica]
        write, listing = attempt.turns[0].hosted_calls
        assert write.arguments["path"].startswith(f"by-{replica}-")  # its own agent's call
        assert listing.result is not None and write.arguments["path"] in str(listing.result)
        assert str(listing.result).count("by-") == 1  # alone in a fresh world
        served[replica] += 1
    assert served == {0: agents[0].state.turns, 1: agents[1].state.turns}
    assert sum(len(s) for s in seen) == 12 and not any(e for s in seen for _n, _t, e, _x in s)
    assert end_of(records).hosted_refused_outside == 0
    # the run says that each replica's tools are hosted, and where
    for i, url in enumerate(urls):
        assert any(n.startswith(f"replica {i}: hosted tools at {url} ") for n in notes.said)


def test_a_hosted_run_killed_and_resumed_keeps_valid_records(tmp_path: Path) -> None:
    """SIGKILL mid-attempt (no run_end, the host gone with the process): --resume serves
    the tools again at the same URL and the file holds every attempt, each with its host's
    record, every line valid."""
    url = hosted_url()
    seen: Seen = []
    out = tmp_path / "out"
    running: list[subprocess.Popen[str]] = []
    calls = [("file_write", {"path": "n.txt", "content": "1"}), ("file_read", {"path": "n.txt"})]

    def on_turn(n: int) -> None:
        if n == 2:  # attempt 2 of the first session: attempt 1 is on disk by now
            running[0].kill()
            running[0].wait(EVENTUALLY_S)
            return
        for name, arguments in calls:
            seen.append((n, name, *call_tool(url, name, arguments)))

    battery = write_battery(tmp_path / "battery", {"L1-KILL-01": (1, 3)})
    config = tmp_path / "agent.yaml"
    with LoopbackAgent(Behaviour(on_turn=on_turn, tool_calls=[])) as agent:
        config.write_text(agent_yaml(agent.url, hosted_tools={"url": url}), encoding="utf-8")
        args = ["--judge", "none", "--quiet"]
        first = subprocess.Popen(
            [sys.executable, "-m", "agenttest", "run", str(battery), "--agent", str(config),
             "--out", str(out), "--allow-temp", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        running.append(first)
        first.communicate(timeout=EVENTUALLY_S)
        assert first.returncode == -9  # killed, not finished
        (path,) = out.glob("*.jsonl")
        before = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
        assert [r["record_type"] for r in before] == ["run_meta", "attempt"]
        resumed = run_cli("run", "--resume", str(path), "--allow-temp", *args)
    assert resumed.returncode == 0, resumed.stderr
    raw = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert all(check_record(record) is None for record in raw)
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    assert notes.invalid == [] and notes.torn_lines == []
    attempts = attempts_of(records)
    assert [a.run for a in attempts] == [1, 2, 3]
    for attempt in attempts:
        assert attempt.hosted is not None and attempt.hosted.url == url
        assert [c.name for c in attempt.turns[0].hosted_calls] == ["file_write", "file_read"]
    assert [n for n, *_ in seen] == [1, 1, 3, 3, 4, 4] and not any(e for _n, _t, e, _x in seen)
    assert end_of(records).reason == "completed"


# -- bad input: a clear error, exit 2, no run file ------------------------------------------------


def test_a_busy_hosted_tools_address_stops_the_run_before_any_file(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-BUSY-01": (1, 1)})
    config = tmp_path / "agent.yaml"
    with socket.socket() as taken, LoopbackAgent() as agent:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        url = f"http://127.0.0.1:{taken.getsockname()[1]}/mcp"
        config.write_text(agent_yaml(agent.url, hosted_tools={"url": url}), encoding="utf-8")
        done = run_cli(
            "run", str(battery), "--agent", str(config), "--out", str(tmp_path / "out"),
            "--allow-temp", "--judge", "none",
        )  # fmt: skip
        turns = agent.state.turns
    assert done.returncode == 2, done.stderr
    assert url in done.stderr and "Traceback" not in done.stderr
    assert turns == 0 and list((tmp_path / "out").glob("*.jsonl")) == []


def test_hosted_tools_flag_is_for_the_bundled_agent(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-FLAG-01": (1, 1)})
    config = tmp_path / "agent.yaml"
    config.write_text(agent_yaml("http://127.0.0.1:9"), encoding="utf-8")
    done = run_cli(
        "run", str(battery), "--agent", str(config), "--hosted-tools", "--out",
        str(tmp_path / "out"), "--allow-temp",
    )  # fmt: skip
    assert done.returncode == 2
    assert "--hosted-tools" in done.stderr and "hosted_tools: {url: ...}" in done.stderr


# -- the bundled agent on hosted tools ------------------------------------------------------------


def test_the_example_agent_on_hosted_tools_end_to_end(tmp_path: Path) -> None:
    """`--agent example --hosted-tools --replicas 2`: a free port per replica, each agent
    started with its URL, its file written in the harness's world and graded from there."""
    out = tmp_path / "out"
    done = run_cli(
        "run", str(ROOT / "batteries"), "--agent", "example", "--hosted-tools",
        "--replicas", "2", "--only", "L1-FILE-01,L1-CALC-01", "--k", "2", "--out", str(out),
        "--allow-temp", "--judge", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = list(iter_records(Path(done.stdout.strip())))
    meta = meta_of(records)
    assert meta.selection is not None and meta.selection.hosted_tools is True
    urls = [entry["hosted_tools"]["url"] for entry in meta.agent["replicas"]]
    assert len(set(urls)) == 2 and all(u.startswith("http://127.0.0.1:") for u in urls)
    assert all(f"hosted tools at {u}" in done.stderr for u in urls)  # the progress says where
    attempts = attempts_of(records)
    assert len(attempts) == 4
    for attempt in attempts:
        assert attempt.replica is not None and attempt.hosted is not None
        assert attempt.hosted.url == urls[attempt.replica]
        calls = [c for turn in attempt.turns for c in turn.hosted_calls]
        wanted = "file_write" if attempt.test_id == "L1-FILE-01" else "calculator"
        assert [c.name for c in calls if c.name == wanted] and {c.origin for c in calls} == {
            "harness"
        }
        assert attempt.verdict == "PASS", (attempt.test_id, attempt.criteria)
    files = [a for a in attempts if a.test_id == "L1-FILE-01"]
    assert all(
        "Pheron Agent test 2026" in str((a.workspace_files or {}).get("notes/pheron_test.txt"))
        for a in files
    )


def test_a_resumed_hosted_tools_run_hosts_the_tools_again(tmp_path: Path) -> None:
    """The flag is kept in run_meta.selection: --resume without it hosts the tools again."""
    out = tmp_path / "out"
    args = ["--only", "L1-CALC-01", "--k", "2", "--allow-temp", "--judge", "none", "--quiet"]
    done = run_cli(
        "run", str(ROOT / "batteries"), "--agent", "example", "--hosted-tools", "--out",
        str(out), *args,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    lines = path.read_text("utf-8").splitlines()
    assert [json.loads(line)["record_type"] for line in lines] == [
        "run_meta", "attempt", "attempt", "run_end",
    ]  # fmt: skip
    path.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")  # the run stopped after one
    resumed = run_cli("run", "--resume", str(path), "--allow-temp", "--judge", "none")
    assert resumed.returncode == 0, resumed.stderr
    attempts = attempts_of(list(iter_records(path)))
    assert [a.run for a in attempts] == [1, 2]
    second = attempts[1]
    assert second.hosted is not None and second.hosted.url.startswith("http://127.0.0.1:")
    assert "calculator" in [c.name for t in second.turns for c in t.hosted_calls]
    assert second.verdict == "PASS"
