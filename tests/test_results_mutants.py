"""Tests that kill mutants of ``agenttest/results`` no other test noticed (issue 13).

Found by ``python tools/mutation.py results``.
"""

from __future__ import annotations

import errno
import json
import math
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agenttest.errors import InputError, RunAborted, UsageError
from agenttest.results import (
    RECORD_TYPES,
    Attempt,
    RunWriter,
    check_record,
    records_json_schema,
)
from agenttest.results import _files as files
from agenttest.results._calibration import calibration, parse_timestamp, rater_kind
from agenttest.results._reader import ReadNotes, _version_major, iter_records, read_run_meta
from agenttest.results._records import SCHEMA_VERSION


def _record(record_type: str, **fields: Any) -> dict[str, Any]:
    """A record as a line holds it (what another tool, or a hand, may write)."""
    return {"record_type": record_type, "schema_version": SCHEMA_VERSION, **fields}


def run_meta(**fields: Any) -> dict[str, Any]:
    return _record("run_meta", **fields)


def attempt(**fields: Any) -> dict[str, Any]:
    return _record("attempt", **fields)


def grade(**fields: Any) -> dict[str, Any]:
    return _record("grade", **fields)


# -- what a record is on disk ---------------------------------------------------------------


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


# -- the writer -----------------------------------------------------------------------------


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


# -- where run files may go, and their names ------------------------------------------------


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


def test_a_run_file_name_folds_unsafe_characters_and_trims_dashes() -> None:
    day = datetime(2026, 1, 2, 23, 59, tzinfo=UTC)
    assert files.run_file_name("-my model/7b-", 3, "-night run!-", day) == (
        "run_my-model-7b_20260102_k3_night-run.jsonl"
    )
    assert files.run_file_name("///", 1, None, day) == "run_model_20260102_k1.jsonl"
    assert files.run_file_name("m", 1, "", day) == "run_m_20260102_k1.jsonl"
    assert files.run_file_name("X7bX", 1, "XrunX", day) == "run_X7bX_20260102_k1_XrunX.jsonl"


# -- reading --------------------------------------------------------------------------------


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


def test_read_run_meta_gives_the_first_record_or_refuses_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        writer.append(run_meta(run_id="r1"))
        writer.append(attempt(test_id="T", run=1))
    meta = read_run_meta(path)
    assert meta["record_type"] == "run_meta" and meta["run_id"] == "r1"
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(InputError) as info:
        read_run_meta(empty)
    assert [(p.file, p.line, p.message) for p in info.value.problems] == [
        (str(empty), 0, "empty run file")
    ]


_NAN, _INF = math.nan, math.inf
_WORDED: list[tuple[dict[str, Any], str]] = [
    (attempt(test_id="T", run=True), "`run` must be a whole number, got a boolean (true)"),
    (attempt(test_id="T", run=1.0), "`run` must be a whole number, got a number"),
    (attempt(test_id="T", run=[1]), "`run` must be a whole number, got a list"),
    (attempt(test_id="T", run={"a": 1}), "`run` must be a whole number, got an object"),
    (attempt(test_id="T", run=1, tier=3), "`tier` must be a string or null, got a number"),
    (attempt(test_id=None, run=1), "`test_id` must be a string, got null"),
    (
        attempt(test_id="T", run=1, latency_ms="x"),
        "`latency_ms` must be a whole number or null, got a string",
    ),
    (
        attempt(test_id="T", run=1, latency_ms=_NAN),
        "`latency_ms` must be a whole number or null, got a non-finite number (nan)",
    ),
    (
        attempt(test_id="T", run=1, latency_ms=_INF),
        "`latency_ms` must be a whole number or null, got a non-finite number (inf)",
    ),
    (attempt(test_id="T", run=1, status="done"), "`status` may not be 'done'"),
    (attempt(test_id="T", run=1, turns={}), "`turns` must be a list, got an object"),
    (
        attempt(test_id="T", run=1, turns=[{}, {"tool_calls": [{"name": 1}]}]),
        "`turns[1].tool_calls[0].name` must be a string, got a number",
    ),
    (
        attempt(test_id="T", run=1, usage={"input_tokens": "many"}),
        "`usage[...]` must be a whole number, got a string",
    ),
    (
        attempt(test_id="T", run=1, criteria=[{"evidence": []}]),
        "`criteria[0].evidence` must be an object or null, got a list",
    ),
    (attempt(test_id="T"), "misses `run`"),
    ({"record_type": "attempt"}, "misses `test_id`"),
]


@pytest.mark.parametrize(("record", "message"), _WORDED)
def test_a_record_that_does_not_fit_says_which_field_what_was_wanted_and_what_came(
    record: dict[str, Any], message: str
) -> None:
    assert check_record(record) == f"attempt: {message}"


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


# -- the published JSON Schema --------------------------------------------------------------


def test_the_published_schema_names_itself_and_picks_a_type_per_record_type() -> None:
    schema = records_json_schema()
    head = {k: v for k, v in schema.items() if k not in ("allOf", "$defs")}
    assert head == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://agenttest.dev/schema/run-records-2.json",
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
            "record_type": {"enum": ["run_meta", "attempt", "grade", "run_end"]},
            "schema_version": {"type": "string", "pattern": r"^2\.\d+$"},
        },
    }
    assert schema["allOf"] == [
        {
            "if": {"properties": {"record_type": {"const": kind}}},
            "then": {"$ref": f"#/$defs/{tp.__name__}"},
        }
        for kind, tp in RECORD_TYPES.items()
    ]
    assert schema["$defs"]["Evidence"]["description"] == (
        "Where a criterion was decided; the fields that apply are set."
    )
    # a field's description is its Struct's, and what the reader bounds the schema bounds
    run = schema["$defs"]["Attempt"]["properties"]["run"]
    assert run == {
        "description": "1-based number of the attempt of its block.",
        "type": "integer",
        "minimum": 1,
        "maximum": 10_000,
    }
    assert schema["$defs"]["Attempt"]["required"] == [
        "record_type", "run", "schema_version", "test_id"
    ]  # fmt: skip


#: values no declared field but an ``Any`` holds both of (not an int: JSON Schema's
#: "integer" takes 1.0, which the reader refuses)
_WRONG: list[Any] = ["\x00wrong", 1.5]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path below ``value`` to a value of a JSON object or list."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    out = []
    for key, item in items:
        out.append((*path, key))
        if isinstance(item, dict | list):
            out += _paths(item, (*path, key))
    return out


def _replaced(record: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(record))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copy


def test_the_published_schema_refuses_what_the_reader_refuses_field_for_field() -> None:
    validator = jsonschema.Draft202012Validator(records_json_schema())
    golden = Path(__file__).parent / "golden" / "run_2.2.jsonl"
    records = [json.loads(line) for line in golden.read_text("utf-8").splitlines()]
    refused = 0
    for record in records:
        assert validator.is_valid(record) and check_record(record) is None  # precondition
        for path in _paths(record):
            if path[0] in ("record_type", "schema_version"):
                continue  # the head is below
            for wrong in _WRONG:
                bad = _replaced(record, path, wrong)
                by_reader = check_record(bad) is None
                assert validator.is_valid(bad) == by_reader, (path, wrong)
                refused += not by_reader
    assert refused >= 400  # the golden file's fields are typed, not Any
    for head in ({"record_type": "nope"}, {"schema_version": "3.0"}, {"schema_version": "2."}):
        assert not validator.is_valid({**records[0], **head})
    assert validator.is_valid({**records[0], "schema_version": "2.15"})
    missing = dict(records[0])
    del missing["schema_version"]
    assert not validator.is_valid(missing)


# -- what a rater's name says, timestamps, calibration --------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("human:ann", "human"),
        ("human:", "human"),
        ("harness", "harness"),
        ("ungraded", "harness"),
        ("unknown", "harness"),
        ("rules", "rules"),
        ("rules@abc123", "rules"),
        ("rules+minilm@abc", "judge"),
        ("rulesx", "judge"),
        ("minilm", "judge"),
        ("Human:ann", "judge"),
    ],
)
def test_a_rater_name_says_its_kind(name: str, kind: str) -> None:
    assert rater_kind(name) == kind


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2026-01-02T03:04:05Z", 1767323045.0),
        ("2026-01-02T03:04:05+00:00", 1767323045.0),
        ("2026-01-02T03:04:05", 1767323045.0),  # naive means UTC
        ("2026-01-02T05:04:05.5+02:00", 1767323045.5),
        ("yesterday", None),
        (1767323045, None),
        (None, None),
    ],
)
def test_a_timestamp_is_read_as_utc_seconds_or_none(text: Any, seconds: float | None) -> None:
    assert parse_timestamp(text) == seconds


@pytest.mark.parametrize(
    ("pairs", "calibrated", "why"),
    [
        ([], False, "no human ratings to calibrate against (add some with `agenttest rate`)"),
        (
            [("human:a", 19, 0.9), ("human:b", 7, 0.9)],
            False,
            "only 19 attempt(s) shared with a human; calibration needs ≥ 20",
        ),
        ([("human:a", 20, 0.6)], True, "κ 0.60 vs human:a (n=20)"),
        (
            [("human:b", 30, 0.75), ("human:a", 20, 0.6), ("human:c", 3, 0.0)],
            True,
            "κ 0.60 vs human:a (n=20), κ 0.75 vs human:b (n=30)",
        ),
        (
            [("human:b", 25, 0.59), ("human:a", 21, None), ("human:c", 40, 0.9)],
            False,
            "vs human:a: every shared attempt got one label, κ undefined (n=21); "
            "κ 0.59 vs human:b (n=25) < 0.6",
        ),
    ],
)
def test_calibration_needs_enough_shared_attempts_and_kappa_against_every_human(
    pairs: list[tuple[str, int, float | None]], calibrated: bool, why: str
) -> None:
    assert calibration(pairs) == (calibrated, why)


def test_a_naive_timestamp_is_utc_whatever_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Etc/GMT-3")
    time.tzset()
    try:
        assert datetime(2026, 1, 2, 3, 4, 5).timestamp() != 1767323045.0  # precondition
        assert parse_timestamp("2026-01-02T03:04:05") == 1767323045.0
    finally:
        monkeypatch.undo()
        time.tzset()


# -- the writer's descriptor: its mode, a missing file, closing ------------------------------


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


# -- the reader's notes of over-long lines, versions, a long torn last line ------------------


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


@pytest.mark.parametrize(("version", "major"), [("2.1", 2), ("2.1.0", 2), ("3", 3), ("x", None)])
def test_the_major_version_is_the_number_before_the_first_dot(
    version: str, major: int | None
) -> None:
    assert _version_major(version) == major


def test_a_torn_last_line_longer_than_one_chunk_is_skipped_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    torn = b'{"record_type": "attempt", "pad": "' + b"p" * (3 * 1024 * 1024 // 2)
    path.write_bytes(files.encode_record(run_meta(run_id="r")) + torn)  # no newline at the end
    notes = ReadNotes(str(path))
    assert [r["record_type"] for r in iter_records(path, notes)] == ["run_meta"]
    assert notes.torn_lines == [2] and notes.long_count == 0


# -- the reader's line handling and its first-line refusals ----------------------------------


def _problems(path: Path) -> list[tuple[str, int, str]]:
    with pytest.raises(InputError) as info:
        list(iter_records(path))
    return [(p.file, p.line, p.message) for p in info.value.problems]


def _meta_line(**fields: Any) -> bytes:
    return files.encode_record(run_meta(run_id="r", **fields))


def test_a_missing_run_file_is_named_as_a_run_file(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"
    assert _problems(path) == [(str(path), 0, "cannot read run file: No such file or directory")]


def test_blank_lines_are_passed_over_and_an_indented_record_is_read(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    indented = b"  " + _meta_line(k_nominal=2)
    path.write_bytes(_meta_line(k_nominal=1) + b"   \n\n" + indented + _meta_line(k_nominal=3))
    notes = ReadNotes(str(path))
    assert [r["k_nominal"] for r in iter_records(path, notes)] == [1, 2, 3]
    assert notes.torn == 0 and notes.skipped == 0


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
    assert [r["k_nominal"] for r in iter_records(path, notes)] == [1, 2]
    assert notes.long_lines == [(3, cap + 1)]


def test_a_line_of_one_whole_chunk_with_its_newline_ends_there(tmp_path: Path) -> None:
    first = _meta_line(k_nominal=1)
    bare = len(_meta_line(k_nominal=2, label=""))
    chunk = _meta_line(k_nominal=2, label="p" * (1024 * 1024 - bare))
    assert len(chunk) == 1024 * 1024 and chunk.endswith(b"\n")  # precondition: one chunk
    path = tmp_path / "run.jsonl"
    path.write_bytes(first + chunk + _meta_line(k_nominal=3))
    notes = ReadNotes(str(path))
    assert [r["k_nominal"] for r in iter_records(path, notes)] == [1, 2, 3]
    assert notes.skipped == 0


# -- session 6: the reader's gate to json, versions, migrations, the records after the first -


def _attempt_line(**fields: Any) -> bytes:
    return files.encode_record(attempt(test_id="T", run=1, **fields))


def _raw_attempt(value: bytes) -> bytes:
    """An attempt whose latency is written as ``value`` by hand (what no writer of ours does)."""
    head = _attempt_line().rstrip(b"}\n")
    return head + b',"latency_ms":' + value + b"}\n"


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
    assert [r["record_type"] for r in iter_records(path, notes)] == ["run_meta", "attempt"]
    wrong = "attempt: `latency_ms` must be a whole number or null, got a non-finite number"
    assert notes.invalid == [
        (n, f"{wrong} ({value})")
        for n, value in zip(range(2, 8), ["nan", "inf", "-inf", "inf", "inf", "inf"], strict=True)
    ]
    assert notes.torn_lines == [8]  # `1.` is no number either reader takes


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


def test_every_record_of_an_older_minor_version_is_migrated_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    old = b"".join(
        line.replace(SCHEMA_VERSION.encode(), b"2.0")
        for line in (_meta_line(), _attempt_line(), _attempt_line(k=2))
    )
    path.write_bytes(old + _attempt_line(k=3))  # the last one is current: not migrated
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    assert [r["schema_version"] for r in records] == [SCHEMA_VERSION] * 4
    assert notes.migrated == 3


def test_a_file_starting_with_another_record_type_is_refused_at_its_first_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n" + _attempt_line() + _meta_line())
    assert _problems(path) == [(str(path), 2, "a run file must start with a run_meta record")]


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
    assert [r.get("k") for r in iter_records(path, notes)] == [None, 2, 3]  # read on after it
    assert notes.invalid == [(2, "attempt: `k` must be at least 1, got 0")]


def test_without_notes_skipped_lines_are_passed_over_and_the_first_is_named_by_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes the reader makes for itself carry the file's name, which a refusal of the
    first line quotes."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(_meta_line() + b"{torn\n" + _attempt_line(k=0) + _attempt_line(k=2))
    assert [r.get("k") for r in iter_records(path)] == [None, 2]
    monkeypatch.setattr("agenttest.results._reader.MAX_LINE_BYTES", 8)
    assert _problems(path) == [(str(path), 1, "not a JSONL run file (first line is too long)")]


# -- session 6: check_record's type errors and the ranges of the counts ---------------------


def test_check_record_names_a_type_error_in_msgspecs_words_and_a_missing_key() -> None:
    """Which field, what it must be and what it was; a missing key with its place."""

    def check(record: Any) -> str | None:
        return check_record(dict(record))

    assert check({"record_type": 5}) == "`record_type` must be a string, got a number"
    assert check(attempt(test_id="T", run="1")) == (
        "attempt: `run` must be a whole number, got a string"
    )
    assert check(attempt(run=1)) == "attempt: misses `test_id`"
    assert check(grade(test_id="T")) == "grade: misses `run`"
    assert check(attempt(test_id="T", run=1, turns=[{"tool_calls": [{}]}])) == (
        "attempt: misses `turns[0].tool_calls[0].name`"
    )


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (attempt(test_id="T", run=1, k=1), None),
        (attempt(test_id="T", run=10_000, k=10_000), None),
        (attempt(test_id="T", run=0), "attempt: `run` must be at least 1, got 0"),
        (attempt(test_id="T", run=1, k=0), "attempt: `k` must be at least 1, got 0"),
        (
            attempt(test_id="T", run=1, k=10_001),
            "attempt: `k` must be at most 10,000, got 10,001",
        ),
        (
            grade(test_id="T", run=10**15 - 1),
            "grade: `run` must be at most 10,000, got 999,999,999,999,999",
        ),
        (grade(test_id="T", run=10**15), "grade: `run` must be at most 10,000, got 1e+15"),
        (grade(test_id="T", run=2 * 10**15), "grade: `run` must be at most 10,000, got 2e+15"),
        (run_meta(k_nominal=-1), "run_meta: `k_nominal` must be at least 1, got -1"),
        (run_meta(plan=[{"test_id": "a", "runs": 1}, {"test_id": "b", "runs": 10_000}]), None),
        (
            run_meta(plan=[{"test_id": "a", "runs": 1}, {"test_id": "b", "runs": 0}]),
            "run_meta: `plan[1].runs` must be at least 1, got 0",
        ),
        (
            run_meta(plan=[{"test_id": "a", "runs": 10_001}]),
            "run_meta: `plan[0].runs` must be at most 10,000, got 10,001",
        ),
        (run_meta(selection={"k": 1}), None),
        (run_meta(selection={"k": 10_000}), None),
        (run_meta(selection={"k": None, "only": ["x"]}), None),
        (run_meta(selection={"k": 0}), "run_meta: `selection.k` must be at least 1, got 0"),
        (
            run_meta(selection={"k": 10**12}),
            "run_meta: `selection.k` must be at most 10,000, got 1,000,000,000,000",
        ),
        (
            run_meta(selection={"k": True}),
            "run_meta: `selection.k` must be a whole number or null, got a boolean (true)",
        ),
        (
            run_meta(selection={"k": 2.0}),
            "run_meta: `selection.k` must be a whole number or null, got a number",
        ),
        # `plan` and `selection` are run_meta's: an attempt carrying them is not ranged by them
        (attempt(test_id="T", run=1, plan=[{"runs": 0}], selection={"k": 0}), None),
    ],
)
def test_counts_must_lie_between_1_and_max_runs_with_the_value_shown(
    record: dict[str, Any], problem: str | None
) -> None:
    """Whole messages: the key (plan entries by index), the bound, the value with thousands
    separators or, from 10**15 on, in three digits."""
    assert check_record(record) == problem
