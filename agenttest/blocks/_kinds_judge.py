"""The judge criterion type and ``any_of``, which combines nested criteria. The judge's
grader is ``agenttest/grading/_state_criteria.py``; ``any_of`` is combined by the engine
(``agenttest/grading/_engine.py``), which asks the entry whether a type nests."""

from __future__ import annotations

from collections.abc import Iterator

from ._kinds import CriterionType, LintFacts, Needs, kind_of, register, walk
from ._model import Block, Criterion
from ._vocabulary import JUDGE_ACTS

#: A rubric shorter than this cannot say what to look for.
MIN_RUBRIC_CHARS = 20


def _check_judge(c: Criterion, where: str) -> Iterator[tuple[str, str]]:
    """`asks: act` names the act; `min` counts covered items, so only `covers` takes it."""
    if c.asks == "act" and c.act is None:
        yield (
            "asks",
            (
                f"criterion `{c.id}` in {where} has `asks: act` but no `act`; "
                f"name one of {', '.join(JUDGE_ACTS)}"
            ),
        )
    if c.asks not in (None, "act") and c.act is not None:
        yield "act", f"`act` applies only to `asks: act`, not `asks: {c.asks}`, in {where}"
    if c.min is not None and c.asks != "covers":
        yield (
            "min",
            (f"`min` of a judge criterion counts covered items: it needs `asks: covers` ({where})"),
        )


def _judge_problem(block: Block, c: Criterion) -> str | None:
    rubric = (c.rubric or "").strip()
    if not rubric:
        return f"has no rubric; a judge needs at least {MIN_RUBRIC_CHARS} characters"
    if len(rubric) < MIN_RUBRIC_CHARS:
        return (
            f"has a rubric of {len(rubric)} characters (`{rubric}`); a judge needs at "
            f"least {MIN_RUBRIC_CHARS} saying what to look for"
        )
    if c.tag != "JUDGE":
        return f"is a judge but tagged {c.tag}; tag it JUDGE"
    return _covers_problem(block, c)


def _covers_problem(block: Block, c: Criterion) -> str | None:
    """A `covers` judge counts the items its reference lists: it must list some."""
    if c.asks != "covers":
        return None
    from agenttest.judges import reference_items

    items = reference_items(block.fill(c.reference or ""))
    need = max(2, c.min or 0)
    if len(items) < need:
        return (
            f"asks `covers` but its reference lists {len(items)} item(s); list at least "
            f"{need} (sentences, list lines or `A, B and C`) for the reply to cover"
        )
    return None


def _any_of_problem(block: Block, c: Criterion) -> str | None:
    if c.tag == "JUDGE" and not any(kind_of(b).needs.judge for b in walk(c.of)):
        return "is tagged JUDGE but none of its branches is a judge with a rubric"
    return None


register(
    CriterionType(
        "judge",
        "a calibrated judge finds the response meets `rubric` (against `reference`); "
        "`asks` says what it decides: `act` (the reply's speech act is `act`), `covers` "
        "(the reply covers at least `min` of the items the reference lists) or "
        "`consistent` (the reply contradicts neither the reference nor the tool results)",
        ("rubric", "asks"),
        ("reference", "act", "min", "turn"),
        reads_calls="context only: results of calls that ran, with their outcome",
        needs=Needs(judge=True),
        check=_check_judge,
        lint=LintFacts(problem=_judge_problem),
    ),
    CriterionType(
        "any_of",
        "at least one of the nested criteria holds",
        ("of",),
        reads_calls="as its nested criteria",
        nested=True,
        lint=LintFacts(problem=_any_of_problem),
    ),
)
