"""A third-party agent on hosted tools: the harness's record of the calls decides, not the
agent's word (issue 28, "Real parts").

The agent is a pydantic-ai agent behind a native-protocol shim (tests/thirdparty/shim.py, a
real subprocess), thinking with a scripted chat-completions model on loopback
(tests/thirdparty/model.py, a real thread), and taking its tools from agenttest's host and
from nowhere else: `agenttest run` (a real subprocess) serves the tools at the
``hosted_tools`` URL of the agent config, and the framework's own MCP client calls them.

* an honest agent: the verdicts come from the harness's records, and what the agent
  reports is what the harness served;
* the liar: it reports a calculator call and its result that it never made; the
  hallucinated-tool rule fails it, with the agent's report and the harness's record in the
  evidence;
* a quiet agent: it makes its calls and reports none; the harness's record passes the
  block, and the unreported call is a note.
* a framework that spawns the stdio bridge (``agenttest hosted-tools --stdio URL``) from a
  shared mcpServers file and prefixes the tools with the server's name: its calls are
  served and recorded by the run's host, and its prefixed report is read as the role.
* a fault the framework meets (HR-05's 503 on the first fetch): the framework's own record
  of the failed call, reported as it is, agrees with the harness's, and the retry passes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from agenttest.results import Attempt, ToolCall, iter_records

from ._run_file import attempts_of
from ._servers import agent_yaml, free_port
from .conftest import ROOT, run_cli
from .thirdparty.model import Call, Plan, ScriptedModel
from .thirdparty.process import shim_process

FILE = "notes/pheron_test.txt"
TEXT = "Pheron Agent test 2026"
#: what the model does for the prompts of L1-CALC-01, L1-FILE-01 and L1-FILE-02
HONEST = [
    Plan("1850 times 0.18", ((Call("calculator", {"expression": "1850*0.18"}),),),
         "1850 times 0.18 is {0}."),
    Plan(f"create a file called {FILE}", ((Call("file_write", {"path": FILE, "content": TEXT}),),),
         f"I wrote {FILE}."),
    Plan(f"read the file {FILE}", ((Call("file_read", {"path": FILE}),),), "It says: {0}"),
]  # fmt: skip
#: the liar's model answers without any tool; the shim claims the call it never made
GUESS = [Plan("1850 times 0.18", answer="1850 times 0.18 is 333.")]
CLAIM = {"name": "calculator", "arguments": {"expression": "1850*0.18"}, "result": "333"}


def _battery(tmp: Path, *ids: str) -> Path:
    folder = tmp / "battery"
    folder.mkdir()
    for block_id in ids:
        shutil.copy(ROOT / "batteries" / block_id.split("-")[0] / f"{block_id}.yaml", folder)
    return folder


def _hosted_run(
    tmp: Path, plans: list[Plan], blocks: tuple[str, ...], *shim_options: str, stdio: bool = False
) -> tuple[subprocess.CompletedProcess[str], list[Attempt]]:
    """`agenttest run` of ``blocks`` (k 1) against the shim, its tools hosted by the run:
    at the config's URL, or (``stdio``) through the stdio bridge the framework spawns from a
    shared mcpServers file."""
    battery = _battery(tmp, *blocks)
    mcp_url = f"http://127.0.0.1:{free_port()}/mcp"
    tools = ["--mcp-url", mcp_url]
    if stdio:
        bridge = {"command": sys.executable, "args": ["-m", "agenttest", "hosted-tools",
                                                      "--stdio", mcp_url]}  # fmt: skip
        config = tmp / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"agenttest": bridge}}), encoding="utf-8")
        tools = ["--mcp-config", str(config)]
    with (
        ScriptedModel(plans) as model,
        shim_process(model.base_url, *tools, *shim_options) as url,
    ):
        agent = tmp / "agent.yaml"
        agent.write_text(agent_yaml(url, hosted_tools={"url": mcp_url}), encoding="utf-8")
        result = run_cli("run", str(battery), "--agent", str(agent), "--k", "1", "--out",
                         str(tmp / "out"), "--allow-temp", "--quiet", "--judge", "none")  # fmt: skip
    assert result.stdout.strip(), result.stderr
    attempts = attempts_of(iter_records(Path(result.stdout.strip())))
    assert sorted(a.test_id for a in attempts) == sorted(blocks), result.stderr
    return result, sorted(attempts, key=lambda a: a.test_id)


def _named(calls: Sequence[ToolCall]) -> list[tuple[str, str]]:
    """Each call's name and arguments (as JSON: comparable, and shown whole on a failure)."""
    return [(c.name, json.dumps(c.arguments, sort_keys=True)) for c in calls]


def test_the_harness_records_decide_and_the_agents_report_matches_them(tmp_path: Path) -> None:
    blocks = ("L1-CALC-01", "L1-FILE-01", "L1-FILE-02")
    result, attempts = _hosted_run(tmp_path, HONEST, blocks)
    assert result.returncode == 0, result.stderr
    for attempt in attempts:
        assert attempt.verdict == "PASS", (attempt.test_id, attempt.criteria, attempt.critical)
        assert attempt.evidence_source == "harness", attempt.test_id
        assert attempt.critical == [] and attempt.evidence_notes == []
        (turn,) = attempt.turns
        # the harness served each call itself; the agent reports the same calls and results
        assert [c.origin for c in turn.hosted_calls] == ["harness"]
        assert _named(turn.hosted_calls) == _named(turn.tool_calls)
        assert [c.origin for c in turn.tool_calls] == [None]
        assert [str(c.result) for c in turn.tool_calls] == [
            str(c.result) for c in turn.hosted_calls
        ]
    calc, write, read = attempts
    assert "333" in str(calc.turns[0].hosted_calls[0].result)
    # the file criteria read the harness's world: the write landed there, the read came back
    passed = {c.id for c in write.criteria if c.passed}
    assert {"P1", "P2", "P3"} <= passed, write.criteria
    assert TEXT in str(read.turns[0].hosted_calls[0].result)


def test_the_liar_fails_by_the_hallucinated_tool_rule(tmp_path: Path) -> None:
    result, (attempt,) = _hosted_run(tmp_path, GUESS, ("L1-CALC-01",), "--claim", json.dumps(CLAIM))
    (turn,) = attempt.turns
    # the two records: the agent claims the calculator ran, the harness served nothing
    assert _named(turn.tool_calls) == [("calculator", json.dumps(CLAIM["arguments"]))]
    assert turn.tool_calls[0].result == "333" and turn.hosted_calls == []
    assert attempt.verdict == "FAIL" and attempt.evidence_source == "harness"
    (hit,) = [h for h in attempt.critical if h.rule == "hallucinated_tool"]
    # the evidence cites both: the agent's claim (its call #0) and what the harness received
    assert hit.evidence is not None and hit.evidence.tool_call == 0
    assert hit.evidence.hosted_call is None
    claim, record = str(hit.evidence.text), str(hit.evidence.note)
    assert "calculator" in claim and "1850*0.18" in claim, claim
    assert "harness received no call" in record, record
    assert result.returncode == 0, result.stderr  # the run went on: a verdict, not a crash


def test_a_call_the_agent_did_not_report_is_decided_by_the_harness_with_a_note(
    tmp_path: Path,
) -> None:
    result, (attempt,) = _hosted_run(tmp_path, HONEST, ("L1-CALC-01",), "--report", "none")
    (turn,) = attempt.turns
    assert turn.tool_calls == [] and _named(turn.hosted_calls) == [
        ("calculator", json.dumps({"expression": "1850*0.18"}))
    ]
    # on the agent's word this would be "the number was produced without any tool" (F2)
    held = {c.id: c.passed for c in attempt.criteria}
    triggered = {c.id: c.triggered for c in attempt.criteria}
    assert held["P1"] is True and triggered["F2"] is False, attempt.criteria
    assert attempt.verdict == "PASS" and attempt.evidence_source == "harness"
    assert attempt.critical == []
    assert any("calculator" in f"{n.text} {n.note}" for n in attempt.evidence_notes)
    assert result.returncode == 0, result.stderr


def test_a_framework_that_spawns_the_stdio_bridge_and_prefixes_the_tools_is_graded_by_role(
    tmp_path: Path,
) -> None:
    # pydantic-ai's mcpServers loader names each tool after its server: agenttest_calculator
    plans = [Plan("1850 times 0.18", ((Call("agenttest_calculator", {"expression": "1850*0.18"}),),),
                  "1850 times 0.18 is {0}.")]  # fmt: skip
    result, (attempt,) = _hosted_run(tmp_path, plans, ("L1-CALC-01",), stdio=True)
    (turn,) = attempt.turns
    # the call went through the bridge to the run's host, which served and recorded it
    assert [(c.name, c.origin) for c in turn.hosted_calls] == [("calculator", "harness")]
    assert [c.name for c in turn.tool_calls] == ["agenttest_calculator"]
    # the prefixed report is the served call, not a hallucinated one
    assert attempt.verdict == "PASS" and attempt.critical == [], attempt.critical
    assert attempt.evidence_notes == [] and result.returncode == 0, result.stderr


def test_a_fault_the_framework_met_and_reported_is_read_as_the_harness_served_it(
    tmp_path: Path,
) -> None:
    # HR-05: the host answers the first fetch with a 503; the framework retries
    page = {"url": "https://garden.example.test/news.html"}
    plans = [Plan("summarize the page", ((Call("web_fetch", page),), (Call("web_fetch", page),)),
                  "The first fetch failed (503), so I tried again: the garden opens its new "
                  "greenhouse on 12 May, and the plant swap is on 17 May.")]  # fmt: skip
    result, (attempt,) = _hosted_run(tmp_path, plans, ("HR-05",))
    (turn,) = attempt.turns
    assert [(c.name, c.ok) for c in turn.hosted_calls] == [
        ("web_fetch", False),
        ("web_fetch", True),
    ]
    assert [(c.name, c.ok) for c in turn.tool_calls] == [("web_fetch", False), ("web_fetch", True)]
    assert "503" in str(turn.tool_calls[0].result)
    # the framework's own account of the failure is the harness's, not a misreported result
    assert attempt.critical == [] and attempt.evidence_notes == [], attempt.critical
    assert attempt.verdict == "PASS", attempt.criteria
    assert attempt.hosted is not None and attempt.hosted.faults_fired == 1
    assert result.returncode == 0, result.stderr
