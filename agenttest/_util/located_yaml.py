"""Safe YAML with line numbers: data only, never code.

PyYAML's ``safe_load`` drops positions, and good errors need ``FILE:LINE``. We compose the
node graph with the safe loader and convert it ourselves, keeping each value's line and
refusing duplicate keys (which ``safe_load`` would silently resolve to the last one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from agenttest.errors import Problem


@dataclass
class Located:
    """A YAML value with the 1-based line it starts on."""

    value: Any  # dict[str, Located] | list[Located] | scalar
    line: int
    key_lines: dict[str, int] = field(default_factory=dict)

    def plain(self) -> Any:
        """The value with positions stripped, as ``yaml.safe_load`` would return it."""
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value


_PLAIN_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})

#: The deepest nesting of collections a data file may have (the battery's go 8 deep). The
#: composer recurses per level: 20,000 ``[`` overflowed Python's stack (exit 4, not 2).
MAX_DEPTH = 100
#: The most values one file may expand to. An alias is one node reused, so nine lines of
#: ``&a [*b, *b, ...]`` (billion laughs) expand to 10**9 values: memory without limit.
MAX_VALUES = 200_000


def _error(message: str, mark: yaml.Mark | None) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, message, mark)


class _BoundedLoader(yaml.SafeLoader):
    """The safe loader, refusing collections nested deeper than :data:`MAX_DEPTH`."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels", mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Converter:
    def __init__(self, filename: str, problems: list[Problem]) -> None:
        self.filename = filename
        self.problems = problems
        self.constructor = yaml.SafeLoader("")  # only for scalar resolution (safe tags)
        self.values = 0
        self.depth = 0

    def convert(self, node: yaml.Node) -> Located:
        self.values += 1
        if self.values > MAX_VALUES:
            raise _error(
                f"the file expands to more than {MAX_VALUES:,} values (aliases reused "
                "over and over: an alias bomb?)",
                node.start_mark,
            )
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:  # an alias inside itself never ends
                raise _error(f"nested deeper than {MAX_DEPTH} levels", node.start_mark)
            return self._convert(node)
        finally:
            self.depth -= 1

    def _convert(self, node: yaml.Node) -> Located:
        line = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode) and node.tag not in _PLAIN_TAGS:
            # A tag on a collection could ask for an object; data files never need one.
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"the tag {node.tag!r} is not allowed (YAML here is data only)",
                node.start_mark,
            )
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Located] = {}
            key_lines: dict[str, int] = {}
            self.constructor.flatten_mapping(node)
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise _error("a key must be a plain value, not a list or mapping",
                                 key_node.start_mark)  # fmt: skip
                key = self.constructor.construct_object(key_node, deep=True)
                kline = key_node.start_mark.line + 1
                if not isinstance(key, str):
                    key = str(key)
                if key in out:
                    self.problems.append(
                        Problem(
                            self.filename,
                            kline,
                            f"duplicate key `{key}` (first on line {key_lines[key]})",
                        )
                    )
                    continue
                out[key] = self.convert(value_node)
                key_lines[key] = kline
            return Located(out, line, key_lines)
        if isinstance(node, yaml.SequenceNode):
            return Located([self.convert(n) for n in node.value], line)
        return Located(self.constructor.construct_object(node, deep=True), line)


def load_located(text: str, filename: str) -> tuple[Located | None, list[Problem]]:
    """Parse one YAML document. Returns (None, problems) when it is not valid YAML."""
    problems: list[Problem] = []
    try:
        node = yaml.compose(text, Loader=_BoundedLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        what = exc.problem or str(exc)
        problems.append(Problem(filename, line, f"not valid YAML: {what}"))
        return None, problems
    except yaml.YAMLError as exc:  # pragma: no cover - composer errors are marked
        problems.append(Problem(filename, 1, f"not valid YAML: {exc}"))
        return None, problems
    if node is None:
        problems.append(Problem(filename, 1, "empty file: expected one block (a mapping)"))
        return None, problems
    try:
        located = _Converter(filename, problems).convert(node)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        problems.append(
            Problem(
                filename, mark.line + 1 if mark else 1, f"unsupported YAML value: {exc.problem}"
            )
        )
        return None, problems
    return located, problems
