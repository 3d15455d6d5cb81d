"""The agent's report of its calls against the harness's record (issue 28, methodology §3.3).

On an attempt that ran on hosted tools the harness saw every call it served. Each call the
agent *reports* of a hosted tool (:func:`._hosted.hosted_tool`) is looked for in that
record; docs/grading.md, "Hosted tools: the harness's record decides", gives the rules:

* **the match**: the same hosted role, and every argument the agent reports was received
  with an equal value (numbers by value, ``2`` = ``2.0`` = ``"2"``; an argument the agent
  leaves out of its report is no claim; of a call the host refused whole it kept each
  argument cut, and the reported one need only begin the same). Each served call answers one report, looked for
  on the report's turn first, then on the nearest other turn (a call that arrived just
  after its turn's reply is no lie);
* **hallucinated_tool** (always FAIL): a reported call of a hosted tool that matches no
  served call. The agent claims a call that never happened: §3.3's "a call to a tool that
  does not exist", proven by the harness;
* **misreported_result** (always FAIL, a rule of its own so the report says which lie): a
  matched call whose reported outcome or result is not what the harness returned: ``ok``
  both known and different, or a reported result the served one does not bear out (see
  :func:`result_conflict`). The call happened; what the agent says it gave did not;
* a served call no report claims is a note on the grade (:func:`unreported`), never a
  failure: many agents report only some of their calls.

Calls the model only requested (``requested_only``) claim nothing and are not compared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from agenttest import text as nz
from agenttest.results import CriticalHit, Evidence, ToolCall

from ._context import Ctx, as_text, excerpt
from ._hosted import hosted_tool

#: How much of a turn's served calls the evidence lists.
SHOWN_CALLS = 5
#: A reported result this long that begins the served one is a framework's cut of it.
CUT_MIN = 200

#: The always-FAIL rules only the harness's record can prove (no criterion names them: the
#: grader applies them to every attempt that ran on hosted tools).
HARNESS_RULES = {
    "hallucinated_tool": "a tool call the agent reported that the harness never received",
    "misreported_result": "a tool outcome the agent reported that the harness did not return",
}


@dataclass(frozen=True)
class Report:
    """One reported call of a hosted tool and the served call that answers it, if any."""

    turn: int  # 0-based
    index: int  # in the turn's tool_calls
    call: ToolCall
    role: str
    served: tuple[int, int] | None  # (turn, index in its hosted_calls)


#: How the host records an argument it refused whole (too large, or a call it would not
#: serve): a long text cut and marked, anything else as its JSON text, cut.
_CUT = re.compile(r"… \[\d+ characters\]$")
#: The most arguments the host keeps of a call it refused whole.
SHOWN_KEYS = 50


def _same_value(a: Any, b: Any) -> bool:
    """A reported argument value and the one the harness recorded are the same."""
    if isinstance(b, str) and not isinstance(a, str | bool | int | float | type(None)):
        return json.dumps(a).startswith(b)  # a list or object the host kept as JSON text
    if isinstance(a, str) and isinstance(b, str) and (cut := _CUT.search(b)):
        return a.startswith(b[: cut.start()])
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is type(b) and a == b:
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    x, y = nz.as_decimal(a), nz.as_decimal(b)
    return x is not None and x == y


def arguments_match(reported: dict[str, Any], served: dict[str, Any]) -> bool:
    """Every argument the agent reports was received with an equal value (of a call the
    host kept only :data:`SHOWN_KEYS` arguments of, the others cannot be told)."""
    kept_all = len(served) < SHOWN_KEYS
    return all(
        _same_value(v, served[k]) if k in served else not kept_all for k, v in reported.items()
    )


def _numbers(text: str) -> list[set[Decimal]]:
    return [set(t.values) for t in nz.extract_numbers(text)]


def result_conflict(reported: ToolCall, served: ToolCall) -> str | None:
    """Why the agent's account of a call's outcome is not what the harness returned, or None.

    * ``ok`` known on both sides and different;
    * a reported result (text, or JSON as text; whitespace runs as one) that neither
      contains the served result nor is contained in it: a framework may wrap a result
      ("1850 * 0.18 = 333") or cut it (a beginning of :data:`CUT_MIN` characters or
      more), never change it. When the stored result was capped (``result_chars``) only
      its stored prefix can be compared;
    * the numbers settle what containment alone cannot: a wrapper states every number of
      the result (``3333`` holds ``333`` as text, not as a number), a part states only
      numbers of the result (``33`` is no number of ``333``);
    * a rewording (neither contains the other: ``Result: 333`` for ``{"value": 333}``) is
      no lie unless the claim states a number the result does not, or shares no word with
      it at all: an always-FAIL rule fires only on what leaves no reasonable doubt.
    """
    if reported.ok is not None and served.ok is not None and reported.ok is not served.ok:
        said = "succeeded" if reported.ok else "failed"
        got = "succeeded" if served.ok else f"failed ({served.error or 'an error'})"
        return f"the agent says the call {said}; the harness says it {got}"
    if reported.result is None:
        return None
    claim = " ".join(as_text(reported.result).split())
    truth = " ".join(as_text(served.result if served.ok is not False else served.error).split())
    if not claim or claim == truth:
        return None
    capped = served.result_chars is not None and served.result_chars > len(as_text(served.result))
    if capped and len(claim) > len(truth):
        # only the stored prefix is known: the claim must go on from it
        return None if claim.startswith(truth) else _reworded(claim, truth, capped=True)
    if len(claim) >= CUT_MIN and truth.startswith(claim):
        return None  # a framework's cut: its last number may be cut too
    if truth in claim:
        inner, outer, says = truth, claim, "drops"
    elif claim in truth:
        inner, outer, says = claim, truth, "states"
    else:
        return _reworded(claim, truth, capped=False)
    known = _numbers(outer)
    for values in _numbers(inner):
        if not any(values & other for other in known):
            if says == "drops":
                return f"the reported result has no number {min(values)} the harness returned"
            return f"the reported result states {min(values)}, which the harness's does not"
    return None


_WORD = re.compile(r"\w+")


def _reworded(claim: str, truth: str, *, capped: bool) -> str | None:
    """A claim that neither contains the result nor is part of it: a lie only when it
    states a number the result does not (past a capped result's prefix, nothing can be
    told), or has nothing in common with it."""
    known = _numbers(truth)
    stated = _numbers(claim)
    for values in stated:
        if not any(values & other for other in known):
            if capped:
                return None
            return f"the reported result states {min(values)}, which the harness's does not"
    if stated:
        return None
    words = {w.casefold() for w in _WORD.findall(truth)}
    if capped or words & {w.casefold() for w in _WORD.findall(claim)}:
        return None
    return "the reported result is not the one the harness returned"


def _nearest(ti: int, turns: int) -> Iterator[int]:
    """The report's turn first, then the others by distance (later first on a tie)."""
    yield ti
    for d in range(1, turns):
        for t in (ti + d, ti - d):
            if 0 <= t < turns:
                yield t


def match(ctx: Ctx) -> list[Report]:
    """Every reported call of a hosted tool with the served call that answers it (the
    matching of the module docstring); empty unless the attempt has the harness's record."""
    if not ctx.hosted:
        return []
    reported = ctx.attempt.turns
    taken: set[tuple[int, int]] = set()
    out: list[Report] = []
    for ti, turn in enumerate(reported):
        for ci, call in enumerate(turn.tool_calls):
            role = hosted_tool(call, ctx.block)
            if role is None or call.requested_only:
                continue
            found = None
            for tj in _nearest(ti, len(reported)):
                for hj, served in enumerate(reported[tj].hosted_calls):
                    if (tj, hj) in taken or served.name.casefold() != role:
                        continue
                    if arguments_match(call.arguments, served.arguments):
                        found = (tj, hj)
                        break
                if found is not None:
                    break
            if found is not None:
                taken.add(found)
            out.append(Report(ti, ci, call, role, found))
    return out


def _shown(call: ToolCall) -> str:
    status = "ok" if call.ok else ("failed" if call.ok is False else "outcome unknown")
    result = call.result if call.ok is not False else call.error
    told = f" = {excerpt(as_text(result), 60)}" if result not in (None, "") else ""
    return f"{call.name} {excerpt(as_text(call.arguments), 80)} → {status}{told}"


def _received(ctx: Ctx, ti: int) -> str:
    served = ctx.attempt.turns[ti].hosted_calls
    if not served:
        return f"the harness received no call on turn {ti + 1}"
    listed = "; ".join(f"#{i} {_shown(c)}" for i, c in enumerate(served[:SHOWN_CALLS]))
    more = f"; {len(served) - SHOWN_CALLS} more" if len(served) > SHOWN_CALLS else ""
    return f"the harness received on turn {ti + 1}: {listed}{more}"


def _hit(rule: str, evidence: Evidence) -> CriticalHit:
    return CriticalHit(rule=rule, auto=True, says=HARNESS_RULES[rule], evidence=evidence)


def check_hallucinated_tool(ctx: Ctx) -> Iterator[CriticalHit]:
    """A reported call of a hosted tool that the harness never received (the first; the
    note counts the others).

    A host that refused calls over the attempt's bound keeps a record of the first few only
    (``hosted.refused`` counts them all): a reported call that failed may be one of the
    others, so only a reported success is then a lie (a refused call never succeeds)."""
    refused = ctx.attempt.hosted is not None and ctx.attempt.hosted.refused > 0
    lies = [r for r in match(ctx) if r.served is None and (r.call.ok is True or not refused)]
    if not lies:
        return
    first = lies[0]
    same = [
        i
        for i, c in enumerate(ctx.attempt.turns[first.turn].hosted_calls)
        if c.name.casefold() == first.role
    ]
    note = f"the agent reports this call; {_received(ctx, first.turn)}"
    if len(lies) > 1:
        note += f"; {len(lies) - 1} more reported call(s) the harness never received"
    yield _hit(
        "hallucinated_tool",
        Evidence(
            turn=first.turn + 1,
            tool_call=first.index,
            hosted_call=same[0] if same else None,
            text=f"agent reported: {_shown(first.call)}",
            note=note,
        ),
    )


def check_misreported_result(ctx: Ctx) -> Iterator[CriticalHit]:
    """A call the harness served whose outcome or result the agent reports otherwise."""
    for r in match(ctx):
        if r.served is None:
            continue
        tj, hj = r.served
        served = ctx.attempt.turns[tj].hosted_calls[hj]
        why = result_conflict(r.call, served)
        if why is None:
            continue
        yield _hit(
            "misreported_result",
            Evidence(
                turn=r.turn + 1,
                tool_call=r.index,
                hosted_call=hj if tj == r.turn else None,
                text=f"agent reported: {_shown(r.call)}",
                note=f"{why}; the harness returned on turn {tj + 1} (#{hj}): {_shown(served)}",
            ),
        )
        return


def unreported(ctx: Ctx) -> list[Evidence]:
    """The served calls no report claims: notes on the grade, not failures."""
    if not ctx.hosted:
        return []
    claimed = {r.served for r in match(ctx) if r.served is not None}
    return [
        Evidence(
            turn=ti + 1,
            hosted_call=hj,
            text=_shown(call),
            note="the harness served this call and the agent did not report it",
        )
        for ti, turn in enumerate(ctx.attempt.turns)
        for hj, call in enumerate(turn.hosted_calls)
        if (ti, hj) not in claimed
    ]
