"""The keys of a batch file, spelled once: the loader checks against them (and suggests the
key meant) and the JSON Schema (`agenttest schema --batch`) is made from them, so what the
loader accepts and what an editor is told cannot drift apart."""

from __future__ import annotations

from typing import Any

DEFAULT_FORMATS = ("md", "html", "json", "junit")
SUFFIX = {"md": ".md", "html": ".html", "json": ".json", "junit": ".junit.xml"}

_PATHS: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "minLength": 1},
        {"type": "array", "items": {"type": "string"}, "minItems": 1},
    ]
}
_FORMATS: dict[str, Any] = {
    "anyOf": [
        {"enum": list(SUFFIX)},
        {"type": "array", "items": {"enum": list(SUFFIX)}},
    ]
}

#: The top-level keys: each with its JSON Schema and a line for editors.
TOP_KEYS: dict[str, tuple[dict[str, Any], str]] = {
    "out": ({"type": "string"}, "default folder of every job's run files and reports"),
    "alpha": (
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "family-wise error rate of the comparisons (default 0.05)",
    ),
    "lock": ({"type": "string"}, "the lock file (default: OUT/.agenttest-batch.lock)"),
    "jobs": (
        {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Job"}},
        "the jobs, run in order",
    ),
}

#: The keys of one job, as above.
JOB_KEYS: dict[str, tuple[dict[str, Any], str]] = {
    "label": (
        {"type": "string", "pattern": r"\S"},
        "required, unique: finds the job's previous run",
    ),
    "batteries": (_PATHS, "required: a block folder or file, or a list of them"),
    "agent": ({"type": "string"}, "required: `example` or an agent config file"),
    "overlay": ({"type": "string"}, "an overlay file"),
    "k": ({"type": "integer", "minimum": 1}, "attempts per block (default: each block's k)"),
    "tiers": (_PATHS, "only these tiers"),
    "only": (_PATHS, "only these block ids"),
    "out": ({"type": "string"}, "this job's folder (default: the top-level out)"),
    "formats": (_FORMATS, "report formats (default: md, html, json, junit)"),
    "gate": (
        {"type": "boolean"},
        "exit with the job's decision when it is blocked: 1 (a SEC FAIL, a significant "
        "regression, ...) or 5 (attempts lost)",
    ),
    "allow_temp": ({"type": "boolean"}, "allow writing under /tmp and other temp folders"),
}
REQUIRED_JOB_KEYS = ("label", "batteries", "agent")


def _object(keys: dict[str, tuple[dict[str, Any], str]], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {**schema, "description": doc} for k, (schema, doc) in keys.items()},
        "required": required,
        "additionalProperties": False,
    }


def batch_json_schema() -> dict[str, Any]:
    """The JSON Schema of batch files (``agenttest schema --batch``), for editors."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://agenttest.dev/schema/batch-1.json",
        "title": "agenttest batch file (docs/nightly.md)",
        **_object(TOP_KEYS, ["jobs"]),
        "$defs": {"Job": _object(JOB_KEYS, list(REQUIRED_JOB_KEYS))},
    }
