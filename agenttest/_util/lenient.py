"""Reading the evidence in foreign JSON leniently: a field that does not fit is left out.

An agent's reply (and a model's, for the example agent's ``openai`` brain) carries parts a
reader must have, which are decoded strictly, and evidence beside them (token counts, a
finish reason, the pieces of a stream chunk) that a sloppy server may get wrong. Losing a
whole turn over an odd count would punish the agent for the harness's sake, so evidence is
read with :func:`lenient`: each field that does not fit its type keeps its default.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

S = TypeVar("S", bound=msgspec.Struct)


def lenient(cls: type[S], value: object) -> S:
    """``value`` read as a ``cls`` whose every field has a default, each field that does not
    fit its type left at that default (a Struct field is read the same way, field by field);
    a value that is not a JSON object gives all defaults."""
    if not isinstance(value, dict):
        return cls()
    try:
        return msgspec.convert(value, cls)
    except msgspec.ValidationError:
        pass  # the common case is done; now keep what fits, field by field
    kept: dict[str, Any] = {}
    for field in msgspec.structs.fields(cls):
        if field.encode_name not in value:
            continue
        item = value[field.encode_name]
        if isinstance(field.type, type) and issubclass(field.type, msgspec.Struct):
            kept[field.name] = lenient(field.type, item)
            continue
        try:
            kept[field.name] = msgspec.convert(item, field.type)
        except msgspec.ValidationError:
            continue
    return cls(**kept)
