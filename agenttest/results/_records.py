"""Typed records of the JSONL results file, schema 2.5 (SPEC section 4).

Every line is one JSON object with ``record_type`` and ``schema_version``. The four
``msgspec.Struct`` classes below (with their parts, :mod:`._parts`) are the single
description of what a line holds: writers build them, :class:`RunWriter` encodes them, the
reader decodes each line straight into one (the decoding is the validation), ``agenttest
schema --records`` publishes them as JSON Schema, and a golden file per version under
``tests/golden/`` pins each one field for field.

2.5 (this version) adds the outcome ``NOT_APPLICABLE``: the block's criteria need
something the agent cannot provide (agent-internal trace markers, a memory seed endpoint, a
workspace), decided from the agent config before the attempt ran, so no turn was sent; the
attempt's ``not_applicable`` says why. It is in no rate, never a PASS. A turn's
``model_steps`` (:class:`ModelStep`) records what the model of a model-driven agent loop
returned at each request (text, asked-for calls, finish reason), never graded. A 2.4
record means the same in 2.5.

2.4 gives an attempt no grader could decide its own verdict, ``UNDECIDED``
(awaiting a rating: a deciding criterion waits for a person, or for a judge that abstained
or is not calibrated), where 2.3 and older wrote ``ERROR`` with the cause ``ungraded``;
the reader turns those into ``UNDECIDED``. ``ERROR`` keeps one meaning: the harness or
the agent's transport failed.

2.3 adds the evidence of hosted tools (the harness serving the agent's
tools over MCP): a tool call's ``origin`` ("harness"), ``started_at``, ``duration_ms``,
``error`` and ``result_chars``; a turn's ``hosted_calls`` (the harness's record beside the
agent's ``tool_calls``); an attempt's ``hosted`` (:class:`HostedInfo`) and run_end's
``hosted_refused_outside``. Every one is optional, so a 2.2 record means the same in 2.3.

2.2 writes what 2.1 wrote, with every field that holds its default left
out (null, an empty list, false; ``applies`` only when false): an absent field reads as
that default. It also declares what 2.1 files carried without a declaration: a turn's
``notes`` (repairs made to store the reply), the importer's ``reply_lost``,
``trace_partial`` and a tool call's ``source``, and every field of a stream's
``timeline``. 2.0 and 2.1 records mean the same in 2.2 terms and read unchanged (the
reader's migration only restamps the version, for 2.2 as well).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta

# one constant, kept where the CLI's help can read it without importing the records
from agenttest._util.schema_version import SCHEMA_MAJOR as SCHEMA_MAJOR
from agenttest._util.schema_version import SCHEMA_VERSION as SCHEMA_VERSION

from ._parts import (
    BatteryInfo,
    Count,
    CriterionResult,
    CriticalHit,
    Decided,
    Evidence,
    HostedInfo,
    Part,
    PlanEntry,
    Selection,
    Source,
    StrictWarning,
    TurnRecord,
    Waits,
)

#: UNDECIDED: completed, but a deciding criterion waits for a rating (never in a rate);
#: NOT_APPLICABLE: the agent cannot provide what the block needs, so it never ran (no rate)
Verdict = Literal["PASS", "FAIL", "ERROR", "UNDECIDED", "NOT_APPLICABLE"]
Status = Literal["completed", "timeout", "error"]
#: Which evidence decided a grade's tool facts: the harness's record of the hosted calls, the
#: agent's own report in its reply, or the agent's log (an import's calls and trace).
EvidenceSource = Literal["harness", "agent", "log"]
# an attempt's grade and a grade record say the same of it
DecidedBy = Annotated[
    EvidenceSource | None,
    Meta(description="Which evidence decided the tool facts: harness | agent | log."),
]
EvidenceNotes = Annotated[
    list[Evidence],
    Meta(
        description="Hosted tools: what the agent's report and the harness's record disagree "
        "on without failing the grade (a served call the agent did not report)."
    ),
]

# `schema_version` defaults to "" (not written) and RunWriter stamps the current version
# when it writes a record: a default of SCHEMA_VERSION would be left out by omit_defaults,
# and the reader must tell a line without a version (refused) from a current one.
_VERSION_DOC = "The schema version the record was written in (2.x)."


class RunMeta(Part, kw_only=True, tag_field="record_type", tag="run_meta"):
    """The first line of a run file: what was run, against what, by whom."""

    record_type: ClassVar[str] = "run_meta"
    schema_version: Annotated[str, Meta(description=_VERSION_DOC)] = ""
    run_id: str | None = None
    model: str | None = None
    agent: Annotated[dict[str, Any], Meta(description="The agent's config, secrets redacted.")] = {}
    tester: str | None = None
    run_type: Literal["exploratory", "published"] | None = None
    k_nominal: Count | None = None
    started_at: str | None = None
    battery: BatteryInfo | None = None
    harness: Annotated[
        dict[str, str], Meta(description='Versions: {"agenttest": "0.1.0", "python": "3.11.7"}.')
    ] = {}
    host: dict[str, Any] = {}
    plan: Annotated[list[PlanEntry], Meta(description="The attempts planned, per block.")] = []
    label: str | None = None
    imported_from: str | None = None
    selection: Annotated[
        Selection | None, Meta(description="What `run` was asked for, for --resume.")
    ] = None
    legacy: Annotated[
        dict[str, Any] | None,
        Meta(description="Import: facts of the legacy file that have no 2.x field."),
    ] = None
    # Kept open: a report reads what labels it finds and passes over the rest.
    parity: Annotated[
        list[dict[str, Any]],
        Meta(description="run --parity: [{label, agent}] of every agent, agent redacted."),
    ] = []


class Attempt(Part, kw_only=True, tag_field="record_type", tag="attempt"):
    """One attempt of one block: the turns as sent and answered, and their grade."""

    record_type: ClassVar[str] = "attempt"
    schema_version: Annotated[str, Meta(description=_VERSION_DOC)] = ""
    test_id: str
    run: Annotated[Count, Meta(description="1-based number of the attempt of its block.")]
    tier: str | None = None
    k: Count | None = None
    started_at: str | None = None
    completed_at: Annotated[
        str | None, Meta(description="null: an imported attempt whose legacy record had no end.")
    ] = None
    latency_ms: int | None = None
    status: Status | None = None
    error: str | None = None
    error_cause: Annotated[
        str | None,
        Meta(description="unreachable | timeout | busy | garbage | http_error | lost | ..."),
    ] = None
    turns: list[TurnRecord] = []
    verdict: Annotated[
        Verdict | None, Meta(description="null: imported for an id no block knows (grade_note).")
    ] = None
    criteria: list[CriterionResult] = []
    critical: list[CriticalHit] = []
    rater: str | None = None
    cost_tokens: int | None = None
    usage: Annotated[
        dict[str, int] | None,
        Meta(description='{"input_tokens", "output_tokens"} summed over the turns.'),
    ] = None
    # None, not {}: an attempt without a snapshot (an import, a run without a workspace) is
    # graded from its tool calls (world state), one with an empty snapshot (it failed) is not.
    workspace_files: Annotated[
        dict[str, str | None] | None,
        Meta(
            description="Path -> content (null if absent) after the attempt; absent: no "
            "snapshot was taken, and file criteria replay the tool calls."
        ),
    ] = None
    session_id: Annotated[
        str | None, Meta(description="The fresh agent session this attempt used.")
    ] = None
    waits: Waits | None = None
    replica: Annotated[
        int | None, Meta(description="A pooled run: the replica (by index) that ran it.")
    ] = None
    decided: Decided | None = None
    grade_note: Annotated[
        str | None, Meta(description="Import: why the attempt stayed ungraded.")
    ] = None
    legacy_id: Annotated[str | None, Meta(description="Import: the id the legacy file used.")] = (
        None
    )
    source: Annotated[Source | None, Meta(description="Import: the legacy record's place.")] = None
    latency_source: Annotated[
        str | None, Meta(description="Import: how latency_ms was obtained.")
    ] = None
    # None, not False: an attempt that ended before its fixtures were prepared says nothing
    # about them, and readers treat "not known" as applied (`is not False`).
    fixtures_applied: Annotated[
        bool | None, Meta(description="The block's fixtures were in place (imports: false).")
    ] = None
    strict_warnings: Annotated[
        list[StrictWarning],
        Meta(description="agenttest-origin criteria that failed or were undecided, not counted."),
    ] = []
    precondition: Annotated[
        CriterionResult | None, Meta(description="The unmet precondition of an ERROR.")
    ] = None
    agent: Annotated[
        str | None, Meta(description="run --parity: the label of the agent that ran it.")
    ] = None
    timezone: Annotated[
        str | None, Meta(description="The agent host's zone, for clock criteria.")
    ] = None
    hosted: Annotated[
        HostedInfo | None, Meta(description="Hosted tools: the host that served this attempt.")
    ] = None
    evidence_source: DecidedBy = None
    evidence_notes: EvidenceNotes = []
    not_applicable: Annotated[
        str | None,
        Meta(
            description="Verdict NOT_APPLICABLE: what the block needs that the agent cannot "
            "provide, and where that was read (no turn was sent)."
        ),
    ] = None


class Grade(Part, kw_only=True, tag_field="record_type", tag="grade"):
    """A verdict on an attempt given after it was recorded (re-grade, a human rater)."""

    record_type: ClassVar[str] = "grade"
    schema_version: Annotated[str, Meta(description=_VERSION_DOC)] = ""
    test_id: str
    run: Count
    rater: str | None = None
    verdict: Verdict | None = None
    criteria: list[CriterionResult] = []
    critical: list[CriticalHit] = []
    graded_at: str | None = None
    attempt_started_at: Annotated[
        str | None, Meta(description="Which attempt of (test_id, run) was graded.")
    ] = None
    error_cause: str | None = None
    status: Annotated[
        str | None,
        Meta(description="Another tool's word for an ERROR without a cause (e.g. skipped)."),
    ] = None
    fixtures_applied: bool | None = None
    strict_warnings: list[StrictWarning] = []
    precondition: CriterionResult | None = None
    agent: Annotated[
        str | None, Meta(description="run --parity: the agent whose attempt was graded.")
    ] = None
    evidence_source: DecidedBy = None
    evidence_notes: EvidenceNotes = []


class RunEnd(Part, kw_only=True, tag_field="record_type", tag="run_end"):
    """The last line of a finished (or stopped) run."""

    record_type: ClassVar[str] = "run_end"
    schema_version: Annotated[str, Meta(description=_VERSION_DOC)] = ""
    completed_at: str | None = None
    counts: Annotated[
        dict[str, dict[str, int]], Meta(description='{"status": {...}, "verdict": {...}}')
    ] = {}
    reason: Annotated[
        str | None, Meta(description='"completed" | "interrupted" | "aborted: ..."')
    ] = None
    attempts: Annotated[
        dict[str, int], Meta(description="planned, recorded, written_this_session, ...")
    ] = {}
    parity: Annotated[
        bool, Meta(description="run --parity: the run_end closing both agents' plans.")
    ] = False
    hosted_refused_outside: Annotated[
        int, Meta(description="Hosted tools: calls refused because no attempt was running.", ge=0)
    ] = 0


Record = RunMeta | Attempt | Grade | RunEnd

#: The type of each record_type, for the reader and the published schema.
RECORD_TYPES: dict[str, type[RunMeta | Attempt | Grade | RunEnd]] = {
    "run_meta": RunMeta,
    "attempt": Attempt,
    "grade": Grade,
    "run_end": RunEnd,
}


def tie_to_attempt(grade: Grade, attempt: Attempt) -> Grade:
    """``grade``, tied to the attempt it graded: ``attempt_started_at`` (a retry's grade is
    told from the attempt it replaced) and, in a ``--parity`` run, ``agent``."""
    if attempt.started_at:
        grade.attempt_started_at = attempt.started_at
    if attempt.agent is not None:
        grade.agent = attempt.agent
    return grade


SlotKey = tuple[str, str, int]  # (run id, or "run id@agent" in a --parity run; test id; run)


def slot_key(run_id: str, agent: Any, test_id: str, number: int) -> SlotKey:
    """The attempt slot an attempt or grade record names. A ``--parity`` run labels each
    attempt, and each grade of one, with its agent: each agent's attempts fill slots of their
    own. Every reader that pairs grades with attempts keys them by this."""
    return (run_id if agent is None else f"{run_id}@{agent}", test_id, number)


def decoder() -> msgspec.json.Decoder[RunMeta | Attempt | Grade | RunEnd]:
    """One JSON decoder of a run-file line into its record (which is also its validation)."""
    return msgspec.json.Decoder(RunMeta | Attempt | Grade | RunEnd)
