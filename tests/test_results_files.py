"""Run files: golden schema 2.0, torn lines, versions, one writer that fsyncs each record, no
temp folders, no overwrite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agenttest.errors import InputError, UsageError
from agenttest.results import (
    SCHEMA_VERSION,
    Attempt,
    ReadNotes,
    RunMeta,
    RunWriter,
    check_not_temp,
    iter_records,
    run_file_name,
    unused_path,
)
from agenttest.results import _files as files

GOLDEN = Path(__file__).parent / "golden" / "run_2.0.jsonl"


def test_golden_2_0_reads_back_every_record_type() -> None:
    records = list(iter_records(GOLDEN))
    assert [r["record_type"] for r in records] == ["run_meta", "attempt", "grade", "run_end"]
    attempt = records[1]
    assert (
        attempt["verdict"] == "PASS"
        and attempt["turns"][0]["tool_calls"][0]["name"] == "calculator"
    )
    assert attempt["criteria"][1]["evidence"]["span"] == [14, 17]


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


@pytest.mark.parametrize("version", ["2.3", "3.0", "10.0"])
def test_newer_schema_is_refused(tmp_path: Path, version: str) -> None:
    path = tmp_path / "run.jsonl"
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta["schema_version"] = version
    path.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(iter_records(path))
    assert f"{path}:1: schema_version '{version}' is newer" in info.value.lines()[0]


def test_legacy_methodology_file_points_at_import(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text('{"id": "L1-HESAP-01", "run": 1, "k": 5, "turns": []}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(iter_records(path))
    assert "agenttest import FILE --from methodology-v1" in info.value.lines()[0]


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
    assert [r["record_type"] for r in records] == ["run_meta", "attempt"]
    assert records[1]["test_id"] == "L1-CALC-01" and records[1]["schema_version"] == SCHEMA_VERSION
    assert notes.torn_lines == [2]


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
    assert [r["record_type"] for r in iter_records(path)] == ["run_meta"]
    assert path.read_bytes().endswith(b"\n")
