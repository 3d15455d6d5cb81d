"""Streaming reader of run files: tolerant of torn lines, strict about versions and types.

Every record is validated against its type (:mod:`._validate`) as it is read. A record
that does not match is skipped and listed in :class:`ReadNotes` with its line (reports
show it under data integrity); a bad ``run_meta`` refuses the whole file (exit 2,
``FILE:LINE``), because nothing after it could be trusted. Older minor versions of
schema 2 are migrated record by record; newer ones are refused.

A run file may also be hostile: 20 MB of garbage lines, or one line of 2 GiB. Each line
is read with a size cap (:data:`MAX_LINE_BYTES`; a longer one is skipped in chunks, never
held whole), and the notes keep the first :data:`LISTED_LINES` line numbers of each kind
of skipped line with a total count, so neither memory nor the report grows with the
garbage. What records *declare* (``plan[].runs``, ``k``) is bounded by
:mod:`._validate`.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from agenttest._util.input_files import open_input
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


def _decoders() -> tuple[Callable[[bytes], Any], type[Exception], Callable[[bytes], Any]]:
    """(fast, what it refuses with, slow): msgspec's JSON decoder (twice as fast as
    ``json``), and ``json`` for what msgspec refuses (``NaN``, ``1e400``, lone surrogates),
    so such a record is judged by its type, not as torn."""
    json_decode = json.JSONDecoder().decode  # str in: skips json.loads' per-call sniffing

    def slow(raw: bytes) -> Any:
        return json_decode(raw.decode("utf-8"))

    try:
        import msgspec
    except ImportError:  # pragma: no cover - msgspec is a dependency
        return slow, ValueError, slow
    return msgspec.json.Decoder().decode, msgspec.DecodeError, slow


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


def iter_records(path: str | Path, notes: ReadNotes | None = None) -> Iterator[dict[str, Any]]:
    """Yield the records of one run file in order, one line at a time (memory stays flat)."""
    path = Path(path)
    notes = notes if notes is not None else ReadNotes(str(path))
    handle = open_input(path, "run file")
    fast, refused, slow = _decoders()
    checked: dict[str, str | None] = {}  # schema_version -> problem; a file has one or two
    with handle:
        first = True
        for lineno, raw in _lines(handle, notes):
            if not raw or raw.isspace():  # (as `not raw.strip()`, without copying the line)
                continue
            try:
                if raw[:1] != b"{" and raw.lstrip()[:1] != b"{":
                    raise ValueError("not an object")  # garbage, refused before parsing
                try:
                    # What msgspec decodes holds no lone surrogate and no non-finite number
                    # (it refuses both), so only json's records may need repairing: the line
                    # is not scanned for escapes (1.7 us per benchmark attempt).
                    record = fast(raw)
                except refused:
                    # Only what ``json`` accepts and msgspec does not is worth a second
                    # parse; a garbage line is refused at once (20 MB of them must not cost
                    # a minute).
                    if not (
                        b"NaN" in raw
                        or b"Infinity" in raw
                        or SURROGATE_ESCAPE.search(raw)
                        or _HUGE_NUMBER.search(raw)
                    ):
                        raise ValueError("not JSON") from None
                    record = slow(raw)
                    if isinstance(record, dict) and SURROGATE_ESCAPE.search(raw):
                        record = encodable(record)[0]  # written by another tool: printable
                if not isinstance(record, dict):
                    raise ValueError("not an object")
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
                notes.add_torn(lineno)
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
                notes.add_invalid(lineno, bad)
                continue
            first = False
            yield record


def read_run_meta(path: str | Path) -> dict[str, Any]:
    for record in iter_records(path):
        return record
    raise InputError([Problem(str(path), 0, "empty run file")])
