"""Streaming reader of run files: tolerant of torn lines, strict about versions and types.

Each line is decoded straight into its record Struct (:mod:`._records`) by one msgspec
decoder, which is also its validation. A record that does not match its type is skipped
and listed in :class:`ReadNotes` with its line and what was wrong (reports show it under
data integrity); a bad ``run_meta`` refuses the whole file (exit 2, ``FILE:LINE``),
because nothing after it could be trusted. A record of a type this version does not know
is counted and skipped. Older minor versions of schema 2 are migrated record by record;
newer ones are refused.

A run file may also be hostile: 20 MB of garbage lines, or one line of 2 GiB. Each line
is read with a size cap (:data:`MAX_LINE_BYTES`; a longer one is skipped in chunks, never
held whole), and the notes keep the first :data:`LISTED_LINES` line numbers of each kind
of skipped line with a total count, so neither memory nor the report grows with the
garbage. What records *declare* (``plan[].runs``, ``k``) is bounded by their types.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from agenttest._util.input_files import open_input
from agenttest.errors import InputError, Problem
from agenttest.sanitize import SURROGATE_ESCAPE, TooDeep, encodable

from ._records import (
    RECORD_TYPES,
    SCHEMA_MAJOR,
    SCHEMA_VERSION,
    Attempt,
    Grade,
    Record,
    RunMeta,
    decoder,
)
from ._validate import explain, kind


def undecided_of_old(record: Record) -> None:
    """Before 2.4 an attempt no grader could decide was ``ERROR`` with the cause
    ``ungraded``; it is ``UNDECIDED`` now (ERROR is the harness's or the transport's)."""
    if (
        isinstance(record, (Attempt, Grade))
        and record.verdict == "ERROR"
        and record.error_cause == "ungraded"
    ):
        record.verdict, record.error_cause = "UNDECIDED", None


def _restamp(record: dict[str, Any]) -> dict[str, Any]:
    # 2.0 to 2.4 fields mean in 2.5 what they meant: 2.1 only declared fields 2.0 files
    # carried, 2.2 leaves defaults out and declares more, 2.3 adds hosted tools' evidence,
    # 2.5 the NOT_APPLICABLE outcome; every one is optional. The one change of meaning, an undecided attempt's verdict, is
    # made on the decoded record (undecided_of_old).
    record["schema_version"] = SCHEMA_VERSION
    return record


#: Upgrades from older minor versions of schema 2 to the current one, per record (a dict
#: as decoded from the line; the result is converted to the current Struct).
MIGRATIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "2.0": _restamp,
    "2.1": _restamp,
    "2.2": _restamp,
    "2.3": _restamp,  # and undecided_of_old on the record it becomes
    "2.4": _restamp,  # 2.5 adds NOT_APPLICABLE and its reason, optional
}

#: Versions whose migration only restamps the version: their lines decode straight into
#: the current Structs, without the detour through a dict.
_SAME_SHAPE = frozenset(v for v, migrate in MIGRATIONS.items() if migrate is _restamp)

#: How many skipped lines a note lists by number (the count is always complete).
LISTED_LINES = 10

#: The longest line read as a record. The writer's largest record is a few replies of at
#: most 32 MiB each (``runner.MAX_REPLY_BYTES``); a longer line is skipped unread.
MAX_LINE_BYTES = 256 * 1024 * 1024

#: How much of an over-long line is read at a time while skipping it.
_SKIP_CHUNK = 1024 * 1024

#: A number msgspec refuses as out of range and ``json`` reads as infinity (``1e400``, a
#: float of 309 digits); it may match a number that fits, which only costs a second parse.
_HUGE_NUMBER = re.compile(rb"[0-9][eE]\+?[0-9]{3}|[0-9]{309}")


@dataclass
class ReadNotes:
    """What the reader skipped or repaired; reports show it under data integrity.

    Each list holds the first :data:`LISTED_LINES` entries only; the counts are complete.
    """

    path: str
    torn_lines: list[int] = field(default_factory=list)  # the first few
    migrated: int = 0
    invalid: list[tuple[int, str]] = field(default_factory=list)  # (line, what is wrong)
    long_lines: list[tuple[int, int]] = field(default_factory=list)  # (line, bytes)
    torn: int = 0
    invalid_count: int = 0
    long_count: int = 0
    unknown: int = 0  # records of a type this version does not know (skipped, counted)

    def add_torn(self, line: int) -> None:
        self.torn += 1
        if len(self.torn_lines) < LISTED_LINES:
            self.torn_lines.append(line)

    def add_invalid(self, line: int, why: str) -> None:
        self.invalid_count += 1
        if len(self.invalid) < LISTED_LINES:
            self.invalid.append((line, why))

    def add_long(self, line: int, size: int) -> None:
        self.long_count += 1
        if len(self.long_lines) < LISTED_LINES:
            self.long_lines.append((line, size))

    @property
    def skipped(self) -> int:
        """Every line that held no usable record."""
        return self.torn + self.invalid_count + self.long_count

    def messages(self) -> list[str]:
        out = []
        if self.torn:
            where = ", ".join(str(n) for n in self.torn_lines)
            first = "line" if self.torn == len(self.torn_lines) else "first"
            out.append(
                f"{self.path}: skipped {self.torn} torn or unreadable line(s) ({first} {where}); "
                "a crash mid-write leaves one, the rest of the file is intact"
            )
        out.extend(self.invalid_messages())
        return out

    def invalid_messages(self) -> list[str]:
        """One line per skipped record that did not match its type or was too long (the
        first few of each), then how many more."""
        shown = [f"{self.path}:{line}: skipped: {why}" for line, why in self.invalid]
        if self.invalid_count > len(self.invalid):
            shown.append(
                f"{self.path}: {self.invalid_count - len(self.invalid)} more record(s) skipped "
                "for not matching their type"
            )
        cap = MAX_LINE_BYTES // (1024 * 1024)
        shown += [
            f"{self.path}:{line}: skipped unread: {size:,} bytes, longer than the {cap} MiB "
            "a record may take"
            for line, size in self.long_lines
        ]
        if self.long_count > len(self.long_lines):
            shown.append(
                f"{self.path}: {self.long_count - len(self.long_lines)} more over-long line(s) "
                "skipped unread"
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


def _slow(raw: bytes) -> Any:
    """``json``'s reading of a line msgspec refused: ``NaN``, ``1e400`` and lone surrogates
    are read, so such a record is judged by its type, not as torn."""
    return _json_decode(raw.decode("utf-8"))


_json_decode = json.JSONDecoder().decode  # str in: skips json.loads' per-call sniffing
_any_decode = msgspec.json.Decoder().decode


def _long_line(handle: BinaryIO, start: bytes, cap: int) -> tuple[bytes | None, int]:
    """The whole of a line longer than one chunk, and its size without the newline; None
    for the bytes when the size is over ``cap``. The line is measured first, in chunks that
    are not kept, and read again only when it fits: an over-long line never sits in memory
    (chunks are read with ``read`` and the position put back after the newline, since
    ``readline`` scans a long line twenty times slower)."""
    begin = handle.tell() - len(start)
    size = len(start)
    while True:
        chunk = handle.read(_SKIP_CHUNK)
        if not chunk:
            break
        end = chunk.find(b"\n")
        if end >= 0:
            handle.seek(end + 1 - len(chunk), io.SEEK_CUR)
            size += end
            break
        size += len(chunk)
    if size > cap:
        return None, size
    after = handle.tell()
    handle.seek(begin)
    return handle.read(after - begin), size


def _lines(handle: BinaryIO, notes: ReadNotes) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each line up to :data:`MAX_LINE_BYTES` (without its
    newline); a longer line is read past in chunks, noted with its size, never held whole."""
    cap = MAX_LINE_BYTES
    lineno = 0
    while True:
        # One chunk holds nearly every record; only a longer line takes the slow path.
        raw: bytes | None = handle.readline(_SKIP_CHUNK)
        if not raw:
            return
        lineno += 1
        size = len(raw) - raw.endswith(b"\n")
        if len(raw) == _SKIP_CHUNK and not raw.endswith(b"\n"):
            raw, size = _long_line(handle, raw, cap)
        if raw is None or size > cap:
            notes.add_long(lineno, size)
            if lineno == 1:
                raise InputError(
                    [Problem(notes.path, 1, "not a JSONL run file (first line is too long)")]
                )
            continue
        yield lineno, raw


def _refuse(path: Path, lineno: int, message: str) -> InputError:
    return InputError([Problem(str(path), lineno, message)])


def _as_dict(raw: bytes, path: Path, lineno: int, first: bool) -> dict[str, Any] | None:
    """The line as a dict, for a line that did not decode into its record; None (torn)
    when it is no JSON object. What msgspec refuses and ``json`` accepts (``NaN``,
    ``1e400``, lone surrogates) is read by ``json``; other garbage is refused at once (20
    MB of it must not cost a minute)."""
    try:
        if raw[:1] != b"{" and raw.lstrip()[:1] != b"{":
            raise ValueError("not an object")
        try:
            record = _any_decode(raw)
        except msgspec.DecodeError:
            if not (
                b"NaN" in raw
                or b"Infinity" in raw
                or SURROGATE_ESCAPE.search(raw)
                or _HUGE_NUMBER.search(raw)
            ):
                raise ValueError("not JSON") from None
            record = _slow(raw)
            if isinstance(record, dict) and SURROGATE_ESCAPE.search(raw):
                record = encodable(record)[0]  # written by another tool: printable
        if not isinstance(record, dict):
            raise ValueError("not an object")
    except (ValueError, UnicodeDecodeError, RecursionError, TooDeep):
        if first:
            raise _refuse(
                path, lineno, "not a JSONL run file (first line is not a JSON object)"
            ) from None
        return None
    return record


class _Reading:
    """The checks of one file's lines, in the order a reader would make them."""

    def __init__(self, path: Path, notes: ReadNotes) -> None:
        self.path = path
        self.notes = notes
        self.first = True
        self.checked: dict[str, str | None] = {}  # schema_version -> problem; one or two

    def version(self, version: str, lineno: int) -> None:
        if version not in self.checked:
            self.checked[version] = _version_problem(version)
        problem = self.checked[version]
        if problem:
            raise _refuse(self.path, lineno, problem)

    def starts(self, is_meta: bool, lineno: int) -> None:
        if self.first and not is_meta:
            raise _refuse(self.path, lineno, "a run file must start with a run_meta record")

    def invalid(self, lineno: int, why: str) -> None:
        if self.first:
            raise _refuse(self.path, lineno, f"bad run_meta: {why}")
        self.notes.add_invalid(lineno, why)

    def decoded(self, record: Record, raw: bytes, lineno: int) -> Record | None:
        """A line that decoded into its record: its version checked (and migrated)."""
        version = record.schema_version
        if version != SCHEMA_VERSION:
            self.version(version, lineno)
            if version not in _SAME_SHAPE:  # pragma: no cover - every migration so far restamps
                return self.from_dict(raw, lineno)
            record.schema_version = SCHEMA_VERSION
            undecided_of_old(record)
            self.notes.migrated += 1
        self.starts(record.__class__ is RunMeta, lineno)
        return record

    def from_dict(self, raw: bytes, lineno: int) -> Record | None:
        """A line that did not decode into its record: decoded as a dict, its version
        checked and migrated, then converted (or skipped, with the reason)."""
        record = _as_dict(raw, self.path, lineno, self.first)
        if record is None:
            self.notes.add_torn(lineno)
            return None
        if "record_type" not in record:
            hint = (
                "this looks like a methodology-v1 result file; convert it with "
                "`agenttest import FILE --from methodology-v1`"
                if "id" in record and "turns" in record
                else "every line needs `record_type`"
            )
            raise _refuse(self.path, lineno, f"not a schema 2.0 record: {hint}")
        version = str(record.get("schema_version", ""))
        self.version(version, lineno)
        migrate = MIGRATIONS.get(version)
        if migrate is not None:
            record = migrate(record)
            self.notes.migrated += 1
        name = record.get("record_type")
        self.starts(name == "run_meta", lineno)
        if not isinstance(name, str):
            self.invalid(lineno, f"`record_type` must be a string, got {kind(name)}")
            return None
        if name not in RECORD_TYPES:
            self.notes.unknown += 1  # a newer tool's record: consumers count it
            return None
        try:
            converted = msgspec.convert(record, RECORD_TYPES[name], strict=True)
            if migrate is not None:
                undecided_of_old(converted)
            return converted
        except msgspec.ValidationError as exc:
            self.invalid(lineno, f"{name}: {explain(str(exc), record)}")
            return None


def iter_records(path: str | Path, notes: ReadNotes | None = None) -> Iterator[Record]:
    """Yield the records of one run file in order, one line at a time (memory stays flat)."""
    path = Path(path)
    notes = notes if notes is not None else ReadNotes(str(path))
    handle = open_input(path, "run file")
    decode = decoder().decode
    reading = _Reading(path, notes)
    with handle:
        for lineno, raw in _lines(handle, notes):
            if not raw or raw.isspace():  # (as `not raw.strip()`, without copying the line)
                continue
            try:
                record = decode(raw)
            except msgspec.DecodeError:  # not JSON, or not its record: judged as a dict
                found = reading.from_dict(raw, lineno)
            else:
                found = reading.decoded(record, raw, lineno)
            if found is None:
                continue
            reading.first = False
            yield found


def read_run_meta(path: str | Path) -> RunMeta:
    for record in iter_records(path):
        assert isinstance(record, RunMeta)  # iter_records refuses a file that starts otherwise
        return record
    raise InputError([Problem(str(path), 0, "empty run file")])
