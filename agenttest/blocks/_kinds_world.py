"""Criterion types over the world after (and before) the attempt: workspace files, how long
it took, how it ended. Graders: ``agenttest/grading/_state_criteria.py``."""

from __future__ import annotations

from collections.abc import Iterator

from ._kinds import NO_CALLS, WORLD, CriterionType, LintFacts, Needs, ToolsRan, register
from ._model import Block, Criterion, Fixture

#: How long a fixture check may search the original content with the author's pattern
#: (grading's own bound per search is the same order: agenttest/grading/limits.py).
PATTERN_CHECK_S = 2.0

#: Roles whose call can leave a file behind in the workspace.
WRITE_ROLES: frozenset[str] = frozenset({"file_write", "file_patch", "file_move", "shell"})


def norm_path(path: str) -> str:
    """A workspace path without empty or ``.`` parts (``./a//b`` is ``a/b``)."""
    parts = [p for p in path.strip().split("/") if p not in ("", ".")]
    return "/".join(parts)


def fixture_for(block: Block, path: str) -> Fixture | None:
    """The fixture that sets a path's state before the attempt (the last one for it)."""
    found = None
    for fx in block.fixtures:
        if fx.path and norm_path(fx.path) == norm_path(path):
            found = fx
    return found


def _written(block: Block, c: Criterion) -> bool:
    """Whether the file can only exist after the agent wrote it (no file fixture)."""
    assert c.path is not None
    fx = fixture_for(block, c.path)
    return fx is None or fx.kind not in ("file", "dir")


def _content_changed(block: Block, c: Criterion) -> bool:
    """Whether the content check can only hold after the agent wrote the file."""
    if _written(block, c):
        return True
    fx = fixture_for(block, c.path or "")
    original = (fx.content if fx else None) or ""
    expected = "" if c.value is None else str(c.value)
    if c.match == "equals":
        return original.strip() != expected.strip()
    if c.match == "regex":
        # the author's pattern under a timeout: `validate --strict` asked the stdlib and
        # hung on a catastrophic one before the [pattern] lint could name it
        import regex

        try:
            return regex.search(expected, original, timeout=PATTERN_CHECK_S) is None
        except TimeoutError:
            return True  # undecidable here: the [pattern] lint reports the pattern
        except regex.error:  # not a pattern: the loader says so
            return True
    return expected not in original  # "contains" (the default) and anything else


def _exists_depends(block: Block, c: Criterion) -> ToolsRan | None:
    return ToolsRan(WRITE_ROLES, None) if c.path and _written(block, c) else None


def _content_depends(block: Block, c: Criterion) -> ToolsRan | None:
    return ToolsRan(WRITE_ROLES, None) if c.path and _content_changed(block, c) else None


def ticket_file(ticket_id: str) -> str:
    """Where a ticket lives in the world (docs/hosted-tools.md, "Worlds")."""
    return f".tickets/{ticket_id.strip()}.json"


def _ticket_world_file(c: Criterion) -> str | None:
    return ticket_file(c.ticket) if c.ticket else None


def _ticket_depends(block: Block, c: Criterion) -> ToolsRan | None:
    """A ticket found in a state other than the one its fixture laid was moved: by the
    ticket tool (a check that it stayed put depends on nothing)."""
    start = next(
        (fx.state for fx in block.fixtures if fx.kind == "ticket" and fx.ticket_id == c.ticket),
        None,
    )
    if start is not None and str(c.value or "").strip().lower() == start.strip().lower():
        return None
    return ToolsRan(frozenset({"ticket"}), None)


def _check_ticket_state(c: Criterion, where: str) -> Iterator[tuple[str, str]]:
    if not isinstance(c.value, str) or not c.value.strip():
        yield ("value", f"`value` of ticket_state in {where} must be the state's name")


def _check_at_start(c: Criterion, where: str) -> Iterator[tuple[str, str]]:
    if c.value not in ("exists", "absent"):
        yield (
            "value",
            (f"`value` of file_at_start in {where} must be `exists` or `absent`, not {c.value!r}"),
        )


_SNAPSHOT = Needs(workspace_file=True)

register(
    CriterionType(
        "file_exists",
        "the workspace file exists after the attempt",
        ("path",),
        reads_calls=WORLD,
        needs=_SNAPSHOT,
        lint=LintFacts(polarity="presence", depends=_exists_depends, file_check="exists"),
    ),
    CriterionType(
        "file_absent",
        "the workspace file does not exist after the attempt",
        ("path",),
        reads_calls=WORLD,
        needs=_SNAPSHOT,
        lint=LintFacts(polarity="absence", file_check="absent"),
    ),
    CriterionType(
        "file_content",
        "the workspace file's content matches `value` (equals, contains or regex)",
        ("path", "value"),
        ("match",),
        reads_calls=WORLD,
        needs=_SNAPSHOT,
        lint=LintFacts(polarity="presence", depends=_content_depends, file_check="content"),
    ),
    CriterionType(
        "file_at_start",
        "before the attempt the workspace file was `value` (`exists` or `absent`; with "
        "`pattern`, its content then matched), as the tool-call record shows it: a "
        "successful read before any change shows it existed, a not-found read that it "
        "was absent (a precondition: docs/grading.md, 'Preconditions')",
        ("path", "value"),
        ("pattern",),
        reads_calls="state before: the first successful or not-found read of the path",
        check=_check_at_start,
    ),
    CriterionType(
        "ticket_state",
        "the hosted ticket `ticket` ended the attempt in state `value` (its final state in "
        "the world, .tickets/<id>.json; not what the reply says)",
        ("ticket", "value"),
        reads_calls=WORLD,
        needs=Needs(world_file=_ticket_world_file),
        lint=LintFacts(polarity="presence", depends=_ticket_depends),
        check=_check_ticket_state,
    ),
    CriterionType(
        "latency_max",
        "the whole attempt took at most `seconds`",
        ("seconds",),
        reads_calls=NO_CALLS,
    ),
    CriterionType(
        "status",
        "the attempt ended with this status",
        ("value",),
        reads_calls=NO_CALLS,
        lint=LintFacts(polarity="presence"),
    ),
)
