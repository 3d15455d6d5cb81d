"""Every attempt of a run as the HTML viewer opens it: transcript, tool calls, criteria.

The report's first pass keeps no transcripts (:mod:`._aggregate`). For the HTML viewer
this module reads the attempts back — all of them, passing ones too — and turns each into
a small JSON-ready dict; the page renders an attempt's details only when it is opened, so
the page stays fast with thousands of attempts. Long texts are cut (:func:`clip`), and the
JSON is made safe for a ``<script type="application/json">`` block by :func:`script_json`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from agenttest.results import (
    Attempt,
    CriterionResult,
    CriticalHit,
    Grade,
    ModelStep,
    ToolCall,
    TurnRecord,
)

from ._aggregate import Aggregator
from ._details import clip, criterion_outcome, describe_evidence, fetch_records
from ._model import tier_key
from ._raters import analyse_raters
from ._slots import CODE_NAME, SlotKey

#: Per-text limits in the viewer (the run file holds the whole text).
PROMPT_LIMIT, REPLY_LIMIT, TRACE_LIMIT, VALUE_LIMIT = 2000, 4000, 4000, 1000
MAX_CALLS = 30


class ViewerCall(TypedDict):
    name: str
    args: str
    ok: bool | None
    result: str
    requested: bool  # asked for and not run


class ViewerStep(TypedDict):
    """What a model-driven agent's model returned at one request (TurnRecord.model_steps)."""

    head: str  # "step 2 · finish: length"
    text: str
    calls: list[str]  # name(arguments)


class ViewerTurn(TypedDict):
    prompt: str
    reply: str
    steps: list[ViewerStep]
    calls: list[ViewerCall]
    more_calls: int  # calls past MAX_CALLS, not shown
    hosted_calls: list[ViewerCall]  # the harness's record (hosted tools), first MAX_CALLS
    trace: list[str]
    log: list[str]
    latency_ms: int | None
    http: int | None
    error: str | None


class ViewerCriterion(TypedDict):
    id: str
    tag: str
    kind: str
    outcome: str  # held, not met, triggered, not triggered, ungraded, not applicable
    says: str
    type: str
    evidence: str
    rule: str
    critical: bool
    decided_by: str
    origin: str
    strict_only: bool


class ViewerHit(TypedDict):
    rule: str
    criterion: str
    evidence: str


class ViewerAttempt(TypedDict):
    """One attempt as the page's script reads it (templates/viewer.js)."""

    block: str
    tier: str
    run: int
    run_id: str
    verdict: str  # PASS, FAIL, ERROR, AWAITING or UNRATED
    rater: str
    status: str
    error: str | None
    cause: str | None
    latency_ms: int | None
    tokens: int | None
    usage: dict[str, int] | None
    critical: list[ViewerHit]
    criteria: list[ViewerCriterion]
    turns: list[ViewerTurn]
    evidence_source: str | None  # harness, agent or log: which evidence decided
    evidence_notes: list[str]  # hosted tools: served calls the agent did not report


class ViewerData(TypedDict):
    """The HTML report's attempt viewer: the run's attempts and the baseline's, if any."""

    attempts: list[ViewerAttempt]
    baseline: list[ViewerAttempt] | None


def _value(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return clip(text, VALUE_LIMIT)[0]


def _call(call: ToolCall) -> ViewerCall:
    return {
        "name": _value(call.name),
        "args": _value(call.arguments),
        "ok": call.ok,
        "result": _value(call.result),
        "requested": call.requested_only,
    }


def _step(number: int, step: ModelStep) -> ViewerStep:
    finish = step.finish_reason or "not given"
    return {
        "head": f"step {number} \u00b7 finish: {finish}",
        "text": clip(step.text, REPLY_LIMIT)[0] if step.text is not None else "",
        "calls": [f"{_value(c.name)}({_value(c.arguments)})" for c in step.tool_calls[:MAX_CALLS]],
    }


def _turn(turn: TurnRecord) -> ViewerTurn:
    calls = turn.tool_calls
    return {
        "prompt": clip(turn.prompt, PROMPT_LIMIT)[0],
        "reply": clip(turn.response, REPLY_LIMIT)[0],
        "steps": [_step(i, step) for i, step in enumerate(turn.model_steps[:MAX_CALLS], 1)],
        "calls": [_call(c) for c in calls[:MAX_CALLS]],
        "more_calls": max(0, len(calls) - MAX_CALLS),
        "hosted_calls": [_call(c) for c in turn.hosted_calls[:MAX_CALLS]],
        "trace": clip(turn.trace, TRACE_LIMIT)[0].splitlines(),
        "log": [clip(x, 500)[0] for x in turn.log_lines[:50]],
        "latency_ms": turn.latency_ms,
        "http": turn.http_status,
        "error": clip(turn.error, 500)[0] if turn.error else None,
    }


def _criterion(c: CriterionResult) -> ViewerCriterion:
    evidence = c.evidence
    return {
        "id": _value(c.id),
        "tag": _value(c.tag),
        "kind": _value(c.kind),
        "type": _value(c.type),
        "outcome": criterion_outcome(c) if c.applies else "not applicable",
        "says": clip(c.says, 500)[0],
        "evidence": describe_evidence(evidence),
        "rule": _value(c.rule),
        "critical": c.critical,
        # the rule the grader applied (issue 12's ``evidence.decided_by``) and whose rule
        # the criterion is: the methodology's, or agenttest's stricter addition
        "decided_by": _value(evidence.decided_by) if evidence is not None else "",
        "origin": _value(c.origin),
        "strict_only": c.strict_only,
    }


def _hits(hits: list[CriticalHit]) -> list[ViewerHit]:
    return [
        {
            "rule": _value(hit.rule or "?"),
            "criterion": _value(hit.criterion),
            "evidence": describe_evidence(hit.evidence),
        }
        for hit in hits
    ]


def _entry(
    key: SlotKey, attempt: Attempt, grade: Grade | None, verdict: str, rater: str
) -> ViewerAttempt:
    source = grade if grade is not None else attempt
    return {
        "block": key[1],
        "tier": attempt.tier or "?",
        "run": key[2],
        "run_id": key[0],
        "verdict": verdict,
        "rater": rater,
        "status": _value(attempt.status),
        "error": clip(attempt.error, 1000)[0] if attempt.error else None,
        "cause": _value(attempt.error_cause) or None,
        "latency_ms": attempt.latency_ms,
        "tokens": attempt.cost_tokens,
        "usage": attempt.usage,
        "critical": _hits(source.critical),
        "criteria": [_criterion(c) for c in source.criteria],
        "turns": [_turn(t) for t in attempt.turns],
        "evidence_source": source.evidence_source,
        "evidence_notes": [describe_evidence(e) for e in source.evidence_notes[:MAX_CALLS]],
    }


def collect_attempts(
    paths: Sequence[str | Path], rater: str | None = None, allow_mixed: bool = False
) -> list[ViewerAttempt]:
    """Every attempt slot of the run files with the verdict that counts for ``rater``.

    Verdicts are ``PASS``/``FAIL``/``ERROR``, ``AWAITING`` when an uncalibrated judge
    decided them (left out of the rates), ``UNRATED`` when the chosen rater did not grade
    that attempt. Sorted by tier, block, run id and attempt number.
    """
    agg = Aggregator(allow_mixed=allow_mixed)
    for path in paths:
        agg.add(path)
    _, uncalibrated = analyse_raters(agg, rater)
    decided = []
    wanted = []
    for key, slot in agg.slots.items():
        d = agg.decide(key, slot, rater, uncalibrated)
        wanted.append((slot.file, slot.ordinal))
        grade_at = None
        if d is not None and d.graded:
            entry = agg.grades[key][d.rater]
            grade_at = (entry.file, entry.ordinal)
            wanted.append(grade_at)
        if d is None:
            verdict, who = "UNRATED", str(rater)
        else:
            verdict, who = ("AWAITING" if d.awaiting else CODE_NAME[d.code]), d.rater
        decided.append((key, (slot.file, slot.ordinal), grade_at, verdict, who))
    records = fetch_records([f.path for f in agg.files], wanted)
    out = []
    for key, at, grade_at, verdict, who in decided:
        attempt = records.get(at)
        if not isinstance(attempt, Attempt):  # the file changed between the passes
            continue
        found = records.get(grade_at) if grade_at else None
        grade = found if isinstance(found, Grade) else None
        out.append(_entry(key, attempt, grade, verdict, who))
    out.sort(key=lambda e: (tier_key(e["tier"]), e["block"], e["run_id"], e["run"]))
    return out


def script_json(data: object) -> str:
    """JSON that cannot end its ``<script type="application/json">`` element early:
    ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, which JSON.parse reads back."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
