"""From a block and an attempt to a verdict: criteria, always-FAIL rules, SPEC §6."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agenttest.blocks import CRITERION_TYPES, Block, Criterion
from agenttest.results import (
    Attempt,
    CriterionResult,
    CriticalHit,
    Evidence,
    EvidenceSource,
    Grade,
    StrictWarning,
    Verdict,
)

# The grader modules register each grader with its entry (``@grades``) when imported.
from . import (  # noqa: F401
    _clock_criteria,
    _grounding_criteria,
    _state_criteria,
    _stream_criteria,
    _text_criteria,
    _ticket_criteria,
    _tool_criteria,
    _trace_criteria,
    limits,
)
from ._context import Check, Ctx, ev, fixtures_applied, quoted
from ._hosted import evidence_source
from ._prompt_bound import unasked
from ._registry import GRADERS, CriterionGrader
from ._reported import unreported
from ._rules import auto_hits

if TYPE_CHECKING:
    from agenttest.judges import Judge

#: re-exported: the graders by type, and their signature
__all__ = ["GRADERS", "CriterionGrader", "GradeOutcome", "evaluate", "grade_attempt", "rater_id"]


@dataclass(frozen=True)
class GradeOutcome:
    verdict: Verdict
    criteria: list[CriterionResult]
    critical: list[CriticalHit]
    rater: str
    error_cause: str | None
    ungraded: list[str] = field(default_factory=list)
    #: failed (or undecided) agenttest-origin criteria that did not count (no ``--strict``)
    strict_warnings: list[StrictWarning] = field(default_factory=list)
    #: False when the attempt ran without the block's fixtures (fixture-free rules applied)
    fixtures_applied: bool = True
    #: the precondition that demonstrably did not hold (verdict ERROR, cause precondition)
    precondition: CriterionResult | None = None
    #: which evidence decided the tool facts (harness, agent, log: grading._hosted)
    evidence_source: EvidenceSource | None = None
    #: hosted tools: served calls the agent did not report (notes, not failures)
    evidence_notes: list[Evidence] = field(default_factory=list)

    def write_into(self, record: Attempt | Grade) -> None:
        """Store on an attempt or grade record what it keeps of this outcome (its verdict,
        criteria, always-FAIL hits, rater, warnings, fixtures, evidence source and notes;
        the precondition if one)."""
        record.verdict = self.verdict
        record.evidence_source = self.evidence_source
        record.evidence_notes = list(self.evidence_notes)
        record.criteria = list(self.criteria)
        record.critical = list(self.critical)
        record.rater = self.rater
        record.strict_warnings = list(self.strict_warnings)
        record.fixtures_applied = self.fixtures_applied
        if self.precondition is not None:
            record.precondition = self.precondition


def rater_id(judge_name: str | None, battery_digest: str) -> str:
    """``rules@<digest>``, or ``rules+<judge>@<digest>`` when a judge graded JUDGE criteria."""
    base = "rules" + (f"+{judge_name}" if judge_name else "")
    return f"{base}@{battery_digest}" if battery_digest else base


def evaluate(ctx: Ctx, c: Criterion) -> Check:
    """One criterion, with `negate` and `any_of` applied (three-valued: None = undecided)."""
    kind = CRITERION_TYPES.get(c.type)
    if kind is not None and kind.nested:
        subs = [evaluate(ctx, sub) for sub in c.of]
        if any(s.holds for s in subs):
            i = next(i for i, s in enumerate(subs) if s.holds)
            check = Check(
                True, _with_note(subs[i].evidence, f"alternative {i + 1} ({c.of[i].id}) holds")
            )
        elif any(s.holds is None for s in subs):
            i = next(i for i, s in enumerate(subs) if s.holds is None)
            check = Check(
                None,
                _with_note(
                    subs[i].evidence, f"alternative {i + 1} ({c.of[i].id}) undecided, none holds"
                ),
            )
        else:
            notes = "; ".join(
                f"{sub.id}: {_note_of(s.evidence)}" for sub, s in zip(c.of, subs, strict=True)
            )
            check = Check(False, ev(note=f"no alternative holds ({notes})"))
    else:
        grader = GRADERS.get(c.type)
        if grader is None:
            return Check(None, ev(note=f"no grader for criterion type {c.type!r}"))
        try:
            check = grader(ctx, c)
        except limits.PatternTimeout as exc:
            return Check(None, ev(note=str(exc)))
        except Exception as exc:  # one broken criterion must not sink a night's run
            return Check(None, ev(note=f"grader {c.type} failed: {type(exc).__name__}: {exc}"))
    per_call = kind is not None and kind.negate_per_call
    if c.negate and not per_call and check.holds is not None:
        check = Check(not check.holds, _with_note(check.evidence, "negated"))
    return check


def decide(ctx: Ctx, c: Criterion, fixtures_applied: bool) -> tuple[Check, bool]:
    """One criterion under the attempt's conditions: ``(check, applies)``.

    Without the block's fixtures a fixture-bound criterion is replaced by its fixture-free
    variant; without one it does not apply (it decides nothing). The evidence names the
    rule that decided (``decided_by``).
    """
    if not fixtures_applied and c.fixture_bound:
        variant = ctx.block.unfixed_variant(c)
        if variant is None:
            note = "the attempt ran without the block's fixtures and this criterion's values come from them"
            return Check(None, ev(note=note, decided_by="not applicable: fixture-bound")), False
        with limits.deadline(limits.CRITERION_TIMEOUT_S, f"criterion {c.id}"):
            check = evaluate(ctx, variant)
        rule = f"fixture-free variant ({variant.type}): {variant.says}"
        return Check(check.holds, ctx.cited(_with_rule(check.evidence, rule))), True
    if c.type not in CRITERION_TYPES:
        return Check(None, ev(note=f"unknown criterion type {c.type!r}")), True
    word = unasked(ctx, c)
    if word is not None:
        note = (
            f"the attempt was sent another prompt, which does not name {quoted(word)} "
            "(the block's prompt does)"
        )
        return Check(None, ev(note=note, decided_by="not applicable: prompt-bound")), False
    with limits.deadline(limits.CRITERION_TIMEOUT_S, f"criterion {c.id}"):
        check = evaluate(ctx, c)
    return Check(check.holds, ctx.cited(_with_rule(check.evidence, c.type))), True


def _note_of(evidence: Evidence) -> str:
    return "no" if evidence.note is None else evidence.note


def _with_rule(evidence: Evidence, rule: str) -> Evidence:
    # a grader may have named a finer rule (world state from the calls)
    return msgspec.structs.replace(
        evidence, decided_by=f"{rule}: {evidence.decided_by}" if evidence.decided_by else rule
    )


def _with_note(evidence: Evidence, note: str) -> Evidence:
    return msgspec.structs.replace(
        evidence, note=f"{evidence.note}; {note}" if evidence.note else note
    )


def _result(c: Criterion, kind: str, check: Check, origin: str) -> CriterionResult:
    out = CriterionResult(
        id=c.id,
        tag=c.tag,
        kind=kind,
        type=c.type,
        critical=bool(c.critical or c.rule),
        rule=c.rule,
        says=c.says,
        origin=origin,
        evidence=check.evidence,
    )
    if out.evidence == Evidence():
        out.evidence = ev(note="no evidence")
    if kind == "pass":
        out.passed = check.holds
    else:
        out.triggered = check.holds
        out.passed = None if check.holds is None else not check.holds
    return out


def _audit_kept(attempt: Attempt) -> bool:
    """The reply was lost (a busy answer the old client retried) but the task's own audit
    was recorded: criteria that do not need the reply are graded from it."""
    return any(t.reply_lost and t.trace for t in attempt.turns)


#: error causes that lose a turn's reply while the agent's log of the turn may be kept
REPLY_LOSSES = frozenset({"busy", "no_reply"})


def _only_replies_lost(attempt: Attempt) -> bool:
    """The attempt lost replies and nothing else: every turn without a reply has its
    task's audit (a busy reply's kept audit, or the log of a turn whose client gave up),
    so a criterion that needs a lost reply is undecided and one that does not is decided
    as usual."""
    cause = attempt.error_cause
    missing = [t for t in attempt.turns if t.response is None]
    return (
        cause in REPLY_LOSSES
        and bool(missing)
        and all(t.trace and (t.reply_lost or cause == "no_reply") for t in missing)
    )


def _gradable(ctx: Ctx) -> bool:
    return any(t.response is not None or t.tool_calls or t.trace for t in ctx.turns)


def grade_attempt(
    block: Block,
    attempt: Attempt,
    *,
    workspace: Path | None = None,
    judge: Judge | None = None,
    battery_digest: str = "",
    strict: bool = False,
) -> GradeOutcome:
    """Grade one attempt against its block (see docs/grading.md for every rule).

    * ``PASS``: every counted PASS criterion holds, no counted FAIL criterion triggers, no
      always-FAIL hit.
    * ``FAIL``: a counted PASS criterion fails, a counted FAIL criterion triggers, or an
      always-FAIL rule hits (an always-FAIL hit is what the agent did, so it stands even
      when the attempt did not complete). When a precondition did not hold, only the
      automatic rules stand, not a rule criterion of the block (it judges a situation
      that did not arise).
    * ``ERROR``: a precondition demonstrably did not hold (``precondition``), the attempt
      did not complete or left nothing to grade (``error_cause`` from the attempt), or it
      would pass except that some counted criterion could not be decided (``ungraded``):
      an undecided criterion is never silently passed.

    Counted: methodology-origin criteria, and agenttest-origin ones in the battery's own
    blocks or under ``strict``; the others are reported as ``strict_warnings``.
    """
    rater = rater_id(getattr(judge, "name", None) if judge is not None else None, battery_digest)
    ctx = Ctx(block, attempt, workspace, judge)
    record = ctx.attempt
    applied = fixtures_applied(block, record)
    results: list[CriterionResult] = []
    critical: list[CriticalHit] = []
    warnings: list[StrictWarning] = []
    counted: list[CriterionResult] = []
    # every author-pattern search of the attempt shares one deadline (limits.py)
    with limits.deadline(limits.ATTEMPT_TIMEOUT_S, "the attempt"):
        for kind, group in (("pass", block.criteria.pass_), ("fail", block.criteria.fail)):
            for c in group:
                check, applies = decide(ctx, c, applied)
                res = _result(c, kind, check, block.origin_of(c))
                if not applies:
                    res.applies = False
                results.append(res)
                if not applies:
                    continue
                if not block.counts(c, strict):
                    res.strict_only = True
                    if res.passed is not True:
                        warnings.append(_warning(c, res))
                    continue
                counted.append(res)
                if res.passed is False and (c.critical or c.rule):
                    critical.append(
                        CriticalHit(
                            rule=c.rule or "critical",
                            criterion=c.id,
                            says=c.says,
                            evidence=res.evidence,
                        )
                    )
    if ctx.capped:  # a criterion read a prefix: say so where its verdict is explained
        note = limits.capped_note(ctx.capped)
        for res in results:
            res.evidence = _with_note(res.evidence or ev(), note)
    unmet = _unmet_precondition(ctx, applied)
    if unmet is not None:
        # the block's own rules judge the situation it set up, which did not arise (the
        # "missing" file existed): only what the agent did anywhere still stands
        critical = []
    critical += auto_hits(ctx, {str(h.rule) for h in critical})
    ungraded = [r.id for r in counted if r.passed is None]
    failed = any(r.passed is False for r in counted)
    status = record.status
    verdict: Verdict
    cause: str | None
    if critical:
        verdict, cause = "FAIL", None
    elif unmet is not None:
        verdict, cause = "ERROR", "precondition"
    elif status != "completed" and failed and _audit_kept(record):
        verdict, cause = "FAIL", None  # the reply was lost, the audit shows a failure anyway
    elif status != "completed" and not (failed or ungraded) and _only_replies_lost(record):
        verdict, cause = "PASS", None  # no counted criterion needed the lost reply
    elif status != "completed":
        verdict, cause = "ERROR", str(record.error_cause or status or "no_status")
    elif not _gradable(ctx):
        verdict, cause = "ERROR", "no_answer"
    elif failed:
        verdict, cause = "FAIL", None
    elif ungraded:  # completed: a deciding criterion waits for a rating, no harness fault
        verdict, cause = "UNDECIDED", None
    else:
        verdict, cause = "PASS", None
    return GradeOutcome(
        verdict, results, critical, rater, cause, ungraded, warnings, applied, unmet,
        evidence_source(record), unreported(ctx),
    )  # fmt: skip


def _warning(c: Criterion, res: CriterionResult) -> StrictWarning:
    state = "undecided" if res.passed is None else "failed"
    return StrictWarning(criterion=c.id, says=c.says, state=state, evidence=res.evidence)


def _unmet_precondition(ctx: Ctx, applied: bool) -> CriterionResult | None:
    """The first precondition that demonstrably did not hold, as a result row."""
    for c in ctx.block.preconditions:
        check, applies = decide(ctx, c, applied)
        if applies and check.holds is False:
            res = _result(c, "precondition", check, ctx.block.origin_of(c))
            res.passed = False
            return res
    return None
