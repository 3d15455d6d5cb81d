"""JSON Schema (draft 2020-12) for blocks and overlays, generated from the model."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin

from agenttest._util.convert import hints, public_fields, yaml_name

from ._kinds import CRITERION_TYPES
from ._model import Block, Criterion, Overlay

SCHEMA_ID = "https://agenttest.dev/schema/battery-1.json"


def _type_schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if tp is Any:
        return {}
    origin = get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        parts = [_type_schema(a, defs) for a in get_args(tp)]
        return {"anyOf": parts}
    if tp is type(None):
        return {"type": "null"}
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if origin is tuple:
        item = _type_schema(get_args(tp)[0], defs)
        if get_args(tp)[0] is str:
            return {"anyOf": [{"type": "array", "items": item}, {"type": "string"}]}
        return {"type": "array", "items": item}
    if origin is Mapping or origin is dict:
        return {"type": "object", "additionalProperties": _type_schema(get_args(tp)[1], defs)}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder breaks recursion (Criterion.of)
            defs[name] = _record_schema(tp, defs)
        ref = {"$ref": f"#/$defs/{name}"}
        if getattr(tp, "YAML_SHORTHAND", None):
            return {"anyOf": [{"type": "string"}, ref]}
        return ref
    raise TypeError(f"no schema for {tp!r}")


def file_json_schema(cls: type, *, title: str, schema_id: str) -> dict[str, Any]:
    """The schema of a YAML file read into the dataclass ``cls`` by the typed converter
    (an agent config): its keys, types and documentation, unknown keys refused."""
    defs: dict[str, Any] = {}
    root = _type_schema(cls, defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        **root,
        "$defs": defs,
    }


def _record_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    hint_map = hints(cls)
    for f in public_fields(cls):
        if cls is Block and f.name == "cases":
            props["cases"] = _cases_schema(f.metadata["doc"])
            continue
        schema = dict(_type_schema(hint_map[f.name], defs))
        if "doc" in f.metadata:
            schema["description"] = f.metadata["doc"]
        props[yaml_name(f)] = schema
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(yaml_name(f))
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if cls.__doc__:
        out["description"] = " ".join(cls.__doc__.split())
    if required:
        out["required"] = required
    if cls is Criterion:
        out["properties"]["type"] = {"enum": sorted(CRITERION_TYPES)}
        out["allOf"] = [_criterion_rule(name) for name in sorted(CRITERION_TYPES)]
    return out


def _cases_schema(doc: str) -> dict[str, Any]:
    case = {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": ["string", "integer"]}, "category": {"type": "string"}},
        "additionalProperties": {"type": ["string", "number", "boolean"]},
    }
    return {
        "description": doc,
        "anyOf": [
            {"type": "array", "minItems": 1, "items": case},
            {"type": "string", "pattern": r"\.(jsonl|csv)$"},
        ],
    }


def _criterion_rule(name: str) -> dict[str, Any]:
    ctype = CRITERION_TYPES[name]
    allowed = set(ctype.required) | set(ctype.optional)
    params = [f.name for f in dataclasses.fields(Criterion)]
    common = {"id", "type", "tag", "says", "critical", "rule", "negate"}
    forbidden = {p: False for p in params if p not in allowed and p not in common}
    then: dict[str, Any] = {"properties": forbidden, "description": ctype.doc}
    if ctype.required:
        then["required"] = list(ctype.required)
    return {"if": {"properties": {"type": {"const": name}}, "required": ["type"]}, "then": then}


def battery_json_schema() -> dict[str, Any]:
    """One schema that accepts a block file or an overlay file."""
    defs: dict[str, Any] = {}
    block = _type_schema(Block, defs)
    overlay = _type_schema(Overlay, defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "agenttest block or overlay",
        "oneOf": [block, overlay],
        "$defs": defs,
    }
