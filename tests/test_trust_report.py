"""The trust section of every report format (issue 12): strict-check warnings, attempts
graded without the block's fixtures, and ERROR (precondition), as counts and as the attempts
behind them, in Markdown, JSON and HTML alike. Agent-written text in it stays text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenttest.reporting import build_report, render

from .fixtures.reports.builders import attempt, meta, run_end, write

HOSTILE = "<script>document.title='PWNED'</script>"


def _precondition_error(test_id: str, run: int) -> dict[str, Any]:
    rec = attempt(test_id, run, "ERROR", tier="HR")
    rec.update(
        status="completed",
        error="precondition: the missing file existed",
        error_cause="precondition",
        precondition={"id": "PRE1", "tag": "STATE", "kind": "precondition", "type": "file_absent",
                      "says": "the file is missing when the attempt starts", "passed": False,
                      "evidence": {"note": f"file_read returned its content {HOSTILE}"}},
    )  # fmt: skip
    return rec


def _run(tmp: Path) -> Path:
    warning = {"criterion": "P3", "says": "the trace shows the clarify path", "state": "failed",
               "evidence": {"note": "missing"}}  # fmt: skip
    return write(tmp / "run.jsonl", [
        meta("run-t", [], tester="alice"),
        attempt("L1-A", 1, "PASS", fixtures_applied=False, strict_warnings=[warning]),
        attempt("L1-A", 2, "PASS", fixtures_applied=False),
        attempt("L1-B", 1, "PASS"),
        _precondition_error("HR-03", 4),
        attempt("HR-03", 5, "FAIL", tier="HR", fixtures_applied=False),
        run_end(),
    ])  # fmt: skip


def test_json_report_carries_the_trust_counts_and_the_attempts(tmp_path: Path) -> None:
    report = build_report([_run(tmp_path)], battery=None)
    trust = json.loads(render(report, "json"))["trust"]
    assert trust["strict"] is False
    assert trust["strict_warnings"] == 1 and trust["attempts_with_warnings"] == 1
    assert trust["warnings_by_block"] == {"L1-A": 1}
    assert trust["warning_attempts"] == [
        {"test_id": "L1-A", "run_id": "run-t", "run": 1, "criteria": ["P3"], "note": ""}
    ]
    assert trust["without_fixtures"] == 3
    assert trust["without_fixtures_by_block"] == {"L1-A": 2, "HR-03": 1}
    assert trust["precondition_errors"] == 1
    (pre,) = trust["precondition_attempts"]
    assert (pre["test_id"], pre["run"], pre["criteria"]) == ("HR-03", 4, ["PRE1"])
    assert pre["note"].startswith("the file is missing when the attempt starts: file_read")
    # --strict is recorded, and the warned PASS counts as FAIL there
    strict = json.loads(render(build_report([_run(tmp_path)], battery=None, strict=True), "json"))
    assert strict["trust"]["strict"] is True
    assert (
        strict["overall"]["passed"] == json.loads(render(report, "json"))["overall"]["passed"] - 1
    )


def test_a_retry_that_carries_nothing_clears_the_slot(tmp_path: Path) -> None:
    path = _run(tmp_path)
    retried = attempt("L1-A", 1, "PASS", started_at="2026-07-13T09:00:00+00:00")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(-1, json.dumps(retried))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    trust = json.loads(render(build_report([path], battery=None), "json"))["trust"]
    assert trust["strict_warnings"] == 0 and trust["warning_attempts"] == []
    assert trust["without_fixtures_by_block"] == {"L1-A": 1, "HR-03": 1}


def test_html_report_has_the_trust_section_as_text(tmp_path: Path) -> None:
    page = render(build_report([_run(tmp_path)], battery=None), "html")
    section = page.split('<h2 id="trust">')[1].split("<h2 ")[0]
    assert '<strong id="trust-warnings">1</strong>' in section
    assert '<strong id="trust-unfixed">3</strong>' in section
    assert '<strong id="trust-precondition">1</strong>' in section
    assert "HR-03" in section and "ERROR (precondition)" in section
    assert HOSTILE not in page  # the note is escaped, never markup
    assert "&lt;script&gt;document.title=" in section
    md = render(build_report([_run(tmp_path)], battery=None), "md")
    assert "ERROR (precondition), the block's premise did not hold: 1" in md
