"""The report says which evidence decided each attempt (issue 28): harness, agent or log,
per block and per attempt, in Markdown, HTML, JSON and JUnit; the failing attempts show the
harness's record beside the agent's report and the unreported calls as notes. Run files
whose grades never said (written before) get no section.

The attempts are graded by the real grader (a liar, an honest agent, one that does not
report its call, an agent without hosted tools) and written as a run writes them.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agenttest.grading import grade_attempt
from agenttest.reporting import build_report, render
from agenttest.results import Attempt, HostedInfo, PlanEntry, RunMeta, ToolCall

from ._cdp import CHROMIUM, Browser
from .fixtures.grading import attempt, block, call, crit, turn
from .fixtures.reports.builders import write

SUM: dict[str, Any] = {"expression": "1850 * 0.18"}
SERVED = ToolCall(name="calculator", arguments=SUM, ok=True, result="333", origin="harness")
HOST = HostedInfo(url="http://127.0.0.1:8765/mcp")
BLOCK = block(
    [crit("P1", "tool_called", tool="calculator"), crit("P2", "response_number", value=333)]
)

#: (test id, run, the attempt as the agent and the harness left it)
ATTEMPTS = [
    ("H-LIAR", 1, attempt(turn("333", [call("calculator", result="333", **SUM)]), hosted=HOST)),
    (
        "H-HONEST",
        1,
        attempt(turn("333", [call("calculator", **SUM)], hosted_calls=[SERVED]), hosted=HOST),
    ),
    ("H-SILENT", 1, attempt(turn("333", [], hosted_calls=[SERVED]), hosted=HOST)),
    ("PLAIN", 1, attempt(turn("333", [call("calculator", result="333", **SUM)]))),
]


def graded(test_id: str, run: int, a: Attempt) -> dict[str, object]:
    a = msgspec.structs.replace(a, test_id=test_id, run=run, tier="L1", k=1)
    grade_attempt(BLOCK, a).write_into(a)
    a.schema_version = "2.3"
    return msgspec.to_builtins(a)  # type: ignore[no-any-return]


def run_file(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    meta = RunMeta(
        schema_version="2.3",
        run_id="r1",
        plan=[PlanEntry(test_id=str(r["test_id"]), runs=1) for r in records],
    )
    return write(tmp_path / "run.jsonl", [msgspec.to_builtins(meta), *records])


def hosted_run(tmp_path: Path) -> Path:
    return run_file(tmp_path, [graded(t, n, a) for t, n, a in ATTEMPTS])


def test_the_section_counts_each_source_per_block_and_lists_every_attempt(tmp_path: Path) -> None:
    report = build_report([hosted_run(tmp_path)], battery=None)
    section = report.evidence
    assert section is not None
    assert section.totals == (("harness", 3), ("agent", 1))
    assert [(r.test_id, r.counts, r.unreported) for r in section.rows] == [
        ("H-HONEST", (("harness", 1),), 0),
        ("H-LIAR", (("harness", 1),), 0),
        ("H-SILENT", (("harness", 1),), 1),
        ("PLAIN", (("agent", 1),), 0),
    ]
    assert [(a.test_id, a.source, a.unreported) for a in section.attempts] == [
        ("H-HONEST", "harness", 0),
        ("H-LIAR", "harness", 0),
        ("H-SILENT", "harness", 1),
        ("PLAIN", "agent", 0),
    ]


def test_json_carries_the_section_and_each_attempt(tmp_path: Path) -> None:
    data = json.loads(render(build_report([hosted_run(tmp_path)], battery=None), "json"))
    assert data["evidence"]["totals"] == {"harness": 3, "agent": 1}
    assert data["evidence"]["blocks"]["H-SILENT"] == {"harness": 1, "unreported_calls": 1}
    assert {a["test_id"]: a["source"] for a in data["evidence"]["attempts"]} == {
        "H-HONEST": "harness",
        "H-LIAR": "harness",
        "H-SILENT": "harness",
        "PLAIN": "agent",
    }


def test_markdown_shows_the_source_per_attempt_and_the_liars_both_records(tmp_path: Path) -> None:
    md = render(build_report([hosted_run(tmp_path)], battery=None), "md")
    assert "## Evidence that decided" in md
    assert "| H-SILENT | 1 | 0 | 1 |" in md  # harness, agent, unreported calls
    assert "| PLAIN | 0 | 1 | 0 |" in md
    # the liar fails by the rule, and its failing attempt shows where the verdict came from
    assert "| H-LIAR | 1 (r1) | hallucinated\\_tool |  | turn 1 · tool call \\#0 ·" in md
    assert "the agent reports this call; the harness received no call on turn 1" in md
    liar = md[md.index("### H-LIAR") :].split("## Data integrity")[0]
    assert "Evidence: harness (the harness's record of the hosted tool calls it served)." in liar
    assert "Tool calls the agent reported:" in liar
    assert "Tool calls the harness served: none." in liar


def test_html_shows_the_source_the_notes_and_both_call_records(tmp_path: Path) -> None:
    honest_but_wrong = attempt(
        turn("334", [call("calculator", result="333", **SUM)], hosted_calls=[SERVED]), hosted=HOST
    )
    records = [graded(t, n, a) for t, n, a in ATTEMPTS] + [graded("H-WRONG", 1, honest_but_wrong)]
    silent_failing = attempt(turn("334", [], hosted_calls=[SERVED]), hosted=HOST)
    records.append(graded("H-QUIET", 1, silent_failing))
    html = render(build_report([run_file(tmp_path, records)], battery=None), "html")
    assert 'id="evidence"' in html and 'id="evidence-attempts"' in html
    wrong = html[html.index('id="fail-H-WRONG"') :]
    assert "tool calls the agent reported</p>" in wrong
    assert "tool calls the harness served</p>" in wrong
    quiet = html[html.index('id="fail-H-QUIET"') :]
    assert "Note: turn 1 · harness call #0" in quiet


def test_junit_names_the_source_per_block_and_per_failing_attempt(tmp_path: Path) -> None:
    xml = render(build_report([hosted_run(tmp_path)], battery=None), "junit")
    root = ET.fromstring(xml)
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert "evidence: harness 1" in (cases["H-SILENT"].findtext("system-out") or "")
    assert "evidence: agent 1" in (cases["PLAIN"].findtext("system-out") or "")
    failure = cases["H-LIAR"].find("failure")
    assert failure is not None and "r1 run 1: FAIL by rules (evidence: harness)" in (
        failure.text or ""
    )


def test_without_hosted_tools_or_a_log_the_report_is_as_before(tmp_path: Path) -> None:
    plain = graded("PLAIN", 1, ATTEMPTS[-1][2])
    old = {k: v for k, v in plain.items() if k != "evidence_source"}  # written before 2.3
    for records in ([plain], [old]):
        report = build_report([run_file(tmp_path, records)], battery=None)
        assert report.evidence is None
        assert "Evidence that decided" not in render(report, "md")
        assert json.loads(render(report, "json"))["evidence"] is None
        assert "evidence:" not in render(report, "junit")
    # an import read from the agent's log says so
    imported = graded("LOGGED", 1, attempt(turn("333", [call("calculator")], trace_source="log")))
    report = build_report([run_file(tmp_path, [imported])], battery=None)
    assert report.evidence is not None and report.evidence.totals == (("log", 1),)


def test_the_viewer_shows_every_attempts_source_notes_and_served_calls(tmp_path: Path) -> None:
    report = build_report([hosted_run(tmp_path)], battery=None, viewer=True)
    assert report.viewer is not None
    seen = {a["block"]: a for a in report.viewer["attempts"]}
    assert {b: a["evidence_source"] for b, a in seen.items()} == {
        "H-HONEST": "harness",
        "H-LIAR": "harness",
        "H-SILENT": "harness",
        "PLAIN": "agent",
    }
    silent = seen["H-SILENT"]
    assert [c["name"] for c in silent["turns"][0]["hosted_calls"]] == ["calculator"]
    assert silent["turns"][0]["calls"] == []
    assert len(silent["evidence_notes"]) == 1 and "did not report it" in silent["evidence_notes"][0]
    assert seen["PLAIN"]["turns"][0]["hosted_calls"] == [] and seen["PLAIN"]["evidence_notes"] == []


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_an_opened_attempt_shows_its_source_notes_and_served_calls_in_a_browser(
    tmp_path: Path,
) -> None:
    hostile = "<img src=x onerror=\"document.body.setAttribute('data-pwned','served')\">"
    page_call = ToolCall(
        name="web_fetch", arguments={"url": "https://a.example/"}, ok=True, result=hostile,
        origin="harness",
    )  # fmt: skip
    quiet = attempt(turn("done", [], hosted_calls=[SERVED, page_call]), hosted=HOST)
    records = [graded(t, n, a) for t, n, a in ATTEMPTS] + [graded("H-QUIET", 1, quiet)]
    page = tmp_path / "report.html"
    report = build_report([run_file(tmp_path, records)], battery=None, viewer=True)
    page.write_text(render(report, "html"), encoding="utf-8")
    with Browser(1280, 900) as b:
        b.open(page.as_uri() + "?block=H-QUIET")
        b.js("document.querySelector('#v-rows button.open').click()")
        shown = str(b.js("document.querySelector('.attempt-view').textContent"))
        assert "evidence: harness" in shown
        assert "tool calls the harness served" in shown and "web_fetch(" in shown
        assert "Note: turn 1 · harness call #1" in shown
        assert hostile in shown  # the served result is text, never markup
        assert b.js("document.body.getAttribute('data-pwned')") is None
        assert b.js("document.querySelectorAll('.attempt-view img').length") == 0
