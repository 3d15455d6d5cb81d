"""The criterion registry: one entry per type, and nothing else to touch to add one.

A toy type is declared here, in the test, as an entry and a grader, and registered for the
test alone; it is then loaded from a block file (its words checked, its own load check
run), published in the JSON Schema, linted by its lint facts, asked what the runner must
capture, and graded to a verdict, through the same public functions as a built-in type.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import agenttest
from agenttest.blocks import (
    CRITERION_TYPES,
    Block,
    BlockNeeds,
    Criterion,
    CriterionType,
    LintFacts,
    Needs,
    ToolsRan,
    battery_json_schema,
    block_needs,
    kind_of,
    load_battery,
    register,
    validate_paths,
)
from agenttest.errors import InputError
from agenttest.grading import GRADERS, Check, Ctx, criterion_type, ev, grade_attempt, grades
from agenttest.results import Attempt, TurnRecord

# ------------------------------------------------------------------- the toy entry


def _max_not_negative(c: Criterion, where: str) -> Iterator[tuple[str, str]]:
    if c.max is not None and c.max < 0:
        yield "max", f"`max` of {where} is below 0"


def _writer(block: Block, c: Criterion) -> ToolsRan | None:
    return ToolsRan(frozenset({"file_write"}), None)


TOY = CriterionType(
    "file_lines_max",
    "the workspace file at `path` has at most `max` lines after the attempt",
    ("path", "max"),
    (),
    reads_calls="does not read tool calls",
    needs=Needs(workspace_file=True),
    lint=LintFacts(polarity="presence", depends=_writer),
    check=_max_not_negative,
)


def file_lines_max(ctx: Ctx, c: Criterion) -> Check:
    files = ctx.attempt.workspace_files or {}
    text = files.get(c.path or "")
    if text is None:
        return Check(None, ev(note=f"{c.path} is not in the workspace snapshot"))
    lines = len(str(text).splitlines())
    return Check(lines <= (c.max or 0), ev(file=c.path, note=f"{lines} line(s)"))


@pytest.fixture
def toy() -> Iterator[CriterionType]:
    with criterion_type(TOY, file_lines_max) as kind:
        yield kind


# ----------------------------------------------------------------- a block using it


def _block_file(tmp_path: Path, criteria: str, name: str = "toy.yaml") -> Path:
    body = textwrap.dedent(
        """\
        id: TOY-01
        tier: L1
        category: TOY
        title: a short note
        capability: writes a note of at most two lines
        turns: ["write a two-line note to notes/n.txt"]
        k: 1
        fixtures:
          - {kind: absent, path: notes/n.txt}
        criteria:
        """
    )
    path = tmp_path / name
    path.write_text(body + textwrap.indent(textwrap.dedent(criteria), "  "), encoding="utf-8")
    return path


SHORT = """\
pass:
  - {id: P1, tag: STATE, type: file_lines_max, path: notes/n.txt, max: 2, says: short}
fail:
  - {id: F1, tag: STATE, type: file_absent, path: notes/n.txt, says: no note}
"""


def _attempt(note: str) -> Attempt:
    return Attempt(
        test_id="TOY-01",
        run=1,
        k=1,
        status="completed",
        turns=[TurnRecord(prompt="p", response="done")],
        workspace_files={"notes/n.txt": note},
    )


def test_a_registered_type_is_loaded_checked_and_published(
    toy: CriterionType, tmp_path: Path
) -> None:
    battery = load_battery([_block_file(tmp_path, SHORT)])
    (block,) = battery.blocks
    assert kind_of(block.criteria.pass_[0]) is toy
    assert (
        "file_lines_max"
        in battery_json_schema()["$defs"]["Criterion"]["properties"]["type"]["enum"]
    )

    wrong = SHORT.replace("max: 2,", "max: -1, values: [x],")
    with pytest.raises(InputError) as caught:
        load_battery([_block_file(tmp_path, wrong)])
    messages = [p.message for p in caught.value.problems]
    assert any("`values` does not apply to criterion type `file_lines_max`" in m for m in messages)
    assert any("`max` of criteria.pass[P1] is below 0" in m for m in messages)


def test_a_type_is_unknown_once_its_entry_is_gone(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_battery([_block_file(tmp_path, SHORT)])
    assert any(
        "unknown criterion type `file_lines_max`" in p.message for p in caught.value.problems
    )
    assert "file_lines_max" not in CRITERION_TYPES and "file_lines_max" not in GRADERS


def test_a_registered_type_is_linted_by_its_facts(toy: CriterionType, tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        validate_paths([_block_file(tmp_path, SHORT)], strict=True)
    pre = [p.message for p in caught.value.problems if p.message.startswith("[precondition]")]
    assert pre and "`P1` (file_lines_max)" in pre[0] and "`file_write`" in pre[0]

    pinned = SHORT.replace(
        "pass:\n", "pass:\n  - {id: P0, tag: STATE, type: tool_called, tool: file_write, says: w}\n"
    )
    validate_paths([_block_file(tmp_path, pinned)], strict=True)  # no lint problem left


def test_a_registered_type_says_what_the_runner_captures(
    toy: CriterionType, tmp_path: Path
) -> None:
    (block,) = load_battery([_block_file(tmp_path, SHORT)]).blocks
    assert block_needs(block).workspace_files == ("notes/n.txt",)


def test_a_registered_type_is_graded_to_a_verdict(toy: CriterionType, tmp_path: Path) -> None:
    (block,) = load_battery([_block_file(tmp_path, SHORT)]).blocks
    passed = grade_attempt(block, _attempt("one\ntwo\n"))
    assert passed.verdict == "PASS"
    assert passed.criteria[0].evidence is not None
    assert passed.criteria[0].evidence.note == "2 line(s)"
    failed = grade_attempt(block, _attempt("one\ntwo\nthree\n"))
    assert failed.verdict == "FAIL"
    assert failed.criteria[0].passed is False


def test_the_registry_refuses_an_entry_it_could_not_use() -> None:
    with pytest.raises(ValueError, match="no such parameter"):
        register(dataclasses.replace(TOY, optional=("lines",)))
    with pytest.raises(ValueError, match="registered twice"):
        register(dataclasses.replace(TOY, name="tool_called"))
    with pytest.raises(ValueError, match="how it reads tool calls"):
        register(dataclasses.replace(TOY, reads_calls=""))
    with pytest.raises(ValueError, match="no criterion type"):
        grades("file_lines_max")(file_lines_max)
    assert "file_lines_max" not in CRITERION_TYPES


def test_every_grader_grades_a_registered_type_that_does_not_nest() -> None:
    assert set(GRADERS) == {n for n, k in CRITERION_TYPES.items() if not k.nested}


def test_the_built_in_entries_say_what_the_runner_captures(tmp_path: Path) -> None:
    plain = _block_file(
        tmp_path,
        """\
        pass:
          - {id: P1, tag: STATE, type: response_regex, pattern: x, says: x}
        """,
    )
    needing = _block_file(
        tmp_path,
        """\
        pass:
          - {id: P1, tag: STATE, type: file_exists, path: ./notes//n.txt, says: the note}
          - {id: P2, tag: STATE, type: trace_contains, values: [x], says: logged}
        fail:
          - {id: F1, tag: STATE, type: any_of, says: either, of: [
              {id: F1a, tag: STATE, type: stored_matches_stream, says: stored},
              {id: F1b, tag: JUDGE, type: judge, asks: consistent,
               rubric: the reply contradicts the tool results, says: judged}]}
        """,
        "needing.yaml",
    )
    (block,) = load_battery([plain]).blocks
    assert block_needs(block) == BlockNeeds((), read_back=False, judge=False, trace=False)
    (block,) = load_battery([needing]).blocks
    assert block_needs(block) == BlockNeeds(
        ("notes/n.txt",), read_back=True, judge=True, trace=True
    )


# ------------------------------------------------- no code names a type but its entry


def _type_branches(source: str) -> list[int]:
    """Lines comparing a ``.type`` to a literal name (``c.type == "judge"``, ``in (...)``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)):
            continue
        if node.left.attr != "type":
            continue
        for comp in node.comparators:
            items = comp.elts if isinstance(comp, ast.Tuple | ast.List | ast.Set) else [comp]
            if any(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
                found.append(node.lineno)
    return found


def test_no_code_branches_on_a_criterion_type_name() -> None:
    # a question about a type is asked of its entry (kind_of(c).needs.judge), so a new
    # type never has to be added to a list somewhere else
    package = Path(agenttest.__file__).parent
    found = [
        f"{path.relative_to(package)}:{line}"
        for path in sorted(package.rglob("*.py"))
        for line in _type_branches(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_branch_rule_sees_each_spelling() -> None:
    bad = 'a = c.type == "judge"\nb = c.type in ("x", "y")\nd = sub.type != "any_of"\n'
    assert _type_branches(bad) == [1, 2, 3]
    assert _type_branches("a = c.type in CRITERION_TYPES\nb = c.kind == 'file'\n") == []
