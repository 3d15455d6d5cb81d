"""The record-shaped parts of run-file records (schema 2.3): turns, tool calls, criteria,
evidence and the smaller notes an attempt or a run_meta carries.

Every part is a ``msgspec.Struct`` written with ``omit_defaults``: a field holding its
default (None, an empty list, False) is not written, and reads back as that default. A
default is chosen so that an absent field means what a reader always took it to mean
(``applies`` defaults to True: a criterion applies unless said otherwise).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from agenttest._util.limits import MAX_RUNS

#: A count a consumer divides, loops or allocates by (``run``, ``k``, ``plan[].runs``): a
#: declaration is never trusted beyond what a run can hold.
Count = Annotated[int, Meta(ge=1, le=MAX_RUNS)]


class Part(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A record or a part of one (the base of every record Struct)."""


class ToolCall(Part, kw_only=True):
    """One tool call for a turn: the agent's report of it (``origin`` null) or the
    harness's own record of a call it served (``origin`` "harness", hosted tools)."""

    name: Annotated[str, Meta(description="The tool's name.")]
    arguments: Annotated[dict[str, Any], Meta(description="The arguments it was called with.")] = {}
    ok: Annotated[
        bool | None, Meta(description="Whether the tool succeeded; null when not reported.")
    ] = None
    result: Annotated[Any, Meta(description="What the tool returned, as reported.")] = None
    requested_only: Annotated[
        bool,
        Meta(
            description="The model asked for the call and nothing executed it (a bare "
            "chat-completions server runs no tools): it never counts as the tool having run."
        ),
    ] = False
    source: Annotated[
        str | None, Meta(description="Import: where the call was found, when not in the log.")
    ] = None
    origin: Annotated[
        str | None,
        Meta(
            description='"harness": a hosted call the harness served; null: the agent reported it.'
        ),
    ] = None
    started_at: Annotated[str | None, Meta(description="Hosted: when the call arrived.")] = None
    duration_ms: Annotated[int | None, Meta(description="Hosted: how long it took.")] = None
    error: Annotated[
        str | None, Meta(description="Hosted: the error the call was answered with (ok false).")
    ] = None
    result_chars: Annotated[
        int | None,
        Meta(description="The full result's length when the stored result was capped."),
    ] = None


class Timeline(Part, kw_only=True):
    """A streamed reply: when each part arrived, in ms from the request being sent."""

    first_byte_ms: int | None = None
    first_text_ms: int | None = None
    tool_call_ms: list[int] = []
    choices_ms: int | None = None
    final_ms: int | None = None
    events: Annotated[int, Meta(description="Stream events received.")] = 0
    chunks: Annotated[int, Meta(description="Network chunks received.")] = 0
    max_gap_ms: Annotated[int, Meta(description="The longest silence between chunks.")] = 0
    order: Annotated[
        list[str],
        Meta(description="Arrival order: text | tool_call | choices | final (text runs once)."),
    ] = []
    order_truncated: Annotated[bool, Meta(description="`order` holds the first 64 only.")] = False


class Choose(Part, kw_only=True):
    """A ``choose:`` turn: the offered choice that was tapped."""

    label_matches: Annotated[str, Meta(description="The label the block asked to tap.")]
    offered: Annotated[list[str], Meta(description="The labels the previous reply offered.")] = []
    chose: Annotated[str | None, Meta(description="The label tapped; null when none matched.")] = (
        None
    )


class Stored(Part, kw_only=True):
    """The reply as read back from the agent after streaming it (stream/store parity)."""

    text: Annotated[str | None, Meta(description="The stored text.")] = None
    error: Annotated[str | None, Meta(description="Why it could not be read back.")] = None


class ModelStep(Part, kw_only=True):
    """One request of a model-driven agent loop (the bundled agent with ``--model-url``)
    and what the model returned: evidence for a person, never graded (what the agent did
    is in the tool calls and the trace; what it answered is the reply)."""

    text: Annotated[
        str | None, Meta(description="The model's message text; null when it sent none.")
    ] = None
    tool_calls: Annotated[
        list[ToolCall], Meta(description="The calls it asked for: name and arguments.")
    ] = []
    finish_reason: Annotated[
        str | None, Meta(description="Why the model stopped (stop, tool_calls, length, ...).")
    ] = None


class TurnRecord(Part, kw_only=True):
    """One prompt sent and what came back."""

    prompt: str = ""
    response: Annotated[
        str | None, Meta(description="The reply text; null when the turn was lost before any.")
    ] = None
    tool_calls: Annotated[
        list[ToolCall], Meta(description="The calls the agent reported for the turn.")
    ] = []
    hosted_calls: Annotated[
        list[ToolCall],
        Meta(description="Hosted tools: the calls the harness served during the turn."),
    ] = []
    trace: Annotated[str, Meta(description="The agent's trace text for the turn.")] = ""
    http_status: int | None = None
    latency_ms: int | None = None
    started_at: str | None = None
    completed_at: str | None = None
    log_lines: Annotated[
        list[str], Meta(description="Lines the agent appended to its log file during the turn.")
    ] = []
    error: str | None = None
    notes: Annotated[
        list[str], Meta(description="What was repaired in the reply to store it.")
    ] = []
    choices: Annotated[
        list[dict[str, str]], Meta(description="Answers the reply offered: [{label, value}].")
    ] = []
    stream_text: Annotated[
        str | None, Meta(description="Streamed replies: the text as its deltas arrived.")
    ] = None
    timeline: Timeline | None = None
    model_steps: Annotated[
        list[ModelStep],
        Meta(description="Model-driven agents: what the model returned at each request."),
    ] = []
    choose: Choose | None = None
    stored: Stored | None = None
    envelope: Annotated[
        dict[str, Any] | None, Meta(description="Import: the legacy reply envelope, as found.")
    ] = None
    trace_source: Annotated[
        str | None, Meta(description="Import: where the trace text came from.")
    ] = None
    trace_partial: Annotated[
        bool, Meta(description="Import: the trace is an excerpt of the task's log.")
    ] = False
    reply_lost: Annotated[
        bool,
        Meta(
            description="Import: the reply was lost (a BUSY the old client retried); the "
            "task's own trace may still be graded."
        ),
    ] = False


class Evidence(Part, kw_only=True):
    """Where a criterion was decided; the fields that apply are set."""

    turn: Annotated[int | None, Meta(description="1-based turn.")] = None
    tool_call: Annotated[int | None, Meta(description="0-based index into its tool_calls.")] = None
    hosted_call: Annotated[
        int | None, Meta(description="Hosted tools: 0-based index into its hosted_calls.")
    ] = None
    trace_line: Annotated[int | None, Meta(description="1-based line of its trace.")] = None
    span: Annotated[
        list[int] | None, Meta(description="[start, end) character offsets in its response.")
    ] = None
    file: Annotated[str | None, Meta(description="Workspace-relative path that was read.")] = None
    text: Annotated[str | None, Meta(description="A short excerpt of what was seen.")] = None
    note: Annotated[
        str | None, Meta(description="Why it could not be decided, or what was compared.")
    ] = None
    decided_by: Annotated[
        str | None, Meta(description="The rule that decided (criterion type or variant).")
    ] = None


class CriterionResult(Part, kw_only=True):
    """One criterion of the block, graded."""

    id: str = ""
    tag: Annotated[str, Meta(description="STATE | KEYWORD | JUDGE")] = ""
    kind: Annotated[str, Meta(description="pass | fail | precondition: its list.")] = ""
    type: str = ""
    passed: Annotated[
        bool | None,
        Meta(description="Held (FAIL criteria: did not trigger); null when undecided."),
    ] = None
    triggered: Annotated[
        bool | None, Meta(description="FAIL criteria only: the failure condition held.")
    ] = None
    critical: bool = False
    rule: str | None = None
    evidence: Evidence | None = None
    says: str | None = None
    origin: Annotated[str | None, Meta(description="methodology | agenttest")] = None
    strict_only: Annotated[
        bool, Meta(description="An agenttest addition that counts only under --strict.")
    ] = False
    applies: Annotated[
        bool,
        Meta(description="False: fixture-bound, and the attempt ran without the fixtures."),
    ] = True


class StrictWarning(Part, kw_only=True):
    """An agenttest-origin criterion that failed or was undecided and, without ``--strict``,
    did not count toward the verdict."""

    criterion: Annotated[str | None, Meta(description="The criterion's id.")] = None
    says: str | None = None
    state: Annotated[str | None, Meta(description="failed | undecided")] = None
    evidence: Evidence | None = None


class CriticalHit(Part, kw_only=True):
    """An always-FAIL hit: a critical criterion that failed, or a rule the grader found."""

    rule: str | None = None
    criterion: Annotated[
        str | None, Meta(description="The criterion; null for a rule found outside them.")
    ] = None
    auto: Annotated[
        bool, Meta(description="Found by the grader's always-FAIL rules, not a criterion.")
    ] = False
    says: str | None = None
    evidence: Evidence | None = None


class HostedInfo(Part, kw_only=True):
    """Hosted tools: the host that served an attempt's tools and what it refused."""

    url: Annotated[str, Meta(description="The MCP endpoint the replica's agent called.")]
    refused: Annotated[int, Meta(description="Calls refused over the per-attempt bound.", ge=0)] = 0
    faults_fired: Annotated[
        int, Meta(description="Calls answered with one of the block's faults.", ge=0)
    ] = 0
    malformed: Annotated[
        int,
        Meta(
            description="Requests the host could not read as MCP (HTTP 400, 406, 413, 415), "
            "answered with an error and counted: no tool ran, so none is a call.",
            ge=0,
        ),
    ] = 0


class Waits(Part, kw_only=True):
    """Time spent waiting for readiness and busy replies (not latency)."""

    ready_ms: int = 0
    busy_ms: int = 0
    busy_replies: int = 0


class Decided(Part, kw_only=True):
    """``--until-decided``: this attempt decided its block before k attempts were run."""

    passed: bool | None = None
    after: int | None = None
    k: int | None = None
    reason: str | None = None
    # None, not []: a note without the list (a 2.1 attempt may leave it out) passed nothing
    # over, and the report tells that from an empty list of skipped runs.
    skipped: Annotated[
        list[int] | None, Meta(description="The runs not started because of it.")
    ] = None


class Source(Part, kw_only=True):
    """Import: where the legacy record was."""

    file: str | None = None
    line: int | None = None


class PlanEntry(Part, kw_only=True):
    """One block of the plan: how many attempts of it were planned."""

    test_id: str
    runs: Count
    # What a plan may say of a block whose battery is not at hand (a merged or foreign
    # plan); the report shows them when it cannot load the block. `run` writes none.
    tier: str | None = None
    title: str | None = None
    owasp: list[str] | None = None


class BatteryInfo(Part, kw_only=True):
    paths: list[str] = []
    digest: str | None = None
    overlay: str | None = None
    blocks: int | None = None


class Selection(Part, kw_only=True):
    """What ``run`` was asked for, so ``--resume`` can continue it."""

    only: list[str] = []
    tiers: list[str] = []
    k: Count | None = None
    order: str | None = None
    example_args: list[str] = []
    until_decided: bool = False
    replicas: int | None = None
    model_url: str | None = None
    model: str | None = None
    stream: bool = False
    hosted_tools: Annotated[
        bool, Meta(description="run --hosted-tools: the bundled agent's tools were hosted.")
    ] = False
