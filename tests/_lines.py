"""Records as a run file's lines hold them: what another tool, or a hand, may write.

Plain dicts, stamped with their type and the current version, for the tests of the reader,
the writer and ``check_record`` (``test_results_files.py``, ``test_records.py``).
"""

from __future__ import annotations

from typing import Any

from agenttest.results import SCHEMA_VERSION


def _record(record_type: str, **fields: Any) -> dict[str, Any]:
    """A record as a line holds it (what another tool, or a hand, may write)."""
    return {"record_type": record_type, "schema_version": SCHEMA_VERSION, **fields}


def run_meta(**fields: Any) -> dict[str, Any]:
    return _record("run_meta", **fields)


def attempt(**fields: Any) -> dict[str, Any]:
    return _record("attempt", **fields)


def grade(**fields: Any) -> dict[str, Any]:
    return _record("grade", **fields)
