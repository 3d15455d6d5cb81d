"""What the battery lint reads off a block: which criteria depend on a tool having run,
which pin that it ran, the polarity of file checks, and where a criterion's YAML lines are.
The rules themselves live in :mod:`._lint`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from agenttest._util.located_cache import load_located_cached
from agenttest._util.located_yaml import Located

from ._kinds import ANY_TOOL, Polarity, ToolsRan, kind_of, walk
from ._kinds_judge import MIN_RUBRIC_CHARS
from ._kinds_world import WRITE_ROLES, norm_path
from ._model import Block, Criterion

__all__ = ["MIN_RUBRIC_CHARS", "WRITE_ROLES"]

_ANY = ANY_TOOL  # "any tool" in dependency and pin sets

# Negative premises, read from capability, title and notes.
_FILE_PREMISE = re.compile(
    r"\bno such file\b|\bnon-?existent (?:file|path)\b|\b(?:file|path) (?:that )?"
    r"(?:does not|doesn't|do not) exist\b|\bmissing file\b",
    re.I,
)
_MEMORY_PREMISE = re.compile(
    r"\bnever (?:told|given|mentioned|stated|said|shared)\b|\bwas not told\b", re.I
)
_CORPUS_PREMISE = re.compile(
    r"\bdo(?:es)? not cover\b|\bdoesn't cover\b|\bnot (?:in|covered by) the "
    r"(?:corpus|documents?|material|sources?)\b",
    re.I,
)
# A workspace path named in a prompt: relative, with an extension (a URL or an absolute
# path is not one). Bare ``name.tld`` words are host names, not files.
_PATH_TOKEN = re.compile(r"^(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{1,4}$")
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+")
_HOST_SUFFIXES = frozenset(
    {"com", "org", "net", "io", "dev", "test", "invalid", "local", "ai", "app", "edu", "gov"}
)


class _Lines:
    """Criterion line numbers, read again from a block's YAML file (cached per file)."""

    def __init__(self) -> None:
        self._cache: dict[str, dict[tuple[str, str], int]] = {}
        self._keys: dict[str, dict[str, int]] = {}

    def _load(self, file: str) -> None:
        if file in self._cache:
            return
        crit: dict[tuple[str, str], int] = {}
        keys: dict[str, int] = {}
        try:
            located, _ = load_located_cached(Path(file).read_text(encoding="utf-8"), file)
        except (OSError, UnicodeDecodeError):
            located = None
        if located is not None and isinstance(located.value, dict):
            keys = dict(located.key_lines)
            node = located.value.get("criteria")
            if node is not None and isinstance(node.value, dict):
                for group in ("pass", "fail"):
                    items = node.value.get(group)
                    if items is not None and isinstance(items.value, list):
                        for item in items.value:
                            cid = _plain_id(item)
                            if cid is not None:
                                crit.setdefault((group, cid), item.line)
        self._cache[file] = crit
        self._keys[file] = keys

    def criterion(self, block: Block, group: str, cid: str) -> int:
        if block.source is None:
            return 0
        self._load(block.source.file)
        return self._cache[block.source.file].get((group, cid), block.source.line)

    def key(self, block: Block, key: str) -> int:
        if block.source is None:
            return 0
        self._load(block.source.file)
        return self._keys[block.source.file].get(key, block.source.line)


def _plain_id(item: Located) -> str | None:
    if isinstance(item.value, dict):
        node = item.value.get("id")
        if node is not None and isinstance(node.value, str):
            return node.value
    return None


# --------------------------------------------------------------------------- helpers


_walk = walk


def _fixture_paths(block: Block, kinds: Iterable[str]) -> set[str]:
    wanted = set(kinds)
    return {_norm(fx.path) for fx in block.fixtures if fx.kind in wanted and fx.path}


_norm = norm_path


def _fail_no_tool_turns(block: Block) -> set[int | None]:
    """Turns for which a FAIL criterion says "no tool was called" is wrong."""
    return {c.turn for c in block.criteria.fail if kind_of(c).lint.no_calls and not c.negate}


def _dependency(block: Block, c: Criterion, no_tool_turns: set[int | None]) -> ToolsRan | None:
    kind = kind_of(c)
    if c.negate and not kind.negate_per_call:
        return None  # negated or not, a per-call type reads the tool's calls
    if kind.lint.depends is not None:
        dep = kind.lint.depends(block, c)
        if dep is not None:
            return dep
    if kind.lint.answer and (None in no_tool_turns or c.turn in no_tool_turns):
        return ToolsRan(frozenset({_ANY}), c.turn)
    if kind.nested and c.of:
        deps = [_dependency(block, sub, no_tool_turns) for sub in c.of]
        if all(d is not None for d in deps):
            tools = frozenset().union(*(d.tools for d in deps if d is not None))
            turns = {d.turn for d in deps if d is not None}
            return ToolsRan(tools, turns.pop() if len(turns) == 1 else None)
    return None


def _pins(c: Criterion) -> list[ToolsRan]:
    if c.negate:
        return []
    kind = kind_of(c)
    if kind.lint.pins is not None:
        return kind.lint.pins(c)
    if kind.nested and c.of:
        branch_pins = [_pins(sub) for sub in c.of]
        if all(branch_pins):
            tools = frozenset().union(*(p.tools for ps in branch_pins for p in ps))
            turns = {p.turn for ps in branch_pins for p in ps}
            return [ToolsRan(tools, turns.pop() if len(turns) == 1 else None)]
    return []


def _covers(pin: ToolsRan, dep: ToolsRan) -> bool:
    if pin.turn is not None and dep.turn is not None and pin.turn != dep.turn:
        return False
    if _ANY in dep.tools:
        return True
    return _ANY not in pin.tools and pin.tools <= dep.tools


def _polarity(c: Criterion) -> Polarity:
    """``presence``, ``absence`` or ``neutral`` (negation swaps the first two)."""
    kind = kind_of(c)
    base: Polarity
    if kind.nested:
        kinds = {_polarity(sub) for sub in c.of}
        base = kinds.pop() if len(kinds) == 1 else "neutral"
    else:
        base = kind.polarity(c)
    if c.negate and base != "neutral" and not kind.negate_per_call:
        return "absence" if base == "presence" else "presence"
    return base


def _file_polarity(c: Criterion) -> tuple[str, str] | None:
    """``(presence|absence, path)`` for a file check, looking into ``any_of`` branches."""
    check = kind_of(c).lint.file_check
    if check is not None and c.path:
        present = check != "absent"
        if c.negate:
            present = not present
        if check == "content" and not present:
            return None  # "content differs" says nothing about the file being gone
        return ("presence" if present else "absence", _norm(c.path))
    return None
