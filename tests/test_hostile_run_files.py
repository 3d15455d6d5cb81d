"""Hostile run files never exhaust memory (issue 14, defect 11).

A run file is input: it may declare 10**30 planned runs, hold 20 MB of garbage lines or
one line of 2 GiB. Declarations are bounded (``MAX_RUNS``), skipped lines are listed by
their first few numbers and a count, and a line longer than ``MAX_LINE_BYTES`` is read
past in chunks. Each bound is fed at its boundary: the largest accepted value, and one more.
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from agenttest._util.limits import MAX_RUNS
from agenttest.cli import main
from agenttest.errors import EXIT_OK, EXIT_USAGE, InputError
from agenttest.reporting import build_report
from agenttest.results import Attempt, Grade, ReadNotes, iter_records
from agenttest.results import _reader as reader

GOLDEN = Path(__file__).parent / "golden" / "run_2.1.jsonl"


def _records() -> list[dict[str, Any]]:
    records = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    records[0]["battery"]["paths"] = ["no-such-battery"]  # titles are not needed here
    del records[0]["parity"]  # one agent: its attempts are keyed by the run id alone
    for record in records[1:]:
        record.pop("agent", None)
    return records


def _write(path: Path, records: list[dict[str, Any]], extra: bytes = b"") -> Path:
    lines = [json.dumps(r).encode() + b"\n" for r in records]
    path.write_bytes(lines[0] + extra + b"".join(lines[1:]))
    return path


def _run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


# -- declarations: bounded by a sane maximum ---------------------------------------------


@pytest.mark.parametrize(
    ("where", "value", "refused"),
    [
        (("plan", 0, "runs"), MAX_RUNS, False),
        (("plan", 0, "runs"), MAX_RUNS + 1, True),
        (("plan", 0, "runs"), 10**30, True),
        (("k_nominal",), MAX_RUNS, False),
        (("k_nominal",), 10**12, True),
        (("selection",), {"k": MAX_RUNS + 1}, True),
        (("selection",), {"k": True}, True),
    ],
)
def test_a_run_meta_declaring_more_runs_than_a_run_can_hold_is_refused(
    tmp_path: Path, where: tuple[Any, ...], value: Any, refused: bool
) -> None:
    records = _records()
    target = records[0]
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    path = _write(tmp_path / "run.jsonl", records)
    code, text = _run("report", str(path), "--format", "json")
    if refused:
        assert code == EXIT_USAGE, text
        assert f"{path}:1: bad run_meta: run_meta: `{where[0]}" in text
        assert f"must be at most {MAX_RUNS:,}" in text or "whole number" in text
    else:
        assert code == EXIT_OK, text


@pytest.mark.parametrize(("field", "value"), [("k", MAX_RUNS + 1), ("run", 10**30)])
def test_an_attempt_declaring_too_many_runs_is_skipped_and_listed(
    tmp_path: Path, field: str, value: int
) -> None:
    records = _records()
    records[1][field] = value
    path = _write(tmp_path / "run.jsonl", records)
    code, text = _run("report", str(path), "--format", "md")
    assert code == EXIT_OK, text
    assert f"{path}:2: skipped: attempt: `{field}` must be at most" in text.replace("\\", "")


def test_missing_attempts_are_counted_not_listed(tmp_path: Path) -> None:
    """2 000 blocks × MAX_RUNS planned runs and one attempt: 2·10**7 gaps. Listing them
    (as the report did) allocates about 2 GB; counting allocates nothing per gap."""
    records = _records()
    records[0]["plan"] = [{"test_id": f"X-{i:04d}", "runs": MAX_RUNS} for i in range(2000)]
    records[0]["plan"].append({"test_id": "L1-CALC-01", "runs": MAX_RUNS})
    path = _write(tmp_path / "run.jsonl", records[:2])
    tracemalloc.start()
    try:
        report = build_report([path], battery=None)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.integrity.missing == 2001 * MAX_RUNS - 1
    assert report.block("L1-CALC-01").missing == MAX_RUNS - 1  # type: ignore[union-attr]
    assert len(report.integrity.missing_examples) == 10
    assert report.integrity.missing_examples[0].startswith("X-0000 run 1 ")
    assert peak < 64 * 1024 * 1024, f"peak {peak / 1e6:.0f} MB"


# -- garbage lines: the first few and a count --------------------------------------------


@pytest.mark.parametrize("garbage", [reader.LISTED_LINES, reader.LISTED_LINES + 1, 200_000])
def test_torn_lines_are_listed_by_the_first_few_and_counted(tmp_path: Path, garbage: int) -> None:
    path = _write(tmp_path / "run.jsonl", _records(), b"{not json\n" * garbage)
    notes = ReadNotes(str(path))
    kinds = [r.record_type for r in iter_records(path, notes)]
    assert kinds == ["run_meta", "attempt", "attempt", "attempt", "grade", "grade", "run_end"]
    assert notes.torn == garbage
    assert notes.torn_lines == list(range(2, 2 + min(garbage, reader.LISTED_LINES)))
    code, text = _run("report", str(path), "--format", "md")
    assert code == EXIT_OK, text
    (line,) = [x for x in text.splitlines() if x.startswith("- Torn or unreadable lines")]
    listed = ", ".join(str(n) for n in notes.torn_lines)
    assert f"line {listed}" in line
    more = garbage - reader.LISTED_LINES
    assert (f"and {more} more ({garbage} in all)" in line) == (more > 0)
    assert len(line) < 400  # the report does not grow with the garbage


def test_records_of_the_wrong_type_are_listed_by_the_first_few_and_counted(
    tmp_path: Path,
) -> None:
    bad = json.dumps({**_records()[1], "verdict": {}}).encode() + b"\n"
    path = _write(tmp_path / "run.jsonl", _records(), bad * 5000)
    notes = ReadNotes(str(path))
    assert sum(1 for _ in iter_records(path, notes)) == 7
    assert notes.invalid_count == 5000 and len(notes.invalid) == reader.LISTED_LINES
    messages = notes.invalid_messages()
    assert len(messages) == reader.LISTED_LINES + 1
    assert messages[-1].endswith(f"{5000 - reader.LISTED_LINES} more record(s) skipped "
                                 "for not matching their type")  # fmt: skip


# -- over-long lines: read past in chunks, never whole -------------------------------------


def test_a_line_at_the_size_cap_is_read_and_one_byte_more_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap = 4096
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", cap)
    monkeypatch.setattr(reader, "_SKIP_CHUNK", 100)  # several chunks per skipped line

    def padded(test_id: str, size: int) -> bytes:
        record = {**_records()[1], "test_id": test_id, "tier": "L1"}
        line = json.dumps(record, separators=(",", ":")).encode()
        record["trace"] = "x" * (size - len(line) - len(',"trace":""'))
        line = json.dumps(record, separators=(",", ":")).encode()
        assert len(line) == size
        return line + b"\n"

    extra = padded("L1-AT-CAP", cap) + padded("L1-OVER-CAP", cap + 1)
    path = _write(tmp_path / "run.jsonl", _records(), extra)
    notes = ReadNotes(str(path))
    ids = [r.test_id if isinstance(r, Attempt | Grade) else None for r in iter_records(path, notes)]
    assert "L1-AT-CAP" in ids and "L1-OVER-CAP" not in ids
    assert notes.long_lines == [(3, cap + 1)] and notes.long_count == 1
    assert ids[-1] is None  # the run_end after the skipped line is read
    assert "3: skipped unread: 4,097 bytes" in notes.invalid_messages()[0]


def test_an_over_long_first_line_refuses_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 100)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"x" * 500)  # no newline at all
    with pytest.raises(InputError) as refused:
        list(iter_records(path))
    assert refused.value.lines() == [f"{path}:1: not a JSONL run file (first line is too long)"]


def test_an_over_long_line_is_measured_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line over the cap is skipped without keeping any of it: the peak stays a few
    chunks, not the cap (holding it up to the cap would cost 64 MiB here)."""
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 64 * 1024 * 1024)
    records = _records()
    path = tmp_path / "run.jsonl"
    with path.open("wb") as f:
        f.write(json.dumps(records[0]).encode() + b"\n")
        start = f.tell()
        f.truncate(start + 100 * 1024 * 1024)  # sparse: 100 MiB of NUL bytes
        f.seek(start + 100 * 1024 * 1024)
        f.write(b"\n" + b"".join(json.dumps(r).encode() + b"\n" for r in records[1:]))
    notes = ReadNotes(str(path))
    tracemalloc.start()
    try:
        kinds = [r.record_type for r in iter_records(path, notes)]
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kinds == ["run_meta", "attempt", "attempt", "attempt", "grade", "grade", "run_end"]
    assert notes.long_lines == [(2, 100 * 1024 * 1024)]
    assert peak < 8 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB"


_UNDER_A_MEMORY_LIMIT = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from agenttest.cli import main
sys.exit(main(["report", sys.argv[2], "--format", "md", "-o", sys.argv[3]]))
"""


def test_a_2_gib_line_is_skipped_under_a_1_gib_memory_limit(tmp_path: Path) -> None:
    """The real cap on a real 2 GiB line: the report runs with 1 GiB of address space,
    so reading the line whole (as ``for line in file`` did) would die of MemoryError."""
    records = _records()
    path = tmp_path / "run.jsonl"
    giant = 2 * 1024**3
    with path.open("wb") as f:
        f.write(json.dumps(records[0]).encode() + b"\n")
        start = f.tell()
        f.truncate(start + giant)  # sparse: 2 GiB of NUL bytes that take no disk
        f.seek(start + giant)
        f.write(b"\n" + b"".join(json.dumps(r).encode() + b"\n" for r in records[1:]))
    out = tmp_path / "report.md"
    limit = 1024**3
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY and hard < limit:
        pytest.skip("the address-space limit is already below 1 GiB")
    done = subprocess.run(
        [sys.executable, "-c", _UNDER_A_MEMORY_LIMIT, str(limit), str(path), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == EXIT_OK, done.stderr
    text = out.read_text(encoding="utf-8")
    assert f"run.jsonl:2: skipped unread: {giant:,} bytes" in text.replace("\\", "")
    assert "Planned attempts missing: 0" in text  # every record after the line was read


# -- what the reader repairs: only lines json decoded --------------------------------------


@pytest.mark.parametrize(
    "raw", [b'{"a": "\\ud800"}', b'{"a": "x\\udc00y"}', b'{"a": 1e999}', b'{"a": -1e400}']
)
def test_msgspec_refuses_what_the_reader_would_have_to_repair(raw: bytes) -> None:
    """The reader scans for lone surrogates and repairs non-finite numbers only in lines
    msgspec refused and json decoded; that holds only while msgspec refuses both."""
    import msgspec

    assert isinstance(json.loads(raw), dict)  # precondition: json reads the line
    with pytest.raises(msgspec.DecodeError):
        msgspec.json.Decoder().decode(raw)


def test_a_lone_surrogate_line_is_read_repaired(tmp_path: Path) -> None:
    record = json.dumps({**_records()[1], "test_id": "L1-X"}).replace("L1-X", "L1-\\ud800X")
    path = _write(tmp_path / "run.jsonl", _records(), record.encode() + b"\n")
    assert b"\\ud800" in path.read_bytes()  # precondition: the escape is in the file
    ids = [r.test_id if isinstance(r, Attempt | Grade) else None for r in iter_records(path)]
    assert "L1-\ufffdX" in ids
