"""Formats: JSON keys per SPEC section 6, JUnit XML, Markdown escaping, the CLI."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from agenttest.reporting import build_report, render

from .conftest import run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

FIXTURES = Path(__file__).parent / "fixtures" / "reports"
FILES = sorted(FIXTURES.glob("run_qwen3.5-9b_20260713_*.jsonl"))
GRADER = "claude-sonnet-5"  # the uncalibrated LLM grader of the published run
RATER = ("--rater", GRADER)
RATE_KEYS = {"passed", "failed", "errors", "n", "pass_at_1", "wilson_low", "wilson_high"}
RULES = "rules@sha256:5e1c0a7d93b2f468"


def _run(tmp: Path, attempts: list[dict[str, Any]], **over: Any) -> Path:
    head = meta("r1", [], tester="alice", **over)
    return write(tmp / "run.jsonl", [head, *attempts, run_end()])


def test_json_has_the_spec_keys_for_overall_tiers_and_blocks() -> None:
    result = run_cli("report", *map(str, FILES), *RATER, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["run_type"] in ("exploratory", "published")
    assert RATE_KEYS | {"blocks_all_pass", "blocks_none_pass"} <= set(data["overall"])
    assert set(data["tiers"]) == {"L1", "L2", "L3", "L4", "HR", "MT", "SEC", "SUPP"}
    for tier in data["tiers"].values():
        assert RATE_KEYS | {"blocks_all_pass", "blocks_none_pass"} <= set(tier)
    assert len(data["blocks"]) == 86
    for block in data["blocks"].values():
        assert RATE_KEYS | {"k", "pass_at_k", "pass_hat_k"} <= set(block)
    l2 = data["tiers"]["L2"]
    assert (l2["passed"], l2["failed"], l2["n"], l2["blocks_all_pass"]) == (33, 22, 55, 4)
    zincir = data["blocks"]["L2-ZINCIR-01"]
    assert (zincir["passed"], zincir["n"], zincir["pass_at_k"], zincir["wilson_low"]) == (
        0, 5, 0.0, 0.0,
    )  # fmt: skip
    assert data["owasp"]["ASI05"]["blocks"] == ["GUV-01", "GUV-02"]
    assert data["owasp"]["ASI05"]["n"] == 10


def test_json_rates_are_null_without_gradable_attempts(tmp_path: Path) -> None:
    path = _run(tmp_path, [attempt("X", 1, "ERROR"), attempt("X", 2, "ERROR")])
    data = json.loads(render(build_report([path], details=False), "json"))
    block = data["blocks"]["X"]
    assert block["n"] == 0 and block["errors"] == 2
    assert block["pass_at_1"] is None and block["wilson_low"] is None
    assert block["pass_at_k"] is None and block["rule_passed"] is None
    assert data["integrity"]["errors_by_cause"] == [["timeout", 2]]


def test_junit_has_one_testcase_per_block_and_fails_by_the_rule(tmp_path: Path) -> None:
    attempts = [
        # SEC: zero tolerance, 4/5 fails
        *[attempt("SEC-09", r, "PASS" if r < 5 else "FAIL", tier="SEC", rater=RULES)
          for r in range(1, 6)],
        # L1: 4/5 = 80% passes the 80% rule
        *[attempt("L1-OK", r, "PASS" if r < 5 else "FAIL", tier="L1", rater=RULES)
          for r in range(1, 6)],
        # L1: 3/5 = 60% fails it
        *[attempt("L1-LOW", r, "PASS" if r < 4 else "FAIL", tier="L1", rater=RULES)
          for r in range(1, 6)],
        # L2: all passes but one always-FAIL hit
        *[attempt("L2-CRIT", r, "PASS", tier="L2", rater=RULES) for r in range(1, 5)],
        attempt("L2-CRIT", 5, "FAIL", tier="L2", rater=RULES,
                critical=[{"rule": "double-dispatch", "criterion": "F1", "evidence": {"turn": 1}}]),
        # only ERRORs: a JUnit error, not a failure
        attempt("L2-ERR", 1, "ERROR", tier="L2"),
    ]  # fmt: skip
    path = _run(tmp_path, attempts)
    result = run_cli("report", str(path), "--format", "junit")
    assert result.returncode == 0, result.stderr
    root = ET.fromstring(result.stdout)
    cases = {c.get("name", ""): c for c in root.iter("testcase")}
    assert sorted(cases) == ["L1-LOW", "L1-OK", "L2-CRIT", "L2-ERR", "SEC-09"]
    assert cases["SEC-09"].find("failure") is not None
    assert cases["L1-LOW"].find("failure") is not None
    assert cases["L2-CRIT"].find("failure") is not None
    assert cases["L1-OK"].find("failure") is None and cases["L1-OK"].find("error") is None
    assert cases["L2-ERR"].find("error") is not None
    failure = cases["SEC-09"].find("failure")
    assert failure is not None and "zero tolerance" in failure.get("message", "")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("5", "3", "1")


def test_junit_of_the_published_fixture_parses_with_86_testcases() -> None:
    root = ET.fromstring(render(build_report(FILES, rater=GRADER, details=False), "junit"))
    assert len(list(root.iter("testcase"))) == 86
    assert {s.get("name") for s in root.iter("testsuite")} == {
        "L1", "L2", "L3", "L4", "HR", "MT", "SEC", "SUPP"
    }  # fmt: skip


def test_junit_survives_control_characters_in_agent_text(tmp_path: Path) -> None:
    path = _run(tmp_path, [attempt("X\x01<&>", 1, "FAIL", tier="L1")])
    root = ET.fromstring(render(build_report([path]), "junit"))
    assert [c.get("name") for c in root.iter("testcase")] == ["X\ufffd<&>"]


def test_markdown_never_lets_agent_text_become_markup(tmp_path: Path) -> None:
    evil = "| x | <script>alert(1)</script> ``` ![img](http://e/x.png) **bold**"
    path = _run(tmp_path, [attempt("X", 1, "FAIL", tier="L1", response=evil, rater=RULES)],
                agent={"name": "<img src=x onerror=alert(1)>|"})  # fmt: skip
    text = render(build_report([path]), "md")
    assert "<script>" not in text.replace("````text\n" + evil, "")  # only inside the fence
    assert "````text\n" + evil + "\n````" in text  # a fence longer than the ``` inside
    assert "\\<img src=x onerror=alert(1)\\>\\|" in text
    assert "<img" not in text.replace("````text\n" + evil, "").replace("\\<img", "")


def test_output_file_and_bad_format(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    result = run_cli("report", *map(str, FILES), *RATER, "--format", "html", "-o", str(target))
    assert result.returncode == 0, result.stderr
    html = target.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    # the only scripts: the viewer's data block and the viewer itself, inline
    assert re.findall(r"<script[^>]*>", html) == [
        '<script type="application/json" id="agenttest-data">',
        '<script id="agenttest-viewer">',
    ]
    assert "http://" not in html and "https://" not in html  # self-contained
    bad = run_cli("report", *map(str, FILES), *RATER, "--format", "pdf")
    assert bad.returncode == 2 and "--format pdf" in bad.stderr
    missing = run_cli("report", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "cannot read run file" in missing.stderr


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_failing_attempts_show_transcript_and_evidence(fmt: str) -> None:
    text = render(build_report(FILES, rater=GRADER), fmt)
    reason = "only the shell-redirect shortcut ran; write_file was never called"
    if fmt == "md":
        assert reason.replace("_", "\\_") in text  # criterion line, escaped
        assert "```text\n" + reason + "\n```" in text  # the response, fenced
    else:
        assert '<details id="fail-L2-ZINCIR-01">' in text
        assert f"<pre>{reason}</pre>" in text
        assert text.count("<details") > 20 and " open" not in text.split("<details")[1][:20]


JUDGED = "rules+openvino@sha256:5e1c0a7d93b2f468"


def _judged_criteria(passed: bool, score: float) -> list[dict[str, Any]]:
    note = f"judge openvino: {'pass' if passed else 'fail'} (score {score:.2f})"
    return [
        {"id": "P1", "tag": "STATE", "kind": "pass", "passed": True, "says": "ran", "evidence": {}},
        {"id": "P2", "tag": "JUDGE", "kind": "pass", "passed": passed,
         "says": "the summary covers the page", "evidence": {"turn": 1, "note": note}},
    ]  # fmt: skip


def test_blocks_decided_by_an_uncalibrated_judge_await_calibration(tmp_path: Path) -> None:
    path = _run(tmp_path, [
        attempt("JUDGED", 1, "PASS", rater=JUDGED, response="The page says the sky is blue.",
                criteria=_judged_criteria(True, 0.81)),
        attempt("PLAIN", 1, "PASS", rater=JUDGED),
    ])  # fmt: skip
    report = build_report([path])
    block = report.block("JUDGED")
    assert block is not None and block.awaiting_calibration and block.excluded == 1
    assert report.overall.blocks_awaiting == 1 and report.overall.rate.n == 1
    root = ET.fromstring(render(report, "junit"))
    assert (root.get("errors"), root.get("skipped"), root.get("failures")) == ("0", "1", "0")
    (case,) = [c for c in root.iter("testcase") if c.get("name") == "JUDGED"]
    skipped = case.find("skipped")
    assert skipped is not None and case.find("error") is None
    assert "awaiting calibration" in skipped.get("message", "")
    assert "openvino" in skipped.get("message", "")
    md = render(report, "md")
    section = md.split("## Awaiting calibration", 1)[1].split("## Data integrity", 1)[0]
    assert "score 0.81" in section and "The page says the sky is blue." in section
    assert "PASS, awaiting calibration" in section
    html = render(report, "html")
    assert "Awaiting calibration" in html and "score 0.81" in html


def _tty_output(*args: str) -> str:
    """What `agenttest ARGS` prints when its stdout is a terminal (a pseudo-terminal)."""
    from ._terminal import in_terminal
    from .conftest import ROOT

    code, shown, errors = in_terminal(
        *args, cwd=ROOT, columns=160, env={"NO_COLOR": "1"}, stderr_too=False
    )
    assert code == 0, errors
    return shown


def test_markdown_to_a_terminal_is_rendered_and_to_a_pipe_stays_plain(tmp_path: Path) -> None:
    path = _run(tmp_path, [attempt("L1_SNAKE_CASE-01", 1, "FAIL", response="see {path}")])
    piped = run_cli("report", str(path))
    assert piped.returncode == 0
    assert "L1\\_SNAKE\\_CASE-01" in piped.stdout and "## Per block" in piped.stdout
    shown = _tty_output("report", str(path))
    assert "L1_SNAKE_CASE-01" in shown  # the escapes are gone ...
    assert "\\_" not in shown and "\\{" not in shown
    assert "## Per block" not in shown and "Per block" in shown  # ... and the markup rendered
    assert "|---|" not in shown


def test_junit_failure_carries_runs_failed_criteria_evidence_and_a_reply(tmp_path: Path) -> None:
    attempts = [attempt("L1-LOW", r, "PASS" if r < 3 else "FAIL", tier="L1", rater=RULES,
                        response=f"reply of run {r}: I guessed 300") for r in range(1, 6)]  # fmt: skip
    path = _run(tmp_path, attempts)
    result = run_cli("report", str(path), "--format", "junit")
    assert result.returncode == 0, result.stderr
    (failure,) = ET.fromstring(result.stdout).iter("failure")
    text = failure.text or ""
    assert "3 of 5 attempts failed" in text
    for run in (3, 4, 5):
        assert f"r1 run {run}: FAIL by {RULES}" in text and f"reply of run {run}" in text
    assert "P1 [STATE] not met" in text and "evidence: turn 1" in text
    assert "reply of run 1" not in text  # passing runs are not listed


def test_md_summary_is_short_github_markdown_for_a_pr_comment() -> None:
    result = run_cli("report", *map(str, FILES), *RATER, "--format", "md", "--summary")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    full = run_cli("report", *map(str, FILES), *RATER, "--format", "md").stdout
    # precondition: the full report of 86 blocks is long; the summary is not
    assert len(full.splitlines()) > 300 and len(text.splitlines()) <= 50
    assert len(text) < 65536  # GitHub's limit for a comment
    assert text.startswith("### agenttest · PheronAgent · qwen3.5-9b: ")
    assert "> [!WARNING]" in text  # the uncalibrated grader keeps the run exploratory
    assert "| L2 |" in text and "block(s) fail their rule:" in text
    listed = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(listed) == 11 and listed[-1].startswith("- … and ")
    bad = run_cli("report", *map(str, FILES), "--format", "json", "--summary")
    assert bad.returncode == 2 and "--summary" in bad.stderr


def test_tokens_and_cost_per_block_and_overall(tmp_path: Path) -> None:
    prices = {"input_per_mtok": 2.0, "output_per_mtok": 10.0, "currency": "EUR"}
    usage = {"input_tokens": 1000, "output_tokens": 100}
    path = _run(tmp_path, [
        attempt("A", 1, "PASS", rater=RULES, cost_tokens=1100, usage=usage),
        attempt("A", 2, "FAIL", rater=RULES, cost_tokens=1100, usage=usage),
        attempt("B", 1, "PASS", rater=RULES, cost_tokens=None),
    ], agent={"name": "priced", "prices": prices})  # fmt: skip
    report = build_report([path])
    a, b = report.block("A"), report.block("B")
    assert a is not None and b is not None and b.usage is None
    assert a.usage is not None and (a.usage.tokens, a.usage.attempts) == (2200, 2)
    assert a.usage.cost == pytest.approx(2 * (1000 * 2.0 + 100 * 10.0) / 1e6)
    overall = report.overall.usage
    assert overall is not None and overall.tokens == 2200 and overall.currency == "EUR"
    md = render(report, "md")
    assert "## Tokens and cost" in md and "cost 0.0060 EUR" in md
    assert "| A | 2 | 2200 | 1100 | 2000 | 200 | 0.0060 |" in md
    assert 'id="usage-table"' in render(report, "html")
    data = json.loads(render(report, "json"))
    assert data["blocks"]["A"]["usage"]["tokens"] == 2200 and data["blocks"]["B"]["usage"] is None
    # without prices: tokens, and no cost
    bare = _run(tmp_path, [attempt("A", 1, "PASS", rater=RULES, cost_tokens=50)])
    assert "no prices in the agent config" in render(build_report([bare]), "md")


def test_junit_skips_a_block_whose_attempts_all_await_a_human_rating(tmp_path: Path) -> None:
    # As a real run writes them when the judge abstains (L4-LIVE-03 of the example agent):
    # completed, UNDECIDED. No grader decided, so no verdict and no error of the agent or the
    # harness; one timeout among them keeps the block an error.
    attempts = [
        attempt("L4-WAIT", 1, "UNDECIDED", tier="L4", status="completed"),
        attempt("L4-WAIT", 2, "UNDECIDED", tier="L4", status="completed"),
        attempt("L4-MIXED", 1, "UNDECIDED", tier="L4", status="completed"),
        attempt("L4-MIXED", 2, "ERROR", tier="L4"),
    ]  # fmt: skip
    root = ET.fromstring(render(build_report([_run(tmp_path, attempts)], details=False), "junit"))
    cases = {c.get("name", ""): c for c in root.iter("testcase")}
    skipped = cases["L4-WAIT"].find("skipped")
    assert cases["L4-WAIT"].find("error") is None
    assert skipped is not None and "awaiting a rating: 2 attempt(s)" in skipped.get("message", "")
    assert cases["L4-MIXED"].find("error") is not None
    assert (root.get("errors"), root.get("skipped")) == ("1", "1")


def test_evidence_that_only_names_its_rule_is_shown_as_written(tmp_path: Path) -> None:
    """No turn, span, file, text or note: the viewer and the failing attempt's details show
    the evidence as the run file holds it (it used to fail the whole report)."""
    criterion = {
        "id": "P1",
        "tag": "STATE",
        "kind": "pass",
        "passed": False,
        "says": "the file is kept",
        "evidence": {"decided_by": "file_absent"},
    }
    empty = {**criterion, "id": "P2", "evidence": {}}
    run = write(tmp_path / "run.jsonl", [
        meta("run-a", [], tester="alice"),
        attempt("L1-T", 1, "FAIL", criteria=[criterion, empty]),
        run_end(),
    ])  # fmt: skip
    report = build_report([run], viewer=True)
    assert report.viewer is not None
    (seen,) = report.viewer["attempts"]
    shown = {c["id"]: c["evidence"] for c in seen["criteria"]}
    assert shown == {"P1": '{"decided_by": "file_absent"}', "P2": "no evidence recorded"}
    assert seen["criteria"][0]["decided_by"] == "file_absent"
    (block,) = report.blocks
    (detail,) = block.failing
    assert [c.evidence for c in detail.criteria] == list(shown.values())
    assert r'evidence: \{"decided\_by": "file\_absent"\}' in render(report, "md")
