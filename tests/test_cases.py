"""Parameterised blocks: cases inline, from JSONL and CSV; ids, variables, k per case, and
the report's case categories from a real run against a loopback agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenttest.blocks import load_battery
from agenttest.errors import InputError
from agenttest.reporting import render_json, render_markdown
from agenttest.reporting._build import aggregate_report
from agenttest.runner import select_blocks

from ._servers import LoopbackAgent, run_battery_at

HEAD = """\
id: EV-T-01
tier: EV
category: TEST
title: a parameterised block
capability: repeats a word
turns: ["say {{word}}"]
k: 2
fixtures:
  - {kind: file, path: "notes/{{word}}.txt", content: "the word is {{word}}"}
criteria:
  pass:
    - {id: P1, tag: KEYWORD, type: response_contains, values: ["{{expect}}"], says: "it says {{expect}}"}
"""
INLINE = (
    HEAD
    + """\
cases:
  - {id: a, category: echo, word: alpha, expect: alpha}
  - {id: b, category: echo, word: beta, expect: beta}
  - {id: c, category: other, word: gamma, expect: delta}
"""
)


def _write(folder: Path, text: str, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "EV-T-01.yaml").write_text(text, encoding="utf-8")
    for name, body in files.items():
        (folder / name.replace("_", ".")).write_text(body, encoding="utf-8")
    return folder


def test_inline_cases_become_one_block_each(tmp_path: Path) -> None:
    battery = load_battery([_write(tmp_path / "b", INLINE)])
    assert [b.id for b in battery] == ["EV-T-01#a", "EV-T-01#b", "EV-T-01#c"]
    a = battery.get("EV-T-01#a")
    assert a is not None and a.case is not None
    assert a.case.category == "echo" and a.case.parent == "EV-T-01"
    assert a.prompts() == ("say alpha",)
    assert a.fixtures[0].path == "notes/alpha.txt" and a.fixtures[0].content == "the word is alpha"
    assert a.fill(a.criteria.pass_[0].values[0]) == "alpha"
    assert a.k == 2  # k applies per case
    # the block's own id selects all its cases
    assert [b.id for b in select_blocks(battery, ["EV-T-01"], [])] == [b.id for b in battery]
    assert [b.id for b in select_blocks(battery, ["EV-T-01#b"], [])] == ["EV-T-01#b"]


def test_cases_from_jsonl_and_csv(tmp_path: Path) -> None:
    rows = [
        {"id": "x1", "category": "true", "word": "one", "expect": "one"},
        {"id": 2, "word": "two", "expect": "two"},
    ]
    jsonl = "\n".join(json.dumps(r) for r in rows) + "\n"
    b1 = load_battery([_write(tmp_path / "j", HEAD + "cases: cases.jsonl\n", cases_jsonl=jsonl)])
    assert sorted(b.id for b in b1) == ["EV-T-01#2", "EV-T-01#x1"]
    two = b1.get("EV-T-01#2")
    assert two is not None and two.case is not None and two.case.category is None
    csv_text = "id,category,word,expect\nr1,silent,uno,uno\nr2,silent,dos,dos\n"
    b2 = load_battery([_write(tmp_path / "c", HEAD + "cases: cases.csv\n", cases_csv=csv_text)])
    assert sorted(b.prompts()[0] for b in b2) == ["say dos", "say uno"]


def _problems(folder: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_battery([folder])
    return info.value.lines()


def test_undefined_variable_names_the_case_line(tmp_path: Path) -> None:
    text = HEAD + "cases:\n  - {id: a, word: alpha, expect: alpha}\n  - {id: b, word: beta}\n"
    folder = _write(tmp_path / "u", text)
    lines = _problems(folder)
    assert lines == [f"{folder / 'EV-T-01.yaml'}:15: case `b` leaves {{{{expect}}}} undefined"]


def test_duplicate_case_id_in_a_file_names_its_line(tmp_path: Path) -> None:
    jsonl = '{"id": "a", "word": "w", "expect": "w"}\n\n{"id": "a", "word": "v", "expect": "v"}\n'
    folder = _write(tmp_path / "d", HEAD + "cases: cases.jsonl\n", cases_jsonl=jsonl)
    assert _problems(folder) == [
        f"{folder / 'cases.jsonl'}:3: case id `a` is used twice (first at line 1)"
    ]


@pytest.mark.parametrize(
    ("tail", "files", "expect"),
    [
        ("cases: ../x.jsonl\n", {}, "EV-T-01.yaml:13: `cases: ../x.jsonl` must name"),
        ("cases: none.jsonl\n", {}, "EV-T-01.yaml:13: `cases: none.jsonl`: cannot read"),
        ("cases: []\n", {}, "EV-T-01.yaml:13: `cases` must be a non-empty list"),
        ("cases:\n  - {word: w, expect: w}\n", {}, "EV-T-01.yaml:14: a case needs an `id`"),
        ("cases:\n  - {id: 'a b', word: w}\n", {}, "EV-T-01.yaml:14: case id `a b` must be"),
        ("cases: c.jsonl\n", {"c_jsonl": "{oops\n"}, "c.jsonl:1: not a JSON object"),
        ("cases:\n  - {id: a, word: [1], expect: w}\n", {}, "variable `word` must be text"),
    ],
)
def test_bad_cases_are_rejected_with_file_and_line(
    tmp_path: Path, tail: str, files: dict[str, str], expect: str
) -> None:
    folder = _write(tmp_path / "bad", HEAD + tail, **files)
    lines = _problems(folder)
    assert any(expect in line for line in lines), lines


def test_report_groups_cases_by_category_with_intervals(tmp_path: Path) -> None:
    folder = _write(tmp_path / "battery", INLINE)
    with LoopbackAgent() as agent:
        run_file = run_battery_at(tmp_path, agent.url, folder, workspace=str(tmp_path / "ws"))
    ids = [json.loads(line).get("test_id") for line in Path(run_file).read_text().splitlines()]
    assert ids.count("EV-T-01#a") == 2 and ids.count("EV-T-01#c") == 2  # precondition: k per case
    report = aggregate_report([run_file], battery=load_battery([folder]))
    (family,) = report.cases
    cats = {c.name: c for c in family.categories}
    assert set(cats) == {"echo", "other"}
    assert (cats["echo"].cases, cats["echo"].rate.passed, cats["echo"].rate.n) == (2, 4, 4)
    assert (cats["other"].rate.failed, cats["other"].fail_rate) == (2, 1.0)
    assert cats["echo"].rule_passed is True and cats["other"].rule_passed is False
    assert cats["other"].fail_low is not None and 0.3 < cats["other"].fail_low < 0.4
    md = render_markdown(report)
    assert "## Case categories" in md and "| EV-T-01 | other | 1 | 0/2 |" in md
    # a section of the report, above its footer (not appended after "Generated by")
    assert md.index("## Case categories") < md.index("## OWASP") < md.index("Generated by")
    data = json.loads(render_json(report))
    assert data["cases"]["EV-T-01"]["categories"]["echo"]["n"] == 4
    # the tier table counts the parameterised block once, its three cases apart
    assert (report.overall.blocks, report.overall.cases) == (1, 3)
    assert (data["tiers"]["EV"]["blocks"], data["tiers"]["EV"]["cases"]) == (1, 3)
    assert "| Tier | Blocks | Cases | Attempts |" in md and "| **all** | 1 | 3 | 6 |" in md
    assert report.overall.blocks_none_pass == 0  # only one case of the block never passed


def test_json_schema_knows_cases_inverse_ev_and_the_grounding_criteria() -> None:
    from agenttest.blocks import battery_json_schema

    defs = battery_json_schema()["$defs"]
    block = defs["Block"]["properties"]
    assert "EV" in block["tier"]["enum"]
    kinds = [a.get("type") for a in block["cases"]["anyOf"]]
    assert kinds == ["array", "string"]
    assert block["inverse"]["anyOf"][0]["type"] == "array"
    assert "memory_seed" in defs["Fixture"]["properties"]["kind"]["enum"]
    types = defs["Criterion"]["properties"]["type"]["enum"]
    for name in ("citations_grounded", "numbers_grounded", "failures_reported", "abstains"):
        assert name in types
    assert defs["Criterion"]["properties"]["derived"]["items"]["enum"][0] == "sum"


def test_list_json_names_the_case_and_its_category(tmp_path: Path) -> None:
    from agenttest.blocks import block_summaries

    rows = block_summaries(load_battery([_write(tmp_path / "l", INLINE)]))
    assert [(r["id"], r["case_of"], r["case_category"]) for r in rows] == [
        ("EV-T-01#a", "EV-T-01", "echo"),
        ("EV-T-01#b", "EV-T-01", "echo"),
        ("EV-T-01#c", "EV-T-01", "other"),
    ]
