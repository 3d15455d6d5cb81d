"""Durable JSONL run files: naming, temp-folder refusal, one writer, whole fsynced records.

A long run on a slow agent may take a night; losing it to the OS cleaning /tmp, to a
second process writing the same file, to a crash mid-write or to a full disk is exactly
what this module exists to prevent.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from agenttest._util.input_files import appendable
from agenttest.errors import RunAborted, UsageError
from agenttest.sanitize import encodable

from ._record_cap import MAX_RECORD_BYTES, within_cap
from ._records import SCHEMA_VERSION, Attempt, Record

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def temp_roots() -> list[Path]:
    """System temp folders whose contents the OS may delete under a running job."""
    roots = {"/tmp", "/var/tmp", "/dev/shm", tempfile.gettempdir()}
    if os.environ.get("TMPDIR"):
        roots.add(os.environ["TMPDIR"])
    return sorted({Path(r).resolve() for r in roots if r})


def check_not_temp(path: Path, allow_temp: bool) -> None:
    if allow_temp:
        return
    resolved = path.resolve()
    for root in temp_roots():
        if resolved == root or resolved.is_relative_to(root):
            raise UsageError(
                f"refusing to write results under the temp folder {root} ({path}): the OS may "
                "delete it while a long run is still writing. Use --out DIR elsewhere "
                "(default ./reports), or pass --allow-temp if you really mean it."
            )


def run_file_name(model: str, k: int, label: str | None = None, day: datetime | None = None) -> str:
    """`run_<model>_<YYYYMMDD>_k<k>[_<label>].jsonl` with unsafe characters folded to '-'."""
    day = day or datetime.now(UTC)
    parts = ["run", _SAFE.sub("-", model).strip("-") or "model", day.strftime("%Y%m%d"), f"k{k}"]
    if label:
        parts.append(_SAFE.sub("-", label).strip("-"))
    return "_".join(parts) + ".jsonl"


def unused_path(folder: Path, name: str) -> Path:
    """`name`, or `name` with `_v2`, `_v3` … before the suffix: never an existing file."""
    candidate = folder / name
    stem, suffix = candidate.stem, candidate.suffix
    n = 2
    while candidate.exists():
        candidate = folder / f"{stem}_v{n}{suffix}"
        n += 1
    return candidate


def dumps(record: Record | Mapping[str, Any]) -> str:
    return json.dumps(_builtins(record), ensure_ascii=False, separators=(",", ":"), default=str)


def _builtins(record: Record | Mapping[str, Any]) -> Any:
    """The record as JSON types, with what its Struct leaves out (defaults) left out."""
    return msgspec.to_builtins(record, enc_hook=str)


def encode_record(record: Record | Mapping[str, Any]) -> bytes:
    """One JSONL line of strict UTF-8 RFC 8259 JSON, whatever text reached the record.

    Agent text is repaired where it enters (with a note in the evidence); this is the last
    line of defence, so that no value can make a record unwritable and a run unresumable.
    msgspec turns the Struct into JSON types and ``json`` writes them: msgspec's own
    encoder would write a NaN as ``null`` without a word, where ``allow_nan=False`` lets
    it be repaired to ``"NaN"`` (a record is written once per attempt, after an fsync'd
    round trip to the agent: the encoder's speed does not show).
    """
    plain = _builtins(record)
    try:
        return (
            json.dumps(plain, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"
        ).encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        fixed, _notes = encodable(plain)
        return (dumps(fixed) + "\n").encode("utf-8")


class RunFileExists(UsageError):
    """The run file to create exists already (another run took the name first)."""


class RunWriter:
    """Appends whole records to one run file, holding an exclusive lock while open."""

    def __init__(self, path: Path, *, create: bool) -> None:
        self.path = path
        if not create:  # opening a FIFO to append would wait for a reader forever
            appendable(path, "the run file")
        flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT | os.O_EXCL if create else 0)
        try:
            self._fd = os.open(path, flags, 0o644)
        except FileExistsError:
            raise RunFileExists(
                f"{path} already exists; agenttest never overwrites a run file"
            ) from None
        except FileNotFoundError:
            raise UsageError(f"{path}: no such run file") from None
        except OSError as exc:  # read-only folder or file, not a directory, ...: the user's
            raise UsageError(f"{path}: cannot write the run file ({exc.strerror or exc})") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise UsageError(
                f"{path} is being written by another agenttest process; one run file has one writer"
            ) from None
        if not create:
            self._heal_torn_tail()

    def _heal_torn_tail(self) -> None:
        # A crash mid-write leaves a last line without its newline. Appending straight after it
        # would glue the next record onto the fragment; end the fragment first so only it is lost.
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        with open(self.path, "rb") as f:
            f.seek(size - 1)
            if f.read(1) != b"\n":
                os.write(self._fd, b"\n")
                os.fsync(self._fd)

    def append(self, record: Record | dict[str, Any]) -> None:
        """Write one record whole, then flush it to disk before returning.

        A record's version is stamped here when it has none (a Struct built in memory). A
        dict is written as it is given (a test's hand-made or hostile record)."""
        if isinstance(record, msgspec.Struct):
            if not getattr(record, "schema_version", SCHEMA_VERSION):
                record.schema_version = SCHEMA_VERSION
        else:
            record.setdefault("schema_version", SCHEMA_VERSION)
        data = encode_record(record)
        if isinstance(record, Attempt) and len(data) > MAX_RECORD_BYTES:
            data = encode_record(within_cap(record, len(data)))  # else readers skip it
        before = os.fstat(self._fd).st_size
        try:
            view = memoryview(data)
            while view:  # a short write is not an error yet; the next one says why (ENOSPC)
                written = os.write(self._fd, view)
                if written <= 0:
                    raise OSError(errno.EIO, "write returned no progress")
                view = view[written:]
            os.fsync(self._fd)
        except OSError as exc:
            # Leave the file exactly as it was: a record is on disk whole or not at all.
            try:
                os.ftruncate(self._fd, before)
                os.fsync(self._fd)
            except OSError:
                pass
            reason = "the disk is full" if exc.errno == errno.ENOSPC else str(exc)
            raise RunAborted(
                f"could not write to {self.path}: {reason}. Everything recorded before is intact; "
                f"free space and continue with --resume {self.path}"
            ) from exc

    def close(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
