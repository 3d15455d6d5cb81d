"""Typed records of the JSONL results file, schema 2.1 (SPEC section 4).

Every line is one JSON object with ``record_type`` and ``schema_version``. These
TypedDicts are the single description of what a line holds: the constructors below build
records from them, the reader validates every record it reads against them
(:mod:`._validate`), ``agenttest schema --records`` publishes them as JSON Schema, and a
golden file per version under ``tests/golden/`` pins each one field for field.

2.1 (this version) declares what 2.0 files began to carry without a version of their
own: ``attempt.session_id``, ``waits``, ``workspace_files``, the importer's
``grade_note``, ``legacy_id``, ``source`` and ``latency_source``, ``run_meta.selection``
and ``legacy``, ``run_end.attempts``, ``grade.attempt_started_at`` and ``error_cause``,
and a critical hit's ``auto`` flag. Every 2.1 field is optional, so a 2.0 record reads as
2.1 unchanged (the reader's migration only restamps the version).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, cast

SCHEMA_VERSION = "2.1"
SCHEMA_MAJOR = 2

Verdict = Literal["PASS", "FAIL", "ERROR"]
Status = Literal["completed", "timeout", "error"]


class _ToolCallCore(TypedDict):
    name: str
    arguments: dict[str, Any]
    ok: bool | None
    result: Any


class ToolCall(_ToolCallCore, total=False):
    # The model asked for the call and nothing executed it (a bare chat-completions server
    # runs no tools): it never counts as "the tool ran", only as an attempt to call it.
    # (A total=False subclass, not NotRequired: under `from __future__ import annotations`
    # Python 3.11 cannot see NotRequired and would count the key as required.)
    requested_only: bool


class TurnRecord(TypedDict, total=False):
    prompt: str
    response: str | None  # None: the turn was lost before any answer
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
    envelope: Any  # import: the legacy reply envelope, kept as found
    trace_source: str  # import: where the trace text came from


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


class CriticalHit(TypedDict, total=False):
    """An always-FAIL hit: a critical criterion that failed, or a rule the grader found."""

    rule: str
    criterion: str | None  # None for a rule found outside the block's criteria
    auto: bool  # found by the grader's always-FAIL rules, not by a block criterion
    says: str
    evidence: Evidence


class Waits(TypedDict, total=False):
    ready_ms: int
    busy_ms: int
    busy_replies: int


class Decided(TypedDict, total=False):
    """``--until-decided``: this attempt decided its block before k attempts were run."""

    passed: bool
    after: int
    k: int
    reason: str
    skipped: list[int]  # the runs that were not started because of it


class PlanEntry(TypedDict):
    test_id: str
    runs: int


class BatteryInfo(TypedDict, total=False):
    paths: list[str]
    digest: str
    overlay: str | None
    blocks: int


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
    battery: BatteryInfo
    harness: dict[str, str]  # {"agenttest": "0.1.0", "python": "3.11.7"}
    host: dict[str, Any]
    plan: list[PlanEntry]
    label: str | None
    imported_from: str | None
    selection: dict[str, Any]  # what `run` was asked for (k, only, tiers, overlay), for --resume
    legacy: dict[str, Any]  # import: facts of the legacy file that have no 2.x field
    parity: list[dict[str, Any]]  # run --parity: [{label, agent}] of both agents


class Attempt(TypedDict, total=False):
    record_type: Literal["attempt"]
    schema_version: str
    test_id: str
    tier: str
    run: int
    k: int
    started_at: str
    completed_at: str | None  # None: an imported attempt whose legacy record had no end
    latency_ms: int | None
    status: Status
    error: str | None
    error_cause: str | None  # unreachable | timeout | busy | garbage | http_error | lost | ...
    turns: list[TurnRecord]
    verdict: Verdict | None  # None: imported for an id no block knows (see grade_note)
    criteria: list[CriterionResult]
    critical: list[CriticalHit]
    rater: str | None
    cost_tokens: int | None
    usage: dict[str, int] | None  # {"input_tokens", "output_tokens"} summed over the turns
    workspace_files: dict[str, str | None]  # path -> content (or None if absent) after the attempt
    session_id: str  # the fresh agent session this attempt used
    waits: Waits  # time spent waiting for readiness and busy replies (not latency)
    replica: int  # a pooled run: the replica (by index) that ran the attempt
    decided: Decided
    grade_note: str  # import: why the attempt stayed ungraded
    legacy_id: str  # import: the id the legacy file used
    source: dict[str, Any]  # import: {"file", "line"} of the legacy record
    latency_source: str  # import: how latency_ms was obtained
    fixtures_applied: bool  # the block's fixtures were in place (imports: False)
    strict_warnings: list[dict[str, Any]]  # agenttest-origin criteria that failed, not counted
    precondition: CriterionResult  # the unmet precondition of an ERROR (precondition)
    agent: str  # run --parity: the label of the agent that ran the attempt
    timezone: str | None  # the agent host's zone (agent config or overlay), for clock criteria


class Grade(TypedDict, total=False):
    record_type: Literal["grade"]
    schema_version: str
    test_id: str
    run: int
    rater: str
    verdict: Verdict
    criteria: list[CriterionResult]
    critical: list[CriticalHit]
    graded_at: str
    attempt_started_at: str | None  # which attempt of (test_id, run) was graded
    error_cause: str | None
    fixtures_applied: bool
    strict_warnings: list[dict[str, Any]]
    precondition: CriterionResult
    agent: str  # run --parity: the label of the agent whose attempt was graded


class RunEnd(TypedDict, total=False):
    record_type: Literal["run_end"]
    schema_version: str
    completed_at: str
    counts: dict[str, dict[str, int]]  # {"status": {...}, "verdict": {...}}
    reason: str  # "completed" | "interrupted" | "aborted: ..."
    attempts: dict[str, int]  # planned, recorded, written_this_session
    parity: bool  # run --parity: the run_end closing both agents' plans


Record = RunMeta | Attempt | Grade | RunEnd

#: The type of each record_type, for the reader's validation and the published schema.
RECORD_TYPES: dict[str, type] = {
    "run_meta": RunMeta,
    "attempt": Attempt,
    "grade": Grade,
    "run_end": RunEnd,
}


# -- one constructor per record type ----------------------------------------------------------
# Each stamps record_type and schema_version, so no writer spells them itself.


def _stamped(record_type: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"record_type": record_type, "schema_version": SCHEMA_VERSION, **fields}


def run_meta(**fields: Any) -> RunMeta:
    return cast(RunMeta, _stamped("run_meta", fields))


def attempt(**fields: Any) -> Attempt:
    return cast(Attempt, _stamped("attempt", fields))


def grade(**fields: Any) -> Grade:
    return cast(Grade, _stamped("grade", fields))


def graded_attempt(attempt: Mapping[str, Any]) -> dict[str, Any]:
    """The fields that tie a grade to the attempt it graded: ``attempt_started_at`` (a retry's
    grade is told from the attempt it replaced) and, in a ``--parity`` run, ``agent``."""
    out: dict[str, Any] = {}
    if attempt.get("started_at"):
        out["attempt_started_at"] = attempt["started_at"]
    if attempt.get("agent") is not None:
        out["agent"] = attempt["agent"]
    return out


def run_end(**fields: Any) -> RunEnd:
    return cast(RunEnd, _stamped("run_end", fields))


SlotKey = tuple[str, str, int]  # (run id, or "run id@agent" in a --parity run; test id; run)


def slot_key(run_id: str, agent: Any, test_id: str, number: int) -> SlotKey:
    """The attempt slot an attempt or grade record names. A ``--parity`` run labels each
    attempt, and each grade of one, with its agent: each agent's attempts fill slots of their
    own. Every reader that pairs grades with attempts keys them by this."""
    return (run_id if agent is None else f"{run_id}@{agent}", test_id, number)
