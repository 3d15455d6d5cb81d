"""Which tool calls a criterion counts: the one rule of issue 12, class 9.

A criterion about the world (a tool ran, a file was written, a command executed) grounds in
what the agent's runtime recorded, never in what the model wrote: a call counts as having
happened only when the runtime ran it (not ``requested_only``) and, by default, returned
``ok: true``. The arguments say what the model asked for, the reply what it claims; neither
shows that anything happened. docs/grading.md, "Which calls count", gives the readings.

:data:`CALL_READING` is the audit: every criterion type with how it reads tool calls, as its
registry entry says (``reads_calls``; the entry cannot be registered without it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from agenttest.blocks import CRITERION_TYPES, Criterion
from agenttest.results import ToolCall


class _CallReading(Mapping[str, str]):
    """Every registered criterion type and how it reads tool calls (the class-9 audit)."""

    def __getitem__(self, name: str) -> str:
        return CRITERION_TYPES[name].reads_calls

    def __iter__(self) -> Iterator[str]:
        return iter(CRITERION_TYPES)

    def __len__(self) -> int:
        return len(CRITERION_TYPES)


#: Every criterion type and how it reads tool calls (a view of the registry's entries).
CALL_READING: Mapping[str, str] = _CallReading()


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
    if call.requested_only:
        return False
    if counted == "ran" and c.ok is None:
        return True
    got = call.ok
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


def arguments_known(call: ToolCall) -> bool:
    """Whether a call's arguments were recorded: not for a call known only by name from
    somewhere other than the log (an import's tool list: ``source`` says where), nor for one
    whose logged arguments could not be read (``_unparsed``). Its ``{}`` is no argument."""
    return call.source is None and "_unparsed" not in call.arguments
