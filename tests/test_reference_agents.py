"""Reference misbehaving agents and ``agenttest reference-agents``: a verdict must be earned.

The five agents (idle, echo, yes-man, refuser, liar) each try one way of getting a PASS for
nothing; the check runs a battery against them and holds every block to what it expects of
each (never PASS, unless the block says why). The shipped battery meets every expectation,
and the table in docs/reference-agents.md is the command's own output.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agenttest.agents import REFERENCE_AGENTS, AgentConfig, ReferenceAgent
from agenttest.runner import ReferenceCheck, check_reference_agents

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reference-agents.md"


def _agent(behaviour: str) -> ReferenceAgent:
    return ReferenceAgent(AgentConfig(base_url="http://127.0.0.1:9", model=behaviour))


def test_each_reference_agent_misbehaves_its_own_way() -> None:
    prompt = "read notes/todo.txt, fetch https://example.org/a and add 12 + 30"
    replies = {name: _agent(name).turn("s", prompt, 1).reply for name in REFERENCE_AGENTS}
    assert set(replies) == {"idle", "echo", "yes-man", "refuser", "liar"}
    for name in ("idle", "echo", "yes-man", "refuser"):
        assert replies[name].tool_calls == [], name  # none of them calls (or claims) a tool
    assert replies["echo"].response == prompt
    assert "not sure" in replies["idle"].response
    assert "can't help" in replies["refuser"].response
    assert "Done" in replies["yes-man"].response
    # the liar claims what the prompt asked for, each call "ok", with a result
    claimed = {(c.name, tuple(sorted(c.arguments.items()))) for c in replies["liar"].tool_calls}
    assert ("web_fetch", (("url", "https://example.org/a"),)) in claimed
    assert ("file_read", (("path", "notes/todo.txt"),)) in claimed
    assert any(name == "calculator" for name, _ in claimed)
    assert all(c.ok is True and c.result for c in replies["liar"].tool_calls)


def test_a_reference_agent_is_named_in_an_agent_config() -> None:
    with pytest.raises(ValueError, match="no reference agent 'sloth'"):
        _agent("sloth")


_NAIVE = """\
id: L1-NAIVE-01
tier: L1
category: TEST
title: a block whose only checks are things a shrug satisfies
capability: answers a question directly
turns: ["what is the capital of France?"]
k: 5
criteria:
  pass:
    - {id: P1, tag: STATE, type: no_tool_calls, says: no tool was dispatched}
    - {id: P2, tag: STATE, type: response_empty, negate: true, says: an answer came back}
"""

_EARNED = _NAIVE.replace("L1-NAIVE-01", "L1-EARNED-01").replace(
    "    - {id: P2,",
    "    - {id: P3, tag: KEYWORD, type: response_contains, values: [Paris], says: it answers}\n"
    "    - {id: P2,",
)


def _battery(tmp_path: Path, *texts: str) -> Path:
    folder = tmp_path / "battery"
    folder.mkdir()
    for text in texts:
        block_id = text.split("\n", 1)[0].removeprefix("id: ")
        (folder / f"{block_id}.yaml").write_text(text, encoding="utf-8")
    return folder


def test_a_block_a_shrug_passes_is_a_problem_naming_the_criteria_that_let_it_through(
    tmp_path: Path,
) -> None:
    battery = _battery(tmp_path, _NAIVE, _EARNED)
    check = check_reference_agents([str(battery)])
    # precondition: every agent ran every block once
    assert {(c.block, c.agent) for c in check.cells} == {
        (b, a) for b in ("L1-NAIVE-01", "L1-EARNED-01") for a in REFERENCE_AGENTS
    }
    unmet = {(c.block, c.agent) for c in check.unmet()}
    # every agent but the liar (which claims a tool call) passes the naive block; none
    # passes the block that checks the answer
    assert unmet == {("L1-NAIVE-01", a) for a in ("idle", "echo", "yes-man", "refuser")}
    (problem, *_) = [p for p in check.problems() if "idle" in p.message]
    assert problem.file.endswith("L1-NAIVE-01.yaml")
    assert "expected not PASS" in problem.message
    assert "P1: no tool was dispatched" in problem.message
    assert "P2: an answer came back" in problem.message


def test_a_block_states_which_agent_may_pass_and_is_held_to_it(tmp_path: Path) -> None:
    allowed = _NAIVE.replace(
        "criteria:",
        "reference_agents:\n"
        "  idle: {outcome: PASS, because: a shrug is an answer here}\n"
        "  liar: {outcome: PASS, because: expected to pass though it cannot}\n"
        "criteria:",
    )
    check = check_reference_agents([str(_battery(tmp_path, allowed))])
    by_agent = {c.agent: c for c in check.cells}
    assert by_agent["idle"].met and by_agent["idle"].outcome == "PASS"
    assert not by_agent["liar"].met and by_agent["liar"].outcome == "FAIL"  # held to it
    assert "a shrug is an answer here" in check.table()


def test_the_command_exits_2_with_file_and_line_and_0_when_every_expectation_holds(
    tmp_path: Path,
) -> None:
    def command(battery: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agenttest", "reference-agents", str(battery)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
        )

    bad = command(_battery(tmp_path, _NAIVE))
    assert bad.returncode == 2, bad.stderr
    assert "L1-NAIVE-01.yaml:1: L1-NAIVE-01: the idle agent got PASS" in bad.stderr
    (tmp_path / "battery" / "L1-NAIVE-01.yaml").unlink()
    (tmp_path / "battery" / "L1-EARNED-01.yaml").write_text(_EARNED, encoding="utf-8")
    good = command(tmp_path / "battery")
    assert good.returncode == 0, good.stderr
    assert "every expectation met" in good.stdout


@pytest.fixture(scope="module")
def shipped() -> ReferenceCheck:
    return check_reference_agents([str(ROOT / "batteries")])


def test_the_shipped_battery_meets_every_expectation(shipped: ReferenceCheck) -> None:
    assert len({c.block for c in shipped.cells}) > 100  # the whole battery ran
    assert [str(p) for p in shipped.problems()] == []


def test_no_shipped_block_passes_for_the_idle_echo_yes_man_or_lying_agent_unless_it_says_why(
    shipped: ReferenceCheck,
) -> None:
    passed = [
        (c.block, c.agent)
        for c in shipped.cells
        if "PASS" in c.verdicts and c.agent in ("idle", "echo", "yes-man", "liar")
    ]
    # the one block a shrug passes, because not knowing is its right answer; the liar's
    # claims meet the harness's record of hosted calls and pass nothing
    assert passed == [("L3-MEM-03", "idle")]


def test_the_documented_table_is_the_commands_output(shipped: ReferenceCheck) -> None:
    documented = DOC.read_text(encoding="utf-8").split("## The table\n\n", 1)[1]
    assert documented == shipped.table(), (
        "docs/reference-agents.md is out of date: run `agenttest reference-agents batteries "
        "--table T.md` and put T.md under its '## The table' heading"
    )
