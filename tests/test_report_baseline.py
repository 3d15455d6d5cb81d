"""`agenttest baseline`: the §2.2 baseline file, and compare / report --baseline reading it.

A threshold (0.85 × pass@1) is written only over five gradable attempts; a file whose
figures do not follow from its counts is refused at its line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenttest.errors import InputError
from agenttest.reporting import (
    baseline_from_runs,
    build_report,
    compare_runs,
    read_baseline,
    render,
)

from ._doc_sessions import documented_session, replay
from .conftest import run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

RULES = "rules@sha256:5e1c0a7d93b2f468"
Counts = dict[str, tuple[int, int, int]]  # passes, fails, errors


def _run(path: Path, counts: Counts) -> Path:
    records = [meta(path.stem, [], tester="alice")]
    for test_id, (passes, fails, errors) in counts.items():
        tier = test_id.split("-")[0]
        verdicts = ["PASS"] * passes + ["FAIL"] * fails + ["ERROR"] * errors
        for run, verdict in enumerate(verdicts, start=1):
            records.append(attempt(test_id, run, verdict, tier=tier, k=len(verdicts), rater=RULES))
    records.append(run_end())
    return write(path, records)


def _baseline_run(tmp_path: Path) -> Path:
    return _run(
        tmp_path / "base.jsonl",
        {
            "L1-A": (5, 0, 0),
            "L1-B": (4, 1, 0),
            "L2-C": (3, 0, 2),  # two attempts lost: three gradable, no threshold
            "SEC-01": (5, 0, 0),  # not a §2.2 tier
        },
    )


def test_the_file_holds_every_l1_l2_block_and_thresholds_only_over_five(tmp_path: Path) -> None:
    base = _baseline_run(tmp_path)
    out = tmp_path / "baseline.json"
    done = run_cli("baseline", str(base), "-o", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    blocks = {b["test_id"]: b for b in data["blocks"]}
    assert sorted(blocks) == ["L1-A", "L1-B", "L2-C"]
    assert blocks["L1-A"]["threshold"] == pytest.approx(0.85)
    assert blocks["L1-B"]["threshold"] == pytest.approx(0.85 * 0.8)
    assert blocks["L2-C"]["threshold"] is None
    assert blocks["L2-C"]["why"] == "3 gradable attempt(s), §2.2 needs 5 (2 ERROR): no threshold"
    assert (data["attempts_required"], data["margin"]) == (5, 0.85)
    assert "3 L1/L2 block(s), 2 with a threshold" in done.stderr
    assert "L2-C: 3 gradable attempt(s)" in done.stderr
    # one block a line: a diff of two baselines reads block by block
    assert sum('"test_id"' in line for line in out.read_text().splitlines()) == 3
    assert read_baseline(out).pass_at_1 == {"L1-A": 1.0, "L1-B": 0.8}


def test_a_run_of_three_attempts_writes_no_threshold_and_nothing(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", {"L1-A": (3, 0, 0), "L2-B": (2, 1, 0)})
    out = tmp_path / "baseline.json"
    done = run_cli("baseline", str(base), "-o", str(out))
    assert done.returncode == 2
    assert "no L1/L2 block has 5 gradable attempts" in done.stderr
    assert "L1-A: 3 gradable attempt(s), §2.2 needs 5: no threshold" in done.stderr
    assert not out.exists()


def test_compare_and_report_read_the_file_in_place_of_a_run(tmp_path: Path) -> None:
    out = tmp_path / "baseline.json"
    assert run_cli("baseline", str(_baseline_run(tmp_path)), "-o", str(out)).returncode == 0
    ours = _run(tmp_path / "ours.jsonl", {"L1-A": (2, 1, 0), "L1-B": (3, 0, 0), "L2-C": (0, 3, 0)})
    result = compare_runs([ours], [out])
    assert result.baseline == "baseline.json (from base.jsonl)"
    rows = {r.name: r for r in result.blocks}
    assert rows["L1-A"].below_threshold and rows["L1-A"].threshold == pytest.approx(0.85)
    assert not rows["L1-B"].below_threshold
    assert rows["L2-C"].threshold is None and not rows["L2-C"].below_threshold
    assert {s.name for s in result.stratified} == {"L1", "L2", "overall"}

    md = render(build_report([ours], baseline=[out]), "md")
    assert "| L1-A | 5/5 = 100.0% [56.6%, 100.0%] | 85.0% | 2/3 = 66.7%" in md
    shown = run_cli("compare", str(ours), str(out))
    assert shown.returncode == 0, shown.stderr
    assert "below the §2.2 threshold 85.0%" in shown.stdout


def test_a_baseline_run_of_fewer_than_five_sets_no_threshold(tmp_path: Path) -> None:
    base = _run(tmp_path / "base.jsonl", {"L1-A": (3, 0, 0)})
    ours = _run(tmp_path / "ours.jsonl", {"L1-A": (0, 3, 0)})
    row = compare_runs([ours], [base]).blocks[0]
    assert row.threshold is None and not row.below_threshold


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    out = tmp_path / "baseline.json"
    if not out.exists():
        assert run_cli("baseline", str(_baseline_run(tmp_path)), "-o", str(out)).returncode == 0
    text = out.read_text(encoding="utf-8")
    assert old in text
    edited = tmp_path / "edited.json"
    edited.write_text(text.replace(old, new, 1), encoding="utf-8")
    return edited


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # the cheat: a threshold lowered by hand so that a fall passes
        ('"threshold": 0.68', '"threshold": 0.4', "L1-B: threshold 0.4 is not 0.85 × pass@1 0.8"),
        # a threshold where nothing was measured
        (
            '"threshold": null',
            '"threshold": 0.5',
            "L2-C: a threshold over 3 gradable attempt(s); §2.2 needs 5",
        ),
        ('"passed": 4, "failed": 1', '"passed": "4", "failed": 1', "Expected `int`, got `str`"),
    ],
)
def test_a_file_that_does_not_add_up_is_refused_at_its_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    edited = _edited(tmp_path, old, new)
    lines = edited.read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, start=1) if new in text)
    with pytest.raises(InputError) as caught:
        read_baseline(edited)
    assert f"{edited}:{line}: " in str(caught.value.problems[0])
    assert message in str(caught.value.problems[0])
    ours = _run(tmp_path / "ours.jsonl", {"L1-A": (2, 1, 0)})
    refused = run_cli("compare", str(ours), str(edited))
    assert refused.returncode == 2
    assert f"{edited}:{line}: " in refused.stderr


def test_a_baseline_file_is_given_alone(tmp_path: Path) -> None:
    base = _baseline_run(tmp_path)
    out = tmp_path / "baseline.json"
    assert run_cli("baseline", str(base), "-o", str(out)).returncode == 0
    ours = _run(tmp_path / "ours.jsonl", {"L1-A": (2, 1, 0)})
    refused = run_cli("report", str(ours), "--baseline", str(out), "--baseline", str(base))
    assert refused.returncode == 2
    assert "is a baseline file: give it alone" in refused.stderr


def test_the_library_makes_the_same_file(tmp_path: Path) -> None:
    made = baseline_from_runs([_baseline_run(tmp_path)])
    assert [b.test_id for b in made.blocks if b.threshold is not None] == ["L1-A", "L1-B"]


def test_the_documented_worked_example_prints_what_the_docs_show(tmp_path: Path) -> None:
    session = documented_session("reports.md", "$ agenttest baseline base.jsonl")
    names = ["L1-CALC-01", "L1-CALC-02", "L1-CHAT-01", "L1-CHAT-02", "L1-SYS-01", "L1-SYS-02"]
    _run(
        tmp_path / "base.jsonl",
        {**dict.fromkeys(names, (5, 0, 0)), "L2-MEM-01": (4, 1, 0), "L2-MEM-02": (3, 0, 2)},
    )
    _run(
        tmp_path / "tonight.jsonl",
        {**dict.fromkeys(names, (2, 1, 0)), "L2-MEM-01": (3, 0, 0), "L2-MEM-02": (3, 0, 0)},
    )
    assert replay(session, tmp_path) == session
