"""Arguments checked against a tool's JSON Schema before the tool runs.

The hosted tools' schemas use a small part of JSON Schema (an object of string, integer
and boolean properties, ``enum``, ``maxLength``, ``minimum``, ``required``, no extra
properties), so this checks exactly that part, with a message a model can act on, and
costs no import on the call path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "boolean": (bool,)}


def _wrong_type(value: Any, kind: str) -> bool:
    if kind == "integer" and isinstance(value, bool):
        return True  # JSON true is not a count
    return not isinstance(value, _TYPES[kind])


def schema_problem(schema: Mapping[str, Any], arguments: Any) -> str | None:
    """What is wrong with ``arguments`` under ``schema`` (the first problem), or None."""
    if not isinstance(arguments, Mapping):
        return "the arguments must be a JSON object"
    props: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in arguments:
            return f"missing required argument `{name}`"
    for name, value in arguments.items():
        spec = props.get(name)
        if spec is None:
            takes = ", ".join(props) or "no arguments"
            return f"unknown argument `{name}` (this tool takes: {takes})"
        kind = spec.get("type", "string")
        if _wrong_type(value, kind):
            return f"argument `{name}` must be {'an' if kind == 'integer' else 'a'} {kind}"
        if "enum" in spec and value not in spec["enum"]:
            return f"argument `{name}` must be one of {', '.join(spec['enum'])}; got {value!r}"
        if isinstance(value, str) and len(value) > spec.get("maxLength", len(value)):
            return f"argument `{name}` is longer than {spec['maxLength']} characters"
        if isinstance(value, int) and value < spec.get("minimum", value):
            return f"argument `{name}` must be at least {spec['minimum']}"
    return None
