"""A report reads each run file once: the time-to-first-text, parity and evidence sections are
fed by the aggregator's pass (reporting._sinks), not by passes of their own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenttest.reporting import build_report, render

from .conftest import ROOT
from .test_report_ttft import streamed

GOLDEN = ROOT / "tests" / "golden" / "run_2.0.jsonl"


def parity_stream_file(tmp_path: Path) -> Path:
    """Two agents on one plan, every turn streamed, one on hosted tools: every section has
    something to show."""
    records = [json.loads(line) for line in GOLDEN.read_text("utf-8").splitlines()]
    template = next(r for r in records if r["record_type"] == "attempt")
    out: list[dict[str, Any]] = [records[0]]
    for agent, verdict in (("a", "PASS"), ("b", "FAIL")):
        for run in (1, 2):
            out.append({**template, "test_id": "L1-CALC-01", "run": run, "agent": agent,
                        "verdict": verdict, "turns": [streamed(100 * run)],
                        "evidence_source": "harness" if agent == "a" else "agent"})  # fmt: skip
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    return path


def test_json_report_opens_the_run_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = parity_stream_file(tmp_path)
    opened: list[Path] = []
    real_open = Path.open

    def counting_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == path:
            opened.append(self)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting_open)
    report = build_report([path], battery=None, details=False)
    # the sections were built (so their data came from somewhere) ...
    assert report.ttft is not None and report.ttft.streamed_turns == 4
    assert report.parity is not None and report.parity.agents == ("a", "b")
    assert [row.test_id for row in report.parity.differing] == ["L1-CALC-01"]
    assert report.evidence is not None
    assert report.evidence.totals == (("harness", 2), ("agent", 2))
    # ... and from the one pass
    assert len(opened) == 1
    data = json.loads(render(report, "json"))
    assert data["overall"]["n"] == 4


def test_judge_coverage_counts_each_agent_of_a_parity_run(tmp_path: Path) -> None:
    """Both agents of a --parity run answered (test, run) 1; the judge was asked once for
    each. The report's pass and `agenttest agreement`'s count both, not the last agent only."""
    from agenttest.rating import judge_coverage

    from .fixtures.reports.builders import attempt, meta, write

    def judged(agent: str, verdict: str) -> dict[str, Any]:
        criterion = {
            "id": "J1", "tag": "JUDGE", "kind": "pass", "passed": verdict == "PASS",
            "critical": False, "says": "the reply is grounded",
            "evidence": {"text": "act: grounded", "note": f"judge openvino: {verdict}"},
        }  # fmt: skip
        return attempt("X", 1, verdict, rater=MIXED, agent=agent, criteria=[criterion])

    path = write(tmp_path / "r.jsonl", [meta("r", []), judged("a", "PASS"), judged("b", "FAIL")])
    report = build_report([path], battery=None, details=False)
    assert report.parity is not None and report.parity.agents == ("a", "b")  # precondition
    (row,) = report.coverage
    assert (row.rater, row.asked, row.decided, row.by_kind) == (MIXED, 2, 2, {"act": [2, 2]})
    (same,) = judge_coverage([path])
    assert (same.rater, same.asked, same.decided, same.by_kind) == (MIXED, 2, 2, {"act": [2, 2]})


MIXED = "rules+openvino@sha256:5e1c0a7d93b2f468"
