"""Rater agreement: pairs, κ with a bootstrap interval, multi-rater statistics, calibration."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agenttest.rating import format_agreement, rater_agreement
from agenttest.stats import cohen_kappa, fleiss_kappa, krippendorff_alpha

from .conftest import run_cli
from .fixtures.reports import builders

RULES = "rules@sha256:abc"
P, F, E = "PASS", "FAIL", "ERROR"


def started(test_id: str, run: int) -> str:
    return f"2026-07-01T{10 + run % 10:02d}:{int(test_id[-2:]) % 60:02d}:00+00:00"


def attempt(
    test_id: str, run: int, verdict: str, rater: str = RULES, **extra: Any
) -> dict[str, Any]:
    record = {
        "record_type": "attempt",
        "schema_version": "2.0",
        "test_id": test_id,
        "run": run,
        "k": 1,
        "started_at": started(test_id, run),
        "completed_at": started(test_id, run),
        "status": "completed" if verdict != E else "timeout",
        "turns": [],
        "verdict": verdict,
        "criteria": [],
        "rater": rater,
    }
    record.update(extra)
    return record


def grade(
    test_id: str,
    run: int,
    rater: str,
    verdict: str,
    at: str = "2026-07-02T09:00:00+00:00",
    **extra: Any,
) -> dict[str, Any]:
    extra.setdefault("attempt_started_at", started(test_id, run))
    return builders.grade(test_id, run, rater, verdict, at, **extra)


def write(path: Path, records: list[dict[str, Any]], run_id: str = "run-a") -> Path:
    meta = {"record_type": "run_meta", "schema_version": "2.0", "run_id": run_id, "model": "m"}
    path.write_text("".join(json.dumps(r) + "\n" for r in [meta, *records]), encoding="utf-8")
    return path


def labelled(path: Path, columns: dict[str, list[Any]], run_id: str = "run-a") -> Path:
    """One attempt per row; the first column is the attempt's own rater, the rest grade it."""
    names = list(columns)
    rows = len(columns[names[0]])
    records: list[dict[str, Any]] = []
    for i in range(rows):
        test_id = f"T-{i:02d}"
        records.append(attempt(test_id, 1, columns[names[0]][i], rater=names[0]))
        for name in names[1:]:
            if columns[name][i] is not None:
                records.append(grade(test_id, 1, name, columns[name][i]))
    return write(path, records, run_id)


def flip(labels: list[Any], positions: list[int]) -> list[Any]:
    return [(F if x == P else P) if i in positions else x for i, x in enumerate(labels)]


HUMAN_25: list[Any] = [P] * 12 + [F] * 13


# --- one pair, by hand ------------------------------------------------------------------


def test_two_raters_hand_computed(tmp_path: Path) -> None:
    rules = [P, P, P, P, P, P, F, F, F, F]
    human = [P, P, P, P, P, F, F, F, F, P]
    report = rater_agreement([labelled(tmp_path / "r.jsonl", {RULES: rules, "human:alice": human})])
    (pair,) = report.pairs
    assert pair.n == 10
    assert pair.percent_agreement == pytest.approx(0.8)
    # po = 0.8, pe = 0.6·0.6 + 0.4·0.4 = 0.52, κ = 0.28 / 0.48
    assert pair.kappa == pytest.approx(0.28 / 0.48)
    assert (pair.rater_a, pair.rater_b) == ("human:alice", RULES)
    # rows human, columns rules: both PASS ×5, human FAIL/rules PASS ×1, PASS/FAIL ×1, both FAIL ×3
    assert pair.confusion == ((5, 1), (1, 3))
    assert pair.kappa is not None and pair.kappa_low is not None and pair.kappa_high is not None
    assert pair.kappa_low <= pair.kappa <= pair.kappa_high
    assert report.fleiss_kappa is None and report.krippendorff_alpha is None  # two raters only
    assert report.attempts == 10


def test_confusion_rows_are_the_first_rater(tmp_path: Path) -> None:
    # rater A (alphabetically first) says PASS on all 4; B says FAIL on 3 of them
    a, b = "human:aa", "human:bb"
    path = labelled(tmp_path / "r.jsonl", {RULES: [P] * 4, a: [P] * 4, b: [P, F, F, F]})
    pair = rater_agreement([path]).pair(a, b)
    assert pair is not None and (pair.rater_a, pair.rater_b) == (a, b)
    assert pair.confusion == ((1, 3), (0, 0))


# --- calibration gate ---------------------------------------------------------------------


def test_calibration_needs_kappa_and_twenty_samples(tmp_path: Path) -> None:
    good = flip(HUMAN_25, [0, 20])  # κ ≈ 0.84
    bad = flip(HUMAN_25, [0, 1, 2, 3, 14, 15, 16])  # κ ≈ 0.44
    assert cohen_kappa(good, HUMAN_25) >= 0.8 and cohen_kappa(bad, HUMAN_25) < 0.5
    short = good[:19] + [None] * 6  # the same good judge, but only 19 shared attempts
    columns: dict[str, list[Any]] = {
        RULES: bad,
        "human:alice": HUMAN_25,
        "judge-good": good,
        "judge-short": short,
    }
    report = rater_agreement([labelled(tmp_path / "r.jsonl", columns)])
    by_name = {r.name: r for r in report.raters}
    assert by_name["judge-good"].calibrated is True
    assert "κ 0.84 vs human:alice (n=25)" in by_name["judge-good"].note
    assert by_name[RULES].calibrated is False and by_name[RULES].kind == "rules"
    assert "κ 0.44 vs human:alice (n=25) < 0.6" in by_name[RULES].note
    assert by_name["judge-short"].calibrated is False
    assert "only 19 attempt(s) shared with a human" in by_name["judge-short"].note
    assert by_name["human:alice"].calibrated is None
    assert sorted(report.uncalibrated()) == sorted([RULES, "judge-short"])


def test_exactly_twenty_at_the_threshold_is_calibrated(tmp_path: Path) -> None:
    human = [P] * 10 + [F] * 10
    judge = flip(human, [0, 1, 10, 11])  # po 0.8, pe 0.5 -> κ = 0.6 exactly
    assert cohen_kappa(judge, human) == pytest.approx(0.6)
    report = rater_agreement([labelled(tmp_path / "r.jsonl", {"judge-x": judge, "human:h": human})])
    assert report.raters[1].name == "judge-x" and report.raters[1].calibrated is True
    judge_worse = flip(human, [0, 1, 2, 10, 11])
    worse = rater_agreement(
        [labelled(tmp_path / "w.jsonl", {"judge-x": judge_worse, "human:h": human})]
    )
    assert worse.uncalibrated() == ["judge-x"]


def test_no_human_or_one_label_is_uncalibrated(tmp_path: Path) -> None:
    alone = rater_agreement(
        [labelled(tmp_path / "a.jsonl", {RULES: HUMAN_25, "judge-y": HUMAN_25})]
    )
    assert alone.uncalibrated() == ["judge-y", RULES]
    assert all("no human ratings" in r.note for r in alone.raters)
    same = rater_agreement(
        [labelled(tmp_path / "s.jsonl", {"judge-y": [P] * 25, "human:h": [P] * 25})]
    )
    (pair,) = same.pairs
    assert pair.one_label and pair.kappa == 1.0
    assert same.uncalibrated() == ["judge-y"]
    assert "κ undefined" in same.raters[1].note
    assert "* every shared attempt got the same label" in format_agreement(same)


def test_a_disagreeing_second_human_with_enough_samples_counts(tmp_path: Path) -> None:
    judge = flip(HUMAN_25, [0])
    other_human = flip(HUMAN_25, [1, 2, 3, 4, 14, 15, 16, 17])
    columns = {"judge-z": judge, "human:a": HUMAN_25, "human:b": other_human}
    report = rater_agreement([labelled(tmp_path / "r.jsonl", columns)])
    assert report.uncalibrated() == ["judge-z"]
    assert "vs human:b" in report.raters[-1].note


# --- which verdict counts ------------------------------------------------------------------


def test_latest_attempt_supersedes_and_newest_grade_wins(tmp_path: Path) -> None:
    records = [
        attempt("T-01", 1, F),
        grade("T-01", 1, "human:h", F),  # graded the first attempt: dropped when it is retried
        attempt("T-01", 1, P, started_at="2026-07-03T00:00:00+00:00"),
        grade("T-01", 1, "human:h", P, attempt_started_at="2026-07-03T00:00:00+00:00"),
        attempt("T-02", 1, P),
        grade("T-02", 1, "human:h", F, at="2026-07-05T00:00:00+00:00"),
        grade("T-02", 1, "human:h", P, at="2026-07-04T00:00:00+00:00"),  # older, later in file
        attempt("T-03", 1, P),
        grade("T-03", 1, "human:h", F, at="2026-07-04T00:00:00+00:00"),
        grade("T-03", 1, "human:h", P, at="2026-07-04T00:00:00+00:00"),  # tie: later line wins
        grade("T-03", 1, "human:h", F, attempt_started_at="1999-01-01T00:00:00+00:00"),  # stale
        grade("T-09", 1, "human:h", F),  # no such attempt
    ]
    report = rater_agreement([write(tmp_path / "r.jsonl", records)])
    (pair,) = report.pairs
    # T-01: P/P, T-02: P/F, T-03: P/P
    assert pair.n == 3
    assert pair.percent_agreement == pytest.approx(2 / 3)
    rows = {r.name: r for r in report.raters}
    assert (rows[RULES].passed, rows[RULES].failed) == (3, 0)
    assert (rows["human:h"].passed, rows["human:h"].failed) == (2, 1)
    text = " ".join(report.notes)
    assert "1 attempt(s) were superseded" in text
    assert "grade(s) of superseded attempts were left out" in text
    assert "1 grade(s) name no attempt" in text


def test_error_verdicts_are_left_out(tmp_path: Path) -> None:
    records = [attempt(f"T-{i:02d}", 1, P) for i in range(4)] + [attempt("T-04", 1, E)]
    records += [grade(f"T-{i:02d}", 1, "judge-e", v) for i, v in enumerate([P, E, F, P, P])]
    report = rater_agreement([write(tmp_path / "r.jsonl", records)])
    (pair,) = report.pairs
    assert pair.n == 3  # T-01 (judge ERROR) and T-04 (attempt ERROR) are out
    rows = {r.name: r for r in report.raters}
    assert (rows["judge-e"].passed, rows["judge-e"].failed, rows["judge-e"].errors) == (3, 1, 1)
    assert rows[RULES].errors == 1
    assert report.attempts == 5  # each attempt has at least one PASS/FAIL rating


# --- more than two raters ------------------------------------------------------------------


def test_fleiss_and_krippendorff_for_three_raters(tmp_path: Path) -> None:
    a = [P, P, F, F, P, F, P, P]
    b: list[Any] = [P, F, F, F, P, F, P, None]
    c = [P, P, F, P, P, F, F, P]
    report = rater_agreement(
        [labelled(tmp_path / "r.jsonl", {RULES: a, "human:b": b, "judge-c": c})]
    )
    assert len(report.pairs) == 3
    assert report.fleiss_attempts == 7  # the last attempt lacks human:b
    full = [[sum(col[i] == lab for col in (a, b, c)) for lab in (P, F)] for i in range(7)]
    assert report.fleiss_kappa == pytest.approx(fleiss_kappa(full))
    assert report.alpha_attempts == 8
    data = [[col[i] for i in range(8)] for col in (b, c, a)]  # raters in name order
    assert report.krippendorff_alpha == pytest.approx(krippendorff_alpha(data))
    assert report.pair(RULES, "human:b") is not None
    assert report.pair(RULES, "human:b").n == 7  # type: ignore[union-attr]


# --- bootstrap and files ------------------------------------------------------------------


def test_bootstrap_interval_is_seeded(tmp_path: Path) -> None:
    path = labelled(
        tmp_path / "r.jsonl", {"judge-s": flip(HUMAN_25, [0, 5, 20]), "human:h": HUMAN_25}
    )
    one = rater_agreement([path], seed=1).pairs[0]
    again = rater_agreement([path], seed=1).pairs[0]
    other = rater_agreement([path], seed=2).pairs[0]
    assert (one.kappa_low, one.kappa_high) == (again.kappa_low, again.kappa_high)
    assert (one.kappa_low, one.kappa_high) != (other.kappa_low, other.kappa_high)
    assert one.kappa == other.kappa


def test_several_files_and_copies(tmp_path: Path) -> None:
    first = labelled(tmp_path / "a.jsonl", {RULES: [P, F], "human:h": [P, F]}, run_id="run-a")
    second = labelled(tmp_path / "b.jsonl", {RULES: [P, P], "human:h": [F, P]}, run_id="run-b")
    both = rater_agreement([first, second]).pairs[0]
    assert both.n == 4  # same test ids, different runs: four attempts
    twice = rater_agreement([first, first]).pairs[0]
    assert twice.n == 2
    copy = tmp_path / "copy.jsonl"
    shutil.copy(first, copy)
    with copy.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(grade("T-00", 1, "human:z", F)) + "\n")
    merged = rater_agreement([first, copy])
    assert merged.pair(RULES, "human:h").n == 2  # type: ignore[union-attr]
    assert merged.pair(RULES, "human:z").n == 1  # type: ignore[union-attr]


# --- output -------------------------------------------------------------------------------


def test_cli_table_and_json(tmp_path: Path) -> None:
    good = flip(HUMAN_25, [0, 20])
    path = labelled(
        tmp_path / "r.jsonl",
        {RULES: good, "human:alice": HUMAN_25, "judge-q": HUMAN_25[:10] + [None] * 15},
    )
    table = run_cli("agreement", str(path))
    assert table.returncode == 0, table.stderr
    assert "Rater agreement over 25 attempt(s) in 1 run file(s)" in table.stdout
    assert "calibrated: κ 0.84 vs human:alice (n=25)" in table.stdout
    assert "UNCALIBRATED: only 10 attempt(s) shared with a human" in table.stdout
    assert (
        "Uncalibrated (κ < 0.6 against a human, or fewer than 20 shared attempts): judge-q"
        in table.stdout
    )
    assert "Fleiss' κ" in table.stdout
    as_json = run_cli("agreement", str(path), "--json", "--seed", "3")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert data == rater_agreement([path], seed=3).to_dict()
    assert data["uncalibrated"] == ["judge-q"]
    pair = next(p for p in data["pairs"] if {p["rater_a"], p["rater_b"]} == {RULES, "human:alice"})
    assert pair["confusion"]["labels"] == ["PASS", "FAIL"]
    assert sum(map(sum, pair["confusion"]["matrix"])) == 25
    assert {"rated", "passed", "failed", "errors", "calibrated", "note", "kind"} <= set(
        data["raters"][0]
    )
    missing = run_cli("agreement", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "nope.jsonl:0" in missing.stderr
