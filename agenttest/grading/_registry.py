"""The graders of the criterion registry: each registers itself with ``@grades("type")``
beside its code; the entry it grades (schema, lint facts, needs) is declared in
``agenttest.blocks`` (``_kinds_*.py``), which the engine asks everything else."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from agenttest.blocks import CRITERION_TYPES, Criterion, CriterionType, registered

from ._context import Check, Ctx

#: Decides one criterion of one attempt (the runner's AttemptGrader grades a whole attempt).
CriterionGrader = Callable[[Ctx, Criterion], Check]
G = TypeVar("G", bound=CriterionGrader)

#: Every criterion type's grader, by name (types that nest others have none).
GRADERS: dict[str, CriterionGrader] = {}


def grades(name: str) -> Callable[[G], G]:
    """Register the decorated function as the grader of the registered type ``name``."""

    def register(fn: G) -> G:
        kind = CRITERION_TYPES.get(name)
        if kind is None or kind.nested:
            raise ValueError(f"no criterion type {name!r} to grade (blocks/_kinds_*.py)")
        if name in GRADERS:
            raise ValueError(f"criterion type {name!r} has a grader already")
        GRADERS[name] = fn
        return fn

    return register


@contextmanager
def criterion_type(kind: CriterionType, grader: CriterionGrader) -> Iterator[CriterionType]:
    """A whole criterion type, entry and grader, registered for a ``with`` block: a type a
    test or a plug-in brings is loaded, linted and graded like a built-in one."""
    with registered(kind):
        grades(kind.name)(grader)
        try:
            yield kind
        finally:
            GRADERS.pop(kind.name, None)
