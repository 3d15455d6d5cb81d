"""Typed records end to end: golden files per version, the published schema, real run files.

The msgspec Structs of ``agenttest.results`` are the one description of a run file. The
golden file of 2.2 holds every field they declare; every record that run, import, grade
and rate really write must match its type, the published JSON Schema and the golden file,
field for field (a field the golden file lacks is an undeclared field).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import jsonschema
import msgspec
import pytest

from agenttest.results import (
    RECORD_TYPES,
    SCHEMA_VERSION,
    ReadNotes,
    check_record,
    iter_records,
    records_json_schema,
)

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


def test_the_2_2_golden_file_holds_every_declared_field() -> None:
    records = _raw(GOLDEN / "run_2.2.jsonl")
    assert {r["schema_version"] for r in records} == {SCHEMA_VERSION} == {"2.2"}
    seen = _seen(records)
    declared = _declared()
    assert {name: declared[name] - seen.get(name, set()) for name in declared} == {
        name: set() for name in declared
    }
    assert {name: seen[name] - declared[name] for name in seen} == {n: set() for n in seen}


@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2"])
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

    read = list(iter_records(GOLDEN / "run_2.2.jsonl"))
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        for record in read:
            writer.append(record)
    assert list(iter_records(path)) == read
    # what holds its default is not written: a smaller file, the same records
    assert path.stat().st_size < (GOLDEN / "run_2.2.jsonl").stat().st_size


def test_schema_records_prints_the_published_schema() -> None:
    result = run_cli("schema", "--records")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == records_json_schema()
    assert json.loads(run_cli("schema").stdout)["$id"] != records_json_schema()["$id"]


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
    golden = _seen(_raw(GOLDEN / "run_2.2.jsonl"))
    undeclared = {name: keys - golden.get(name, set()) for name, keys in _seen(raw).items()}
    assert undeclared == {name: set() for name in undeclared}
