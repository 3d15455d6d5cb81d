"""Load blocks and overlays from YAML, check them, and report every problem in one pass."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from agenttest._util.convert import MISSING, Converter, suggest
from agenttest._util.located_yaml import Located, load_located
from agenttest.errors import InputError, Problem

from ._cases import check_variables, expand, read_cases
from ._judge_checks import check_judge_kind
from ._model import CRITERION_TYPES, TIERS, Block, Criterion, Overlay, Reference, SourceRef
from ._stream_checks import check_choose_turn, check_stream_criterion
from ._tools import ambiguities, malformed

YAML_SUFFIXES = (".yaml", ".yml")
#: Folders skipped while walking a battery: overlays and agent-specific blocks live there.
SKIPPED_DIRS = frozenset({"overlays"})
_ID_RE = re.compile(r"^[^\s/]+$")


@dataclass(frozen=True)
class Battery:
    """A loaded, checked set of blocks, with reference fields already resolved."""

    blocks: tuple[Block, ...]
    digest: str
    paths: tuple[str, ...]
    overlay: Overlay | None = None
    _index: Mapping[str, Block] = field(default_factory=dict, repr=False)

    def get(self, test_id: str) -> Block | None:
        """The block known by this id or alias (exact, then case-insensitive)."""
        return self._index.get(test_id) or self._index.get(_fold_id(test_id))

    def __iter__(self) -> Iterator[Block]:
        return iter(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)


def _fold_id(test_id: str) -> str:
    # Legacy result files spell Turkish ids ASCII-folded (GÜV-04 -> GUV-04).
    table = str.maketrans("ÇĞİÖŞÜçğıöşü", "CGIOSUcgiosu")
    return test_id.translate(table).upper()


def iter_yaml_files(paths: Sequence[str | Path]) -> tuple[list[Path], list[Problem]]:
    files: list[Path] = []
    problems: list[Problem] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            for sub in sorted(path.rglob("*")):
                rel = sub.relative_to(path).parts
                if any(part in SKIPPED_DIRS or part.startswith(".") for part in rel[:-1]):
                    continue
                if sub.is_file() and sub.suffix in YAML_SUFFIXES and not sub.name.startswith("."):
                    files.append(sub)
        else:
            problems.append(Problem(str(path), 0, "no such file or folder"))
    return files, problems


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
    conv: Converter, c: Criterion, node: Located, block: Block, where: str
) -> None:
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
    if c.turn is not None and not 1 <= c.turn <= len(block.turns):
        conv.problem(
            node.key_lines.get("turn", line),
            f"`turn: {c.turn}` in {where} but the block has {len(block.turns)} turn(s)",
        )
    if c.min is not None and c.max is not None and c.min > c.max:
        conv.problem(line, f"`min` ({c.min}) is greater than `max` ({c.max}) in {where}")
    check_stream_criterion(conv, c, node, where)
    if c.tag == "JUDGE" and c.type not in ("judge", "any_of"):
        conv.problem(
            line, f"criterion `{c.id}` is tagged JUDGE but its type is `{c.type}`; use type `judge`"
        )
    if c.type == "judge":
        check_judge_kind(conv, c, node, where)
    _check_regex(conv, node.key_lines.get("pattern", line), f"{where}.pattern", c.pattern)
    if c.match == "regex" and isinstance(c.value, str):
        _check_regex(conv, node.key_lines.get("value", line), f"{where}.value", c.value)
    if c.type in ("file_exists", "file_absent", "file_content"):
        _check_rel_path(conv, node.key_lines.get("path", line), f"{where}.path", c.path)
    for m in c.markers:
        if m not in block.reference.markers:
            known = ", ".join(sorted(block.reference.markers)) or "none"
            conv.problem(
                node.key_lines.get("markers", line),
                f"marker `{m}` in {where} is not defined in the block's reference markers "
                f"(defined: {known}){suggest(m, block.reference.markers)}",
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
    if c.fixture_bound and not block.fixtures:
        conv.problem(
            node.key_lines.get("fixture_bound", line),
            f"criterion `{c.id}` in {where} is `fixture_bound` but the block has no fixtures",
        )
    if c.type == "any_of":
        nested = node.value.get("of")
        nodes = nested.value if nested is not None and isinstance(nested.value, list) else []
        for i, (sub, sub_node) in enumerate(zip(c.of, nodes, strict=False)):
            _check_criterion(conv, sub, sub_node, block, f"{where}.of[{i}]")


#: Criterion fields every type takes (identity, tagging, origin, the fixture-free variant).
_NOT_PARAMS = frozenset(
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


def _is_param_set(c: Criterion, name: str) -> bool:
    if name in _NOT_PARAMS:
        return False
    value = getattr(c, name)
    return value not in (None, ())


def _check_block(conv: Converter, block: Block, node: Located) -> None:
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
    pre = node.value.get("preconditions") if isinstance(node.value, dict) else None
    pre_nodes = pre.value if pre is not None and isinstance(pre.value, list) else []
    for crit, cnode in zip(block.preconditions, pre_nodes, strict=False):
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
    for td in block.teardown:
        _check_rel_path(conv, key_line.get("teardown", node.line), "teardown.path", td.path)
    _check_regex(conv, node.line, "reference.category_pattern", block.reference.category_pattern)
    _check_timezone(conv, node.line, block.reference.timezone)


def load_block_file(path: Path) -> tuple[Block | None, list[Problem], Located | None]:
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(name, 0, f"cannot read: {exc}")], None
    located, problems = load_located(text, name)
    if located is None:
        return None, problems, None
    conv = Converter(name)
    if not isinstance(located.value, dict):
        conv.problem(located.line, "a block file must hold one mapping (one block per file)")
        return None, problems + conv.problems, None
    cases_node = located.value.get("cases")
    body = Located(
        {k: v for k, v in located.value.items() if k != "cases"},
        located.line,
        {k: v for k, v in located.key_lines.items() if k != "cases"},
    )
    cases, case_problems = read_cases(cases_node, path)
    raw = conv.record(Block, body, "")
    if raw is MISSING:
        return None, problems + conv.problems + case_problems, located
    block = dataclasses.replace(raw, source=SourceRef(name, located.line), cases=cases)
    _check_block(conv, block, located)
    found = problems + conv.problems + case_problems + check_variables(block)
    return (None if found else block), found, located


def load_overlay(path: str | Path) -> tuple[Overlay | None, list[Problem], Located | None]:
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(name, 0, f"cannot read overlay: {exc}")], None
    located, problems = load_located(text, name)
    if located is None:
        return None, problems, None
    conv = Converter(name)
    raw = conv.record(Overlay, located, "overlay")
    if raw is MISSING:
        return None, problems + conv.problems, located
    overlay = dataclasses.replace(raw, source=SourceRef(name, located.line))
    for ref in (overlay.defaults, *overlay.blocks.values()):
        _check_regex(conv, located.line, "category_pattern", ref.category_pattern)
        _check_timezone(conv, located.line, ref.timezone)
    return (None if conv.problems else overlay), problems + conv.problems, located


def merge_reference(base: Reference, *layers: Reference) -> Reference:
    """Later layers win field by field; mappings merge key by key."""
    merged = base
    for layer in layers:
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(Reference):
            value = getattr(layer, f.name)
            if value in (None, (), {}):
                continue
            current = getattr(merged, f.name)
            changes[f.name] = {**current, **value} if isinstance(value, Mapping) else value
        merged = dataclasses.replace(merged, **changes)
    return merged


def _digest(files: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for f in sorted(files, key=lambda p: p.as_posix()):
        h.update(f.name.encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return "sha256:" + h.hexdigest()[:16]


def load_battery(paths: Sequence[str | Path], overlay: str | Path | None = None) -> Battery:
    """Load and check every block under ``paths``; raise :class:`InputError` listing all problems."""
    files, problems = iter_yaml_files(paths)
    blocks: list[tuple[Block, Located]] = []
    for f in files:
        block, found, located = load_block_file(f)
        problems.extend(found)
        if block is not None and located is not None:
            blocks.append((block, located))
    if not files and not problems:
        problems.append(
            Problem(str(paths[0]) if paths else ".", 0, "no block files (*.yaml) found")
        )
    owner: dict[str, Block] = {}
    for block, located in blocks:
        assert block.source is not None
        for i, name in enumerate(block.ids):
            key = _fold_id(name)
            other = owner.get(key)
            if other is not None and other is not block:
                line = located.key_lines.get("id" if i == 0 else "aliases", located.line)
                where = other.source.file if other.source else "?"
                problems.append(
                    Problem(
                        block.source.file,
                        line,
                        f"id `{name}` is already used by block `{other.id}` in {where}",
                    )
                )
            owner.setdefault(key, block)
    ov: Overlay | None = None
    overlay_files: list[Path] = []
    if overlay is not None:
        ov, found, ov_node = load_overlay(overlay)
        problems.extend(found)
        overlay_files.append(Path(overlay))
        if ov is not None and ov_node is not None:
            blocks_node = ov_node.value.get("blocks")
            for bid in ov.blocks:
                if _fold_id(bid) not in owner:
                    line = (
                        blocks_node.key_lines.get(bid, blocks_node.line)
                        if blocks_node
                        else ov_node.line
                    )
                    known = [b.id for b, _ in blocks]
                    problems.append(
                        Problem(
                            str(overlay),
                            line,
                            f"overlay names block `{bid}`, which no loaded block has{suggest(bid, known)}",
                        )
                    )
    if problems:
        raise InputError(problems)
    resolved = []
    for block, _ in blocks:
        if ov is not None:
            per_block = next(
                (r for bid, r in ov.blocks.items() if _fold_id(bid) in map(_fold_id, block.ids)),
                Reference(),
            )
            ref = merge_reference(block.reference, ov.defaults, per_block)
            block = dataclasses.replace(block, reference=ref)
        resolved += expand(block)
    _recheck_markers(resolved, problems)
    _check_tool_roles(resolved, problems, ov)
    _check_unfixed(resolved, problems, ov)
    if problems:
        raise InputError(problems)
    resolved.sort(key=lambda b: (_TIER_ORDER.get(b.tier, 99), b.id))
    index: dict[str, Block] = {}
    for b in resolved:
        for name in b.ids:
            index[name] = b
            index[_fold_id(name)] = b
    return Battery(
        blocks=tuple(resolved),
        digest=_digest([*files, *overlay_files]),
        paths=tuple(str(p) for p in paths),
        overlay=ov,
        _index=index,
    )


_TIER_ORDER = {t: i for i, t in enumerate(TIERS)}


def _recheck_markers(blocks: list[Block], problems: list[Problem]) -> None:
    # An overlay may drop or rename markers; criteria must still resolve after it.
    def walk(cs: Iterable[Criterion]) -> Iterator[Criterion]:
        for c in cs:
            yield c
            yield from walk(c.of)

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
