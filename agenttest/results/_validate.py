"""Why a record does not match its type, in words a reader of the report can act on.

The reader decodes each line straight into its Struct (:mod:`._records`); msgspec's
decoding is the validation (strict: ``true`` is no whole number, ``NaN`` none either, a
``run`` of 0 or 10**30 is out of range). Only when a record does not match is it looked
at again, as a dict, to say which field was wrong and what it held: ``attempt: `run` must
be at least 1, got 0`` rather than msgspec's ``Expected `int` >= 1 - at `$.run```.
"""

from __future__ import annotations

import math
import re
from typing import Any

import msgspec

from ._records import RECORD_TYPES, Record

_EXPECTED = re.compile(
    r"Expected `(?P<want>[^`]+)`(?:, got `(?P<got>[^`]+)`| (?P<op>[<>]=?) (?P<bound>-?\d+))?"
    r"(?: - at `\$(?P<path>[^`]*)`)?"
)
_MISSING = re.compile(
    r"Object missing required field `(?P<field>[^`]+)`(?: - at `\$(?P<path>[^`]*)`)?"
)
_INVALID = re.compile(r"Invalid (?:enum )?value (?P<value>.+) - at `\$(?P<path>[^`]*)`")
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+|\.\.\.)\]")

_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "a string",
    "bool": "a boolean",
    "null": "null",
    "object": "an object",
    "array": "a list",
}


def kind(value: Any) -> str:
    """What a JSON value is, in words (``a boolean (true)``, ``a non-finite number (nan)``)."""
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


_MISSING_VALUE = object()


def _at(record: Any, path: str) -> Any:
    """The value at a msgspec path (``.turns[0].ok``) of ``record``; a marker if unknown."""
    value = record
    for name, index in _STEP.findall(path):
        if name and isinstance(value, dict) and name in value:
            value = value[name]
        elif index.isdigit() and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:
            return _MISSING_VALUE
    return value


def _count(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}" if abs(value) < 10**15 else f"{value:.3g}"
    return kind(value)


def explain(message: str, record: Any) -> str:
    """msgspec's validation ``message`` about ``record`` (a dict), said in words."""
    if m := _MISSING.fullmatch(message):
        where = (m["path"] or "").lstrip(".")
        return f"misses `{where + '.' if where else ''}{m['field']}`"
    if m := _EXPECTED.fullmatch(message):
        where = (m["path"] or "").lstrip(".")
        value = _at(record, m["path"] or "")
        field = f"`{where}` " if where else ""
        if m["op"]:
            bound = int(m["bound"])
            side = "at least" if m["op"].startswith(">") else "at most"
            got = "" if value is _MISSING_VALUE else f", got {_count(value)}"
            return f"{field}must be {side} {bound:,}{got}"
        want = " or ".join(_WORDS.get(w, w) for w in m["want"].split(" | "))
        got = kind(value) if value is not _MISSING_VALUE else _WORDS.get(m["got"], m["got"])
        return f"{field}must be {want}, got {got}"
    if m := _INVALID.fullmatch(message):
        return f"`{m['path'].lstrip('.')}` may not be {m['value']}"
    return message


def check_record(record: dict[str, Any]) -> str | None:
    """Why ``record`` (a decoded line) does not match the type its ``record_type`` names;
    None when it does, or when the type is one this version does not know."""
    name = record.get("record_type")
    if not isinstance(name, str):
        return f"`record_type` must be a string, got {kind(name)}"
    if name not in RECORD_TYPES:
        return None  # an unknown type: the reader counts and skips it
    try:
        msgspec.convert(record, Record, strict=True)
    except msgspec.ValidationError as exc:
        return f"{name}: {explain(str(exc), record)}"
    return None
