"""What the battery lint reads off a block: which criteria depend on a tool having run,
which pin that it ran, the polarity of file checks, and where a criterion's YAML lines are.
The rules themselves live in :mod:`._lint`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agenttest._util.located_yaml import Located, load_located

from ._model import Block, Criterion, Fixture
from ._vocabulary import PER_CALL_NEGATE

#: Roles whose call can leave a file behind in the workspace.
WRITE_ROLES: frozenset[str] = frozenset({"file_write", "file_patch", "file_move", "shell"})
#: A rubric shorter than this cannot say what to look for.
MIN_RUBRIC_CHARS = 20

_ANY = "*"  # "any tool" in dependency and pin sets
_ANSWER_TYPES = frozenset(
    {"response_number", "response_contains", "response_regex", "clock_delta", "list_items"}
)
_ABSENCE_TYPES = frozenset({"no_tool_calls", "tool_not_called", "file_absent", "response_empty"})
_PRESENCE_TYPES = frozenset(
    {
        "tool_called", "tool_order", "tool_arg", "tool_result", "file_exists", "file_content",
        "trace_contains", "category", "response_number", "response_regex", "response_contains",
        "clock_delta", "command_executed", "status", "list_items", "sentence_count",
        "asks_question",
    }
)  # fmt: skip

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


@dataclass(frozen=True)
class _Dep:
    """Tools a result criterion needs to have run (``_ANY``: any tool)."""

    tools: frozenset[str]
    turn: int | None


@dataclass(frozen=True)
class _Pin:
    """Tools of which a PASS criterion guarantees at least one ran."""

    tools: frozenset[str]
    turn: int | None


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
            located, _ = load_located(Path(file).read_text(encoding="utf-8"), file)
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


def _walk(criteria: Iterable[Criterion]) -> Iterator[Criterion]:
    for c in criteria:
        yield c
        yield from _walk(c.of)


def _fixture_paths(block: Block, kinds: Iterable[str]) -> set[str]:
    wanted = set(kinds)
    return {_norm(fx.path) for fx in block.fixtures if fx.kind in wanted and fx.path}


def _norm(path: str) -> str:
    parts = [p for p in path.strip().split("/") if p not in ("", ".")]
    return "/".join(parts)


def _fixture_for(block: Block, path: str) -> Fixture | None:
    found = None
    for fx in block.fixtures:  # the last fixture for a path decides its initial state
        if fx.path and _norm(fx.path) == _norm(path):
            found = fx
    return found


def _changes_fixture(block: Block, c: Criterion) -> bool:
    """Whether a positive file check can only hold after the agent wrote the file."""
    assert c.path is not None
    fx = _fixture_for(block, c.path)
    if fx is None or fx.kind not in ("file", "dir"):
        return True
    if c.type == "file_exists":
        return False
    original = fx.content or ""
    expected = "" if c.value is None else str(c.value)
    if c.match == "equals":
        return original.strip() != expected.strip()
    if c.match == "regex":
        try:
            return re.search(expected, original) is None
        except re.error:
            return True
    return expected not in original  # "contains" (the default) and anything else


def _fail_no_tool_turns(block: Block) -> set[int | None]:
    """Turns for which a FAIL criterion says "no tool was called" is wrong."""
    return {c.turn for c in block.criteria.fail if c.type == "no_tool_calls" and not c.negate}


def _dependency(block: Block, c: Criterion, no_tool_turns: set[int | None]) -> _Dep | None:
    if c.type in PER_CALL_NEGATE and c.tool:
        return _Dep(frozenset({c.tool}), c.turn)  # negated or not, it reads the tool's calls
    if c.negate:
        return None
    if c.type == "command_executed":
        return _Dep(frozenset({"shell"}), c.turn)
    if c.type in ("file_exists", "file_content") and c.path and _changes_fixture(block, c):
        return _Dep(WRITE_ROLES, None)
    if c.type in _ANSWER_TYPES and (None in no_tool_turns or c.turn in no_tool_turns):
        return _Dep(frozenset({_ANY}), c.turn)
    if c.type == "any_of" and c.of:
        deps = [_dependency(block, sub, no_tool_turns) for sub in c.of]
        if all(d is not None for d in deps):
            tools = frozenset().union(*(d.tools for d in deps if d is not None))
            turns = {d.turn for d in deps if d is not None}
            return _Dep(tools, turns.pop() if len(turns) == 1 else None)
    return None


def _pins(c: Criterion) -> list[_Pin]:
    if c.negate:
        return []
    if c.type == "tool_called" and c.tool and c.min != 0:
        return [_Pin(frozenset({_ANY if c.tool == "any" else c.tool}), c.turn)]
    if c.type == "tool_count" and c.tool and (c.min or 0) >= 1:
        return [_Pin(frozenset({c.tool}), c.turn)]
    if c.type == "tool_order":
        return [_Pin(frozenset({t}), c.turn) for t in c.tools]
    if c.type == "any_of" and c.of:
        branch_pins = [_pins(sub) for sub in c.of]
        if all(branch_pins):
            tools = frozenset().union(*(p.tools for ps in branch_pins for p in ps))
            turns = {p.turn for ps in branch_pins for p in ps}
            return [_Pin(tools, turns.pop() if len(turns) == 1 else None)]
    return []


def _covers(pin: _Pin, dep: _Dep) -> bool:
    if pin.turn is not None and dep.turn is not None and pin.turn != dep.turn:
        return False
    if _ANY in dep.tools:
        return True
    return _ANY not in pin.tools and pin.tools <= dep.tools


def _polarity(c: Criterion) -> str:
    """``presence``, ``absence`` or ``neutral`` (negation swaps the first two)."""
    if c.type == "any_of":
        kinds = {_polarity(sub) for sub in c.of}
        base = kinds.pop() if len(kinds) == 1 else "neutral"
    elif c.type in _ABSENCE_TYPES:
        base = "absence"
    elif c.type in _PRESENCE_TYPES:
        base = "presence"
    elif c.type == "tool_count":
        base = "absence" if c.max == 0 else "presence" if (c.min or 0) >= 1 else "neutral"
    else:
        base = "neutral"
    if c.negate and base != "neutral" and c.type not in PER_CALL_NEGATE:
        return "absence" if base == "presence" else "presence"
    return base


def _file_polarity(c: Criterion) -> tuple[str, str] | None:
    """``(presence|absence, path)`` for a file check, looking into ``any_of`` branches."""
    if c.type in ("file_exists", "file_content", "file_absent") and c.path:
        present = c.type != "file_absent"
        if c.negate:
            present = not present
        if c.type == "file_content" and not present:
            return None  # "content differs" says nothing about the file being gone
        return ("presence" if present else "absence", _norm(c.path))
    return None
