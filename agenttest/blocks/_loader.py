"""Load blocks and overlays from YAML, check them, and report every problem in one pass."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttest._util.convert import MISSING, Converter, suggest
from agenttest._util.located_cache import is_cached, load_located_cached
from agenttest._util.located_yaml import Located
from agenttest.errors import InputError, Problem

from ._cases import check_variables, expand, read_cases
from ._checks import check_battery, check_block, check_criteria_alone, check_reference
from ._model import Block, Overlay, Reference, SourceRef
from ._vocabulary import TIERS

YAML_SUFFIXES = (".yaml", ".yml")
#: Folders skipped while walking a battery: overlays and agent-specific blocks live there.
SKIPPED_DIRS = frozenset({"overlays"})


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


#: Entries a battery folder may hold (files and folders, at any depth): a battery is a few
#: hundred files; a path like ``/`` (a run file's ``battery.paths`` is data anyone may edit,
#: and ``report`` follows it) would otherwise crawl the whole file system.
MAX_BATTERY_ENTRIES = 100_000
#: A longer path is no path (the kernel's PATH_MAX); shown cut in a problem.
MAX_PATH_CHARS = 4096


def iter_yaml_files(paths: Sequence[str | Path]) -> tuple[list[Path], list[Problem]]:
    files: list[Path] = []
    problems: list[Problem] = []
    for raw in paths:
        shown = str(raw) if len(str(raw)) <= 200 else str(raw)[:200] + "…"
        if len(str(raw)) > MAX_PATH_CHARS:
            problems.append(Problem(shown, 0, f"not a path: over {MAX_PATH_CHARS:,} characters"))
            continue
        path = Path(raw)
        try:
            if path.is_file():
                files.append(path)
            elif path.is_dir():
                found = _walk(path)
                if found is None:
                    problems.append(
                        Problem(
                            shown,
                            0,
                            f"not a battery folder: more than {MAX_BATTERY_ENTRIES:,} files "
                            "and folders under it",
                        )
                    )
                else:
                    files.extend(found)
            else:
                problems.append(Problem(shown, 0, "no such file or folder"))
        except OSError as exc:  # a name too long for the file system, a loop, ...
            problems.append(Problem(shown, 0, f"cannot read: {exc.strerror or exc}"))
    return files, problems


def _walk(folder: Path) -> list[Path] | None:
    """The block files under ``folder`` in path order (hidden and skipped folders left out),
    or None when it holds more than :data:`MAX_BATTERY_ENTRIES` entries."""
    import os

    found: list[Path] = []
    seen = 0
    for top, dirs, names in os.walk(folder):  # symlinked folders are not entered
        seen += len(dirs) + len(names)
        if seen > MAX_BATTERY_ENTRIES:
            return None
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")]
        for name in names:
            sub = Path(top, name)
            if sub.suffix in YAML_SUFFIXES and not name.startswith(".") and sub.is_file():
                found.append(sub)
    return sorted(found)


def unparsed_files(paths: Sequence[str | Path]) -> list[Path]:
    """The block files under ``paths`` that loading will parse: those not parsed before in
    this content (the rest come from the parse cache, see ``docs/performance.md``)."""
    files, _ = iter_yaml_files(paths)
    out = []
    for f in files:
        try:
            if not is_cached(f.read_text(encoding="utf-8")):
                out.append(f)
        except (OSError, UnicodeDecodeError):
            out.append(f)
    return out


def load_block_file(path: Path) -> tuple[Block | None, list[Problem], Located | None]:
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(name, 0, f"cannot read: {exc}")], None
    located, problems = load_located_cached(text, name)
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
        check_criteria_alone(conv, body)
        return None, _in_order(name, problems + conv.problems + case_problems), located
    block = dataclasses.replace(raw, source=SourceRef(name, located.line), cases=cases)
    check_block(conv, block, located)
    found = _in_order(name, problems + conv.problems + case_problems + check_variables(block))
    return (None if found else block), found, located


def _in_order(name: str, problems: list[Problem]) -> list[Problem]:
    """A block file's problems top to bottom, as its reader fixes them, then those of the
    case files it names (stable: a line's own problems keep the order they were found in)."""
    return sorted(problems, key=lambda p: (p.file != name, p.file, p.line))


def load_overlay(path: str | Path) -> tuple[Overlay | None, list[Problem], Located | None]:
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(name, 0, f"cannot read overlay: {exc}")], None
    located, problems = load_located_cached(text, name)
    if located is None:
        return None, problems, None
    conv = Converter(name)
    raw = conv.record(Overlay, located, "overlay")
    if raw is MISSING:
        return None, problems + conv.problems, located
    overlay = dataclasses.replace(raw, source=SourceRef(name, located.line))
    for ref in (overlay.defaults, *overlay.blocks.values()):
        check_reference(conv, located.line, ref)
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
    # The blocks that loaded are still checked as a battery, so one pass names every
    # problem; only an overlay that did not load leaves nothing to check them against.
    if overlay is not None and ov is None:
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
    check_battery(resolved, problems, ov)
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
