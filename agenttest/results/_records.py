"""Typed records of the JSONL results file, schema 2.0 (SPEC section 4).

Every line is one JSON object with ``record_type`` and ``schema_version``. These
TypedDicts are the single description of what a line holds; the writer and the reader
both use them, and golden files under ``tests/golden/`` pin each schema version.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

SCHEMA_VERSION = "2.0"
SCHEMA_MAJOR = 2

Verdict = Literal["PASS", "FAIL", "ERROR"]
Status = Literal["completed", "timeout", "error"]
RecordType = Literal["run_meta", "attempt", "grade", "run_end"]


class ToolCall(TypedDict):
    name: str
    arguments: dict[str, Any]
    ok: bool | None
    result: Any
    # The model asked for the call and nothing executed it (a bare chat-completions server
    # runs no tools): it never counts as "the tool ran", only as an attempt to call it.
    requested_only: NotRequired[bool]


class TurnRecord(TypedDict, total=False):
    prompt: str
    response: str
    tool_calls: list[ToolCall]
    trace: str
    http_status: int | None
    latency_ms: int | None
    started_at: str
    completed_at: str
    log_lines: list[str]  # lines the agent appended to its log file during the turn
    error: str | None
    choices: list[dict[str, str]]  # answers the reply offered: [{label, value}]
    stream_text: str  # streamed replies: the text as its deltas arrived
    timeline: dict[str, Any]  # streamed replies: ms to first byte/text/tool calls/final, order
    choose: dict[str, Any]  # a `choose:` turn: {label_matches, offered: [labels], chose}
    stored: dict[str, Any]  # the reply read back from the agent: {text} or {error}


class Evidence(TypedDict, total=False):
    """Where a criterion was decided. Every key is optional; at least one is set."""

    turn: int  # 1-based
    tool_call: int  # 0-based index into that turn's tool_calls
    trace_line: int  # 1-based line of that turn's trace
    span: list[int]  # [start, end) character offsets in that turn's response
    file: str  # workspace-relative path that was read
    text: str  # a short excerpt of what was seen
    note: str  # why it could not be decided, or what was compared
    decided_by: str  # the rule that decided: criterion type, fixture-free variant, ...


class CriterionResult(TypedDict, total=False):
    id: str
    tag: str  # STATE | KEYWORD | JUDGE
    kind: str  # "pass" or "fail": which list the criterion came from
    type: str
    passed: bool | None  # for FAIL criteria: True means "did not trigger"; None = ungraded
    triggered: bool | None  # FAIL criteria only: the failure condition held
    critical: bool
    rule: str | None
    evidence: Evidence
    says: str
    origin: str  # "methodology" | "agenttest"
    strict_only: bool  # an agenttest addition that counts only under --strict
    applies: bool  # False: fixture-bound and the attempt ran without fixtures


class RunMeta(TypedDict, total=False):
    record_type: Literal["run_meta"]
    schema_version: str
    run_id: str
    model: str
    agent: dict[str, Any]  # config with secrets redacted
    tester: str
    run_type: Literal["exploratory", "published"]
    k_nominal: int
    started_at: str
    battery: dict[str, Any]  # {"paths": [...], "digest": "sha256:...", "overlay": ...}
    harness: dict[str, str]  # {"agenttest": "0.1.0"}
    host: dict[str, Any]
    plan: list[dict[str, Any]]  # [{"test_id": ..., "runs": k}]
    label: str | None
    imported_from: str | None
    selection: dict[str, Any]  # what `run` was asked for (k, only, tiers, overlay), for --resume


class Attempt(TypedDict, total=False):
    record_type: Literal["attempt"]
    schema_version: str
    test_id: str
    tier: str
    run: int
    k: int
    started_at: str
    completed_at: str
    latency_ms: int | None
    status: Status
    error: str | None
    error_cause: str | None  # unreachable | timeout | busy | garbage | http_error | lost | ...
    turns: list[TurnRecord]
    verdict: Verdict
    criteria: list[CriterionResult]
    critical: list[dict[str, Any]]  # always-FAIL hits: {"rule", "criterion", "evidence"}
    rater: str
    cost_tokens: int | None
    usage: dict[str, int] | None  # {"input_tokens", "output_tokens"} summed over the turns
    workspace_files: dict[str, str | None]  # path -> content (or None if absent) after the attempt
    session_id: str  # the fresh agent session this attempt used
    waits: dict[str, Any]  # time spent waiting for readiness and busy replies (not latency)
    fixtures_applied: bool  # the block's fixtures were in place (imports: False)
    strict_warnings: list[dict[str, Any]]  # agenttest-origin criteria that failed, not counted
    precondition: CriterionResult  # the unmet precondition of an ERROR (precondition)


class Grade(TypedDict, total=False):
    record_type: Literal["grade"]
    schema_version: str
    test_id: str
    run: int
    rater: str
    verdict: Verdict
    criteria: list[CriterionResult]
    critical: list[dict[str, Any]]
    graded_at: str
    fixtures_applied: bool
    strict_warnings: list[dict[str, Any]]
    precondition: CriterionResult


class RunEnd(TypedDict, total=False):
    record_type: Literal["run_end"]
    schema_version: str
    completed_at: str
    counts: dict[str, dict[str, int]]  # {"status": {...}, "verdict": {...}}
    reason: str  # "completed" | "interrupted" | "aborted: ..."
    attempts: dict[str, int]  # planned, recorded, written_this_session


Record = RunMeta | Attempt | Grade | RunEnd
