"""Streaming reader of run files: tolerant of torn lines, strict about versions and types.

Every record is validated against its type (:mod:`._validate`) as it is read. A record
that does not match is skipped and listed in :class:`ReadNotes` with its line (reports
show it under data integrity); a bad ``run_meta`` refuses the whole file (exit 2,
``FILE:LINE``), because nothing after it could be trusted. Older minor versions of
schema 2 are migrated record by record; newer ones are refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttest.errors import InputError, Problem
from agenttest.sanitize import SURROGATE_ESCAPE, TooDeep, encodable

from ._records import SCHEMA_MAJOR, SCHEMA_VERSION
from ._validate import check_record


def _from_2_0(record: dict[str, Any]) -> dict[str, Any]:
    # 2.1 only declares fields 2.0 files already carried: every one is optional.
    record["schema_version"] = SCHEMA_VERSION
    return record


#: Upgrades from older minor versions of schema 2 to the current one, per record.
MIGRATIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {"2.0": _from_2_0}

#: How many skipped lines a note lists by number (the count is always complete).
LISTED_LINES = 10


@dataclass
class ReadNotes:
    """What the reader skipped or repaired; reports show it under data integrity."""

    path: str
    torn_lines: list[int] = field(default_factory=list)
    migrated: int = 0
    invalid: list[tuple[int, str]] = field(default_factory=list)  # (line, what is wrong)

    def messages(self) -> list[str]:
        out = []
        if self.torn_lines:
            where = ", ".join(str(n) for n in self.torn_lines[:LISTED_LINES])
            out.append(
                f"{self.path}: skipped {len(self.torn_lines)} torn or unreadable line(s) (line {where}); "
                "a crash mid-write leaves one, the rest of the file is intact"
            )
        out.extend(self.invalid_messages())
        return out

    def invalid_messages(self) -> list[str]:
        """One line per skipped record that did not match its type (the first few)."""
        shown = [f"{self.path}:{line}: skipped: {why}" for line, why in self.invalid[:LISTED_LINES]]
        if len(self.invalid) > LISTED_LINES:
            shown.append(
                f"{self.path}: {len(self.invalid) - LISTED_LINES} more record(s) skipped "
                "for not matching their type"
            )
        return shown


def _version_major(version: str) -> int | None:
    try:
        return int(str(version).split(".", 1)[0])
    except ValueError:
        return None


def _version_problem(version: str) -> str | None:
    major = _version_major(version)
    if major is None:
        return f"missing or invalid schema_version {version!r}"
    if major < SCHEMA_MAJOR:
        return f"schema_version {version!r} predates 2.0; convert it with `agenttest import`"
    if version == SCHEMA_VERSION or version in MIGRATIONS:
        return None
    return (
        f"schema_version {version!r} is newer than this agenttest understands "
        f"({SCHEMA_VERSION}); upgrade agenttest to read it"
    )


def _decoder() -> Callable[[bytes], Any]:
    """msgspec's JSON decoder (twice as fast as ``json``); ``json`` for what it refuses
    (``NaN``, lone surrogates), so such a record is judged by its type, not as torn."""
    slow = json.JSONDecoder().decode  # str in: skips json.loads' per-call encoding sniffing
    try:
        import msgspec
    except ImportError:  # pragma: no cover - msgspec is a dependency
        return lambda raw: slow(raw.decode("utf-8"))
    fast = msgspec.json.Decoder().decode
    refused = msgspec.DecodeError

    def decode(raw: bytes) -> Any:
        try:
            return fast(raw)
        except refused:
            return slow(raw.decode("utf-8"))

    return decode


def iter_records(path: str | Path, notes: ReadNotes | None = None) -> Iterator[dict[str, Any]]:
    """Yield the records of one run file in order, one line at a time (memory stays flat)."""
    path = Path(path)
    notes = notes if notes is not None else ReadNotes(str(path))
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(
            [Problem(str(path), 0, f"cannot read run file: {exc.strerror or exc}")]
        ) from None
    decode = _decoder()
    checked: dict[str, str | None] = {}  # schema_version -> problem; a file has one or two
    with handle:
        first = True
        for lineno, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                record = decode(raw)
                if not isinstance(record, dict):
                    raise ValueError("not an object")
                if SURROGATE_ESCAPE.search(raw):  # written by another tool: make it printable
                    record = encodable(record)[0]
            except (ValueError, UnicodeDecodeError, RecursionError, TooDeep):
                if first:
                    raise InputError(
                        [
                            Problem(
                                str(path),
                                lineno,
                                "not a JSONL run file (first line is not a JSON object)",
                            )
                        ]
                    ) from None
                notes.torn_lines.append(lineno)
                continue
            if "record_type" not in record:
                hint = (
                    "this looks like a methodology-v1 result file; convert it with "
                    "`agenttest import FILE --from methodology-v1`"
                    if "id" in record and "turns" in record
                    else "every line needs `record_type`"
                )
                raise InputError([Problem(str(path), lineno, f"not a schema 2.0 record: {hint}")])
            version = str(record.get("schema_version", ""))
            if version not in checked:
                checked[version] = _version_problem(version)
            problem = checked[version]
            if problem:
                raise InputError([Problem(str(path), lineno, problem)])
            migrate = MIGRATIONS.get(version)
            if migrate is not None:
                record = migrate(record)
                notes.migrated += 1
            if first and record.get("record_type") != "run_meta":
                raise InputError(
                    [Problem(str(path), lineno, "a run file must start with a run_meta record")]
                )
            bad = check_record(record)
            if bad is not None:
                if first:
                    raise InputError([Problem(str(path), lineno, f"bad run_meta: {bad}")])
                notes.invalid.append((lineno, bad))
                continue
            first = False
            yield record


def read_run_meta(path: str | Path) -> dict[str, Any]:
    for record in iter_records(path):
        return record
    raise InputError([Problem(str(path), 0, "empty run file")])
