"""JSON Schema (draft 2020-12) of run-file records, generated from :mod:`._records`.

``agenttest schema --records`` prints it, so other tools can read run files. It is made
by msgspec from the same Structs the reader decodes into, so the two cannot drift apart;
the field descriptions are the Structs' own.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ._records import RECORD_TYPES, SCHEMA_VERSION

SCHEMA_ID = "https://agenttest.dev/schema/run-records-2.json"


def records_json_schema() -> dict[str, Any]:
    """One schema that accepts any line of a run file, chosen by its ``record_type``."""
    refs, defs = msgspec.json.schema_components(
        list(RECORD_TYPES.values()), ref_template="#/$defs/{name}"
    )
    for tp in RECORD_TYPES.values():
        # Written on every line (RunWriter stamps it), whatever its in-memory default.
        version = defs[tp.__name__]["properties"]["schema_version"]
        version.pop("default", None)
        defs[tp.__name__]["required"] = sorted(
            {"record_type", "schema_version", *defs[tp.__name__].get("required", ())}
        )
    branches = [
        {"if": {"properties": {"record_type": {"const": name}}}, "then": ref}
        for name, ref in zip(RECORD_TYPES, refs, strict=True)
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"agenttest run-file record (schema {SCHEMA_VERSION})",
        "description": (
            "One line of a JSONL run file. The first line is a run_meta; attempts, grades "
            "and a closing run_end follow. A field holding its default (null, an empty "
            "list or object, false) is left out and reads as that default. Keys a type "
            "does not list may appear in newer minor versions and are to be ignored."
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
