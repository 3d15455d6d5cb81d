"""JSON Schema (draft 2020-12) of run-file records, generated from :mod:`._records`.

``agenttest schema --records`` prints it, so other tools can read run files. It is made
from the same TypedDicts the reader validates against, so the two cannot drift apart.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin, is_typeddict

from ._records import RECORD_TYPES, SCHEMA_VERSION

SCHEMA_ID = "https://agenttest.dev/schema/run-records-2.json"

_SCALARS = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if tp is Any:
        return {}
    if tp in (None, type(None)):
        return {"type": "null"}
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    origin = get_origin(tp)
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if origin in (types.UnionType, typing.Union):
        return {"anyOf": [_schema(a, defs) for a in get_args(tp)]}
    if origin is list:
        return {"type": "array", "items": _schema(get_args(tp)[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(get_args(tp)[1], defs)}
    if is_typeddict(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder against recursion
            hints = typing.get_type_hints(tp)
            defs[name] = {
                "type": "object",
                "properties": {k: _schema(v, defs) for k, v in hints.items()},
                "required": sorted(tp.__required_keys__),
            }
            if tp.__doc__ and not tp.__doc__.startswith(f"{name}("):
                defs[name]["description"] = " ".join(tp.__doc__.split())
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no schema for {tp!r}")


def records_json_schema() -> dict[str, Any]:
    """One schema that accepts any line of a run file, chosen by its ``record_type``."""
    defs: dict[str, Any] = {}
    branches = []
    for record_type, tp in RECORD_TYPES.items():
        ref = _schema(tp, defs)
        branches.append(
            {
                "if": {"properties": {"record_type": {"const": record_type}}},
                "then": ref,
            }
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"agenttest run-file record (schema {SCHEMA_VERSION})",
        "description": (
            "One line of a JSONL run file. The first line is a run_meta; attempts, grades "
            "and a closing run_end follow. Keys a type does not list may appear in newer "
            "minor versions and are to be ignored."
        ),
        "type": "object",
        "required": ["record_type", "schema_version"],
        "properties": {
            "record_type": {"enum": list(RECORD_TYPES)},
            "schema_version": {"type": "string", "pattern": r"^2\.\d+$"},
        },
        "allOf": branches,
        "$defs": defs,
    }
