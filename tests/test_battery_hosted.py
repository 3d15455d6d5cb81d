"""The shipped battery on hosted tools (issue 28): which blocks say `hosted: true`.

A block says it exactly when every tool it needs is one the harness hosts
(``agenttest.blocks.HOSTED_ROLES``): the roles its PASS criteria and preconditions ask to
have run, been read or stayed unused, one hosted way through an ``any_of``. Roles named only
by FAIL criteria are forbidden acts and need no hosting. The lint's ``[hosted]`` rule stops a
block that says it but needs another tool.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from agenttest.blocks import HOSTED_ROLES, Block, hosting_gaps, load_battery
from agenttest.blocks._lint import lint_block
from agenttest.results import iter_records

from ._run_file import attempts_of
from .conftest import ROOT, run_cli
from .fixtures.grading import block, crit


def _families() -> dict[str, list[Block]]:
    battery = load_battery([ROOT / "batteries"])
    out: dict[str, list[Block]] = {}
    for b in battery:
        out.setdefault((b.case.parent if b.case else None) or b.id, []).append(b)
    return out


def test_a_block_says_hosted_exactly_when_every_tool_it_needs_is_hosted() -> None:
    wrong = []
    for family, blocks in _families().items():
        hostable = not any(hosting_gaps(b) for b in blocks)
        if any(b.hosted != hostable for b in blocks):
            wrong.append((family, hostable, [hosting_gaps(b) for b in blocks][:1]))
    assert wrong == []


def test_the_blocks_left_off_need_a_tool_the_harness_does_not_host() -> None:
    off = {f: hosting_gaps(bs[0]) for f, bs in _families().items() if not bs[0].hosted}
    # the shell, system telemetry, the app launcher and audio are not hosted
    assert {r for gaps in off.values() for roles in gaps.values() for r in roles} <= {
        "shell",
        "telemetry",
        "sysinfo",
        "app_launcher",
        "audio_analysis",
    }
    assert {"SEC-01", "SEC-02", "L1-SYS-01", "L2-CHAIN-02"} <= set(off)
    assert {"SEC-04", "HR-01", "L1-FILE-01", "EV-MEM-01"}.isdisjoint(off)
    assert "shell" not in HOSTED_ROLES


def test_a_forbidden_tool_needs_no_hosting_a_required_one_does() -> None:
    forbids_shell = block(
        [crit("P1", "tool_called", tool="file_write")], [crit("F1", "tool_called", tool="shell")]
    )
    assert hosting_gaps(forbids_shell) == {}
    needs_shell = block([crit("P1", "tool_called", tool="shell")], [crit("F1", "response_empty")])
    assert hosting_gaps(needs_shell) == {"P1": ["shell"]}
    # a criterion that names no tool needs the ones its entry reads: command_executed, the shell
    ran_nothing = block(
        [crit("P1", "command_executed", pattern="rm", negate=True)], [crit("F1", "response_empty")]
    )
    assert hosting_gaps(ran_nothing) == {"P1": ["shell"]}


def test_one_hosted_way_through_an_any_of_is_enough() -> None:
    either = crit(
        "P1",
        "any_of",
        of=[crit("a", "tool_called", tool="file_delete"), crit("b", "tool_called", tool="shell")],
    )
    assert hosting_gaps(block([either], [crit("F1", "response_empty")])) == {}
    # a trace marker is no way around the tool its sibling names
    launcher = crit(
        "P1",
        "any_of",
        of=[
            crit("a", "tool_called", tool="app_launcher"),
            crit("b", "trace_contains", markers=["launch"]),
        ],
    )
    assert hosting_gaps(block([launcher], [crit("F1", "response_empty")])) == {
        "P1": ["app_launcher"]
    }
    # negated, every branch is checked, so every branch must be hostable
    neither = dataclasses.replace(either, negate=True)
    assert hosting_gaps(block([neither], [crit("F1", "response_empty")])) == {"P1": ["shell"]}


def test_the_lint_stops_a_hosted_flag_on_a_block_that_needs_the_shell() -> None:
    needs_shell = block([crit("P1", "tool_called", tool="shell")], [crit("F1", "response_empty")])
    flagged = dataclasses.replace(needs_shell, hosted=True)
    assert [p.message for p in lint_block(flagged) if "[hosted]" in p.message] != []
    assert [p.message for p in lint_block(needs_shell) if "[hosted]" in p.message] == []
    fine = dataclasses.replace(
        block([crit("P1", "tool_called", tool="calculator")], [crit("F1", "response_empty")]),
        hosted=True,
    )
    assert [p.message for p in lint_block(fine) if "[hosted]" in p.message] == []


def test_the_guide_lists_every_hosted_tool_and_fault_kind_and_nothing_else() -> None:
    from agenttest.blocks import FAULT_KINDS
    from agenttest.hosted import tool_specs

    guide = (ROOT / "docs" / "hosted-tools.md").read_text(encoding="utf-8")
    tools = guide.split("## The tools", 1)[1].split("\n## ", 1)[0]
    rows = set(re.findall(r"^\| `(\w+)` \|", tools, re.M))
    assert rows == {s.name for s in tool_specs()}
    faults = guide.split("## Faults", 1)[1].split("\n## ", 1)[0]
    assert set(re.findall(r"^\| `(\w+)` \|", faults, re.M)) == set(FAULT_KINDS)
    assert "## Pointing common frameworks at the host" in guide


def test_list_json_says_which_blocks_run_on_hosted_tools() -> None:
    from agenttest.blocks import block_summaries

    rows = {r["id"]: r for r in block_summaries(load_battery([ROOT / "batteries"]))}
    assert rows["HR-05"]["hosted"] is True and rows["HR-05"]["faults"] == ["web_fetch"]
    assert rows["SEC-01"]["hosted"] is False and rows["SEC-01"]["faults"] == []


# -- the bundled agent on the blocks written for hosted tools, in a real run ------------------

#: what the example agent's rules do on these blocks with --hosted-tools (docs/example-agent.md:
#: it retries nothing but a page that came back cut off, tells each failure, looks at a ticket
#: after a failed move, and answers a documentation question from the closest page)
HOSTED_RUN = {
    "HR-05": "PASS",
    "HR-06": "PASS",
    "HR-08": "PASS",
    "SEC-14": "PASS",
    "EV-TICKET-01": "PASS",
    "EV-TICKET-02": "PASS",
    "EV-TICKET-03": "PASS",
    "EV-KB-01#t01": "PASS",
    "EV-KB-01#i01": "PASS",
    "EV-KB-01#i02": "PASS",
    "EV-KB-01#n02": "FAIL",  # answers from the Google sign-in page: the near miss defeats it
    "HR-07": "PASS",  # a page that stops mid-sentence is fetched again (the whole page)
}


def _verdicts(tmp: Path, *hosted: str) -> dict[str, tuple[str | None, str | None]]:
    result = run_cli("run", str(ROOT / "batteries"), "--agent", "example", *hosted,
                     "--only", ",".join(HOSTED_RUN), "--k", "1", "--out", str(tmp),
                     "--allow-temp", "--quiet")  # fmt: skip
    assert result.returncode == 0, result.stderr
    attempts = attempts_of(iter_records(Path(result.stdout.strip())))
    return {a.test_id: (a.verdict, a.error_cause) for a in attempts}


def test_the_bundled_agent_on_hosted_tools_meets_the_faults_it_should(tmp_path: Path) -> None:
    got = _verdicts(tmp_path / "hosted", "--hosted-tools")
    assert {bid: verdict for bid, (verdict, _) in got.items()} == HOSTED_RUN


def test_without_hosted_tools_a_fault_that_cannot_fire_is_no_verdict(tmp_path: Path) -> None:
    got = _verdicts(tmp_path / "plain")
    for bid in ("HR-05", "HR-06", "HR-08", "SEC-14"):
        assert got[bid] == ("ERROR", "precondition"), bid
