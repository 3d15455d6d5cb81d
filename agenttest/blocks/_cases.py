"""Parameterised blocks: ``cases:`` inline or in a JSONL/CSV file beside the block.

Each case is a mapping of variables plus an ``id`` and an optional ``category``. The loader
turns a block with N cases into N blocks with ids ``BLOCK#case-id``; each carries the case's
variables in its reference ``vars`` (a case wins over the block's own vars), so prompts and
criteria are filled by :meth:`Block.fill` like every other placeholder, and its fixtures are
filled here, once, when the case block is made. Reports group case blocks by category
(docs/evidence.md).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from agenttest._util.located_yaml import Located
from agenttest.errors import Problem

from ._model import Block, Case, Criterion, SourceRef

CASE_FILE_SUFFIXES = (".jsonl", ".csv")
PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")  # as Block.fill replaces
_CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_RESERVED = ("id", "category")


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


def _case(raw: dict[str, Any], where: SourceRef, key_lines: dict[str, int]) -> Case | Problem:
    cid = _scalar(raw.get("id"))
    if cid is None:
        return Problem(where.file, where.line, "a case needs an `id` (text or a number)")
    if not _CASE_ID.match(cid):
        return Problem(
            where.file,
            key_lines.get("id", where.line),
            f"case id `{cid}` must be letters, digits, `_`, `.` or `-` (it becomes BLOCK#{cid})",
        )
    category = _scalar(raw["category"]) if raw.get("category") is not None else None
    values: dict[str, str] = {}
    for key, value in raw.items():
        if key in _RESERVED:
            continue
        text = _scalar(value)
        if text is None:
            return Problem(
                where.file,
                key_lines.get(key, where.line),
                f"case `{cid}`: variable `{key}` must be text or a number",
            )
        values[key] = text
    return Case(cid, category, values, where)


def _from_file(rel: str, block_file: Path, line: int) -> tuple[list[Case], list[Problem]]:
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or p.suffix not in CASE_FILE_SUFFIXES:
        msg = f"`cases: {rel}` must name a .jsonl or .csv file beside the block (no `..`)"
        return [], [Problem(str(block_file), line, msg)]
    path = block_file.parent / rel
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [Problem(str(block_file), line, f"`cases: {rel}`: cannot read: {exc}")]
    cases: list[Case] = []
    problems: list[Problem] = []
    rows: Iterator[tuple[int, Any]]
    if p.suffix == ".jsonl":
        rows = _jsonl_rows(text, name, problems)
    else:
        reader = csv.DictReader(text.splitlines())
        rows = ((reader.line_num, row) for row in reader)
    for lineno, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(name, lineno, "a case must be a JSON object"))
            continue
        got = _case(row, SourceRef(name, lineno), {})
        (problems if isinstance(got, Problem) else cases).append(got)  # type: ignore[arg-type]
    if not cases and not problems:
        problems.append(Problem(name, 1, "the case file holds no cases"))
    return cases, problems


def _jsonl_rows(text: str, name: str, problems: list[Problem]) -> Iterator[tuple[int, Any]]:
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except ValueError as exc:
            problems.append(Problem(name, lineno, f"not a JSON object: {exc}"))


def read_cases(node: Located | None, block_file: Path) -> tuple[tuple[Case, ...], list[Problem]]:
    """The cases a block's ``cases:`` node declares, with FILE:LINE problems."""
    if node is None:
        return (), []
    if isinstance(node.value, str):
        cases, problems = _from_file(node.value, block_file, node.line)
    elif isinstance(node.value, list) and node.value:
        cases, problems = [], []
        for item in node.value:
            where = SourceRef(str(block_file), item.line)
            if not isinstance(item.value, dict):
                problems.append(Problem(where.file, where.line, "a case must be a mapping"))
                continue
            got = _case(item.plain(), where, item.key_lines)
            if isinstance(got, Problem):
                problems.append(got)
            else:
                cases.append(got)
    else:
        msg = "`cases` must be a non-empty list of mappings or the name of a .jsonl/.csv file"
        return (), [Problem(str(block_file), node.line, msg)]
    seen: dict[str, Case] = {}
    for case in cases:
        if case.id in seen:
            first = seen[case.id].source
            problems.append(
                Problem(
                    case.source.file,
                    case.source.line,
                    f"case id `{case.id}` is used twice (first at line {first.line})",
                )
            )
        seen.setdefault(case.id, case)
    return tuple(cases), problems


def _criterion_texts(c: Criterion) -> Iterator[str]:
    for name in ("value", "pattern", "path", "ticket", "rubric", "reference", "says"):
        value = getattr(c, name)
        if isinstance(value, str):
            yield value
    yield from c.values
    for sub in c.of:
        yield from _criterion_texts(sub)


def block_texts(block: Block) -> Iterator[str]:
    """Every text of a block that placeholders may appear in."""
    for turn in block.turns:
        yield turn.prompt
        yield from turn.translations.values()
    for fx in block.fixtures:
        yield from (t for t in (fx.path, fx.content, fx.url) if t)
        yield from fx.commits
    for c in (*block.criteria.pass_, *block.criteria.fail):
        yield from _criterion_texts(c)


def check_variables(block: Block) -> list[Problem]:
    """Every ``{{name}}`` of a parameterised block is defined by each case (or the block)."""
    used = sorted({m.group(1) for text in block_texts(block) for m in PLACEHOLDER.finditer(text)})
    problems = []
    for case in block.cases:
        missing = [v for v in used if v not in case.vars and v not in block.reference.vars]
        if missing:
            names = ", ".join(f"{{{{{m}}}}}" for m in missing)
            problems.append(
                Problem(
                    case.source.file, case.source.line, f"case `{case.id}` leaves {names} undefined"
                )
            )
    return problems


def expand(block: Block) -> list[Block]:
    """One block per case (``BLOCK#case-id``), or the block itself when it has no cases."""
    if not block.cases:
        return [block]
    out = []
    for case in block.cases:
        ref = dataclasses.replace(block.reference, vars={**block.reference.vars, **case.vars})
        one = dataclasses.replace(
            block,
            id=f"{block.id}#{case.id}",
            aliases=tuple(f"{a}#{case.id}" for a in block.aliases),
            reference=ref,
            cases=(),
            case=dataclasses.replace(case, parent=block.id),
        )
        fixtures = tuple(
            dataclasses.replace(
                fx,
                path=one.fill(fx.path) if fx.path else fx.path,
                content=one.fill(fx.content) if fx.content else fx.content,
                url=one.fill(fx.url) if fx.url else fx.url,
                commits=tuple(one.fill(m) for m in fx.commits),
            )
            for fx in block.fixtures
        )
        out.append(dataclasses.replace(one, fixtures=fixtures))
    return out
