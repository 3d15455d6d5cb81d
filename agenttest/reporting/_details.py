"""Transcripts and evidence of failing attempts, fetched in a second, selective pass.

The first pass keeps no transcripts (see :mod:`._aggregate`); when a Markdown or HTML
report wants to show failing attempts, the few it shows are read back here by their
position in the file. Long texts are cut at :data:`TEXT_LIMIT` characters, with a note.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agenttest.results import DICT_LIKE, DictLike, Record, iter_records

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


def describe_evidence(evidence: Any) -> str:
    """One line saying where a criterion was decided (SPEC section 4: evidence)."""
    if isinstance(evidence, str):
        return clip(evidence, 400)[0]
    if not isinstance(evidence, DICT_LIKE) or not evidence:
        return "no evidence recorded"
    parts = []
    if "turn" in evidence:
        parts.append(f"turn {evidence['turn']}")
    if "tool_call" in evidence:
        parts.append(f"tool call #{evidence['tool_call']}")
    if "trace_line" in evidence:
        parts.append(f"trace line {evidence['trace_line']}")
    span = evidence.get("span")
    if isinstance(span, list) and len(span) == 2:
        parts.append(f"response chars {span[0]}–{span[1]}")
    if evidence.get("file"):
        parts.append(f"file {evidence['file']}")
    if evidence.get("text"):
        parts.append("“" + clip(evidence["text"], 300)[0] + "”")
    if evidence.get("note"):
        parts.append(clip(evidence["note"], 300)[0])
    return " · ".join(parts) or json.dumps(evidence, ensure_ascii=False)[:400]


def _tool_call(call: Any) -> str:
    if not isinstance(call, DICT_LIKE):
        return clip(call, 300)[0]
    args = json.dumps(call.get("arguments"), ensure_ascii=False, default=str)
    ok = call.get("ok")
    outcome = "ok" if ok is True else "failed" if ok is False else "?"
    return f"{call.get('name', '?')}({clip(args, 300)[0]}) → {outcome}"


def _outcome(value: Any, yes: str, no: str) -> str:
    return yes if value is True else no if value is False else "ungraded"


def _criterion(c: Any) -> CriterionView:
    if not isinstance(c, DICT_LIKE):
        return CriterionView("?", "", "", "ungraded", clip(c, 300)[0], "")
    if c.get("kind") == "fail" or c.get("triggered") is not None:
        outcome = _outcome(c.get("triggered"), "triggered", "not triggered")
    else:
        outcome = _outcome(c.get("passed"), "held", "not met")
    return CriterionView(
        id=str(c.get("id", "?")),
        tag=str(c.get("tag") or ""),
        kind=str(c.get("kind") or ""),
        outcome=outcome,
        says=clip(c.get("says"), 500)[0],
        evidence=describe_evidence(c.get("evidence")),
    )


def attempt_detail(
    attempt: DictLike, run_id: str, verdict: str, rater: str, grade: DictLike | None
) -> AttemptDetail:
    """The view of one attempt; criteria come from the grade that decided it, if any."""
    truncated = False
    turns = []
    for turn in attempt.get("turns") or []:
        if not isinstance(turn, DICT_LIKE):
            continue
        prompt, cut1 = clip(turn.get("prompt"), 1000)
        response, cut2 = clip(turn.get("response"))
        trace, cut3 = clip(turn.get("trace"))
        truncated = truncated or cut1 or cut2 or cut3
        calls = turn.get("tool_calls") or []
        turns.append(
            TurnView(
                prompt=prompt,
                response=response,
                tool_calls=tuple(_tool_call(c) for c in calls[:20]),
                trace=trace,
                http_status=turn.get("http_status"),
                latency_ms=turn.get("latency_ms"),
            )
        )
    source = grade if grade is not None else attempt
    error = attempt.get("error")
    return AttemptDetail(
        test_id=str(attempt.get("test_id")),
        run=int(attempt.get("run") or 0),
        run_id=run_id,
        verdict=verdict,
        rater=rater,
        error=clip(error, 1000)[0] if error else None,
        turns=tuple(turns),
        criteria=tuple(_criterion(c) for c in source.get("criteria") or []),
        truncated=truncated,
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
