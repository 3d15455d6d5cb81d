"""Comparing runs: regression against a baseline, calibration against a reference agent.

Regression (``agenttest compare`` and ``report --baseline``): per block and per tier the
change in pass@1, its 95% Newcombe interval, and Fisher's exact two-sided p-value. Block
p-values are Holm-corrected as one family, tier and overall p-values as another. A row
is a *regression* (or *improvement*) when its corrected p-value is below ``alpha`` and the
rate fell (rose); otherwise it is *noise*. ``--gate`` fails on any regression. Beside
them, per tier and overall, the test stratified by block (:mod:`._stratified`), and per
block its §2.2 threshold, 0.85 × the baseline's pass@1.

Calibration (``report --reference``): each block is classed by whether it passes its
rule (:func:`agenttest.reporting._build.block_rule`) in our run and in the reference run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from agenttest.errors import GateFailed
from agenttest.stats import fisher_exact, newcombe_diff_interval

from ._model import (
    BlockResult,
    Calibration,
    CalibrationRow,
    Comparison,
    ComparisonRow,
    Rate,
    tier_key,
)
from ._report import Report
from ._stratified import holm_classify, stratified_rows

DEFAULT_ALPHA = 0.05
#: Methodology §2.2: a block is flagged when pass@1 < 0.85 × its baseline pass@1 ...
BASELINE_MARGIN = 0.85
#: ... measured over five attempts: a baseline block with fewer gradable ones has no threshold.
BASELINE_ATTEMPTS = 5
CALIBRATION_CLASSES = (
    "both-pass",
    "only-ours-fails",
    "only-reference-fails",
    "both-fail",
    "incomplete",
)


class _Header(Protocol):
    @property
    def files(self) -> tuple[str, ...]: ...
    @property
    def model(self) -> str: ...
    @property
    def battery_digest(self) -> str: ...
    @property
    def exploratory(self) -> bool: ...


class _Rated(Protocol):
    @property
    def rate(self) -> Rate: ...


class _Block(_Rated, Protocol):
    @property
    def test_id(self) -> str: ...
    @property
    def tier(self) -> str: ...


class _Group(_Rated, Protocol):
    @property
    def name(self) -> str: ...


class Side(Protocol):
    """What a comparison reads of its baseline: a :class:`Report`, or a §2.2 baseline file
    (:class:`agenttest.reporting._baseline.Baseline`)."""

    @property
    def header(self) -> _Header: ...
    @property
    def blocks(self) -> Sequence[_Block]: ...
    @property
    def tiers(self) -> Sequence[_Group]: ...
    @property
    def overall(self) -> _Group: ...


def _row(name: str, tier: str, scope: str, ours: Rate | None, base: Rate | None) -> ComparisonRow:
    empty = Rate.of(0, 0)
    ours_rate, base_rate = ours or empty, base or empty
    threshold = None
    if base is not None and base.pass_at_1 is not None and base.n >= BASELINE_ATTEMPTS:
        threshold = threshold_of(base.pass_at_1)
    if ours is None or base is None or ours.n == 0 or base.n == 0:
        cls = "new" if base is None else "removed" if ours is None else "no data"
        return ComparisonRow(
            name,
            tier,
            scope,
            ours_rate,
            base_rate,
            None,
            None,
            None,
            None,
            None,
            cls,
            False,
            threshold,
        )
    assert ours.pass_at_1 is not None and base.pass_at_1 is not None
    low, high = newcombe_diff_interval(ours.passed, ours.n, base.passed, base.n)
    p = fisher_exact(ours.passed, ours.n, base.passed, base.n)
    below = threshold is not None and ours.pass_at_1 < threshold
    return ComparisonRow(
        name,
        tier,
        scope,
        ours,
        base,
        ours.pass_at_1 - base.pass_at_1,
        low,
        high,
        p,
        None,
        "noise",
        below,
        threshold,
    )


def threshold_of(base_pass_at_1: float) -> float:
    """Methodology §2.2: the pass@1 below which a block is flagged, 0.85 × its baseline's."""
    return BASELINE_MARGIN * base_pass_at_1


def compare_reports(
    ours: Report, base: Side, alpha: float = DEFAULT_ALPHA, notes: tuple[str, ...] = ()
) -> Comparison:
    """Per block and tier: change in pass@1, Newcombe interval, Fisher p, Holm, class."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    ours_blocks = {b.test_id: b for b in ours.blocks}
    base_blocks = {b.test_id: b for b in base.blocks}
    names = sorted(
        set(ours_blocks) | set(base_blocks),
        key=lambda t: (tier_key((ours_blocks.get(t) or base_blocks[t]).tier), t),
    )
    block_rows = []
    for name in names:
        a, b = ours_blocks.get(name), base_blocks.get(name)
        tier = (a or b).tier  # type: ignore[union-attr]
        block_rows.append(_row(name, tier, "block", a.rate if a else None, b.rate if b else None))
    ours_tiers = {t.name: t.rate for t in ours.tiers}
    # a tier the baseline could not name ("?": an empty or aborted run has only its plan)
    # with nothing in it is no tier at all: no phantom row
    base_tiers = {t.name: t.rate for t in base.tiers if t.name != "?" or t.rate.n or t.rate.errors}
    tier_rows = [
        _row(name, name, "tier", ours_tiers.get(name), base_tiers.get(name))
        for name in sorted(set(ours_tiers) | set(base_tiers), key=tier_key)
    ]
    tier_rows.append(_row("overall", "", "overall", ours.overall.rate, base.overall.rate))
    all_notes = list(notes)
    if base.overall.rate.n == 0:
        all_notes.insert(
            0,
            f"the baseline {', '.join(Path(f).name for f in base.header.files)} holds no "
            f"gradable attempt ({base.overall.rate.errors} ERROR; an empty or aborted run): "
            "there is nothing to compare against, every row is 'no data' or 'new'",
        )
    if ours.header.model != base.header.model:
        all_notes.append(
            f"the runs test different models ({ours.header.model} vs {base.header.model}): "
            "a change may be the model's, not the agent's"
        )
    ours_d, base_d = ours.header.battery_digest, base.header.battery_digest
    if ours_d != base_d:
        all_notes.append(
            f"the runs used different batteries ({ours_d} vs {base_d}): "
            "changed blocks may explain differences"
        )
    if ours.header.exploratory or base.header.exploratory:
        all_notes.append(
            "at least one side is exploratory (k < 5 or not publishable): "
            "small samples rarely reach significance"
        )
    return Comparison(
        run=", ".join(Path(f).name for f in ours.header.files),
        baseline=", ".join(Path(f).name for f in base.header.files),
        alpha=alpha,
        blocks=holm_classify(block_rows, alpha),
        tiers=holm_classify(tier_rows, alpha),
        notes=tuple(all_notes),
        stratified=stratified_rows(block_rows, alpha),
    )


def check_gate(comparison: Comparison) -> None:
    """Raise :class:`GateFailed` (exit 1) when any block, tier or the whole run regressed.

    Only the regression rule: the commands' gates read the whole decision
    (:func:`agenttest.reporting.decide`, :func:`agenttest.reporting.enforce`)."""
    found = comparison.regressions
    if found:
        names = ", ".join(r.name for r in found)
        raise GateFailed(
            f"{len(found)} significant regression(s) after Holm correction "
            f"(alpha {comparison.alpha}): {names}"
        )


def compare_runs(
    run: Sequence[str | Path],
    baseline: Sequence[str | Path],
    *,
    alpha: float = DEFAULT_ALPHA,
    allow_mixed: bool = False,
    rater: str | None = None,
) -> Comparison:
    """Compare two sets of run files; ``rater`` as in :func:`agenttest.reporting.build_report`."""
    return compare_sides(run, baseline, alpha, allow_mixed, rater)[1]


def compare_sides(
    run: Sequence[str | Path],
    baseline: Sequence[str | Path],
    alpha: float,
    allow_mixed: bool,
    rater: str | None,
) -> tuple[Report, Comparison]:
    """The report of ``run`` (without details) and its comparison with ``baseline``."""
    from ._baseline import baseline_side
    from ._build import aggregate_report

    ours = aggregate_report(run, rater=rater, battery=None, allow_mixed=allow_mixed, details=False)
    base, notes = baseline_side(baseline, rater, allow_mixed)
    return ours, compare_reports(ours, base, alpha, notes)


def _side(block: BlockResult | None) -> str:
    if block is None or block.rule_passed is None:
        return "no data"
    return "pass" if block.rule_passed else "fail"


def calibrate(ours: Report, reference: Report, notes: tuple[str, ...] = ()) -> Calibration:
    """Class each block: both pass, only ours fails, only the reference fails, both fail."""
    mine = {b.test_id: b for b in ours.blocks}
    theirs = {b.test_id: b for b in reference.blocks}
    rows = []
    for test_id in sorted(
        set(mine) | set(theirs), key=lambda t: (tier_key((mine.get(t) or theirs[t]).tier), t)
    ):
        a, b = _side(mine.get(test_id)), _side(theirs.get(test_id))
        if "no data" in (a, b):
            cls = "incomplete"
        elif a == b:
            cls = "both-pass" if a == "pass" else "both-fail"
        else:
            cls = "only-ours-fails" if a == "fail" else "only-reference-fails"
        tier = (mine.get(test_id) or theirs[test_id]).tier
        rows.append(CalibrationRow(test_id, tier, a, b, cls))
    counts = Counter(r.cls for r in rows)
    return Calibration(
        reference_agent=reference.header.agent,
        reference_model=reference.header.model,
        reference_files=reference.header.files,
        rows=tuple(rows),
        counts=tuple((c, counts.get(c, 0)) for c in CALIBRATION_CLASSES),
        notes=notes,
    )
