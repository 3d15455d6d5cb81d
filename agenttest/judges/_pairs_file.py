"""A pairs file (JSONL, one pair a line) checked whole, then scored by one judge.

What ``agenttest judge score`` does, as a library call: every line is checked before the
judge is even built, so a bad file raises :class:`~agenttest.errors.InputError` (each
problem as ``FILE:LINE: message``) and nothing is scored or printed.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import Any

from agenttest._util.input_files import open_input
from agenttest.errors import InputError, Problem

from ._base import Judge, score_pairs

PAIR_FIELDS = ("reference", "candidate")
OPTIONAL_FIELDS = ("rubric", "context", "asks", "act", "tool_results")
ASKS = ("", "act", "covers", "consistent")
#: A file that bad is reported in part: the first problems say what is wrong.
MAX_PROBLEMS = 50


def check_pairs(path: Path) -> int:
    """Check every line of a pairs file before anything is scored; return the pair count.

    A line is ``{"id": str|int, "reference": str, "candidate": str}`` with optional string
    ``rubric``, ``context``, ``asks`` (act, covers, consistent), ``act`` and
    ``tool_results`` and an integer ``min_items``; ids are unique; blank lines are ignored.
    Problems are raised together as ``FILE:LINE: message`` (exit 2).
    """
    problems: list[Problem] = []
    seen: dict[object, int] = {}
    count = 0
    handle = open_input(path, "pairs file")
    with handle:
        for lineno, raw in enumerate(handle, start=1):
            if len(problems) >= MAX_PROBLEMS:
                break  # checked first, so lines that are not objects are capped too
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                problems.append(Problem(str(path), lineno, f"not a JSON object ({exc})"))
                continue
            if not isinstance(row, dict):
                message = f"expected a JSON object, got a JSON {type(row).__name__}"
                problems.append(Problem(str(path), lineno, message))
                continue
            pair_id = row.get("id")
            for message in _row_problems(row, seen):
                problems.append(Problem(str(path), lineno, message))
            if _valid_id(row) and pair_id not in seen:
                seen[pair_id] = lineno
            count += 1
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} bad line(s); nothing was scored")
    return count


def _valid_id(row: Mapping[str, Any]) -> bool:
    pair_id = row.get("id")
    return "id" in row and not isinstance(pair_id, bool) and isinstance(pair_id, str | int)


def _row_problems(row: Mapping[str, Any], seen: Mapping[object, int]) -> Iterator[str]:
    pair_id = row.get("id")
    if not _valid_id(row):
        yield "`id` is required and must be a string or an integer"
    elif pair_id in seen:
        yield f"duplicate id {pair_id!r} (first on line {seen[pair_id]})"
    for name in PAIR_FIELDS:
        if not isinstance(row.get(name), str):
            yield f"`{name}` is required and must be a string"
    for name in OPTIONAL_FIELDS:
        if name in row and not isinstance(row[name], str):
            yield f"`{name}` must be a string when given"
    if row.get("asks", "") not in ASKS:
        yield "`asks` must be act, covers or consistent"
    items = row.get("min_items")
    if items is not None and (isinstance(items, bool) or not isinstance(items, int)):
        yield "`min_items` must be an integer when given"


def _read_pairs(path: Path) -> Iterator[dict[str, object]]:
    with path.open("rb") as handle:
        for raw in handle:
            if raw.strip():
                yield json.loads(raw)


def score_pairs_file(
    path: Path, judge: str = "openvino", options: Mapping[str, object] | None = None
) -> Generator[dict[str, object], None, None]:
    """Check ``path`` whole, build the judge ``judge`` with ``options``, and return the
    ``{id, score, verdict}`` rows in input order (score rounded to 6 places).

    The check and the judge's construction happen here, before the first row is asked
    for; the judge is closed (when it has ``close``) once the rows are exhausted or the
    iterator is closed.
    """
    from . import get_judge  # the registry, which imports this module

    check_pairs(path)
    built = get_judge(judge, **dict(options or {}))
    return _scored(built, path)


def _scored(built: Judge, path: Path) -> Generator[dict[str, object], None, None]:
    try:
        for row in score_pairs(built, _read_pairs(path)):
            row["score"] = round(float(row["score"]), 6)  # type: ignore[arg-type]
            yield row
    finally:
        close = getattr(built, "close", None)
        if callable(close):
            close()
