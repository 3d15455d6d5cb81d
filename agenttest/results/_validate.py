"""Check a record read from a run file against its TypedDict (:mod:`._records`).

A run file is input like any other: hand-edited, truncated, written by another tool. The
reader checks every record it yields, so a ``verdict: {}`` or a ``latency_ms: NaN``
becomes a skipped line listed under data integrity instead of a crash in a renderer.

msgspec checks a record against its TypedDict in C (``msgspec.convert``, strict: ``true``
is no int, ``NaN`` no int either); keys a type does not declare are left alone, since a
newer minor version may add them. Measured on the 100 000-attempt benchmark file
(``benchmarks/report_throughput.py``, 20 000 lines, one run): ``json`` decoding alone
1.47 s, ``json`` + the pure-Python checker below 2.61 s, msgspec decoding + ``convert``
1.10 s. The pure-Python checker (compiled once per type from the same hints) stays only
as the fallback where msgspec is not installed.
"""

from __future__ import annotations

import functools
import math
import operator
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, get_args, get_origin, is_typeddict

from agenttest._util.limits import MAX_RUNS

from ._records import RECORD_TYPES

Check = Callable[[Any], None]


class BadRecord(ValueError):
    """A record that does not match its type; ``where`` is the path to the bad value."""

    def __init__(self, message: str, where: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where or []

    def __str__(self) -> str:
        path = "".join(reversed(self.where)).lstrip(".")
        return f"`{path}` {self.message}" if path else self.message


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, float) and not math.isfinite(value):
        return f"a non-finite number ({value})"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_SCALARS: dict[Any, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    bool: (bool,),
    type(None): (type(None),),
    None: (type(None),),
}
_NAMES = {str: "a string", int: "a whole number", bool: "a boolean", float: "a number"}


def _describe(tp: Any) -> str:
    if tp in (None, type(None)):
        return "null"
    if get_origin(tp) in (types.UnionType, typing.Union):
        return " or ".join(_describe(a) for a in get_args(tp))
    if get_origin(tp) is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if get_origin(tp) is list:
        return "a list"
    if get_origin(tp) is dict or is_typeddict(tp):
        return "an object"
    return _NAMES.get(tp, str(tp))


def _simple(tp: Any) -> frozenset[type] | None:
    """The exact types that make a value of ``tp`` valid, when that is all there is to it."""
    if tp in _SCALARS:
        return frozenset(_SCALARS[tp])
    if get_origin(tp) in (types.UnionType, typing.Union):
        parts = [_simple(a) for a in get_args(tp)]
        if all(p is not None for p in parts):
            return frozenset().union(*(p for p in parts if p is not None))
    return None


def compile_check(tp: Any) -> Check | None:
    """A function raising :class:`BadRecord` when a value does not fit ``tp``; None for Any."""
    if tp is Any:
        return None
    simple = _simple(tp)
    if simple is not None:
        want = _describe(tp)

        def check_simple(value: Any) -> None:
            if type(value) not in simple:
                raise BadRecord(f"must be {want}, got {kind(value)}")

        return check_simple
    origin = get_origin(tp)
    if tp is float:

        def check_float(value: Any) -> None:
            if type(value) not in (int, float) or not math.isfinite(value):
                raise BadRecord(f"must be a finite number, got {kind(value)}")

        return check_float
    if origin is Literal:
        allowed = frozenset(get_args(tp))
        want = _describe(tp)

        def check_literal(value: Any) -> None:
            if type(value) is not str or value not in allowed:
                raise BadRecord(f"must be {want}, got {kind(value)}")

        return check_literal
    if origin in (types.UnionType, typing.Union):
        alternatives = [compile_check(a) for a in get_args(tp)]
        if any(a is None for a in alternatives):
            return None
        want = _describe(tp)

        def check_union(value: Any) -> None:
            for alternative in alternatives:
                try:
                    alternative(value)  # type: ignore[misc]
                    return
                except BadRecord:
                    continue
            raise BadRecord(f"must be {want}, got {kind(value)}")

        return check_union
    if origin is list:
        item = compile_check(get_args(tp)[0])
        return _list_check(item)
    if origin is dict:
        value_check = compile_check(get_args(tp)[1])
        return _dict_check(value_check)
    if is_typeddict(tp):
        return _record_check(tp)
    raise TypeError(f"no check for {tp!r}")


def _list_check(item: Check | None) -> Check:
    def check_list(value: Any) -> None:
        if type(value) is not list:
            raise BadRecord(f"must be a list, got {kind(value)}")
        if item is not None:
            for i, entry in enumerate(value):
                try:
                    item(entry)
                except BadRecord as bad:
                    bad.where.append(f"[{i}]")
                    raise

    return check_list


def _dict_check(value_check: Check | None) -> Check:
    def check_dict(value: Any) -> None:
        if type(value) is not dict:
            raise BadRecord(f"must be an object, got {kind(value)}")
        if value_check is not None:
            for key, entry in value.items():
                try:
                    value_check(entry)
                except BadRecord as bad:
                    bad.where.append(f"[{key!r}]")
                    raise

    return check_dict


def _record_check(tp: Any) -> Check:
    hints = typing.get_type_hints(tp)
    checks = {key: compile_check(hint) for key, hint in hints.items()}
    fields = {key: check for key, check in checks.items() if check is not None}
    required = tuple(sorted(tp.__required_keys__))

    def check_record(value: Any) -> None:
        if type(value) is not dict:
            raise BadRecord(f"must be an object, got {kind(value)}")
        for key, entry in value.items():
            check = fields.get(key)
            if check is not None:
                try:
                    check(entry)
                except BadRecord as bad:
                    bad.where.append(f".{key}")
                    raise
        for key in required:
            if key not in value:
                raise BadRecord(f"misses `{key}`")

    return check_record


#: Keys a consumer cannot do without, per record type (every other key is optional).
REQUIRED: dict[str, tuple[str, ...]] = {
    "attempt": ("test_id", "run"),
    "grade": ("test_id", "run"),
}


@functools.cache
def _checks() -> dict[str, Check]:
    """The pure-Python checkers, compiled when first needed (never, where msgspec is)."""
    return {name: _record_check(tp) for name, tp in RECORD_TYPES.items()}


try:
    import msgspec

    _convert = msgspec.convert
    _Invalid: type[Exception] = msgspec.ValidationError
except ImportError:  # pragma: no cover - msgspec is a dependency; the fallback is slower
    _convert = None  # type: ignore[assignment]
    _Invalid = BadRecord


def struct_mirror(tp: Any, made: dict[Any, Any]) -> Any:
    """``tp`` with every TypedDict in it replaced by a msgspec Struct of the same fields.

    ``msgspec.convert`` checks a dict against a Struct as strictly as against the TypedDict
    and with the same messages, but builds Structs instead of dicts (no hashing, no garbage
    collector tracking): 0.58 s instead of 0.75 s for the 20,000 attempts of the benchmark
    file, in the same run. The result is only checked, never kept, so the reader's records
    stay the dicts that were read (with any undeclared keys)."""
    if is_typeddict(tp):
        if tp not in made:
            hints = typing.get_type_hints(tp)
            fields = [
                (key, struct_mirror(hint, made))
                if key in tp.__required_keys__
                else (key, struct_mirror(hint, made), msgspec.UNSET)
                for key, hint in hints.items()
            ]
            fields.sort(key=len)  # required fields (no default) first
            made[tp] = msgspec.defstruct(tp.__name__, fields, kw_only=True)
        return made[tp]
    origin, args = get_origin(tp), get_args(tp)
    if origin in (types.UnionType, typing.Union):
        return functools.reduce(operator.or_, (struct_mirror(a, made) for a in args))
    if origin is list:
        return list.__class_getitem__(struct_mirror(args[0], made))
    if origin is dict:
        return dict.__class_getitem__((args[0], struct_mirror(args[1], made)))
    return tp


_MIRRORS: dict[Any, Any] = {}
_TARGETS: dict[str, Any] = (
    {name: struct_mirror(tp, _MIRRORS) for name, tp in RECORD_TYPES.items()}
    if _convert is not None
    else dict(RECORD_TYPES)
)


def _fallback(name: str, record: dict[str, Any]) -> None:
    try:
        _checks()[name](record)
    except BadRecord as bad:
        raise BadRecord(str(bad)) from None


def check_record(record: dict[str, Any]) -> str | None:
    """Why ``record`` does not match the type its ``record_type`` names; None when it does."""
    name = record.get("record_type")
    if not isinstance(name, str):
        return f"`record_type` must be a string, got {kind(name)}"
    target = _TARGETS.get(name)
    if target is None:
        return None  # an unknown type: consumers skip and count it themselves
    try:
        if _convert is not None:  # msgspec, called here: no wrapper call per record
            _convert(record, target)
        else:  # pragma: no cover - msgspec is a dependency
            _fallback(name, record)
    except _Invalid as exc:
        return f"{name}: {exc}"
    for key in REQUIRED.get(name, ()):
        if key not in record:
            return f"{name}: misses `{key}`"
    return _ranges(name, record)


def _count_problem(key: str, value: Any) -> str | None:
    if value is None:
        return None
    if value < 1:
        return f"`{key}` must be at least 1, got {value}"
    if value > MAX_RUNS:
        shown = f"{value:,}" if value < 10**15 else f"{value:.3g}"
        return f"`{key}` must be at most {MAX_RUNS:,}, got {shown}"
    return None


def _ranges(name: str, record: dict[str, Any]) -> str | None:
    """Counts that must lie in [1, MAX_RUNS] where a consumer divides, loops or counts by
    them: a declaration is never trusted beyond what a run can hold."""
    for key in ("run", "k", "k_nominal"):
        value = record.get(key)
        if value is None or (value.__class__ is int and 1 <= value <= MAX_RUNS):
            continue  # the common case, without a call
        problem = _count_problem(key, value)
        if problem:
            return f"{name}: {problem}"
    if name == "run_meta":
        for i, entry in enumerate(record.get("plan") or ()):
            problem = _count_problem(f"plan[{i}].runs", entry["runs"])
            if problem:
                return f"{name}: {problem}"
        selection = record.get("selection")
        k = selection.get("k") if isinstance(selection, dict) else None
        if k is not None:
            if k.__class__ is not int:
                return f"{name}: `selection.k` must be a whole number, got {kind(k)}"
            problem = _count_problem("selection.k", k)
            if problem:
                return f"{name}: {problem}"
    return None
