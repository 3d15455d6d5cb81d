"""The criterion registry: one entry per criterion type, and every question asked of one.

An entry (:class:`CriterionType`) is the one home of a type below grading: which parameter
words it takes (the loader, the JSON Schema and the docs read them), how it reads tool
calls (the class-9 audit of docs/grading.md), what the battery lint may conclude from it,
its extra load-time checks, and what it needs from the runner. Its grader lives in
``agenttest.grading`` (``@grades("name")``), which imports this package, never the reverse.

The entries themselves are declared by family in ``_kinds_*.py`` beside this module; code
that used to branch on ``c.type == "..."`` asks the entry (:func:`kind_of`) instead, so a
new type touches its entry, its grader and their tests, and no table elsewhere.

Parameter words are one flat namespace shared by every type (``tool``, ``min``, ``values``,
``turn``), each typed once as a field of :class:`~._model.Criterion`; an entry names the
words it takes, and an entry naming a word the model does not have fails at import.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from ._model import Block, Criterion

Polarity = Literal["presence", "absence", "neutral"]
FileCheck = Literal["exists", "absent", "content"]
#: "any tool" in the tool sets of :class:`ToolsRan`
ANY_TOOL = "*"


@dataclass(frozen=True)
class ToolsRan:
    """Tools of which one ran (``ANY_TOOL``: any tool), in a turn (None: any turn).

    The lint reads two of these off criteria: what a result criterion depends on having
    run, and what a PASS criterion pins as having run (docs/grading.md, "Preconditions")."""

    tools: frozenset[str]
    turn: int | None


@dataclass(frozen=True)
class Needs:
    """What a criterion type needs from the runner beyond the turns' transcript."""

    #: the workspace file at its `path` after the attempt: the runner snapshots it
    workspace_file: bool = False
    #: each streamed reply read back from the agent's store (stream/store parity)
    read_back: bool = False
    #: a judge (without one, the criterion is ungraded and the run says so up front)
    judge: bool = False
    #: the turn's trace or the lines the agent's runtime logged (``log_lines``)
    trace: bool = False
    #: the world file a criterion reads, when it is not its `path` (a ticket's
    #: ``.tickets/<id>.json``): the runner snapshots it like a workspace file
    world_file: Callable[[Criterion], str | None] | None = None


@dataclass(frozen=True)
class LintFacts:
    """What the battery lint (``_lint.py``, ``_lint_evidence.py``) may conclude from a
    criterion of this type. Every callable receives a criterion of this type only."""

    #: whether a STATE PASS criterion checks that something happened (``presence``) or
    #: did not (``absence``); negation swaps them unless the type negates per call
    polarity: Polarity | Callable[[Criterion], Polarity] = "neutral"
    #: the tools a (not negated) PASS criterion reads the results of, so some PASS
    #: criterion must pin that one of them ran
    depends: Callable[[Block, Criterion], ToolsRan | None] | None = None
    #: it checks the reply's content, which a turn where a tool must run (a FAIL
    #: ``no_tool_calls``) only holds after that tool ran
    answer: bool = False
    #: the tools a (not negated) PASS criterion guarantees ran
    pins: Callable[[Criterion], list[ToolsRan]] | None = None
    #: a not-negated PASS of it pins that an EV block's evidence was fetched
    evidence_pin: bool = False
    #: not negated, it says no tool ran: as a FAIL criterion, a tool must run in its turn
    no_calls: bool = False
    #: not negated, a PASS of it accepts a reply that declines (the EV inverse rule)
    declines: bool = False
    #: a file check on its `path`: present, gone, or its content
    file_check: FileCheck | None = None
    #: a type-specific lint message (``[judge]`` rule), or None
    problem: Callable[[Block, Criterion], str | None] | None = None


#: A type's extra load-time checks: given the criterion and where it is (``criteria.pass[P1]``),
#: each problem as (the word whose line it is reported at, the message).
LoadCheck = Callable[[Criterion, str], Iterable[tuple[str, str]]]


@dataclass(frozen=True)
class CriterionType:
    """One criterion type: what it checks, the words it takes and every fact about it."""

    name: str
    doc: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    #: how it reads tool calls (the class-9 audit; docs/grading.md, "Which calls count")
    reads_calls: str = ""
    needs: Needs = field(default_factory=Needs)
    lint: LintFacts = field(default_factory=LintFacts)
    #: extra load-time checks beyond the words' types (exit 2, FILE:LINE)
    check: LoadCheck | None = None
    #: `negate` applies to each call ("a call whose argument does not match"), not to the
    #: whole check: negated or not, it inspects calls that must have happened
    negate_per_call: bool = False
    #: it combines nested criteria (`of`) instead of reading the attempt itself
    nested: bool = False
    #: a turn that taps a choice (``choose:``) needs a PASS criterion of this type
    checks_choices: bool = False

    def polarity(self, c: Criterion) -> Polarity:
        p = self.lint.polarity
        return p if isinstance(p, str) else p(c)


# How a type reads tool calls: the readings most types share (docs/grading.md).
COUNTED = "calls that count by `call_counts` (default: ran and ok: true; `calls`, `ok`)"
FORBIDS = "forbids a call: every call the agent dispatched violates it, run or not"
OK_FLAG = "reads the runtime's ok flag and result of calls that ran"
SUCCEEDED = "only calls that ran and returned ok: true (ok missing: undecided)"
WORLD = "world state: only successful writes, moves and deletes change a path"
NO_CALLS = "does not read tool calls"
TRACE = "log lines the agent's runtime wrote"

#: Words every criterion takes (identity, tagging, origin, the fixture-free variant).
COMMON_WORDS = frozenset(
    {
        "id",
        "type",
        "tag",
        "says",
        "critical",
        "rule",
        "negate",
        "origin",
        "fixture_bound",
        "unfixed",
    }
)
_WORDS = frozenset(f.name for f in dataclasses.fields(Criterion)) - COMMON_WORDS

_REGISTRY: dict[str, CriterionType] = {}
#: The criterion vocabulary: every registered type by name (a read-only view).
CRITERION_TYPES: Mapping[str, CriterionType] = MappingProxyType(_REGISTRY)


def register(*kinds: CriterionType) -> None:
    """Add entries to the registry; a name taken twice or an unknown word fails at once."""
    for kind in kinds:
        unknown = sorted((set(kind.required) | set(kind.optional)) - _WORDS)
        if unknown:
            raise ValueError(f"criterion type {kind.name}: no such parameter {unknown}")
        if kind.name in _REGISTRY:
            raise ValueError(f"criterion type {kind.name} is registered twice")
        if not kind.reads_calls:
            raise ValueError(f"criterion type {kind.name} must say how it reads tool calls")
        _REGISTRY[kind.name] = kind


def unregister(name: str) -> None:
    """Remove an entry (a type a test registered)."""
    _REGISTRY.pop(name, None)


@contextmanager
def registered(kind: CriterionType) -> Iterator[CriterionType]:
    """The entry registered for the duration of a ``with`` block (tests, plug-ins)."""
    register(kind)
    try:
        yield kind
    finally:
        unregister(kind.name)


#: What an unknown type (a hand-built criterion; the loader refuses them) answers.
UNKNOWN = CriterionType("?", "an unknown criterion type", reads_calls=NO_CALLS)


def kind_of(c: Criterion) -> CriterionType:
    """The entry of a criterion's type (a neutral one when the type is unknown)."""
    return _REGISTRY.get(c.type, UNKNOWN)


def walk(criteria: Iterable[Criterion]) -> Iterator[Criterion]:
    """Each criterion, then the criteria nested in it (``any_of``), depth first."""
    for c in criteria:
        yield c
        yield from walk(c.of)


@dataclass(frozen=True)
class BlockNeeds:
    """What the runner must capture for one block's criteria (pass, fail and nested)."""

    #: workspace-relative paths to snapshot after the attempt, placeholders filled
    workspace_files: tuple[str, ...]
    read_back: bool
    judge: bool
    trace: bool


def block_needs(block: Block) -> BlockNeeds:
    """Ask each criterion's entry what the runner must capture for this block."""
    from pathlib import PurePosixPath

    files: list[str] = []
    read_back = judge = trace = False
    for c in walk((*block.criteria.pass_, *block.criteria.fail)):
        needs = kind_of(c).needs
        path = needs.world_file(c) if needs.world_file else c.path if needs.workspace_file else None
        if path:
            rel = str(PurePosixPath(block.fill(path).strip()))
            if rel not in files:
                files.append(rel)
        read_back |= needs.read_back
        judge |= needs.judge
        trace |= needs.trace
    return BlockNeeds(tuple(files), read_back, judge, trace)
