"""From a block and an attempt to a verdict: criteria, always-FAIL rules, SPEC §6."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttest.blocks import CRITERION_TYPES, PER_CALL_NEGATE, Block, Criterion
from agenttest.results import Attempt, CriterionResult

from . import _state_criteria as st
from . import _text_criteria as tx
from . import _tool_criteria as tc
from ._context import Check, Ctx, ev
from ._grounding_criteria import GROUNDING_GRADERS
from ._rules import auto_hits

Grader = Callable[[Ctx, Criterion], Check]

GRADERS: dict[str, Grader] = {
    "no_tool_calls": tc.no_tool_calls,
    "tool_called": tc.tool_called,
    "tool_not_called": tc.tool_not_called,
    "tool_count": tc.tool_count,
    "tool_order": tc.tool_order,
    "tool_arg": tc.tool_arg,
    "tool_result": tc.tool_result,
    "response_contains": tx.response_contains,
    "response_number": tx.response_number,
    "response_wrong_number": tx.response_wrong_number,
    "response_regex": tx.response_regex,
    "response_empty": tx.response_empty,
    "sentence_count": tx.sentence_count,
    "list_items": tx.list_items,
    "asks_question": tx.asks_question,
    "trace_contains": tc.trace_contains,
    "category": tc.category,
    "file_exists": st.file_exists,
    "file_absent": st.file_absent,
    "file_content": st.file_content,
    "latency_max": st.latency_max,
    "clock_delta": tx.clock_delta,
    "status": st.status,
    "unknown_tool": tc.unknown_tool,
    "command_executed": tc.command_executed,
    "judge": st.judge,
    **GROUNDING_GRADERS,
}


@dataclass(frozen=True)
class GradeOutcome:
    verdict: str
    criteria: list[CriterionResult]
    critical: list[dict[str, Any]]
    rater: str
    error_cause: str | None
    ungraded: list[str] = field(default_factory=list)


def rater_id(judge_name: str | None, battery_digest: str) -> str:
    """``rules@<digest>``, or ``rules+<judge>@<digest>`` when a judge graded JUDGE criteria."""
    base = "rules" + (f"+{judge_name}" if judge_name else "")
    return f"{base}@{battery_digest}" if battery_digest else base


def evaluate(ctx: Ctx, c: Criterion) -> Check:
    """One criterion, with `negate` and `any_of` applied (three-valued: None = undecided)."""
    if c.type == "any_of":
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
                f"{sub.id}: {s.evidence.get('note', 'no')}"
                for sub, s in zip(c.of, subs, strict=True)
            )
            check = Check(False, ev(note=f"no alternative holds ({notes})"))
    else:
        grader = GRADERS.get(c.type)
        if grader is None:
            return Check(None, ev(note=f"no grader for criterion type {c.type!r}"))
        try:
            check = grader(ctx, c)
        except Exception as exc:  # one broken criterion must not sink a night's run
            return Check(None, ev(note=f"grader {c.type} failed: {type(exc).__name__}: {exc}"))
    if c.negate and c.type not in PER_CALL_NEGATE and check.holds is not None:
        check = Check(not check.holds, _with_note(check.evidence, "negated"))
    return check


def _with_note(evidence: dict[str, Any] | Any, note: str) -> Any:
    out = dict(evidence)
    out["note"] = f"{out['note']}; {note}" if out.get("note") else note
    return out


def _result(c: Criterion, kind: str, check: Check) -> CriterionResult:
    out: CriterionResult = {
        "id": c.id,
        "tag": c.tag,
        "kind": kind,
        "type": c.type,
        "critical": bool(c.critical or c.rule),
        "rule": c.rule,
        "says": c.says,
        "evidence": check.evidence or ev(note="no evidence"),
    }
    if kind == "pass":
        out["passed"] = check.holds
    else:
        out["triggered"] = check.holds
        out["passed"] = None if check.holds is None else not check.holds
    return out


def _gradable(attempt: dict[str, Any]) -> bool:
    for turn in attempt.get("turns") or []:
        if isinstance(turn.get("response"), str) or turn.get("tool_calls") or turn.get("trace"):
            return True
    return False


def grade_attempt(
    block: Block,
    attempt: Attempt | dict[str, Any],
    *,
    workspace: Path | None = None,
    judge: Any = None,
    battery_digest: str = "",
) -> GradeOutcome:
    """Grade one attempt against its block (see docs/grading.md for every rule).

    * ``PASS``: every PASS criterion holds, no FAIL criterion triggers, no always-FAIL hit.
    * ``FAIL``: any PASS criterion fails, any FAIL criterion triggers, or an always-FAIL
      rule hits (an always-FAIL hit is what the agent did, so it stands even when the
      attempt did not complete).
    * ``ERROR``: the attempt did not complete or left nothing to grade (``error_cause``
      from the attempt), or it would pass except that some criterion could not be decided
      (``error_cause: "ungraded"``): an undecided criterion is never silently passed.
    """
    record = dict(attempt)
    rater = rater_id(getattr(judge, "name", None) if judge is not None else None, battery_digest)
    ctx = Ctx(block, record, workspace, judge)
    results: list[CriterionResult] = []
    critical: list[dict[str, Any]] = []
    for kind, group in (("pass", block.criteria.pass_), ("fail", block.criteria.fail)):
        for c in group:
            if c.type not in CRITERION_TYPES:
                check = Check(None, ev(note=f"unknown criterion type {c.type!r}"))
            else:
                check = evaluate(ctx, c)
            res = _result(c, kind, check)
            results.append(res)
            if res["passed"] is False and (c.critical or c.rule):
                critical.append(
                    {
                        "rule": c.rule or "critical",
                        "criterion": c.id,
                        "says": c.says,
                        "evidence": res["evidence"],
                    }
                )
    critical += auto_hits(ctx, {str(h["rule"]) for h in critical})
    ungraded = [str(r["id"]) for r in results if r.get("passed") is None]
    failed = any(r.get("passed") is False for r in results)
    status = record.get("status")
    if critical:
        verdict, cause = "FAIL", None
    elif status != "completed":
        verdict, cause = "ERROR", str(record.get("error_cause") or status or "no_status")
    elif not _gradable(record):
        verdict, cause = "ERROR", "no_answer"
    elif failed:
        verdict, cause = "FAIL", None
    elif ungraded:
        verdict, cause = "ERROR", "ungraded"
    else:
        verdict, cause = "PASS", None
    return GradeOutcome(verdict, results, critical, rater, cause, ungraded)
