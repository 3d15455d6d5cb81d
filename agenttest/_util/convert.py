"""Turn located YAML into frozen dataclass records, collecting every problem.

Blocks (:mod:`agenttest.blocks`) and agent configs (:mod:`agenttest.runner`) are read with
it. The same type walk also yields the blocks' JSON Schema, so what the loader accepts and
what editors are told can never drift apart. A dataclass with a ``YAML_SHORTHAND`` class
attribute also accepts a bare string, stored in the field it names.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin

from agenttest.errors import Problem

from .located_yaml import Located

_MISSING = object()


def yaml_name(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("yaml", f.name))


def public_fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if not f.metadata.get("internal")]


@functools.cache
def hints(cls: type) -> Mapping[str, Any]:
    """The class's field types, evaluated once per class: the annotations are strings
    (``from __future__ import annotations``) and evaluating them compiles each one, which
    cost ~25,000 ``compile()`` calls, 40 % of loading the battery, when done per record."""
    return types.MappingProxyType(typing.get_type_hints(cls))


@functools.cache
def _yaml_fields(cls: type) -> Mapping[str, dataclasses.Field[Any]]:
    return types.MappingProxyType({yaml_name(f): f for f in public_fields(cls)})


def suggest(word: str, options: typing.Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def describe(tp: Any) -> str:
    origin = get_origin(tp)
    if tp is str:
        return "text"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is bool:
        return "true or false"
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in get_args(tp))
    if origin in (tuple, list):
        return "a list"
    if origin in (Mapping, dict) or origin is typing.Mapping:
        return "a mapping"
    if dataclasses.is_dataclass(tp):
        return "a mapping"
    if origin in (types.UnionType, typing.Union):
        return " or ".join(describe(a) for a in get_args(tp) if a is not type(None))
    return str(tp)


class Converter:
    """Converts one file's located values; problems accumulate instead of raising."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.problems: list[Problem] = []

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.filename, line, message))

    def to(self, tp: Any, node: Located, where: str) -> Any:
        """Convert ``node`` to type ``tp``; returns _MISSING after recording a problem."""
        origin = get_origin(tp)
        value = node.value
        if origin in (types.UnionType, typing.Union):
            args = [a for a in get_args(tp) if a is not type(None)]
            if value is None and len(args) < len(get_args(tp)):
                return None
            if len(args) == 1:
                return self.to(args[0], node, where)
            return self._scalar_union(args, node, where)
        shorthand = getattr(tp, "YAML_SHORTHAND", None)
        if shorthand is not None and isinstance(value, str):
            return tp(**{shorthand: value})
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            return self.record(tp, node, where)
        if origin is Literal:
            options = get_args(tp)
            if value in options:
                return value
            shown = ", ".join(str(o) for o in options)
            hint = suggest(str(value), [str(o) for o in options])
            self.problem(node.line, f"`{where}` must be one of {shown}; got `{value}`{hint}")
            return _MISSING
        if origin is tuple:
            (item_tp, _ellipsis) = get_args(tp)
            if isinstance(value, str) and item_tp is str:
                return (value,)  # a lone string is a one-item list
            if not isinstance(value, list):
                self.problem(node.line, f"`{where}` must be a list, got {_kind(value)}")
                return _MISSING
            items = [self.to(item_tp, item, f"{where}[{i}]") for i, item in enumerate(value)]
            return _MISSING if _MISSING in items else tuple(items)
        if origin is Mapping or origin is dict:
            _key_tp, val_tp = get_args(tp)
            if not isinstance(value, dict):
                self.problem(node.line, f"`{where}` must be a mapping, got {_kind(value)}")
                return _MISSING
            out = {k: self.to(val_tp, v, f"{where}.{k}") for k, v in value.items()}
            return _MISSING if _MISSING in out.values() else out
        return self._scalar(tp, node, where)

    def _scalar(self, tp: Any, node: Located, where: str) -> Any:
        value = node.value
        ok = (
            (tp is str and isinstance(value, str))
            or (tp is bool and isinstance(value, bool))
            or (tp is int and isinstance(value, int) and not isinstance(value, bool))
            or (tp is float and isinstance(value, int | float) and not isinstance(value, bool))
        )
        if ok:
            return float(value) if tp is float else value
        self.problem(node.line, f"`{where}` must be {describe(tp)}, got {_kind(value)}")
        return _MISSING

    def _scalar_union(self, args: list[Any], node: Located, where: str) -> Any:
        for arg in args:
            if arg in (str, int, float) and _fits(arg, node.value):
                return node.value
        self.problem(
            node.line,
            f"`{where}` must be {' or '.join(describe(a) for a in args)}, got {_kind(node.value)}",
        )
        return _MISSING

    def record(self, cls: type, node: Located, where: str) -> Any:
        if not isinstance(node.value, dict):
            self.problem(node.line, f"`{where}` must be a mapping, got {_kind(node.value)}")
            return _MISSING
        fields = _yaml_fields(cls)
        hint_map = hints(cls)
        kwargs: dict[str, Any] = {}
        failed = False
        for key, child in node.value.items():
            if key not in fields:
                self.problem(
                    node.key_lines.get(key, node.line),
                    f"unknown key `{key}` in {where or 'block'}{suggest(key, fields)}",
                )
                failed = True
                continue
            f = fields[key]
            converted = self.to(hint_map[f.name], child, f"{where}.{key}" if where else key)
            if converted is _MISSING:
                failed = True
            else:
                kwargs[f.name] = converted
        for key, f in fields.items():
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            if required and key not in node.value:
                self.problem(node.line, f"missing required key `{key}` in {where or 'block'}")
                failed = True
        if failed:
            return _MISSING
        return cls(**kwargs)


def _fits(tp: type, value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if tp is float:
        return isinstance(value, int | float)
    return isinstance(value, tp)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"text `{value[:40]}`"
    return f"`{value}`"


MISSING = _MISSING
