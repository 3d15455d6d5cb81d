"""The battery lint: every rule fires on a bad fixture block and stays quiet on a good one.

Fixtures live in tests/fixtures/lint/, one block per file, named ``<rule>_..._bad.yaml`` /
``<rule>_..._good.yaml``. A bad fixture must trigger its rule (and the problem must point at
the right line); a good one must produce no problem at all, from any rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttest.blocks import Block, load_block_file
from agenttest.blocks._lint import lint_battery, lint_block

from .conftest import FIXTURES

LINT = FIXTURES / "lint"


def _block(name: str) -> Block:
    block, problems, _ = load_block_file(LINT / name)
    assert not problems, [str(p) for p in problems]  # fixtures must be valid for the loader
    assert block is not None
    return block


def _messages(name: str) -> list[str]:
    return [p.message for p in lint_block(_block(name))]


def _line_of(name: str, needle: str) -> int:
    for number, text in enumerate((LINT / name).read_text(encoding="utf-8").splitlines(), 1):
        if needle in text:
            return number
    raise AssertionError(f"{needle!r} not in {name}")


BAD = [
    ("precondition_arg_bad.yaml", "[precondition]", "`P1` (tool_arg)"),
    ("precondition_file_bad.yaml", "[precondition]", "`P2` (file_content)"),
    ("precondition_answer_bad.yaml", "[precondition]", "`P1` (response_number)"),
    ("precondition_turn_bad.yaml", "[precondition]", "`P2` (tool_arg)"),
    ("precondition_negated_bad.yaml", "[precondition]", "`P2` (tool_arg)"),
    ("fail_criteria_bad.yaml", "[fail-criteria]", "no FAIL criteria"),
    ("inverse_removed_bad.yaml", "[inverse]", "`scratch/old.txt` is gone"),
    ("inverse_absence_bad.yaml", "[inverse]", "only check that something did not happen"),
    ("judge_short_bad.yaml", "[judge]", "rubric of 5 characters"),
    ("judge_branch_bad.yaml", "[judge]", "none of its branches is a judge"),
    ("judge_branch_bad.yaml", "[judge]", "is a judge but tagged STATE"),
    ("judge_covers_bad.yaml", "[judge]", "asks `covers` but its reference lists 1 item(s)"),
    ("premise_text_bad.yaml", "[premise]", "a file is missing"),
    ("premise_text_bad.yaml", "[premise]", "a fact was never given"),
    ("premise_text_bad.yaml", "[premise]", "the material does not cover something"),
    ("premise_paths_bad.yaml", "[premise]", "names `notes/report.txt`"),
    ("premise_paths_bad.yaml", "[premise]", "inspects `notes/copy.txt`"),
    ("pattern_catastrophic_bad.yaml", "[pattern]", "`P1` pattern '^(a|aa)+$' backtracks"),
]

GOOD = sorted(p.name for p in LINT.glob("*_good.yaml"))


@pytest.mark.parametrize(("name", "rule", "fragment"), BAD)
def test_rule_fires_on_bad_fixture(name: str, rule: str, fragment: str) -> None:
    messages = _messages(name)
    hits = [m for m in messages if m.startswith(rule) and fragment in m]
    assert hits, f"{rule} with {fragment!r} not reported for {name}; got {messages}"


@pytest.mark.parametrize("name", GOOD)
def test_good_fixture_is_clean(name: str) -> None:
    assert _messages(name) == []


def test_every_rule_has_a_good_and_a_bad_fixture() -> None:
    rules = {"precondition", "fail_criteria", "inverse", "judge", "premise", "pattern"}
    for rule in rules:
        assert list(LINT.glob(f"{rule}_*bad.yaml")), rule
        assert list(LINT.glob(f"{rule}_*good.yaml")), rule
    assert len(GOOD) >= len(rules)


def test_precondition_problem_points_at_the_criterion_line() -> None:
    name = "precondition_arg_bad.yaml"
    [problem] = lint_block(_block(name))
    assert problem.file == str(LINT / name)
    assert problem.line == _line_of(name, "{id: P1,")
    assert str(problem).startswith(f"{LINT / name}:{problem.line}: [precondition]")


def test_file_written_by_a_non_writer_is_not_pinned() -> None:
    # The calculator ran, but a calculator cannot have produced notes/out.txt.
    messages = _messages("precondition_file_bad.yaml")
    assert any("`file_patch`" in m and "`file_write`" in m for m in messages), messages


def test_pin_in_another_turn_does_not_count() -> None:
    messages = _messages("precondition_turn_bad.yaml")
    assert any("in turn 2" in m for m in messages), messages


def test_inverse_problem_points_at_the_removal_check() -> None:
    name = "inverse_removed_bad.yaml"
    problems = [p for p in lint_block(_block(name)) if "[inverse]" in p.message]
    assert [p.line for p in problems] == [_line_of(name, "{id: P2,")]


def test_fail_criteria_problem_points_at_the_criteria_key() -> None:
    name = "fail_criteria_bad.yaml"
    [problem] = lint_block(_block(name))
    assert problem.line == _line_of(name, "criteria:")


def test_lint_battery_collects_and_sorts_problems_of_several_blocks() -> None:
    blocks = [_block("premise_paths_bad.yaml"), _block("fail_criteria_bad.yaml")]
    problems = lint_battery(blocks)
    files = {Path(p.file).name for p in problems}
    assert files == {"premise_paths_bad.yaml", "fail_criteria_bad.yaml"}
    assert problems == sorted(problems, key=lambda p: (p.file, p.line, p.message))


def test_good_and_bad_fixtures_differ_only_where_the_rule_looks() -> None:
    # Guards against a rule that fires on everything: the good twin of each bad fixture
    # (same id) loads and is clean, so the difference between the two is what the rule saw.
    for bad, _rule, _fragment in BAD:
        twin_id = _block(bad).id
        twins = [g for g in GOOD if _block(g).id == twin_id]
        if bad.startswith("judge_"):
            twins = ["judge_good.yaml"]
        if bad == "precondition_negated_bad.yaml":
            twins = ["precondition_arg_good.yaml"]
        assert twins, f"no good twin for {bad}"
        for twin in twins:
            assert _messages(twin) == []
