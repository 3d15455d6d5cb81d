"""The library behind thin commands: `grade`'s regrade policy and `judge score`'s pairs file.

The commands only parse options, call these and print; so the policy is pinned here, on the
library call, without typer in the way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest

import agenttest.judges
from agenttest.errors import InputError, UsageError
from agenttest.grading import regrade, regrade_battery, regrade_run
from agenttest.judges import JudgeRequest, JudgeResult, check_pairs, score_pairs_file
from agenttest.results import Grade, RunMeta, RunWriter, iter_records

from .fixtures.grading import HERE, attempt, call, turn


def run_meta(**fields: Any) -> RunMeta:
    return msgspec.convert(fields, RunMeta)


BATTERY = HERE / "battery"


def _write_run(path: Path, battery: dict[str, Any]) -> Path:
    calc = attempt(turn("333", [call("calculator", expression="1850*0.18", result="333")]))
    with RunWriter(path, create=True) as w:
        w.append(run_meta(run_id="r", battery=battery))
        w.append(msgspec.structs.replace(calc, test_id="FX-CALC-01", run=1))
    return path


def _overlay(path: Path, zone: str) -> Path:
    path.write_text(
        f"agent: other\nblocks:\n  FX-CALC-01: {{timezone: {zone}}}\n", encoding="utf-8"
    )
    return path


# ------------------------------------------------------------------ grade: which battery


def test_regrade_battery_takes_the_recorded_paths_and_overlay(tmp_path: Path) -> None:
    overlay = _overlay(tmp_path / "ov.yaml", "Europe/Istanbul")
    run = _write_run(tmp_path / "run.jsonl", {"paths": [str(BATTERY)], "overlay": str(overlay)})
    loaded = regrade_battery(run)
    block = loaded.get("FX-CALC-01")
    assert block is not None and block.reference.timezone == "Europe/Istanbul"
    assert loaded.overlay is not None


def test_given_paths_drop_the_recorded_overlay_and_a_given_overlay_wins(tmp_path: Path) -> None:
    recorded = _overlay(tmp_path / "recorded.yaml", "Europe/Istanbul")
    given = _overlay(tmp_path / "given.yaml", "Asia/Tokyo")
    run = _write_run(tmp_path / "run.jsonl", {"paths": [str(BATTERY)], "overlay": str(recorded)})
    # precondition: the recorded overlay is applied when nothing is given
    assert regrade_battery(run).overlay is not None
    assert regrade_battery(run, [BATTERY]).overlay is None  # it was written for other blocks
    block = regrade_battery(run, [BATTERY], given).get("FX-CALC-01")
    assert block is not None and block.reference.timezone == "Asia/Tokyo"
    block = regrade_battery(run, (), given).get("FX-CALC-01")
    assert block is not None and block.reference.timezone == "Asia/Tokyo"


def test_a_run_file_without_paths_needs_battery(tmp_path: Path) -> None:
    run = _write_run(tmp_path / "run.jsonl", {"paths": []})
    with pytest.raises(UsageError, match=r"run\.jsonl names no battery paths; pass --battery"):
        regrade_battery(run)
    assert regrade_battery(run, [BATTERY]).get("FX-CALC-01") is not None


def test_regrade_counts_as_regrade_run_and_names_the_digest(tmp_path: Path) -> None:
    run = _write_run(tmp_path / "run.jsonl", {"paths": [str(BATTERY)]})
    done = regrade(run)
    assert done.counts["graded"] == 1 and done.counts["PASS"] == 1
    assert done.digest == regrade_battery(run).digest
    assert done.counts == regrade_run(run, regrade_battery(run))
    grades = [r for r in iter_records(run) if isinstance(r, Grade)]
    assert len(grades) == 2 and grades[0].rater == f"rules@{done.digest}"


def test_a_bad_battery_is_reported_before_the_judge_is_built(tmp_path: Path) -> None:
    run = _write_run(tmp_path / "run.jsonl", {"paths": [str(tmp_path / "gone")]})
    with pytest.raises(InputError) as caught:
        regrade(run, judge="no-such-judge")
    assert [p.message for p in caught.value.problems] == ["no such file or folder"]
    good = _write_run(tmp_path / "good.jsonl", {"paths": [str(BATTERY)]})
    with pytest.raises(UsageError, match="unknown judge 'no-such-judge'"):
        regrade(good, judge="no-such-judge")
    assert not [r for r in iter_records(good) if isinstance(r, Grade)]  # nothing written


# ------------------------------------------------------------------ judge score: the pairs file


def _pairs(path: Path, lines: list[Any]) -> Path:
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


def test_check_pairs_counts_good_lines_and_skips_blank_ones(tmp_path: Path) -> None:
    pairs = _pairs(
        tmp_path / "p.jsonl",
        [{"id": 1, "reference": "a", "candidate": "b"}, "  ",
         {"id": "x", "reference": "a", "candidate": "b", "asks": "covers", "min_items": 2}],
    )  # fmt: skip
    assert check_pairs(pairs) == 2


def test_check_pairs_reports_every_bad_line_with_file_and_line(tmp_path: Path) -> None:
    pairs = _pairs(
        tmp_path / "p.jsonl",
        [
            {"id": 1, "reference": "a", "candidate": "b"},
            {"id": 1, "reference": "a", "candidate": "b"},  # duplicate
            {"id": [1], "reference": "a", "candidate": "b"},  # unhashable id: no crash
            {"id": [1], "reference": "a", "candidate": "b"},  # ... and not a "duplicate"
            {"id": True, "reference": 3},
            "[1, 2]",
            "{not json",
            {"id": 9, "reference": "a", "candidate": "b", "asks": "guess", "min_items": "2"},
        ],
    )
    with pytest.raises(InputError) as caught:
        check_pairs(pairs)
    got = [str(p) for p in caught.value.problems]
    name = str(pairs)
    assert got[0] == f"{name}:2: duplicate id 1 (first on line 1)"
    assert got[1:3] == [f"{name}:3: `id` is required and must be a string or an integer",
                        f"{name}:4: `id` is required and must be a string or an integer"]  # fmt: skip
    assert f"{name}:5: `candidate` is required and must be a string" in got
    assert f"{name}:5: `reference` is required and must be a string" in got
    assert f"{name}:6: expected a JSON object, got a JSON list" in got
    assert any(p.startswith(f"{name}:7: not a JSON object") for p in got)
    assert f"{name}:8: `asks` must be act, covers or consistent" in got
    assert f"{name}:8: `min_items` must be an integer when given" in got
    assert "nothing was scored" in str(caught.value)


def test_check_pairs_stops_after_max_problems(tmp_path: Path) -> None:
    from agenttest.judges._pairs_file import MAX_PROBLEMS

    pairs = _pairs(tmp_path / "p.jsonl", ["[]"] * (MAX_PROBLEMS + 20))
    with pytest.raises(InputError) as caught:
        check_pairs(pairs)
    assert len(caught.value.problems) == MAX_PROBLEMS


def test_a_missing_pairs_file_is_one_located_problem(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        check_pairs(tmp_path / "gone.jsonl")
    [problem] = caught.value.problems
    assert str(problem).startswith(f"{tmp_path / 'gone.jsonl'}:0: cannot read pairs file")


class _Judge:
    """Scores by exact match with an unrounded score; records that it was built and closed."""

    name = "exact"
    built: ClassVar[list[dict[str, object]]] = []
    closed: ClassVar[list[bool]] = []

    def __init__(self, **options: object) -> None:
        _Judge.built.append(options)

    def judge(self, req: JudgeRequest) -> JudgeResult:
        same = req.candidate == req.reference
        return JudgeResult(1 / 3 if same else 0.0, "PASS" if same else "FAIL", "", self.name)

    def close(self) -> None:
        _Judge.closed.append(True)


@pytest.fixture
def exact(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[_Judge]]:
    _Judge.built, _Judge.closed = [], []

    def build(name: str, **options: object) -> _Judge:
        assert name == "exact"
        return _Judge(**options)

    monkeypatch.setattr(agenttest.judges, "get_judge", build)
    yield _Judge


def test_score_pairs_file_rows_in_order_rounded_and_judge_closed(
    tmp_path: Path, exact: type[_Judge]
) -> None:
    pairs = _pairs(
        tmp_path / "p.jsonl",
        [{"id": "b", "reference": "x", "candidate": "x"},
         {"id": "a", "reference": "x", "candidate": "y"}],
    )  # fmt: skip
    rows = score_pairs_file(pairs, "exact", {"seed": "7"})
    assert exact.built == [{"seed": "7"}]  # built before the first row is asked for
    assert list(rows) == [
        {"id": "b", "score": 0.333333, "verdict": "PASS"},
        {"id": "a", "score": 0.0, "verdict": "FAIL"},
    ]
    assert exact.closed == [True]


def test_score_pairs_file_checks_the_whole_file_before_building_the_judge(
    tmp_path: Path, exact: type[_Judge]
) -> None:
    pairs = _pairs(tmp_path / "p.jsonl", [{"id": 1, "reference": "x", "candidate": "x"}, "[]"])
    with pytest.raises(InputError) as caught:
        score_pairs_file(pairs, "exact")
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (2, "expected a JSON object, got a JSON list")
    ]
    assert exact.built == []


def test_a_judge_left_early_is_closed(tmp_path: Path, exact: type[_Judge]) -> None:
    rows = [{"id": i, "reference": "x", "candidate": "x"} for i in range(3)]
    scored = score_pairs_file(_pairs(tmp_path / "p.jsonl", list(rows)), "exact")
    assert next(scored)["id"] == 0 and exact.closed == []
    scored.close()  # what the command's `closing` does when printing fails
    assert exact.closed == [True]
