"""Grades of a ``--parity`` run: both agents answer the same (test, run), so a grade names the
agent whose attempt it graded, and every reader pairs it with that agent's attempt
(``agenttest.results.slot_key``). Without the agent a grade named no attempt: the report
counted it as an orphan and a human rating of a parity run changed nothing."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from agenttest.blocks import load_battery
from agenttest.grading import regrade_run
from agenttest.rating import rate_run
from agenttest.rating._load import collect
from agenttest.reporting import build_report
from agenttest.reporting._aggregate import Aggregator
from agenttest.results import Grade, iter_records, slot_key

from .conftest import ROOT
from .fixtures.reports.builders import attempt, grade, meta, write

BLOCK = ROOT / "batteries" / "L1" / "L1-CALC-01.yaml"
AT = "2026-07-14T10:00:00+00:00"


def _parity_run(tmp_path: Path, *extra: dict[str, Any]) -> Path:
    battery = {"paths": [str(BLOCK)], "digest": load_battery([BLOCK]).digest}
    run_meta = {**meta("r", []), "battery": battery}
    records = [
        run_meta,
        attempt("L1-CALC-01", 1, "PASS", agent="a", response="It is 4."),
        attempt("L1-CALC-01", 1, "FAIL", agent="b", response="I cannot say."),
        *extra,
    ]
    return write(tmp_path / "r.jsonl", records)


def _grades(path: Path) -> list[Grade]:
    return [r for r in iter_records(path) if isinstance(r, Grade)]


def test_slot_key_labels_a_parity_slot_with_its_agent() -> None:
    assert slot_key("r", None, "X", 1) == ("r", "X", 1)
    assert slot_key("r", "b", "X", 2) == ("r@b", "X", 2)


def test_a_grade_naming_its_agent_grades_that_agents_attempt(tmp_path: Path) -> None:
    path = _parity_run(tmp_path, grade("L1-CALC-01", 1, "human:z", "FAIL", AT, agent="a"))
    agg = Aggregator()
    agg.add(path)
    assert list(agg.slots) == [("r@a", "L1-CALC-01", 1), ("r@b", "L1-CALC-01", 1)]
    assert list(agg.grades) == [("r@a", "L1-CALC-01", 1)]  # a's slot, not an orphan
    assert agg.orphan_grades() == 0
    report = build_report([path], battery=None, details=False, rater="human:z")
    (block,) = report.blocks
    assert (block.rate.passed, block.rate.failed, block.unrated) == (0, 1, 1)  # b: unrated
    assert report.integrity.orphan_grades == 0
    units = collect([path]).units  # `agenttest agreement` reads it alike
    assert sorted(units) == [("r@a", "L1-CALC-01", 1), ("r@b", "L1-CALC-01", 1)]
    assert [sorted(u.ratings) for _, u in sorted(units.items())] == [
        ["human:z", _rater()],
        [_rater()],
    ]


def _rater() -> str:
    return str(attempt("X", 1, "PASS")["rater"])


def test_regrade_of_a_parity_run_names_each_agent(tmp_path: Path) -> None:
    path = _parity_run(tmp_path)
    counts = regrade_run(path, load_battery([BLOCK]), rater="rules-again")
    assert counts["graded"] == 2
    assert [(g.test_id, g.run, g.agent) for g in _grades(path)] == [
        ("L1-CALC-01", 1, "a"),
        ("L1-CALC-01", 1, "b"),
    ]
    agg = Aggregator()
    agg.add(path)
    assert agg.orphan_grades() == 0
    assert {key: list(per) for key, per in agg.grades.items()} == {
        ("r@a", "L1-CALC-01", 1): ["rules-again"],
        ("r@b", "L1-CALC-01", 1): ["rules-again"],
    }


def test_a_human_rating_of_a_parity_run_names_each_agent(tmp_path: Path) -> None:
    path = _parity_run(tmp_path)
    rate_run(path, "zoe", ["p", "f"], io.StringIO(), echo=False)
    grades = _grades(path)  # shown blind, in an order of its own: one PASS, one FAIL
    assert sorted(str(g.agent) for g in grades) == ["a", "b"]
    assert sorted(str(g.verdict) for g in grades) == ["FAIL", "PASS"]
    report = build_report([path], battery=None, details=False, rater="human:zoe")
    (block,) = report.blocks
    assert (block.rate.passed, block.rate.failed, block.unrated) == (1, 1, 0)
    assert report.integrity.orphan_grades == 0
