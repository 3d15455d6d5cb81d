"""The report data model: frozen dataclasses that every renderer reads.

The parts of a :class:`._report.Report`: blocks, tiers, OWASP items, integrity, rater
agreement, calibration, comparison, checklist, header. One report is built from run files
by :mod:`._aggregate` (and enriched with a baseline comparison, a reference calibration and
the deployment checklist); Markdown, HTML, JSON and JUnit are all rendered from it, so the
formats cannot disagree.
Rates are ``None`` when nothing was gradable; every rate carries ``n`` and its Wilson
interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenttest.stats import pass_at_k, pass_hat_k
from agenttest.verdicts import Rate as Rate  # a report's rates: the face of the model

if TYPE_CHECKING:
    from ._completeness import Completeness
    from ._stratified import StratifiedRow

#: Tiers in the order the methodology presents them; other tiers follow alphabetically.
TIER_ORDER = ("L1", "L2", "L3", "L4", "HR", "MT", "SEC", "EV")

#: OWASP Top 10 for Agentic Applications (2026), short names.
ASI_NAMES = {
    "ASI01": "Agent Goal Hijack",
    "ASI02": "Tool Misuse and Exploitation",
    "ASI03": "Identity and Privilege Abuse",
    "ASI04": "Agentic Supply Chain Vulnerabilities",
    "ASI05": "Unexpected Code Execution",
    "ASI06": "Context Management and Retrieval Manipulation",
    "ASI07": "Insecure Inter-Agent Communication",
    "ASI08": "Cascading Failures",
    "ASI09": "Human-Agent Trust Exploitation",
    "ASI10": "Rogue Agents",
}

#: Minimum k (attempts per block) for a rate to be publishable (methodology §2.6).
MIN_PUBLISHED_K = 5


def tier_key(tier: str) -> tuple[int, str]:
    return (TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER), tier)


@dataclass(frozen=True)
class Latency:
    """Latency of gradable attempts in milliseconds (p50/p95 by linear interpolation)."""

    n: int
    p50: float | None
    p95: float | None
    total_ms: float = 0.0


@dataclass(frozen=True)
class Usage:
    """Tokens the agent reported (attempts that said), and their cost where the agent
    config gave prices (``prices:``); ``None`` where nothing was reported or priced."""

    attempts: int  # attempts that reported tokens
    tokens: int
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    currency: str | None

    @staticmethod
    def total(parts: list[Usage | None]) -> Usage | None:
        got = [u for u in parts if u is not None]
        if not got:
            return None

        def add(values: list[Any]) -> Any:
            return None if any(v is None for v in values) else sum(values)

        currencies = {u.currency for u in got if u.currency}
        return Usage(
            sum(u.attempts for u in got),
            sum(u.tokens for u in got),
            add([u.input_tokens for u in got]),
            add([u.output_tokens for u in got]),
            add([u.cost for u in got]) if len(currencies) == 1 else None,
            currencies.pop() if len(currencies) == 1 else None,
        )


@dataclass(frozen=True)
class TurnView:
    prompt: str
    response: str
    tool_calls: tuple[str, ...]
    trace: str
    http_status: int | None
    latency_ms: int | None
    hosted_calls: tuple[str, ...] = ()  # the harness's record (hosted tools)


@dataclass(frozen=True)
class CriterionView:
    id: str
    tag: str
    kind: str
    outcome: str  # "held", "not met", "triggered", "ungraded"
    says: str
    evidence: str


@dataclass(frozen=True)
class AttemptDetail:
    """A failing attempt as a reader opens it: transcript, criteria with their evidence."""

    test_id: str
    run: int
    run_id: str
    verdict: str
    rater: str
    error: str | None
    turns: tuple[TurnView, ...]
    criteria: tuple[CriterionView, ...]
    truncated: bool
    #: which evidence decided (harness, agent, log; "" when the grade did not say)
    evidence_source: str = ""
    #: hosted tools: served calls the agent did not report, described
    evidence_notes: tuple[str, ...] = ()

    @property
    def reply_excerpt(self) -> str:
        """The last non-empty reply, cut for a summary line (the full text is in turns)."""
        reply = next((t.response for t in reversed(self.turns) if t.response.strip()), "")
        reply = " ".join(reply.split())
        return reply if len(reply) <= 400 else reply[:399] + "…"


@dataclass(frozen=True)
class CriticalFail:
    """An always-FAIL hit (methodology §3.3) with the evidence that decided it."""

    test_id: str
    tier: str
    run: int
    run_id: str
    rater: str
    rule: str
    criterion: str
    evidence: str


@dataclass(frozen=True)
class BlockResult:
    test_id: str
    tier: str
    title: str
    owasp: tuple[str, ...]
    k: int
    rate: Rate
    pass_at_k: float | None
    pass_hat_k: float | None
    latency: Latency
    exploratory: bool
    critical: int
    unknown: int
    unrated: int
    missing: int
    excluded: int
    rule_passed: bool | None
    rule_reason: str
    failing_total: int = 0
    failing: tuple[AttemptDetail, ...] = ()
    # `--until-decided` stopped this block after this many attempts (None: not curtailed);
    # its rate then comes from fewer attempts, and stopping on FAILs biases it low
    decided_after: int | None = None
    # attempts an uncalibrated judge decided (``excluded``), shown with the judge's score
    awaiting: tuple[AttemptDetail, ...] = ()
    usage: Usage | None = None
    planned: int = 0  # attempts the run files' plans promised for this block
    # False: attempts are missing and could still change the rule's answer (no verdict)
    rule_settled: bool = True
    undecided: int = 0  # UNDECIDED attempts: completed, awaiting a rating (in no rate)
    # ERROR attempts of cause "precondition": the block's starting state, or the attack or
    # fault it delivers through a tool, never reached the agent (the methodology's SKIPPED)
    not_delivered: int = 0
    error_causes: tuple[tuple[str, int], ...] = ()  # ERROR attempts by cause, most first
    # NOT_APPLICABLE attempts (never sent: the agent cannot provide what the block needs),
    # in no rate, and the reasons given
    not_applicable: int = 0
    not_applicable_reasons: tuple[str, ...] = ()
    # SEC blocks: PASS attempts with no tool call and no refusal in the reply (the attack
    # was met by doing nothing), and PASS attempts whose reply declined explicitly
    passed_by_inaction: int = 0
    passed_by_refusal: int = 0

    @staticmethod
    def estimators(n: int, c: int, k: int) -> tuple[float | None, float | None]:
        if n == 0 or k < 1:
            return (None, None)
        at, hat = pass_at_k(n, c, k), pass_hat_k(n, c, k)
        return (None if math.isnan(at) else at, None if math.isnan(hat) else hat)

    @property
    def awaiting_calibration(self) -> bool:
        """No verdict counts yet because an uncalibrated judge decided all of them."""
        return self.rate.n == 0 and self.excluded > 0

    @property
    def all_pass(self) -> bool:
        return self.rate.n > 0 and self.rate.failed == 0

    @property
    def none_pass(self) -> bool:
        return self.rate.n > 0 and self.rate.passed == 0


@dataclass(frozen=True)
class GroupResult:
    """A tier or the whole battery: attempts pooled over its blocks."""

    name: str
    blocks: int
    rate: Rate
    blocks_all_pass: int
    blocks_none_pass: int
    exploratory: bool
    blocks_awaiting: int = 0  # blocks awaiting calibration: counted apart, in no rate
    cases: int = 0  # rows of parameterised blocks (BLOCK#case); `blocks` counts each block once
    usage: Usage | None = None


@dataclass(frozen=True)
class OwaspResult:
    item: str
    name: str
    blocks: tuple[str, ...]
    rate: Rate
    not_delivered: int = 0  # attempts whose attack never reached the agent (in no rate)


@dataclass(frozen=True)
class Integrity:
    errors_by_cause: tuple[tuple[str, int], ...]
    torn_lines: tuple[tuple[str, int, tuple[int, ...]], ...]  # (file, count, first lines)
    missing: int
    missing_examples: tuple[str, ...]
    unknown_ids: tuple[tuple[str, int], ...]
    unrecognised_verdicts: int
    superseded: int
    stale_grades: int
    unrated: int
    uncalibrated_verdicts: int  # counted: the uncalibrated judge was chosen with --rater
    uncalibrated_excluded: int  # left out of the rates: decided by an uncalibrated judge
    uncalibrated_judges: tuple[str, ...]
    orphan_grades: int
    notes: tuple[str, ...]

    @property
    def errors(self) -> int:
        return sum(n for _, n in self.errors_by_cause)


@dataclass(frozen=True)
class RaterInfo:
    name: str
    kind: str  # "human", "judge" or "rules"
    rated: int
    passed: int
    failed: int
    calibrated: bool | None  # None for humans and rules: calibration applies to judges
    calibration_note: str


@dataclass(frozen=True)
class PairAgreement:
    a: str
    b: str
    n: int
    percent: float | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None


@dataclass(frozen=True)
class Agreement:
    verdict_rater: str | None  # None: each attempt's own rater
    raters: tuple[RaterInfo, ...]
    pairs: tuple[PairAgreement, ...]
    krippendorff_alpha: float | None
    alpha_units: int


@dataclass(frozen=True)
class CalibrationRow:
    test_id: str
    tier: str
    ours: str  # "pass", "fail" or "no data"
    reference: str
    cls: str  # both-pass, only-ours-fails, only-reference-fails, both-fail, incomplete


@dataclass(frozen=True)
class Calibration:
    reference_agent: str
    reference_model: str
    reference_files: tuple[str, ...]
    rows: tuple[CalibrationRow, ...]
    counts: tuple[tuple[str, int], ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ComparisonRow:
    name: str
    tier: str
    scope: str  # "block", "tier" or "overall"
    ours: Rate
    base: Rate
    diff: float | None
    low: float | None
    high: float | None
    p: float | None
    p_adjusted: float | None
    cls: str  # regression, improvement, noise, new, removed, no data
    below_threshold: bool  # pass@1 < 0.85 × baseline pass@1 (methodology §2.2)
    threshold: float | None = None  # that 0.85 × baseline pass@1; None: nothing measured


@dataclass(frozen=True)
class Comparison:
    run: str
    baseline: str
    alpha: float
    blocks: tuple[ComparisonRow, ...]
    tiers: tuple[ComparisonRow, ...]
    notes: tuple[str, ...]
    # per tier and overall, blocks as strata (._stratified): their own Holm family
    stratified: tuple[StratifiedRow, ...] = ()

    @property
    def regressions(self) -> tuple[ComparisonRow, ...]:
        return tuple(r for r in (*self.tiers, *self.blocks) if r.cls == "regression")

    @property
    def stratified_regressions(self) -> tuple[StratifiedRow, ...]:
        return tuple(r for r in self.stratified if r.cls == "regression")

    @property
    def improvements(self) -> tuple[ComparisonRow, ...]:
        return tuple(r for r in (*self.tiers, *self.blocks) if r.cls == "improvement")


@dataclass(frozen=True)
class CheckItem:
    section: str
    item: str
    status: str  # "pass", "fail" or "unknown"
    detail: str


@dataclass(frozen=True)
class Checklist:
    items: tuple[CheckItem, ...]
    decision: str  # "approved", "blocked" or "undecided": reporting.decide's status
    blockers: tuple[str, ...]
    reason: str = ""  # the decision's one-line reason


@dataclass(frozen=True)
class Header:
    agent: str
    model: str
    tester: str
    run_type: str  # "published" or "exploratory"
    exploratory_reasons: tuple[str, ...]
    k: str
    started_at: str | None
    completed_at: str | None
    harness: str
    battery_digest: str
    run_ids: tuple[str, ...]
    files: tuple[str, ...]
    labels: tuple[str, ...]
    battery_source: str
    generated_by: str
    # planned/recorded/missing attempts and why a run is incomplete (._completeness)
    completeness: Completeness | None = None

    @property
    def exploratory(self) -> bool:
        return self.run_type != "published"

    @property
    def complete(self) -> bool:
        """Every run finished its plan; else the report is labelled incomplete."""
        return self.completeness is None or self.completeness.complete
