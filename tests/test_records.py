"""Typed records end to end: golden files per version, the published schema, real run files.

The msgspec Structs of ``agenttest.results`` are the one description of a run file. The
golden file of 2.5 holds every field they declare; every record that run, import, grade
and rate really write must match its type, the published JSON Schema and the golden file,
field for field (a field the golden file lacks is an undeclared field). A record that does
not fit says which field, what was wanted and what came; the published schema refuses what
the reader refuses. The rater and time fields are read by one rule, and so is whether a judge
is calibrated against the humans (``results._calibration``, shared by the report and
``agreement``).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import jsonschema
import msgspec
import pytest

from agenttest.results import (
    RECORD_TYPES,
    SCHEMA_VERSION,
    Attempt,
    ReadNotes,
    calibration,
    check_record,
    iter_records,
    parse_timestamp,
    rater_kind,
    records_json_schema,
)

from ._lines import attempt, grade, run_meta
from .conftest import ROOT, run_cli
from .fixtures.grading import CORPUS as CORPUS_DIR

GOLDEN = Path(__file__).parent / "golden"
CORPUS = CORPUS_DIR / "run_qwen3.5-9b_20260712_k5_final14.jsonl"
Seen = dict[str, set[str]]


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _structs(tp: Any) -> list[Any]:
    """The Structs a hint refers to (through lists, dicts, unions and Annotated)."""
    if _is_struct(tp):
        return [tp]
    return [t for arg in get_args(tp) for t in _structs(arg)]


def _fields(tp: Any) -> dict[str, Any]:
    return {f.encode_name: f.type for f in msgspec.structs.fields(tp)}


def _walk(tp: Any, value: Any, seen: Seen) -> None:
    """Collect, per Struct name, the keys that ``value`` (of type ``tp``) carries."""
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    if _is_struct(tp):
        if not isinstance(value, dict):
            return
        seen[tp.__name__] |= set(value) - {"record_type"}
        hints = _fields(tp)
        for key, item in value.items():
            if key in hints:
                _walk(hints[key], item, seen)
        return
    origin = get_origin(tp)
    if origin is list and isinstance(value, list):
        for item in value:
            _walk(get_args(tp)[0], item, seen)
    elif origin is dict and isinstance(value, dict):
        for item in value.values():
            _walk(get_args(tp)[1], item, seen)
    else:
        for inner in _structs(tp):
            _walk(inner, value, seen)


def _declared() -> Seen:
    out: Seen = {}
    stack = list(RECORD_TYPES.values())
    while stack:
        tp = stack.pop()
        if tp.__name__ in out:
            continue
        hints = _fields(tp)
        out[tp.__name__] = set(hints)
        stack += [t for hint in hints.values() for t in _structs(hint)]
    return out


def _raw(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _seen(records: list[dict[str, Any]]) -> Seen:
    seen: Seen = defaultdict(set)
    for record in records:
        _walk(RECORD_TYPES[record["record_type"]], record, seen)
    return seen


# -- the golden files and the records run, import, grade and rate really write --------------------


def test_the_2_5_golden_file_holds_every_declared_field() -> None:
    records = _raw(GOLDEN / "run_2.5.jsonl")
    assert {r["schema_version"] for r in records} == {SCHEMA_VERSION} == {"2.5"}
    seen = _seen(records)
    declared = _declared()
    assert {name: declared[name] - seen.get(name, set()) for name in declared} == {
        name: set() for name in declared
    }
    assert {name: seen[name] - declared[name] for name in seen} == {n: set() for n in seen}


@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2", "2.3", "2.4", "2.5"])
def test_each_golden_file_reads_and_matches_the_published_schema(version: str) -> None:
    path = GOLDEN / f"run_{version}.jsonl"
    schema = records_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    raw = _raw(path)
    for record in raw:
        validator.validate(record)
        assert check_record(record) is None
    notes = ReadNotes(str(path))
    read = list(iter_records(path, notes))
    assert [r.record_type for r in read] == [r["record_type"] for r in raw]
    assert {r.schema_version for r in read} == {SCHEMA_VERSION}  # older ones are migrated
    assert notes.migrated == (len(raw) if version != SCHEMA_VERSION else 0)
    assert notes.invalid == [] and notes.torn_lines == []


def test_a_record_read_back_is_the_record_written(tmp_path: Path) -> None:
    """Every declared field survives a round trip through RunWriter and the reader."""
    from agenttest.results import RunWriter

    read = list(iter_records(GOLDEN / "run_2.5.jsonl"))
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        for record in read:
            writer.append(record)
    assert list(iter_records(path)) == read
    # what holds its default is not written: a smaller file, the same records
    assert path.stat().st_size < (GOLDEN / "run_2.5.jsonl").stat().st_size


@pytest.fixture(scope="module")
def real_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real run of the example agent, graded again and rated; a real import."""
    tmp = tmp_path_factory.mktemp("real")
    run = run_cli(
        "run", str(ROOT / "batteries"), "--agent", "example", "--k", "1",
        "--only", "L1-CALC-01,SEC-01,L2-WEB-01", "--out", str(tmp), "--allow-temp",
        "--judge", "none", "--quiet", timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    files = {"run": Path(run.stdout.strip())}
    graded = tmp / "graded.jsonl"
    graded.write_bytes(files["run"].read_bytes())
    assert run_cli("grade", str(graded)).returncode == 0
    files["grade"] = graded
    rated = tmp / "rated.jsonl"
    rated.write_bytes(files["run"].read_bytes())
    rate = subprocess.run(
        [sys.executable, "-m", "agenttest", "rate", str(rated), "--rater", "ann"],
        cwd=ROOT, input="p\nf\np\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert rate.returncode == 0, rate.stderr
    files["rate"] = rated
    if CORPUS.is_file():
        imported = run_cli(
            "import", str(CORPUS), "--from", "methodology-v1", "--out", str(tmp / "imp"),
            "--allow-temp", timeout=300,
        )  # fmt: skip
        assert imported.returncode == 0, imported.stderr
        files["import"] = next((tmp / "imp").glob("*.jsonl"))
    return files


@pytest.mark.parametrize("kind", ["run", "grade", "rate", "import"])
def test_real_run_files_match_their_types_the_schema_and_the_golden_file(
    real_files: dict[str, Path], kind: str
) -> None:
    if kind not in real_files:
        pytest.skip(f"no legacy corpus at {CORPUS} to import")
    raw = _raw(real_files[kind])
    kinds = {r["record_type"] for r in raw}
    wanted = {"run": {"run_meta", "attempt", "run_end"}, "import": {"run_meta", "attempt"}}
    assert wanted.get(kind, {"grade"}) <= kinds  # the precondition: the records are there
    validator = jsonschema.Draft202012Validator(records_json_schema())
    for record in raw:
        assert record["schema_version"] == SCHEMA_VERSION
        assert check_record(record) is None, record
        validator.validate(record)
    golden = _seen(_raw(GOLDEN / "run_2.5.jsonl"))
    undeclared = {name: keys - golden.get(name, set()) for name, keys in _seen(raw).items()}
    assert undeclared == {name: set() for name in undeclared}


# -- a record that does not fit: which field, what was wanted, what came --------------------------


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


# -- the published JSON Schema --------------------------------------------------------------------


def test_schema_records_prints_the_published_schema() -> None:
    result = run_cli("schema", "--records")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == records_json_schema()
    assert json.loads(run_cli("schema").stdout)["$id"] != records_json_schema()["$id"]


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
    golden = Path(__file__).parent / "golden" / "run_2.5.jsonl"
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


# -- raters, timestamps and the calibration rule --------------------------------------------------


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


def test_a_naive_timestamp_is_utc_whatever_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Etc/GMT-3")
    time.tzset()
    try:
        assert datetime(2026, 1, 2, 3, 4, 5).timestamp() != 1767323045.0  # precondition
        assert parse_timestamp("2026-01-02T03:04:05") == 1767323045.0
    finally:
        monkeypatch.undo()
        time.tzset()


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


@pytest.mark.parametrize("version", ["2.1", "2.2", "2.3"])
def test_an_attempt_older_files_left_error_ungraded_reads_as_undecided(
    tmp_path: Path, version: str
) -> None:
    """Before 2.4 an attempt no grader could decide was ERROR (cause ungraded); it is
    UNDECIDED now, and an ERROR of any other cause stays an ERROR."""
    raw = _raw(GOLDEN / f"run_{version}.jsonl")
    attempts = [r for r in raw if r["record_type"] == "attempt"]
    assert len(attempts) >= 2  # precondition: two attempts to turn into old ERRORs
    attempts[0].update(verdict="ERROR", error_cause="ungraded", status="completed")
    attempts[1].update(verdict="ERROR", error_cause="timeout")
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in raw), encoding="utf-8")
    read = [r for r in iter_records(path) if isinstance(r, Attempt)]
    assert (read[0].verdict, read[0].error_cause) == ("UNDECIDED", None)
    assert (read[1].verdict, read[1].error_cause) == ("ERROR", "timeout")
