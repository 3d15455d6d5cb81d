"""Lint rule ``[fixture-bound]``: a criterion whose expected value comes from a fixture says so.

Derived, then checked against the declaration: a PASS or FAIL criterion (or a branch of an
``any_of``) whose ``value`` or one of whose ``values`` is text that only the block's fixtures
put there — a fixture file's name, a line of its content, a commit message — expects what
our fixture prepared, so an attempt run without the fixtures (an import) cannot be graded
on it. Such a criterion must be ``fixture_bound: true`` (and should carry the methodology's
fixture-free rule as ``unfixed``). Only whole texts count (a file name, a content line, a
part of a commit message): a keyword that merely also occurs in a fixture page is the
methodology's, not ours. Paths of file criteria do not count either: they name where to
look (as do the path arguments of ``tool_arg``), which an overlay maps to the original
host path (``reference.paths``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from agenttest.errors import Problem

from ._lint_facts import _Lines
from ._model import Block, Criterion

_MIN_LEN = 6  # shorter texts ("1.0", "yes") are too common to be the fixture's own


def _fixture_texts(block: Block) -> tuple[set[str], set[str]]:
    """(whole texts: file names and content lines, commit messages) the fixtures prepare."""
    whole: set[str] = set()
    commits: set[str] = set()
    for fx in block.fixtures:
        if fx.kind in ("memory_reset", "absent"):
            continue
        if fx.path and fx.kind == "file":
            whole.add(PurePosixPath(fx.path).name.lower())
        for line in (fx.content or "").splitlines():
            whole.add(line.strip().lower())
        commits.update(m.lower() for m in fx.commits)
    return {t for t in whole if len(t) >= _MIN_LEN}, commits


def _expected(c: Criterion) -> Iterator[str]:
    if isinstance(c.value, str):
        yield c.value.lower()
    yield from (v.lower() for v in c.values)


_PATH_KEYS = frozenset({"path", "file", "file_path", "filepath", "source", "destination", "target"})


def _bound(c: Criterion, texts: tuple[set[str], set[str]]) -> str | None:
    whole, commits = texts
    if c.key in _PATH_KEYS:  # an argument's name (tool_arg): where the tool acted,
        return None  # not what it found
    for value in _expected(c):
        if len(value) >= _MIN_LEN and (value in whole or any(value in m for m in commits)):
            return value
    for sub in c.of:
        hit = _bound(sub, texts)
        if hit is not None:
            return hit
    return None


def rule_fixture_bound(block: Block, lines: _Lines) -> list[Problem]:
    if not block.fixtures:
        return []
    texts = _fixture_texts(block)
    out: list[Problem] = []
    file = block.source.file if block.source else "?"
    for group, criteria in (("pass", block.criteria.pass_), ("fail", block.criteria.fail)):
        for c in criteria:
            hit = _bound(c, texts)
            if hit is not None and not c.fixture_bound:
                out.append(
                    Problem(
                        file,
                        lines.criterion(block, group, c.id),
                        f"[fixture-bound] criterion `{c.id}` expects `{hit}`, which the "
                        "block's fixtures put there; mark it `fixture_bound: true` and give "
                        "the methodology's fixture-free rule as `unfixed`",
                    )
                )
    return out
