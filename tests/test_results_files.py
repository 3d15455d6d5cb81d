"""Run files: what a record is on disk, one writer that fsyncs each record and never overwrites,
where run files may go and their names, and the reader: the golden file, versions and their
migration, the first line that says what the file is, and the lines it skips and says so.

The messages a refusal or a note gives are pinned whole (the tests written against the
survivors of ``python tools/mutation.py results``).
"""

from __future__ import annotations

import errno
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agenttest.errors import InputError, RunAborted, UsageError
from agenttest.results import (
    SCHEMA_VERSION,
    Attempt,
    ReadNotes,
    Record,
    RunMeta,
    RunWriter,
    check_not_temp,
    iter_records,
    read_run_meta,
    run_file_name,
    unused_path,
)
from agenttest.results import _files as files
from agenttest.results._reader import _version_major

from ._lines import attempt, run_meta

# -- what a record is on disk ---------------------------------------------------------------------


def test_a_record_is_one_line_of_compact_utf8_json() -> None:
    record = {"a": "ğü 😀", "p": Path("x/y"), "n": 1.5}
    assert files.encode_record(record) == '{"a":"ğü 😀","p":"x/y","n":1.5}\n'.encode()
    assert files.dumps(record) == '{"a":"ğü 😀","p":"x/y","n":1.5}'


@pytest.mark.parametrize(
    ("value", "written"),
    [(math.nan, '"NaN"'), (math.inf, '"Infinity"'), ("a\ud800b", '"a\ufffdb"')],
)
def test_a_value_strict_json_cannot_hold_is_repaired_not_fatal(value: Any, written: str) -> None:
    line = files.encode_record({"v": value, "ok": "ğ"})
    assert line == ('{"v":' + written + ',"ok":"ğ"}\n').encode()


def test_a_record_built_in_memory_is_written_with_its_type_and_version(tmp_path: Path) -> None:
    """Writers build the Structs; the type is the class's and the writer stamps the version.
    A field holding its default is not written."""
    path = tmp_path / "run.jsonl"
    record = Attempt(test_id="T", run=1, error=None, turns=[])
    assert record.schema_version == ""  # not yet written
    with RunWriter(path, create=True) as writer:
        writer.append(record)
    assert path.read_text(encoding="utf-8") == (
        f'{{"record_type":"attempt","schema_version":"{SCHEMA_VERSION}","test_id":"T","run":1}}\n'
    )
    assert record.schema_version == SCHEMA_VERSION


# -- the writer: whole lines, each fsynced, one writer, never an overwrite ------------------------


def test_writer_appends_whole_lines_and_heals_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as w:
        w.append({"record_type": "run_meta", "run_id": "x"})
    with path.open("ab") as f:
        f.write(b'{"record_type":"attempt","te')  # a crash mid-write
    with RunWriter(path, create=False) as w:
        w.append({"record_type": "attempt", "test_id": "L1-CALC-01", "run": 1})
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    assert [r.record_type for r in records] == ["run_meta", "attempt"]
    written = records[1]
    assert isinstance(written, Attempt)
    assert written.test_id == "L1-CALC-01" and written.schema_version == SCHEMA_VERSION
    assert notes.torn_lines == [2]


@pytest.mark.parametrize(
    ("start", "healed"),
    [(b"x", b"x\n"), (b'{"a":1}', b'{"a":1}\n'), (b"ab\n", b"ab\n"), (b"\n", b"\n"), (b"", b"")],
)
def test_reopening_a_file_ends_a_torn_last_line_and_adds_nothing_else(
    tmp_path: Path, start: bytes, healed: bytes
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(start)
    RunWriter(path, create=False).close()
    assert path.read_bytes() == healed


class _Spy:
    """The writer's view of the os module, with write and fsync recorded."""

    def __init__(self, write: object, fsync: object) -> None:
        self.write, self.fsync = write, fsync

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)


def test_append_fsyncs_after_writing_each_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A kill -9 test cannot see a missing fsync (the page cache survives the process); only
    # the order of the calls can.
    calls: list[str] = []
    real_write, real_fsync = os.write, os.fsync

    def write(fd: int, data: memoryview) -> int:
        calls.append("write")
        written: int = real_write(fd, data)
        return written

    def fsync(fd: int) -> None:
        calls.append("fsync")
        real_fsync(fd)

    writer = RunWriter(tmp_path / "run.jsonl", create=True)
    monkeypatch.setattr(files, "os", _Spy(write, fsync))
    try:
        writer.append(RunMeta(run_id="x"))
        writer.append(Attempt(test_id="T-01", run=1))
    finally:
        monkeypatch.undo()
        writer.close()
    assert calls == ["write", "fsync", "write", "fsync"]


class _Os:
    """The writer's view of the os module, with ``write`` replaced."""

    def __init__(self, write: Any) -> None:
        self.write = write

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def test_short_writes_are_continued_until_the_record_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes: list[int] = []

    def one_byte(fd: int, data: memoryview) -> int:
        sizes.append(len(data))
        return os.write(fd, data[:1])

    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        monkeypatch.setattr(files, "os", _Os(one_byte))
        writer.append(run_meta(run_id="r"))
        monkeypatch.undo()
    line = files.encode_record(run_meta(run_id="r"))
    assert path.read_bytes() == line
    assert sizes == list(range(len(line), 0, -1))  # each write got what was left


@pytest.mark.parametrize(
    ("write", "reason"),
    [
        (lambda fd, data: 0, "[Errno 5] write returned no progress"),
        (lambda fd, data: -1, "[Errno 5] write returned no progress"),
        ("enospc", "the disk is full"),
        ("eacces", "[Errno 13] Permission denied"),
    ],
)
def test_a_failed_write_aborts_with_its_reason_and_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: Any, reason: str
) -> None:
    if isinstance(write, str):
        code = errno.ENOSPC if write == "enospc" else errno.EACCES

        def write(fd: int, data: memoryview) -> int:
            os.write(fd, data[:3])  # part of the record reached the file
            raise OSError(code, os.strerror(code))

    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        writer.append(run_meta(run_id="r"))
        kept = path.read_bytes()
        monkeypatch.setattr(files, "os", _Os(write))
        with pytest.raises(RunAborted) as info:
            writer.append(attempt(test_id="T", run=1))
        monkeypatch.undo()
    assert path.read_bytes() == kept
    assert str(info.value) == (
        f"could not write to {path}: {reason}. Everything recorded before is intact; "
        f"free space and continue with --resume {path}"
    )


def test_full_disk_leaves_the_file_intact(tmp_path: Path) -> None:
    """A write that fails part-way is rolled back; earlier records stay readable."""
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as w:
        w.append({"record_type": "run_meta", "run_id": "x"})
        real_write = os.write
        from agenttest.errors import RunAborted

        def failing_write(fd: int, data: bytes) -> int:
            real_write(fd, data[: len(data) // 2])  # half the record reaches the disk
            raise OSError(28, "No space left on device")

        os.write = failing_write  # type: ignore[assignment]
        try:
            with pytest.raises(RunAborted, match="disk is full"):
                w.append({"record_type": "attempt", "test_id": "L1", "run": 1})
        finally:
            os.write = real_write
    assert [r.record_type for r in iter_records(path)] == ["run_meta"]
    assert path.read_bytes().endswith(b"\n")


def test_writer_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("keep me\n")
    with pytest.raises(UsageError, match="never overwrites"):
        RunWriter(path, create=True)
    assert path.read_text() == "keep me\n"


def test_second_writer_in_another_process_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    code = (
        "import sys\n"
        "from agenttest.results import RunWriter\n"
        "from agenttest.errors import UsageError\n"
        "try:\n"
        f"    RunWriter(__import__('pathlib').Path({str(path)!r}), create=False)\n"
        "except UsageError as e:\n"
        "    print(e); sys.exit(2)\n"
        "sys.exit(0)\n"
    )
    with RunWriter(path, create=True):
        held = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert held.returncode == 2 and "another agenttest process" in held.stdout
    free = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert free.returncode == 0, free.stdout + free.stderr


# -- the writer's descriptor: its mode, a missing file, closing -----------------------------------


def test_a_new_run_file_is_readable_by_all_and_writable_by_its_owner(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        RunWriter(tmp_path / "run.jsonl", create=True).close()
    finally:
        os.umask(old)
    assert (tmp_path / "run.jsonl").stat().st_mode & 0o777 == 0o644


def test_resuming_a_missing_run_file_names_it(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"
    with pytest.raises(UsageError) as info:
        RunWriter(path, create=False)
    assert str(info.value) == f"{path}: no such run file"
    assert not path.exists()


def test_closing_twice_closes_the_descriptor_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed: list[int] = []
    real = os.close

    def spy(fd: int) -> None:
        closed.append(fd)
        real(fd)

    monkeypatch.setattr(os, "close", spy)
    writer = RunWriter(tmp_path / "run.jsonl", create=True)
    fd = writer._fd
    writer.close()
    writer.close()
    assert closed == [fd]


def test_a_run_file_on_descriptor_0_is_closed(tmp_path: Path) -> None:
    # with stdin closed the run file gets descriptor 0, which is a descriptor like any other
    saved = os.dup(0)
    try:
        os.close(0)
        writer = RunWriter(tmp_path / "run.jsonl", create=True)
        assert writer._fd == 0  # precondition
        writer.close()
        with pytest.raises(OSError):
            os.fstat(0)
    finally:
        os.dup2(saved, 0)
        os.close(saved)


# -- where run files may go, and their names ------------------------------------------------------


@pytest.mark.parametrize("folder", ["/tmp", "/var/tmp", "/dev/shm"])
def test_output_under_temp_folders_is_refused(folder: str) -> None:
    with pytest.raises(UsageError, match="--allow-temp"):
        check_not_temp(Path(folder) / "agenttest-out", allow_temp=False)
    check_not_temp(Path(folder) / "agenttest-out", allow_temp=True)


def test_tmpdir_env_is_a_temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with pytest.raises(UsageError):
        check_not_temp(tmp_path / "x", allow_temp=False)
    check_not_temp(Path.home() / "agenttest-reports", allow_temp=False)


def test_the_temp_roots_are_the_system_ones_and_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = tmp_path / "own"
    own.mkdir()
    monkeypatch.setenv("TMPDIR", str(own))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    roots = files.temp_roots()
    for root in ("/tmp", "/var/tmp", "/dev/shm", str(tmp_path), str(own)):
        assert Path(root).resolve() in roots
    assert roots == sorted(roots)


def test_writing_under_a_temp_folder_is_refused_with_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    target = tmp_path / "out"
    with pytest.raises(UsageError) as info:
        files.check_not_temp(target, allow_temp=False)
    root = min(r for r in files.temp_roots() if target.resolve().is_relative_to(r))
    assert str(info.value) == (
        f"refusing to write results under the temp folder {root} ({target}): the OS may "
        "delete it while a long run is still writing. Use --out DIR elsewhere "
        "(default ./reports), or pass --allow-temp if you really mean it."
    )
    files.check_not_temp(target, allow_temp=True)  # asked for: no error


def test_file_naming_and_version_suffix(tmp_path: Path) -> None:
    day = datetime(2026, 7, 14, tzinfo=UTC)
    name = run_file_name("qwen3.5-9b", 5, "final72", day)
    assert name == "run_qwen3.5-9b_20260714_k5_final72.jsonl"
    assert (
        run_file_name("org/model:latest", 3, None, day) == "run_org-model-latest_20260714_k3.jsonl"
    )
    first = unused_path(tmp_path, name)
    first.write_text("")
    second = unused_path(tmp_path, name)
    assert second.name == "run_qwen3.5-9b_20260714_k5_final72_v2.jsonl"
    second.write_text("")
    assert unused_path(tmp_path, name).name.endswith("_v3.jsonl")


def test_a_run_file_name_folds_unsafe_characters_and_trims_dashes() -> None:
    day = datetime(2026, 1, 2, 23, 59, tzinfo=UTC)
    assert files.run_file_name("-my model/7b-", 3, "-night run!-", day) == (
        "run_my-model-7b_20260102_k3_night-run.jsonl"
    )
    assert files.run_file_name("///", 1, None, day) == "run_model_20260102_k1.jsonl"
    assert files.run_file_name("m", 1, "", day) == "run_m_20260102_k1.jsonl"
    assert files.run_file_name("X7bX", 1, "XrunX", day) == "run_X7bX_20260102_k1_XrunX.jsonl"


def test_a_run_file_is_named_for_the_utc_day_whatever_the_local_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a zone whose date differs from UTC's right now: 14 hours ahead late in the UTC day,
    # 12 hours behind early in it
    zone = "Etc/GMT-14" if datetime.now(UTC).hour >= 10 else "Etc/GMT+12"
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        before = datetime.now(UTC).strftime("%Y%m%d")
        name = files.run_file_name("m", 1)
        after = datetime.now(UTC).strftime("%Y%m%d")
        assert datetime.now().strftime("%Y%m%d") not in (before, after)  # precondition
    finally:
        monkeypatch.undo()
        time.tzset()
    assert name in (f"run_m_{before}_k1.jsonl", f"run_m_{after}_k1.jsonl")


# -- reading: the golden file, versions and their migration ---------------------------------------


GOLDEN = Path(__file__).parent / "golden" / "run_2.0.jsonl"


def test_golden_2_0_reads_back_every_record_type() -> None:
    records = list(iter_records(GOLDEN))
    assert [r.record_type for r in records] == ["run_meta", "attempt", "grade", "run_end"]
    attempt = records[1]
    assert isinstance(attempt, Attempt)
    assert attempt.verdict == "PASS" and attempt.turns[0].tool_calls[0].name == "calculator"
    evidence = attempt.criteria[1].evidence
    assert evidence is not None and evidence.span == [14, 17]


@pytest.mark.parametrize("version", ["2.6", "3.0", "10.0"])
def test_newer_schema_is_refused(tmp_path: Path, version: str) -> None:
    path = tmp_path / "run.jsonl"
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta["schema_version"] = version
    path.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(iter_records(path))
    assert f"{path}:1: schema_version '{version}' is newer" in info.value.lines()[0]


@pytest.mark.parametrize(("version", "major"), [("2.1", 2), ("2.1.0", 2), ("3", 3), ("x", None)])
def test_the_major_version_is_the_number_before_the_first_dot(
    version: str, major: int | None
) -> None:
    assert _version_major(version) == major


def _attempt_line(**fields: Any) -> bytes:
    return files.encode_record(attempt(test_id="T", run=1, **fields))


def _raw_attempt(value: bytes) -> bytes:
    """An attempt whose latency is written as ``value`` by hand (what no writer of ours does)."""
    head = _attempt_line().rstrip(b"}\n")
    return head + b',"latency_ms":' + value + b"}\n"


def _meta_line(**fields: Any) -> bytes:
    return files.encode_record(run_meta(run_id="r", **fields))


def _problems(path: Path) -> list[tuple[str, int, str]]:
    with pytest.raises(InputError) as info:
        list(iter_records(path))
    return [(p.file, p.line, p.message) for p in info.value.problems]


def test_every_record_of_an_older_minor_version_is_migrated_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    old = b"".join(
        line.replace(SCHEMA_VERSION.encode(), b"2.0")
        for line in (_meta_line(), _attempt_line(), _attempt_line(k=2))
    )
    path.write_bytes(old + _attempt_line(k=3))  # the last one is current: not migrated
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    assert [r.schema_version for r in records] == [SCHEMA_VERSION] * 4
    assert notes.migrated == 3


def test_a_record_without_a_version_and_a_newer_one_later_are_refused_where_they_are(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"record_type": "run_meta"}\n')
    assert _problems(path) == [(str(path), 1, "missing or invalid schema_version ''")]
    newer = _attempt_line().replace(SCHEMA_VERSION.encode(), b"2.9")
    path.write_bytes(_meta_line() + _attempt_line() + newer)
    assert _problems(path) == [
        (
            str(path),
            3,
            f"schema_version '2.9' is newer than this agenttest understands ({SCHEMA_VERSION}); "
            "upgrade agenttest to read it",
        )
    ]


# -- reading: the first line says what the file is ------------------------------------------------


def test_read_run_meta_gives_the_first_record_or_refuses_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        writer.append(run_meta(run_id="r1"))
        writer.append(attempt(test_id="T", run=1))
    meta = read_run_meta(path)
    assert meta.record_type == "run_meta" and meta.run_id == "r1"
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(InputError) as info:
        read_run_meta(empty)
    assert [(p.file, p.line, p.message) for p in info.value.problems] == [
        (str(empty), 0, "empty run file")
    ]


def test_a_missing_run_file_is_named_as_a_run_file(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"
    assert _problems(path) == [(str(path), 0, "cannot read run file: No such file or directory")]


def test_legacy_methodology_file_points_at_import(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text('{"id": "L1-HESAP-01", "run": 1, "k": 5, "turns": []}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(iter_records(path))
    assert "agenttest import FILE --from methodology-v1" in info.value.lines()[0]


def test_a_first_line_that_is_not_an_object_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    for first in (b"garbage\n", b"[1]\n"):
        path.write_bytes(first + _meta_line())
        assert _problems(path) == [
            (str(path), 1, "not a JSONL run file (first line is not a JSON object)")
        ]


def test_a_record_without_its_type_is_refused_with_the_import_hint_if_it_looks_v1(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"id": "L1-X", "turns": []}\n')
    assert _problems(path) == [
        (
            str(path),
            1,
            "not a schema 2.0 record: this looks like a methodology-v1 result file; convert "
            "it with `agenttest import FILE --from methodology-v1`",
        )
    ]
    for other in (b'{"id": "L1-X"}\n', b'{"turns": []}\n'):
        path.write_bytes(other)
        assert _problems(path) == [
            (str(path), 1, "not a schema 2.0 record: every line needs `record_type`")
        ]


def test_a_file_starting_with_another_record_type_is_refused_at_its_first_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n" + _attempt_line() + _meta_line())
    assert _problems(path) == [(str(path), 2, "a run file must start with a run_meta record")]


def test_an_out_of_range_number_in_the_first_line_is_a_bad_run_meta(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(_meta_line().rstrip(b"}\n") + b',"k_nominal":1e400}\n')
    assert _problems(path) == [
        (
            str(path),
            1,
            "bad run_meta: run_meta: `k_nominal` must be a whole number or null, "
            "got a non-finite number (inf)",
        )
    ]


def test_a_bad_run_meta_is_refused_and_a_bad_record_after_it_is_skipped_and_listed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n" + _meta_line(k_nominal=0))
    assert _problems(path) == [
        (str(path), 2, "bad run_meta: run_meta: `k_nominal` must be at least 1, got 0")
    ]
    path.write_bytes(_meta_line() + _attempt_line(k=0) + _attempt_line(k=2) + _attempt_line(k=3))
    notes = ReadNotes(str(path))
    assert [r.k if isinstance(r, Attempt) else None for r in iter_records(path, notes)] == [
        None,
        2,
        3,
    ]  # read on after it
    assert notes.invalid == [(2, "attempt: `k` must be at least 1, got 0")]


# -- reading: the lines it skips, and says so -----------------------------------------------------


def test_torn_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    text = GOLDEN.read_text(encoding="utf-8")
    path.write_text(
        text + '{"record_type":"attempt","schema_version":"2.0","test_id":"L1-CA', encoding="utf-8"
    )
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    assert len(records) == 4
    assert notes.torn_lines == [5]
    assert "skipped 1 torn" in notes.messages()[0]


def test_the_torn_lines_note_names_every_line_or_the_first_few() -> None:
    notes = ReadNotes("run.jsonl")
    notes.torn, notes.torn_lines = 2, [3, 7]
    assert notes.messages() == [
        "run.jsonl: skipped 2 torn or unreadable line(s) (line 3, 7); "
        "a crash mid-write leaves one, the rest of the file is intact"
    ]
    notes.torn = 40
    assert notes.messages()[0].startswith("run.jsonl: skipped 40 torn or unreadable line(s) "
                                          "(first 3, 7); ")  # fmt: skip


def test_a_torn_last_line_longer_than_one_chunk_is_skipped_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    torn = b'{"record_type": "attempt", "pad": "' + b"p" * (3 * 1024 * 1024 // 2)
    path.write_bytes(files.encode_record(run_meta(run_id="r")) + torn)  # no newline at the end
    notes = ReadNotes(str(path))
    assert [r.record_type for r in iter_records(path, notes)] == ["run_meta"]
    assert notes.torn_lines == [2] and notes.long_count == 0


def test_over_long_lines_are_counted_all_and_listed_first_ten() -> None:
    notes = ReadNotes("run.jsonl")
    for line in range(2, 14):
        notes.add_long(line, 300_000_000 + line)
    assert notes.long_count == 12 and [n for n, _ in notes.long_lines] == list(range(2, 12))
    assert notes.skipped == 12
    assert notes.invalid_messages() == [
        f"run.jsonl:{n}: skipped unread: {300_000_000 + n:,} bytes, longer than the 256 MiB "
        "a record may take"
        for n in range(2, 12)
    ] + ["run.jsonl: 2 more over-long line(s) skipped unread"]


def test_a_line_of_exactly_the_cap_is_read_and_one_byte_more_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _meta_line(k_nominal=1)
    fits = _meta_line(k_nominal=2, label="p" * 40)
    over = _meta_line(k_nominal=3, label="p" * 41)
    cap = len(fits) - 1  # without its newline
    monkeypatch.setattr("agenttest.results._reader.MAX_LINE_BYTES", cap)
    path = tmp_path / "run.jsonl"
    path.write_bytes(first + fits + over)
    notes = ReadNotes(str(path))
    assert _k_nominals(iter_records(path, notes)) == [1, 2]
    assert notes.long_lines == [(3, cap + 1)]


def test_a_line_of_one_whole_chunk_with_its_newline_ends_there(tmp_path: Path) -> None:
    first = _meta_line(k_nominal=1)
    bare = len(_meta_line(k_nominal=2, label=""))
    chunk = _meta_line(k_nominal=2, label="p" * (1024 * 1024 - bare))
    assert len(chunk) == 1024 * 1024 and chunk.endswith(b"\n")  # precondition: one chunk
    path = tmp_path / "run.jsonl"
    path.write_bytes(first + chunk + _meta_line(k_nominal=3))
    notes = ReadNotes(str(path))
    assert _k_nominals(iter_records(path, notes)) == [1, 2, 3]
    assert notes.skipped == 0


def _k_nominals(records: Iterable[Record]) -> list[int | None]:
    """The k_nominal of each record read, every one of them a run_meta."""
    metas = list(records)
    assert all(isinstance(m, RunMeta) for m in metas)
    return [m.k_nominal for m in metas if isinstance(m, RunMeta)]


def test_blank_lines_are_passed_over_and_an_indented_record_is_read(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    indented = b"  " + _meta_line(k_nominal=2)
    path.write_bytes(_meta_line(k_nominal=1) + b"   \n\n" + indented + _meta_line(k_nominal=3))
    notes = ReadNotes(str(path))
    assert _k_nominals(iter_records(path, notes)) == [1, 2, 3]
    assert notes.torn == 0 and notes.skipped == 0


def test_what_msgspec_refuses_and_json_reads_is_judged_by_its_type_not_as_torn(
    tmp_path: Path,
) -> None:
    """NaN, Infinity and a number out of range (json reads ``1e400`` as infinity) each make
    a record that does not fit its type, not a torn line; a line neither reads stays torn.
    ``1e400`` was noted as torn ("a crash mid-write leaves one") until session 6."""
    path = tmp_path / "run.jsonl"
    lines = [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"1E+400", b"1" + b"0" * 400 + b".5"]
    lines.append(b"1.")
    path.write_bytes(_meta_line() + b"".join(_raw_attempt(v) for v in lines) + _attempt_line())
    notes = ReadNotes(str(path))
    assert [r.record_type for r in iter_records(path, notes)] == ["run_meta", "attempt"]
    wrong = "attempt: `latency_ms` must be a whole number or null, got a non-finite number"
    assert notes.invalid == [
        (n, f"{wrong} ({value})")
        for n, value in zip(range(2, 8), ["nan", "inf", "-inf", "inf", "inf", "inf"], strict=True)
    ]
    assert notes.torn_lines == [8]  # `1.` is no number either reader takes


def test_without_notes_skipped_lines_are_passed_over_and_the_first_is_named_by_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes the reader makes for itself carry the file's name, which a refusal of the
    first line quotes."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(_meta_line() + b"{torn\n" + _attempt_line(k=0) + _attempt_line(k=2))
    assert [r.k if isinstance(r, Attempt) else None for r in iter_records(path)] == [None, 2]
    monkeypatch.setattr("agenttest.results._reader.MAX_LINE_BYTES", 8)
    assert _problems(path) == [(str(path), 1, "not a JSONL run file (first line is too long)")]
