"""Which tool calls a criterion counts: the one rule of issue 12, class 9.

A criterion about the world (a tool ran, a file was written, a command executed) grounds in
what the agent's runtime recorded, never in what the model wrote: a call counts as having
happened only when the runtime ran it (not ``requested_only``) and, by default, returned
``ok: true``. The arguments say what the model asked for, the reply what it claims; neither
shows that anything happened. docs/grading.md, "Which calls count", gives the readings.

:data:`CALL_READING` is the audit: every criterion type of the grading registry, with how it
reads tool calls. A test keeps it complete, so a new type must say how it counts calls.
"""

from __future__ import annotations

from collections.abc import Mapping

from agenttest.blocks import Criterion
from agenttest.results import ToolCall

COUNTED = "calls that count by `call_counts` (default: ran and ok: true; `calls`, `ok`)"
FORBIDS = "forbids a call: every call the agent dispatched violates it, run or not"
OK_FLAG = "reads the runtime's ok flag and result of calls that ran"
SUCCEEDED = "only calls that ran and returned ok: true (ok missing: undecided)"
WORLD = "world state: only successful writes, moves and deletes change a path"
NO_CALLS = "does not read tool calls"

#: Every criterion type and how it reads tool calls (the class-9 audit).
CALL_READING: Mapping[str, str] = {
    "tool_called": COUNTED,
    "tool_count": COUNTED,
    "tool_order": COUNTED,
    "tool_arg": COUNTED,
    "tool_result": OK_FLAG,
    "command_executed": SUCCEEDED,
    "no_tool_calls": FORBIDS,
    "tool_not_called": FORBIDS,
    "unknown_tool": FORBIDS,
    "file_exists": WORLD,
    "file_absent": WORLD,
    "file_content": WORLD,
    "file_at_start": "state before: the first successful or not-found read of the path",
    "citations_grounded": "sources: results the runtime returned for calls that did not fail",
    "numbers_grounded": "sources: results the runtime returned, never the call's arguments",
    "failures_reported": "failed calls: ran with ok: false, not retried with ok: true",
    "abstains": NO_CALLS,
    "judge": "context only: results of calls that ran, with their outcome",
    "trace_contains": "log lines the agent's runtime wrote",
    "category": "log lines the agent's runtime wrote",
    "response_contains": NO_CALLS,
    "response_number": NO_CALLS,
    "response_wrong_number": NO_CALLS,
    "response_regex": NO_CALLS,
    "response_empty": NO_CALLS,
    "sentence_count": NO_CALLS,
    "list_items": NO_CALLS,
    "asks_question": NO_CALLS,
    "latency_max": NO_CALLS,
    "clock_delta": NO_CALLS,
    "status": NO_CALLS,
    "ttft_max": NO_CALLS,
    "arrives_with": "stream events the harness saw",
    "choice_offered": NO_CALLS,
    "stored_matches_stream": NO_CALLS,
    "any_of": "as its nested criteria",
}


def call_counts(call: ToolCall, c: Criterion) -> bool | None:
    """Whether one call counts for a positive tool-call criterion: the one rule of class 9
    (docs/grading.md, "Which calls count"). None: its outcome was not recorded.

    Only machine-produced fields decide: ``requested_only`` (nothing ran the call) and the
    runtime's ``ok`` flag, never the arguments or the reply, which the model wrote.

    * ``ok`` given: the call ran and returned that success flag;
    * ``calls: succeeded`` (the default): the call ran and returned ``ok: true``;
    * ``calls: ran``: the call ran, whatever it returned;
    * ``calls: dispatched``: the agent made the call, run or not (the rule's failure is the
      act itself; these are exactly the calls ``tool_not_called`` forbids).
    """
    counted = c.calls or "succeeded"
    if counted == "dispatched" and c.ok is None:
        return True
    if call.get("requested_only"):
        return False
    if counted == "ran" and c.ok is None:
        return True
    got = call.get("ok")
    if got is None:
        return None
    return got is (True if c.ok is None else c.ok)


def calls_text(c: Criterion) -> str:
    """Which calls a criterion counted, for its evidence."""
    if c.ok is not None:
        return f"calls that ran with ok={str(c.ok).lower()}"
    return {"ran": "calls that ran", "dispatched": "every call dispatched"}.get(
        c.calls or "", "calls that succeeded"
    )
