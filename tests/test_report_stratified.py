"""compare and report --baseline: the tests stratified by block, and the §2.2 thresholds in
every rendering (Markdown, HTML, JUnit, the compare table), beside the per-block Fisher rows."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import StratifiedTable

from agenttest.reporting import build_report, compare_runs, render

from .conftest import run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

RULES = "rules@sha256:5e1c0a7d93b2f468"
Counts = dict[str, tuple[int, int]]


def _run(path: Path, counts: Counts) -> Path:
    """A run file where each block passes ``x`` of ``n`` attempts (tier from the id)."""
    records = [meta(path.stem, [], tester="alice")]
    for test_id, (x, n) in counts.items():
        tier = test_id.split("-")[0]
        for run in range(1, n + 1):
            verdict = "PASS" if run <= x else "FAIL"
            records.append(attempt(test_id, run, verdict, tier=tier, k=n, rater=RULES))
    records.append(run_end())
    return write(path, records)


def _night(tmp_path: Path) -> tuple[Path, Path]:
    """k = 3 against a five-attempt baseline, twelve L1 blocks each losing a third."""
    names = [f"L1-B{i:02d}" for i in range(12)]
    base = _run(tmp_path / "base.jsonl", dict.fromkeys(names, (5, 5)))
    ours = _run(tmp_path / "ours.jsonl", dict.fromkeys(names, (2, 3)))
    return ours, base


def test_a_fall_no_block_can_show_is_a_stratified_regression(tmp_path: Path) -> None:
    ours, base = _night(tmp_path)
    result = compare_runs([ours], [base])
    assert {r.cls for r in result.blocks} == {"noise"}  # 2/3 vs 5/5: Fisher p 0.375
    rows = {s.name: s for s in result.stratified}
    assert rows["L1"].cls == rows["overall"].cls == "regression"
    assert rows["overall"].blocks == 12 and rows["overall"].method == "exact"
    assert rows["overall"].diff == pytest.approx(2 / 3 - 1)
    assert rows["overall"].high is not None and rows["overall"].high < 0
    assert [r.name for r in result.stratified_regressions] == ["L1", "overall"]


def test_pooling_by_tier_is_fooled_by_where_the_attempts_went(tmp_path: Path) -> None:
    # The cheat: every block got worse, but the run spent its attempts on the easy block,
    # so the pooled tier rate rose. The stratified row sees the fall.
    base = _run(tmp_path / "base.jsonl", {"L1-EASY": (5, 5), "L1-HARD": (12, 20)})
    ours = _run(tmp_path / "ours.jsonl", {"L1-EASY": (18, 20), "L1-HARD": (0, 5)})
    result = compare_runs([ours], [base])
    tier = next(r for r in result.tiers if r.name == "L1")
    assert tier.diff is not None and tier.diff > 0 and tier.cls == "noise"
    stratified = next(s for s in result.stratified if s.name == "L1")
    assert stratified.cls == "regression"
    assert stratified.diff is not None and stratified.diff < 0


def test_stratified_rows_match_statsmodels(tmp_path: Path) -> None:
    counts_ours = {"L1-A": (3, 5), "L1-B": (1, 5), "L2-C": (4, 5), "L2-D": (2, 5)}
    counts_base = {"L1-A": (5, 5), "L1-B": (4, 5), "L2-C": (5, 5), "L2-D": (3, 5)}
    ours = _run(tmp_path / "ours.jsonl", counts_ours)
    base = _run(tmp_path / "base.jsonl", counts_base)
    overall = next(s for s in compare_runs([ours], [base]).stratified if s.name == "overall")
    tables = [
        np.array([[x, n - x], [y, m - y]])
        for (x, n), (y, m) in zip(counts_ours.values(), counts_base.values(), strict=True)
    ]
    reference = StratifiedTable(tables)
    assert overall.odds_ratio == pytest.approx(reference.oddsratio_pooled)
    assert (overall.or_low, overall.or_high) == pytest.approx(reference.oddsratio_pooled_confint())


def test_small_changes_stay_noise(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", {"L1-A": (5, 5), "L1-B": (4, 5)})
    ours = _run(tmp_path / "ours.jsonl", {"L1-A": (4, 5), "L1-B": (4, 5)})
    result = compare_runs([ours], [base])
    assert {s.cls for s in result.stratified} == {"noise"}
    assert not result.stratified_regressions


def test_markdown_html_and_junit_show_each_blocks_threshold(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", {"L1-A": (5, 5), "L1-B": (4, 5), "L1-C": (0, 0)})
    ours = _run(tmp_path / "ours.jsonl", {"L1-A": (3, 5), "L1-B": (4, 5)})
    report = build_report([ours], baseline=[base])
    md = render(report, "md")
    assert "| L1-A | 5/5 = 100.0% [56.6%, 100.0%] | 85.0% | 3/5 = 60.0%" in md
    assert "| **below** |" in md.split("| L1-A | 5/5")[1].splitlines()[0]
    assert "| L1-B | 4/5 = 80.0% [37.6%, 96.4%] | 68.0% | 4/5" in md
    assert "| L1-C |" not in md  # no baseline measurement: no threshold, no row
    assert "Stratified by block" in md and "| overall | 2 (2) |" in md

    html = render(report, "html")
    assert '<td>L1-A</td><td>5/5 = 100.0% [56.6%, 100.0%]</td><td class="num">85.0%</td>' in html
    assert 'class="stratified"' in html

    root = ET.fromstring(render(report, "junit").split("\n", 1)[1])
    case = root.find(".//testcase[@name='L1-A']")
    assert case is not None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props == {
        "baseline_pass_at_1": "1.0",
        "baseline_threshold": "0.85",
        "below_baseline_threshold": "true",
    }
    out = case.findtext("system-out") or ""
    assert "threshold 0.85 × baseline = 85.0% (methodology §2.2): BELOW it" in out
    fine = root.find(".//testcase[@name='L1-B']")
    assert fine is not None and "68.0% (methodology §2.2): above it" in (
        fine.findtext("system-out") or ""
    )


def test_compare_prints_the_stratified_rows_and_the_thresholds(tmp_path: Path) -> None:
    ours, base = _night(tmp_path)
    shown = run_cli("compare", str(ours), str(base))
    assert shown.returncode == 0, shown.stderr
    assert "below the §2.2 threshold 85.0%" in shown.stdout
    overall = next(line for line in shown.stdout.splitlines()[::-1] if line.startswith("overall "))
    assert overall.split()[-1] == "regression" and "exact" in overall
    assert "2 stratified regression(s)" in shown.stdout
    data = json.loads(run_cli("compare", str(ours), str(base), "--json").stdout)
    assert [s["cls"] for s in data["stratified"]] == ["regression", "regression"]
    assert set(data["stratified"][0]) == {  # the keys docs/reports.md ("JSON") names
        "name",
        "scope",
        "blocks",
        "informative",
        "method",
        "diff",
        "low",
        "high",
        "odds_ratio",
        "or_low",
        "or_high",
        "p",
        "p_adjusted",
        "cls",
    }
    assert data["blocks"][0]["threshold"] == pytest.approx(0.85)
