"""Checks of loaded blocks: each block as it is read (:func:`check_block`), then the whole
battery once the overlay is applied (:func:`check_battery`). Every problem is collected with
its FILE:LINE; nothing stops at the first."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from agenttest._util.convert import Converter, suggest
from agenttest._util.limits import MAX_RUNS
from agenttest._util.located_yaml import Located
from agenttest.errors import Problem

from ._checks_hosted import check_hosted_parts
from ._kinds import COMMON_WORDS, CRITERION_TYPES, walk
from ._model import Block, Criterion, Overlay, Reference, SourceRef
from ._stream_checks import check_choose_turn
from ._tools import ambiguities, malformed
from ._vocabulary import TIERS

_ID_RE = re.compile(r"^[^\s/]+$")


def _check_rel_path(conv: Converter, line: int, where: str, value: str | None) -> None:
    if value is None:
        return
    p = PurePosixPath(value)
    if p.is_absolute() or value.startswith("~") or ".." in p.parts:
        conv.problem(
            line,
            f"`{where}` must be a path inside the agent's workspace (relative, no `..`); "
            f"got `{value}`",
        )


def _check_regex(conv: Converter, line: int, where: str, pattern: str | None) -> None:
    if pattern is None:
        return
    try:
        re.compile(pattern)
    except re.error as exc:
        conv.problem(line, f"`{where}` is not a valid regular expression: {exc}")


def _check_timezone(conv: Converter, line: int, name: str | None) -> None:
    if name is None:
        return
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        conv.problem(line, f"`timezone: {name}` is not an IANA time zone (e.g. Europe/Istanbul)")


def _criterion_lines(node: Located) -> Iterator[tuple[str, Located]]:
    crit = node.value.get("criteria") if isinstance(node.value, dict) else None
    if crit is None or not isinstance(crit.value, dict):
        return
    for group in ("pass", "fail"):
        items = crit.value.get(group)
        if items is not None and isinstance(items.value, list):
            for item in items.value:
                yield group, item


def _check_criterion(
    conv: Converter, c: Criterion, node: Located, block: Block | None, where: str
) -> None:
    """One criterion's checks; ``block`` is None when the block did not convert, and then
    only what the criterion shows alone is checked (its type, its words, its patterns)."""
    line = node.line
    ctype = CRITERION_TYPES.get(c.type)
    if ctype is None:
        conv.problem(
            node.key_lines.get("type", line),
            f"unknown criterion type `{c.type}` in {where}{suggest(c.type, CRITERION_TYPES)}",
        )
        return
    allowed = set(ctype.required) | set(ctype.optional)
    given = {f.name for f in dataclasses.fields(Criterion) if _is_param_set(c, f.name)}
    for name in sorted(given - allowed):
        conv.problem(
            node.key_lines.get(name, line),
            f"`{name}` does not apply to criterion type `{c.type}` in {where}"
            + (
                f"; it takes {', '.join(sorted(allowed))}"
                if allowed
                else "; it takes no parameters"
            ),
        )
    for name in ctype.required:
        if name not in given:
            conv.problem(line, f"criterion `{c.id}` ({c.type}) in {where} needs `{name}`")
    if block is not None and c.turn is not None and not 1 <= c.turn <= len(block.turns):
        conv.problem(
            node.key_lines.get("turn", line),
            f"`turn: {c.turn}` in {where} but the block has {len(block.turns)} turn(s)",
        )
    if c.calls is not None and c.ok is not None:
        conv.problem(
            node.key_lines.get("calls", line),
            f"`calls` and `ok` together in {where}: `ok` already says which calls count "
            "(those that ran with that success flag)",
        )
    if c.min is not None and c.max is not None and c.min > c.max:
        conv.problem(line, f"`min` ({c.min}) is greater than `max` ({c.max}) in {where}")
    if c.tag == "JUDGE" and not (ctype.needs.judge or ctype.nested):
        judged = " or ".join(f"`{k.name}`" for k in CRITERION_TYPES.values() if k.needs.judge)
        conv.problem(
            line,
            f"criterion `{c.id}` is tagged JUDGE but its type is `{c.type}`; use type {judged}",
        )
    _check_regex(conv, node.key_lines.get("pattern", line), f"{where}.pattern", c.pattern)
    if c.match == "regex" and isinstance(c.value, str):
        _check_regex(conv, node.key_lines.get("value", line), f"{where}.value", c.value)
    if "path" in allowed:  # a workspace path in every type that takes one
        _check_rel_path(conv, node.key_lines.get("path", line), f"{where}.path", c.path)
    if ctype.check is not None:
        for word, message in ctype.check(c, where):
            conv.problem(node.key_lines.get(word, line), message)
    markers = block.reference.markers if block is not None else {}
    for m in c.markers if block is not None else ():
        if m not in markers:
            known = ", ".join(sorted(markers)) or "none"
            conv.problem(
                node.key_lines.get("markers", line),
                f"marker `{m}` in {where} is not defined in the block's reference markers "
                f"(defined: {known}){suggest(m, markers)}",
            )
    if c.unfixed is not None:
        sub_node = node.value.get("unfixed")
        if not c.fixture_bound:
            conv.problem(
                node.key_lines.get("unfixed", line),
                f"criterion `{c.id}` in {where} has an `unfixed` variant but is not "
                "`fixture_bound: true`",
            )
        if sub_node is not None:
            _check_criterion(conv, c.unfixed, sub_node, block, f"{where}.unfixed")
    if c.fixture_bound and block is not None and not block.fixtures:
        conv.problem(
            node.key_lines.get("fixture_bound", line),
            f"criterion `{c.id}` in {where} is `fixture_bound` but the block has no fixtures",
        )
    if ctype.nested:
        nested = node.value.get("of")
        nodes = nested.value if nested is not None and isinstance(nested.value, list) else []
        for i, (sub, sub_node) in enumerate(zip(c.of, nodes, strict=False)):
            _check_criterion(conv, sub, sub_node, block, f"{where}.of[{i}]")


def _is_param_set(c: Criterion, name: str) -> bool:
    if name in COMMON_WORDS:
        return False
    value = getattr(c, name)
    return value not in (None, ())


def check_block(conv: Converter, block: Block, node: Located) -> None:
    """Problems of one block as read: ids, tier, turns, criteria, fixtures, reference."""
    key_line = node.key_lines
    if not _ID_RE.match(block.id):
        conv.problem(
            key_line.get("id", node.line), f"`id` must have no spaces or slashes: `{block.id}`"
        )
    prefix = block.id.split("-", 1)[0]
    if prefix in TIERS and prefix != block.tier:
        conv.problem(
            key_line.get("tier", node.line),
            f"`tier: {block.tier}` contradicts the id `{block.id}` (tier {prefix})",
        )
    if block.k < 1:
        conv.problem(key_line.get("k", node.line), f"`k` must be at least 1, got {block.k}")
    elif block.k > MAX_RUNS:
        conv.problem(key_line.get("k", node.line), f"`k` must be at most {MAX_RUNS:,}")
    if not block.turns:
        conv.problem(
            key_line.get("turns", node.line), "`turns` is empty: a block needs at least one prompt"
        )
    for i, turn in enumerate(block.turns):
        if turn.choose is not None:
            check_choose_turn(conv, key_line.get("turns", node.line), i, turn, block)
        elif not turn.prompt.strip():
            conv.problem(key_line.get("turns", node.line), f"turn {i + 1} has an empty prompt")
    if not block.criteria.pass_:
        conv.problem(
            key_line.get("criteria", node.line), "`criteria.pass` is empty: nothing could pass"
        )
    if len(set(block.owasp)) != len(block.owasp):
        conv.problem(key_line.get("owasp", node.line), "`owasp` lists an item twice")
    seen: dict[str, str] = {}
    for (group, cnode), crit in zip(
        _criterion_lines(node), (*block.criteria.pass_, *block.criteria.fail), strict=False
    ):
        where = f"criteria.{group}[{crit.id}]"
        if crit.id in seen:
            conv.problem(cnode.line, f"criterion id `{crit.id}` used twice in this block")
        seen[crit.id] = group
        _check_criterion(conv, crit, cnode, block, where)
    for crit, cnode in zip(block.preconditions, _precondition_nodes(node), strict=False):
        _check_criterion(conv, crit, cnode, block, f"preconditions[{crit.id}]")
    for fx in block.fixtures:
        _check_rel_path(conv, key_line.get("fixtures", node.line), "fixtures.path", fx.path)
        if fx.kind in ("file", "dir", "absent", "git_repo") and fx.path is None:
            conv.problem(
                key_line.get("fixtures", node.line), f"fixture of kind `{fx.kind}` needs `path`"
            )
        if fx.kind == "web_page" and (fx.url is None or fx.content is None):
            conv.problem(
                key_line.get("fixtures", node.line), "fixture `web_page` needs `url` and `content`"
            )
    check_hosted_parts(conv, block, node)
    for td in block.teardown:
        _check_rel_path(conv, key_line.get("teardown", node.line), "teardown.path", td.path)
    _check_regex(conv, node.line, "reference.category_pattern", block.reference.category_pattern)
    _check_timezone(conv, node.line, block.reference.timezone)


def _precondition_nodes(node: Located) -> list[Located]:
    pre = node.value.get("preconditions") if isinstance(node.value, dict) else None
    return pre.value if pre is not None and isinstance(pre.value, list) else []


def check_criteria_alone(conv: Converter, node: Located) -> None:
    """The criterion checks (type names, their words) of a block that did not convert as a
    whole, so one `validate` shows a misspelt key and a misspelt criterion type together.
    Each criterion is converted on its own with a scratch converter: problems of its shape
    were already reported by the block's conversion and are not repeated."""
    items = [(f"criteria.{g}", n) for g, n in _criterion_lines(node)]
    items += [("preconditions", n) for n in _precondition_nodes(node)]
    for where, cnode in items:
        crit = Converter(conv.filename).record(Criterion, cnode, where)
        if isinstance(crit, Criterion):
            _check_criterion(conv, crit, cnode, None, f"{where}[{crit.id}]")
            continue
        # a criterion that does not convert either: its type name can still be judged
        fields = cnode.value if isinstance(cnode.value, dict) else {}
        ctype, cid = fields.get("type"), fields.get("id")
        if ctype is not None and isinstance(ctype.value, str):
            name = ctype.value
            if name not in CRITERION_TYPES:
                label = f"[{cid.value}]" if cid is not None else ""
                conv.problem(
                    ctype.line,
                    f"unknown criterion type `{name}` in {where}{label}"
                    f"{suggest(name, CRITERION_TYPES)}",
                )


def check_reference(conv: Converter, line: int, ref: Reference) -> None:
    """Problems of an overlay's reference fields (checked again after the merge)."""
    _check_regex(conv, line, "category_pattern", ref.category_pattern)
    _check_timezone(conv, line, ref.timezone)


def check_battery(blocks: list[Block], problems: list[Problem], ov: Overlay | None) -> None:
    """Problems only the whole battery shows, after the overlay: markers it left undefined,
    tools shared by two roles, fixture-free variants that replace nothing."""
    _recheck_markers(blocks, problems)
    _check_tool_roles(blocks, problems, ov)
    _check_unfixed(blocks, problems, ov)


def _recheck_markers(blocks: list[Block], problems: list[Problem]) -> None:
    # An overlay may drop or rename markers; criteria must still resolve after it.
    for b in blocks:
        for c in walk((*b.criteria.pass_, *b.criteria.fail)):
            for m in c.markers:
                if m not in b.reference.markers:
                    src = b.source or SourceRef("?", 0)
                    problems.append(
                        Problem(
                            src.file,
                            src.line,
                            f"criterion `{c.id}` uses marker `{m}`, which the overlay leaves undefined",
                        )
                    )


def _check_tool_roles(blocks: list[Block], problems: list[Problem], ov: Overlay | None) -> None:
    # After the overlay: a tool shared by two roles needs argument predicates (class 6).
    # Problems the overlay's defaults cause are reported once, at the overlay.
    seen: set[str] = set()
    if ov is not None:
        src = ov.source or SourceRef("?", 0)
        for message in (*malformed(ov.defaults.tools), *ambiguities(ov.defaults.tools)):
            seen.add(message)
            problems.append(Problem(src.file, src.line, f"defaults.tools: {message}"))
    for b in blocks:
        src = b.source or SourceRef("?", 0)
        for message in (*malformed(b.reference.tools), *ambiguities(b.reference.tools)):
            if message not in seen:
                seen.add(message)
                problems.append(Problem(src.file, src.line, f"reference.tools: {message}"))


def _check_unfixed(blocks: list[Block], problems: list[Problem], ov: Overlay | None) -> None:
    # An overlay's fixture-free variant must replace a fixture-bound criterion of the block.
    if ov is None:
        return
    src = ov.source or SourceRef("?", 0)
    for b in blocks:
        ids = {c.id: c for c in (*b.criteria.pass_, *b.criteria.fail)}
        for cid in b.reference.unfixed:
            c = ids.get(cid)
            if c is None or not c.fixture_bound:
                what = "no criterion" if c is None else "not fixture_bound"
                problems.append(
                    Problem(src.file, src.line, f"{b.id}: `unfixed.{cid}` replaces {what}")
                )
