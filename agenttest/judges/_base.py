"""The judge interface: a request, a result, and the protocol every judge implements.

A judge compares an agent's ``candidate`` answer with a ``reference`` answer (under an
optional ``rubric`` and ``context``) and returns a score in [0, 1] plus a verdict.
``ERROR`` means the judge could not decide (no reference, model failure, bad input); it is
never folded into ``FAIL``. ``UNDECIDED`` means the judge ran but its evidence was too weak
to call: the criterion stays ungraded and the attempt goes to human rating.

``asks`` says what the criterion decides (``act``, ``covers``, ``consistent``; empty for a
plain reference comparison), ``act`` the expected speech act, ``min_items`` how many of the
reference's items a ``covers`` reply needs, ``tool_results`` what the attempt's tools
returned (for ``consistent``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

#: A judge's call on one criterion, not a record's verdict (``Verdict`` in
#: agenttest/results: PASS, FAIL or ERROR of a whole attempt): UNDECIDED leaves the
#: criterion ungraded, and the attempt goes to human rating.
JudgeVerdict = Literal["PASS", "FAIL", "ERROR", "UNDECIDED"]
JUDGE_VERDICTS: tuple[JudgeVerdict, ...] = ("PASS", "FAIL", "ERROR", "UNDECIDED")


@dataclass(frozen=True)
class JudgeRequest:
    rubric: str
    reference: str
    candidate: str
    context: str = ""
    asks: str = ""
    act: str = ""
    min_items: int | None = None
    tool_results: str = ""


@dataclass(frozen=True)
class JudgeResult:
    """A judge's call. ``asks`` and ``act`` name the procedure that decided (empty for a
    judge that reads a rubric), ``asks_from`` where that kind came from: ``criterion``
    (it said ``asks``) or ``reference`` (read from the reference, ``judges._kinds``)."""

    score: float
    verdict: JudgeVerdict
    evidence: str
    judge: str
    asks: str = ""
    act: str = ""
    asks_from: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in JUDGE_VERDICTS:
            raise ValueError(f"verdict must be one of {JUDGE_VERDICTS}, not {self.verdict!r}")
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"score must lie in [0, 1], not {self.score!r}")


@runtime_checkable
class Judge(Protocol):
    name: str

    def judge(self, req: JudgeRequest) -> JudgeResult: ...


_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def option_bool(judge: str, name: str, value: object) -> bool:
    """A boolean judge option, given as a bool or as text (``-o KEY=VALUE`` sends text).

    Only the usual spellings count (true/false, yes/no, on/off, 1/0, any case): any other
    text is a usage error, never silently true (``"false"`` is a non-empty string)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    from agenttest.errors import UsageError

    raise UsageError(f"judge {judge!r}: option {name} is a boolean (true or false), not {value!r}")


def error_result(judge: str, evidence: str) -> JudgeResult:
    """The result of a judge that could not decide."""
    return JudgeResult(score=0.0, verdict="ERROR", evidence=evidence, judge=judge)


def unusable_request(judge: str, req: JudgeRequest) -> JudgeResult | None:
    """An ERROR result when ``req`` gives a rubric-reading judge nothing to work with."""
    fields = (req.rubric, req.reference, req.candidate, req.context)
    if not all(isinstance(x, str) for x in fields):
        return error_result(judge, "rubric, reference, candidate and context must be text")
    if not req.rubric.strip() and not req.reference.strip():
        return error_result(judge, "nothing to grade against: give a rubric or a reference answer")
    return None


_TEXT_FIELDS = ("reference", "candidate", "rubric", "context", "asks", "act", "tool_results")


def score_pairs(judge: Judge, pairs: Iterable[dict[str, object]]) -> Iterator[dict[str, object]]:
    """Judge ``{id, reference, candidate[, rubric, context, asks, act, min_items,
    tool_results]}`` dicts; yield ``{id, score, verdict}``, plus ``asks`` (``act``) and
    ``asks_from`` when a typed procedure decided, and ``reason`` when the verdict is
    UNDECIDED.

    Output order is input order. A judge with a ``judge_batch(list[JudgeRequest])`` method
    is fed chunks of 64 requests so it can batch its model calls; results still stream.
    A malformed pair yields an ERROR row instead of stopping the stream.
    """
    batch_fn = getattr(judge, "judge_batch", None)
    chunk: list[tuple[object, JudgeRequest | str]] = []

    def flush() -> Iterator[dict[str, object]]:
        requests = [req for _, req in chunk if isinstance(req, JudgeRequest)]
        if callable(batch_fn):
            results = iter(batch_fn(requests))
        else:
            results = iter([judge.judge(r) for r in requests])
        for pair_id, req in chunk:
            if isinstance(req, JudgeRequest):
                res = next(results)
                row: dict[str, object] = {"id": pair_id, "score": res.score, "verdict": res.verdict}
                if res.asks:  # which procedure decided, and whether the pair said so
                    row["asks"] = res.asks
                    if res.act:
                        row["act"] = res.act
                    row["asks_from"] = res.asks_from
                if res.verdict == "UNDECIDED":
                    row["reason"] = res.evidence  # why it abstained, for the rating queue
                yield row
            else:
                yield {"id": pair_id, "score": 0.0, "verdict": "ERROR"}
        chunk.clear()

    for pair in pairs:
        pair_id = pair.get("id")
        fields = {key: pair.get(key, "") for key in _TEXT_FIELDS}
        min_items = pair.get("min_items")
        if all(isinstance(value, str) for value in fields.values()) and (
            min_items is None or (isinstance(min_items, int) and not isinstance(min_items, bool))
        ):
            chunk.append((pair_id, JudgeRequest(**fields, min_items=min_items)))  # type: ignore[arg-type]
        else:
            chunk.append((pair_id, "text fields must be strings and min_items an integer"))
        if len(chunk) >= 64:
            yield from flush()
    if chunk:
        yield from flush()
