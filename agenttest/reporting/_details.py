"""Transcripts and evidence of failing attempts, fetched in a second, selective pass.

The first pass keeps no transcripts (see :mod:`._aggregate`); when a Markdown or HTML
report wants to show failing attempts, the few it shows are read back here by their
position in the file. Long texts are cut at :data:`TEXT_LIMIT` characters, with a note.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import msgspec

from agenttest.results import (
    Attempt,
    CriterionResult,
    Evidence,
    Grade,
    Record,
    ToolCall,
    iter_records,
)

from ._model import AttemptDetail, CriterionView, TurnView

TEXT_LIMIT = 4000
#: How many failing attempts of one block a report shows in full.
MAX_FAILING_DETAILS = 5

Location = tuple[int, int]  # (file index, record index in that file)


def clip(value: Any, limit: int = TEXT_LIMIT) -> tuple[str, bool]:
    text = value if isinstance(value, str) else "" if value is None else str(value)
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n… [{len(text) - limit} more characters in the run file]", True


def describe_evidence(evidence: Evidence | None) -> str:
    """One line saying where a criterion was decided (SPEC section 4: evidence)."""
    if evidence is None:
        return "no evidence recorded"
    parts = []
    if evidence.turn is not None:
        parts.append(f"turn {evidence.turn}")
    if evidence.tool_call is not None:
        parts.append(f"tool call #{evidence.tool_call}")
    if evidence.hosted_call is not None:
        parts.append(f"harness call #{evidence.hosted_call}")
    if evidence.trace_line is not None:
        parts.append(f"trace line {evidence.trace_line}")
    span = evidence.span
    if span is not None and len(span) == 2:
        parts.append(f"response chars {span[0]}–{span[1]}")
    if evidence.file:
        parts.append(f"file {evidence.file}")
    if evidence.text:
        parts.append("“" + clip(evidence.text, 300)[0] + "”")
    if evidence.note:
        parts.append(clip(evidence.note, 300)[0])
    if parts:
        return " · ".join(parts)
    # nothing above: what it holds as written (``decided_by`` alone), or nothing at all
    held = msgspec.to_builtins(evidence)
    return json.dumps(held, ensure_ascii=False)[:400] if held else "no evidence recorded"


def _tool_call(call: ToolCall) -> str:
    args = json.dumps(call.arguments, ensure_ascii=False, default=str)
    outcome = "ok" if call.ok is True else "failed" if call.ok is False else "?"
    return f"{call.name}({clip(args, 300)[0]}) → {outcome}"


def criterion_outcome(c: CriterionResult) -> str:
    """held / not met for a pass criterion, triggered / not triggered for a fail one."""
    if c.kind == "fail" or c.triggered is not None:
        value, yes, no = c.triggered, "triggered", "not triggered"
    else:
        value, yes, no = c.passed, "held", "not met"
    return yes if value is True else no if value is False else "ungraded"


def _criterion(c: CriterionResult) -> CriterionView:
    return CriterionView(
        id=c.id,
        tag=c.tag,
        kind=c.kind,
        outcome=criterion_outcome(c),
        says=clip(c.says, 500)[0],
        evidence=describe_evidence(c.evidence),
    )


def attempt_detail(
    attempt: Attempt, run_id: str, verdict: str, rater: str, grade: Grade | None
) -> AttemptDetail:
    """The view of one attempt; criteria come from the grade that decided it, if any."""
    truncated = False
    turns = []
    for turn in attempt.turns:
        prompt, cut1 = clip(turn.prompt, 1000)
        response, cut2 = clip(turn.response)
        trace, cut3 = clip(turn.trace)
        truncated = truncated or cut1 or cut2 or cut3
        turns.append(
            TurnView(
                prompt=prompt,
                response=response,
                tool_calls=tuple(_tool_call(c) for c in turn.tool_calls[:20]),
                trace=trace,
                http_status=turn.http_status,
                latency_ms=turn.latency_ms,
                hosted_calls=tuple(_tool_call(c) for c in turn.hosted_calls[:20]),
            )
        )
    source = grade if grade is not None else attempt
    error = attempt.error
    return AttemptDetail(
        test_id=attempt.test_id,
        run=attempt.run,
        run_id=run_id,
        verdict=verdict,
        rater=rater,
        error=clip(error, 1000)[0] if error else None,
        turns=tuple(turns),
        criteria=tuple(_criterion(c) for c in source.criteria),
        truncated=truncated,
        evidence_source=source.evidence_source or "",
        evidence_notes=tuple(describe_evidence(e) for e in source.evidence_notes[:20]),
    )


def fetch_records(paths: list[str], wanted: Iterable[Location]) -> dict[Location, Record]:
    """Read back the records at the given positions, stopping each file once all are found."""
    by_file: dict[int, set[int]] = {}
    for file_index, ordinal in wanted:
        by_file.setdefault(file_index, set()).add(ordinal)
    found: dict[Location, Record] = {}
    for file_index, ordinals in sorted(by_file.items()):
        remaining = set(ordinals)
        for ordinal, record in enumerate(iter_records(paths[file_index])):
            if ordinal in remaining:
                found[(file_index, ordinal)] = record
                remaining.discard(ordinal)
                if not remaining:
                    break
    return found
