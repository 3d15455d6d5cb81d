"""What every grader needs: the block, the attempt, where to look, and how to cite it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from agenttest import text as nz
from agenttest.blocks import HOSTED_ROLES, Block, Criterion, call_matches
from agenttest.results import Attempt, Evidence, ToolCall, TurnRecord

from . import limits
from ._calls import call_counts
from ._hosted import cite, graded_calls, has_harness_record

if TYPE_CHECKING:
    from agenttest.judges import Judge

EXCERPT = 200
ALL_TURNS = "all"
LAST_TURN = "last"


@dataclass(frozen=True)
class Check:
    """The outcome of one check: True/False, or None when it could not be decided."""

    holds: bool | None
    evidence: Evidence


def ev(
    *,
    turn: int | None = None,
    tool_call: int | None = None,
    trace_line: int | None = None,
    span: list[int] | None = None,
    file: str | None = None,
    text: str | None = None,
    note: str | None = None,
    decided_by: str | None = None,
) -> Evidence:
    """The Evidence of what was given (turn is 0-based here)."""
    return Evidence(
        turn=None if turn is None else turn + 1,
        tool_call=tool_call,
        trace_line=trace_line,
        span=None if span is None else list(span),
        file=file,
        text=None if text is None else excerpt(text),
        note=note,
        decided_by=decided_by,
    )


def quoted(value: object) -> str:
    """A value as a reader sees it in evidence: in curly quotes, without Python's repr
    escaping (a regex keeps its single backslashes) and without Markdown backticks, which
    a report's table cell would show literally."""
    text = value if isinstance(value, str) else as_text(value)
    return "“" + text + "”"


def wanted_text(lo: int | None, hi: int | None) -> str:
    """A count range in words: "at least 1", "at most 2", "exactly 3", "between 1 and 4"."""
    if lo in (None, 0) and hi is None:
        return "any number"
    if lo in (None, 0):
        return "none" if hi == 0 else f"at most {hi}"
    if hi is None:
        return f"at least {lo}"
    return f"exactly {lo}" if lo == hi else f"between {lo} and {hi}"


def excerpt(text: str, limit: int = EXCERPT) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class Ctx:
    """The block, the attempt (its turns as graded), where to look and the judge.

    The turns as graded hold "the calls" (:mod:`._hosted`): on an attempt that ran on
    hosted tools, the harness's record, not the agent's report (which stays in
    ``attempt.turns``, for the comparison of the two)."""

    def __init__(
        self,
        block: Block,
        attempt: Attempt,
        workspace: Path | None = None,
        judge: Judge | None = None,
    ) -> None:
        self.block = block
        self.attempt = attempt
        self.workspace = workspace
        self.judge = judge
        #: turns (0-based) whose reply or trace was longer than the graded prefix: full length
        self.capped: dict[int, int] = {}
        #: the harness's record decides the calls (hosted tools)
        self.hosted = has_harness_record(attempt)
        self._served = {id(c) for t in attempt.turns for c in t.hosted_calls}
        self.turns = [self._capped(ti, t) for ti, t in enumerate(self.attempt.turns)]

    def _capped(self, ti: int, turn: TurnRecord) -> TurnRecord:
        """The turn as graded: reply and trace cut to :data:`limits.MAX_GRADED_CHARS`, its
        calls the harness's record when the attempt has one."""
        if self.hosted:
            turn = msgspec.structs.replace(turn, tool_calls=graded_calls(turn, self.block))
        cap = limits.MAX_GRADED_CHARS
        long = {
            key: len(value)
            for key, value in (("response", turn.response), ("trace", turn.trace))
            if isinstance(value, str) and len(value) > cap
        }
        if not long:
            return turn
        self.capped[ti] = max(long.values())
        return msgspec.structs.replace(turn, **{k: limits.cap(getattr(turn, k)) for k in long})

    # ------------------------------------------------------------------ parameters
    def subst(self, text: str | None) -> str | None:
        """``{{name}}`` placeholders filled from the block's reference vars."""
        return None if text is None else self.block.fill(text)

    def number(self, value: object) -> Decimal | None:
        """A criterion's value as a number: a YAML number as itself (the text of 0.00001,
        ``1e-05``, is no number in any accepted format), a text once its placeholders are
        filled. None when it is no number."""
        return nz.as_decimal(self.subst(value) if isinstance(value, str) else value)

    def names(self, role: str) -> frozenset[str] | None:
        """Concrete tool names of a role; None stands for `any` tool. The harness names a
        hosted call by its role, whatever the overlay calls the agent's own tool."""
        if role == "any":
            return None
        names = frozenset(self.block.tool_names(role))
        return names | {role} if self.hosted and role in HOSTED_ROLES else names

    def known_tool(self, call: ToolCall) -> tuple[bool | None, str]:
        """Whether a call's tool exists, and which list says so: a served call's among the
        hosted tools, a reported one's in the block's catalogue (None: it has none)."""
        if id(call) in self._served:
            return call.name in HOSTED_ROLES, "the hosted tools"
        catalogue = self.block.reference.catalogue
        where = "the agent's tool catalogue"
        return (call.name in catalogue if catalogue else None), where

    def cited(self, evidence: Evidence) -> Evidence:
        """Evidence pointing at the record its call came from (:func:`._hosted.cite`): a
        grader cites a call by its position among the turn's calls as graded."""
        return cite(evidence, self.turns, self.attempt.turns) if self.hosted else evidence

    def scope(self, c: Criterion, default: str) -> tuple[list[int], Evidence | None]:
        """0-based turn indexes a criterion looks at, or a note why there are none."""
        if not self.turns:
            return [], ev(note="the attempt has no turns")
        if c.turn is not None:
            if c.turn > len(self.turns):
                return [], ev(
                    note=f"turn {c.turn} was asked for but the attempt has "
                    f"{len(self.turns)} turn(s)"
                )
            return [c.turn - 1], None
        if default == LAST_TURN:
            return [len(self.turns) - 1], None
        return list(range(len(self.turns))), None

    # ------------------------------------------------------------------ turn content
    def response(self, ti: int) -> str | None:
        value = self.turns[ti].response
        return value if isinstance(value, str) else None

    def calls(
        self, turns: list[int], names: frozenset[str] | None = None, *, requested: bool = False
    ) -> Iterator[tuple[int, int, ToolCall]]:
        """(turn index, call index, call) of the calls in those turns, optionally by name.

        Calls the model only requested (``requested_only``: nothing ran them) are left out
        unless ``requested`` is set: they never count as a tool having run, but checks that
        forbid a call count the attempt."""
        for ti in turns:
            for ci, call in enumerate(self.turns[ti].tool_calls):
                if call.requested_only and not requested:
                    continue
                if call_matches(call, names):
                    yield ti, ci, call

    def counted_calls(
        self, turns: list[int], names: frozenset[str] | None, c: Criterion
    ) -> tuple[list[tuple[int, int, ToolCall]], list[tuple[int, int, ToolCall]]]:
        """(calls that count for ``c``, calls whose outcome is unknown), in call order
        (:func:`call_counts`)."""
        hits: list[tuple[int, int, ToolCall]] = []
        unknown: list[tuple[int, int, ToolCall]] = []
        for ti, ci, call in self.calls(turns, names, requested=True):
            counts = call_counts(call, c)
            if counts:
                hits.append((ti, ci, call))
            elif counts is None:
                unknown.append((ti, ci, call))
        return hits, unknown

    def trace_lines(self, ti: int) -> list[tuple[str, int, str]]:
        """(source, 1-based line number, text) of a turn's trace and its agent log lines."""
        turn = self.turns[ti]
        out = [("trace", i, line) for i, line in enumerate(turn.trace.splitlines(), 1)]
        out += [("log", i, line) for i, line in enumerate(turn.log_lines, 1)]
        return out

    def has_trace(self, turns: list[int]) -> bool:
        return any(self.trace_lines(ti) for ti in turns)

    def trace_partial(self, turns: list[int]) -> bool:
        """True when a turn's trace is known to miss lines (``trace_partial`` set by the
        recorder, e.g. an imported log excerpt that starts after the task began)."""
        return any(self.turns[ti].trace_partial for ti in turns)


#: what an agent (PheronAgent among them) writes for "I have no answer": an empty reply
NO_RESPONSE = frozenset({"(no response)", "(yanıt yok)"})


def empty_reply(text: str) -> bool:
    """Whether a recorded reply says nothing: blank, or the agent's placeholder for that."""
    body = nz.clean(text).text
    return not body or body.lower() in NO_RESPONSE


def last_response(ctx: Ctx, c: Criterion) -> tuple[int, str | None, Check | None]:
    """The turn a response criterion reads (its ``turn``, else the last) and its text; or,
    when it cannot be read, the undecided :class:`Check` to return instead."""
    turns, why = ctx.scope(c, LAST_TURN)
    if why is not None:
        return -1, None, Check(None, why)
    ti = turns[0]
    text = ctx.response(ti)
    if text is None:
        return ti, None, Check(None, ev(turn=ti, note="no response was recorded for this turn"))
    return ti, text, None


def fixtures_applied(block: Block, attempt: Attempt) -> bool:
    """Whether the block's fixtures were in place: the attempt's ``fixtures_applied`` (live
    runs write True, imports False); records older than the field are live runs."""
    return not block.fixtures or attempt.fixtures_applied is not False


def line_evidence(
    ti: int, source: str, lineno: int, text: str, note: str | None = None
) -> Evidence:
    if source == "trace":
        return ev(turn=ti, trace_line=lineno, text=text, note=note)
    extra = f"agent log line {lineno} of the turn"
    return ev(turn=ti, text=text, note=f"{extra}; {note}" if note else extra)


def call_evidence(ti: int, ci: int, call: ToolCall, note: str | None = None) -> Evidence:
    args = as_text(call.arguments)
    ok = call.ok
    status = "ok" if ok else ("failed" if ok is False else "outcome unknown")
    if call.requested_only:
        status = "requested by the model, not run"
    return ev(turn=ti, tool_call=ci, text=f"{call.name} {args} → {status}", note=note)
