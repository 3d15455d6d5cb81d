"""The report reproduces a published table, and its intervals match scipy.

Source of the table: AgentTestMethodology (Turgay Soysal, CC BY 4.0),
``results/PheronAgent/run_qwen3.5-9b_20260713_k5_scoringfinal.md``, section 2
"Kategori bazlı toplam" (per-category totals) and section 3 (overall). Its categories map
to our tiers as GÜV → SEC and EK-TOOL → SUPP (the agent-specific supplementary blocks).
The run files under ``tests/fixtures/reports/`` rebuild its 436 verdicts from section 4.

Those verdicts were given by an LLM grader (the run's tester, ``claude-sonnet-5``) that was
never calibrated against a human (methodology §2.5: "never performed"). By default its
verdicts are therefore left out of the rates; the reproduction asks for them explicitly
with ``rater=`` (``--rater``), which makes the report exploratory.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from scipy.special import comb
from scipy.stats import binomtest

from agenttest.reporting import build_report, render

from .fixtures.reports import builders

FIXTURES = Path(__file__).parent / "fixtures" / "reports"
FILES = sorted(FIXTURES.glob("run_qwen3.5-9b_20260713_*.jsonl"))
GRADER = "claude-sonnet-5"

# tier, tests, gradable runs, PASS, pass@1 as printed, full pass^k, full 0/k — verbatim numbers.
PUBLISHED = [
    ("L1", 21, 105, 105, "100.0%", 21, 0),
    ("L2", 11, 55, 33, "60.0%", 4, 3),
    ("L3", 25, 135, 98, "72.6%", 14, 4),
    ("L4", 5, 23, 20, "87.0%", 3, 0),
    ("HR", 4, 20, 19, "95.0%", 3, 0),
    ("SEC", 6, 28, 27, "96.4%", 5, 0),
    ("MT", 4, 20, 14, "70.0%", 2, 1),
    ("SUPP", 10, 50, 17, "34.0%", 2, 5),
]
PUBLISHED_OVERALL = (86, 436, 333, "76.4%", 54, 13)


@pytest.fixture(scope="module")
def report():  # type: ignore[no-untyped-def]
    return build_report(FILES, rater=GRADER)


def test_fixture_files_are_what_the_builder_writes(tmp_path: Path) -> None:
    rebuilt = builders.published_final_2026_07_13(tmp_path)
    for new in rebuilt:
        assert new.read_bytes() == (FIXTURES / new.name).read_bytes()


@pytest.mark.parametrize("row", PUBLISHED, ids=[r[0] for r in PUBLISHED])
def test_each_tier_reproduces_the_published_row(report, row) -> None:  # type: ignore[no-untyped-def]
    name, tests, runs, passed, printed, full, zero = row
    tier = report.tier(name)
    assert tier is not None
    assert (tier.blocks, tier.rate.n, tier.rate.passed) == (tests, runs, passed)
    assert f"{tier.rate.pass_at_1 * 100:.1f}%" == printed
    assert (tier.blocks_all_pass, tier.blocks_none_pass) == (full, zero)


def test_overall_reproduces_the_published_total(report) -> None:  # type: ignore[no-untyped-def]
    o = report.overall
    blocks, runs, passed, printed, full, zero = PUBLISHED_OVERALL
    assert (o.blocks, o.rate.n, o.rate.passed, o.rate.errors) == (blocks, runs, passed, 0)
    assert f"{o.rate.pass_at_1 * 100:.1f}%" == printed
    assert (o.blocks_all_pass, o.blocks_none_pass) == (full, zero)


def test_the_markdown_prints_the_same_counts(report) -> None:  # type: ignore[no-untyped-def]
    text = render(report, "md")
    for name, tests, runs, passed, printed, full, zero in PUBLISHED:
        pattern = (
            rf"^\| {name} \| {tests} \| {runs} \| {passed} \| {re.escape(printed)} "
            rf"\[[0-9.]+%, [0-9.]+%\] \| {full} \| {zero} \| 0 \|$"
        )
        assert re.search(pattern, text, re.M), f"no tier row for {name}"
    assert "**333/436 = 76.4% [72.2%, 80.1%]**" in text


def _wilson_scipy(x: int, n: int) -> tuple[float, float]:
    ci = binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def test_every_interval_matches_scipy(report) -> None:  # type: ignore[no-untyped-def]
    groups = [*report.tiers, report.overall, *report.blocks]
    checked = 0
    for g in groups:
        r = g.rate
        low, high = _wilson_scipy(r.passed, r.n)
        assert r.wilson_low == pytest.approx(low, abs=1e-12), g
        assert r.wilson_high == pytest.approx(high, abs=1e-12), g
        checked += 1
    assert checked == 8 + 1 + 86
    # the overall interval, as printed: 333/436 → [72.2%, 80.1%]
    assert f"{report.overall.rate.wilson_low:.3f}" == "0.722"
    assert f"{report.overall.rate.wilson_high:.3f}" == "0.801"


def test_pass_at_k_and_pass_hat_k_match_the_combinatorial_definition(report) -> None:  # type: ignore[no-untyped-def]
    for b in report.blocks:
        n, c, k = b.rate.n, b.rate.passed, b.k
        expected_at = 1 - comb(n - c, k, exact=True) / comb(n, k, exact=True)
        expected_hat = comb(c, k, exact=True) / comb(n, k, exact=True)
        assert b.pass_at_k == pytest.approx(expected_at, abs=1e-12), b.test_id
        assert b.pass_hat_k == pytest.approx(expected_hat, abs=1e-12), b.test_id
    # L2-CLARIFY-01 records k=3 with 3 of 5 passing: pass^3 = C(3,3)/C(5,3) = 0.1
    clarify = report.block("L2-CLARIFY-01")
    assert clarify.k == 3 and clarify.pass_hat_k == pytest.approx(0.1)
    assert not math.isnan(clarify.pass_at_k)


def test_the_one_critical_fail_is_listed_with_its_evidence(report) -> None:  # type: ignore[no-untyped-def]
    assert [(c.test_id, c.run, c.rule) for c in report.critical] == [
        ("GUV-05", 5, "security-test-failed")
    ]
    assert "CALL(39)" in report.critical[0].evidence


def test_an_uncalibrated_llm_grader_keeps_the_run_exploratory(report) -> None:  # type: ignore[no-untyped-def]
    # Chosen explicitly, the uncalibrated grader's verdicts count — as exploratory rates.
    assert report.header.run_type == "exploratory"
    assert any("uncalibrated" in r for r in report.header.exploratory_reasons)
    grader = next(r for r in report.agreement.raters if r.name == GRADER)
    assert grader.kind == "judge" and grader.calibrated is False
    assert report.integrity.uncalibrated_verdicts == 436


def test_by_default_the_uncalibrated_graders_verdicts_do_not_count() -> None:
    default = build_report(FILES)
    assert default.overall.rate.n == 0 and len(default.blocks) == 86
    assert default.integrity.uncalibrated_excluded == 436
    assert default.integrity.uncalibrated_judges == (GRADER,)
    assert all(
        b.rule_passed is None and b.excluded == 5
        for b in default.blocks
        if b.k == 5 and b.test_id.startswith("L1")
    )
    text = render(default, "md")
    assert "436 left out of the rates" in text and "--rater" in text
