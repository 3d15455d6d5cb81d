"""The newcomer's first hour, the reading part: what `--help` and the README say agrees with
the tool (exit codes, the record schema, dependencies, counts), through the real command."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import agenttest.errors
from agenttest.results import SCHEMA_VERSION

from .conftest import ROOT, run_cli

README = (ROOT / "README.md").read_text("utf-8")


def _section(heading: str) -> str:
    start = README.index(f"\n## {heading}\n")
    return README[start : README.index("\n## ", start + 1)]


def _help(*command: str) -> str:
    done = run_cli(*command, "--help")
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())  # Typer rewraps; compare words, not line breaks


def test_every_exit_code_is_in_the_help_and_in_the_readme_table_and_no_other() -> None:
    constants = {
        value for name, value in vars(agenttest.errors).items() if name.startswith("EXIT_")
    }
    table = {int(code) for code in re.findall(r"^\| (\d+) \|", _section("Exit codes"), re.M)}
    said = _help().split("Exit codes:", 1)[1].split("Options:", 1)[0]
    in_help = {int(code) for code in re.findall(r"(?:^|·) (\d+) ", said)}
    assert {0, 1, 2, 3, 4, 130} <= constants
    assert in_help == table == constants


def test_grade_and_import_help_name_the_current_record_schema() -> None:
    for command in ("grade", "import"):
        text = _help(command)
        assert f"schema {SCHEMA_VERSION}" in text, command
        stale = set(re.findall(r"schema (\d+\.\d+)", text)) - {SCHEMA_VERSION}
        assert not stale, (command, stale)
    readme_versions = set(re.findall(r"schema \(?(\d+\.\d+)\)?", README))
    readme_versions |= set(re.findall(r"record schema \((\d+\.\d+)\)", README))
    assert readme_versions == {SCHEMA_VERSION}


def test_the_readme_dependency_list_is_pyprojects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = {
        re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower() for dep in project["dependencies"]
    }
    runtime = _section("Dependencies").split("Runtime", 1)[1].split("scipy is not", 1)[0]
    listed = {name.lower() for name in re.findall(r"`([A-Za-z][\w.-]*)`", runtime)}
    listed -= {"pyproject.toml", "dependencies", "tokenizer.json"}
    assert listed == declared
    assert "scipy" not in declared and {"msgspec", "snowballstemmer", "regex", "mcp"} <= listed


def test_list_help_promises_what_the_table_shows() -> None:
    text = _help("list")
    assert "aliases" in text and "a row per case" in text
    done = run_cli("list", str(ROOT / "batteries"), "--tier", "L1")
    assert done.returncode == 0, done.stderr
    calc = next(line for line in done.stdout.splitlines() if line.startswith("L1-CALC-01 "))
    assert calc.endswith("(aka L1-HESAP-01, HESAP-01)")


def test_list_counts_blocks_as_validate_does(tmp_path: Path) -> None:
    # a parameterised block is one block with its cases counted apart, in `list`, `validate`
    # and the report alike (the report's count: tests/test_cases.py)
    battery = str(ROOT / "batteries")
    listed = run_cli("list", battery)
    validated = run_cli("validate", battery)
    assert listed.returncode == validated.returncode == 0
    counted = re.search(r"^(\d+) blocks, (\d+) cases \((\d+) rows", listed.stderr, re.M)
    valid = re.match(r"(\d+) blocks valid \(.*, (\d+) cases\)", validated.stdout)
    assert counted and valid, (listed.stderr, validated.stdout)
    blocks, cases, rows = map(int, counted.groups())
    assert (blocks, cases) == tuple(map(int, valid.groups()))
    assert rows == len(listed.stdout.splitlines()) > blocks


def test_list_refuses_a_tier_that_does_not_exist_as_run_does(tmp_path: Path) -> None:
    for command in (["list", "batteries"], ["run", "batteries", "--agent", "example"]):
        done = run_cli(*command, "--tier", "L9", cwd=ROOT)
        assert done.returncode == 2, command
        assert "--tier L9: not a tier (L1, L2, L3, L4, HR, MT, SEC, EV)" in done.stderr
        assert done.stdout == ""
    near = run_cli("list", "batteries", "--tier", "SCE", cwd=ROOT)
    assert near.returncode == 2 and "(did you mean `SEC`?)" in near.stderr


def test_the_readme_says_how_long_the_test_command_takes() -> None:
    command = "python -m pytest -q\n```\n"
    after = README[README.index(command) + len(command) :].strip().split("\n\n", 1)[0]
    assert re.search(r"about \d+ minutes", after), after
