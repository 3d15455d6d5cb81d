"""Type-confused run files never crash a command (issue 14, defect 12).

Each record is validated against its type when read: a bad record is skipped and listed
under data integrity with its line, a bad ``run_meta`` refuses the file with ``FILE:LINE``
(exit 2). The fuzzer changes one field of the 2.1 golden file at a time to an odd value
and runs every report format and `agreement` on it: never exit 4.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenttest.cli import main
from agenttest.errors import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE

GOLDEN = Path(__file__).parent / "golden" / "run_2.1.jsonl"
RECORDS = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
# Loading the real battery would cost seconds per command; where it cannot be found the
# report goes on without titles, which is all the renderers need here.
RECORDS[0]["battery"]["paths"] = ["no-such-battery"]

ODD = [
    True, False, None, {}, [], "", "x", 0, -1, 1.5, 10_001, 10**30, -(10**30),
    math.nan, math.inf, -math.inf, {"a": 1}, [1, "2", None], "\u202e\x1b[2J",
]  # fmt: skip


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a record a value sits at (keys and list indexes), outermost first."""
    out = [here] if here else []
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "record_type":
                out += _paths(item, (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*here, i))
    return out


PLACES = [(i, path) for i, record in enumerate(RECORDS) for path in _paths(record)]


def _mutated(index: int, path: tuple[Any, ...], odd: Any) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(json.dumps(RECORDS))
    target = records[index]
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = odd
    return records


def _run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def _write(folder: Path, records: list[dict[str, Any]]) -> Path:
    path = folder / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _every_command(path: Path) -> list[tuple[str, int, str]]:
    outcomes = []
    for fmt in ("md", "html", "json", "junit"):
        code, text = _run("report", str(path), "--format", fmt)
        outcomes.append((fmt, code, text))
    code, text = _run("agreement", str(path))
    outcomes.append(("agreement", code, text))
    return outcomes


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(place=st.sampled_from(PLACES), odd=st.sampled_from(ODD))
def test_no_odd_field_value_crashes_a_command(place: tuple[int, tuple[Any, ...]], odd: Any) -> None:
    index, path = place
    with tempfile.TemporaryDirectory() as folder:
        run_file = _write(Path(folder), _mutated(index, path, odd))
        for command, code, text in _every_command(run_file):
            assert code != EXIT_INTERNAL, f"{command} on {path}={odd!r}:\n{text}"
            assert "Traceback" not in text, f"{command} on {path}={odd!r}:\n{text}"


@pytest.mark.parametrize(
    ("path", "odd"),
    [
        (("critical",), True),
        (("verdict",), {}),
        (("latency_ms",), math.nan),
        (("latency_ms",), math.inf),
        (("turns", 0, "tool_calls"), "calc"),
        (("criteria", 0, "evidence"), []),
    ],
)
def test_a_type_confused_attempt_is_skipped_and_listed_with_its_line(
    tmp_path: Path, path: tuple[Any, ...], odd: Any
) -> None:
    run_file = _write(tmp_path, _mutated(1, path, odd))
    code, text = _run("report", str(run_file), "--format", "md")
    assert code == EXIT_OK, text
    integrity = text.split("## Data integrity")[1].split("\n## ")[0].replace("\\", "")
    (line,) = [x for x in integrity.splitlines() if f"{run_file}:2: skipped: attempt:" in x]
    assert f"`{path[0]}" in line and " must be " in line  # which field, what was wrong
    # not counted: the parity run's first agent (a) misses it first
    assert "(e.g. L1-CALC-01 run 1 (golden-0002@a)" in integrity


def test_a_type_confused_run_meta_refuses_the_file_with_file_and_line(tmp_path: Path) -> None:
    run_file = _write(tmp_path, _mutated(0, ("plan",), {"L1-CALC-01": 1}))
    code, text = _run("report", str(run_file), "--format", "md")
    assert code == EXIT_USAGE
    assert f"{run_file}:1: bad run_meta: run_meta: `plan` must be a list, got an object" in text
