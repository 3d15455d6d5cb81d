"""Docs are tested against the code: every `agenttest` command line in the README and the
guides names a real command and real options, and the README's quick start really runs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import typer.main

from agenttest.cli import app

from .conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "batteries" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"```(?:bash|sh|console)?\n(.*?)```", re.S)


def _command_lines() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for block in FENCE.findall(doc.read_text(encoding="utf-8")):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.strip().removeprefix("$ ")
                for part in re.split(r"&&|\|\||;|\|", line):
                    part = re.sub(r"^\w+=\$\(", "", part.strip()).rstrip(")")
                    if part.startswith("agenttest "):
                        found.append((doc.name, part))
    return found


def _resolve(tokens: list[str]):  # type: ignore[no-untyped-def]
    command = typer.main.get_command(app)
    path = ["agenttest"]
    while tokens and hasattr(command, "commands") and not tokens[0].startswith("-"):
        name = tokens.pop(0)
        assert name in command.commands, f"`{' '.join(path)} {name}`: no such command"
        command = command.commands[name]
        path.append(name)
    return command, path


def test_every_documented_command_and_option_exists() -> None:
    lines = _command_lines()
    assert len(lines) >= 15, "the docs should show the commands they describe"
    problems = []
    for doc, line in lines:
        try:
            tokens = shlex.split(line)[1:]
        except ValueError:
            continue
        try:
            command, path = _resolve(tokens)
        except AssertionError as exc:
            problems.append(f"{doc}: {line}: {exc}")
            continue
        known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
        if path == ["agenttest", "example-agent"]:  # hands its options to the agent's parser
            from agenttest.example_agent import build_parser

            known |= {o for a in build_parser()._actions for o in a.option_strings}
        for tok in tokens:
            if tok.startswith("--") and tok.split("=", 1)[0] not in known:
                problems.append(f"{doc}: {line}: `{' '.join(path)}` has no option {tok}")
    assert not problems, "\n".join(problems)


def test_readme_quick_start_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1]
    line = FENCE.findall(quick)[0].strip()
    assert "agenttest run batteries --agent example" in line
    # The install steps already happened for this test run; keep what the user runs after.
    steps = [s.strip() for s in line.split("&&")]
    steps = [s for s in steps if s.startswith(("RUN=", "agenttest report"))]
    assert steps and steps[0].startswith("RUN=$(agenttest run")
    limit = f" --only L1-CALC-01,SEC-01 --out {tmp_path} --allow-temp --judge none"
    steps[0] = steps[0][:-1] + limit + ")"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", "-c", " && ".join(steps)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    (run_file,) = tmp_path.glob("run_*.jsonl")
    html = run_file.with_suffix(".html")
    assert html.exists() and "<html" in html.read_text(encoding="utf-8").lower()
    assert "pass@1" in result.stdout and "L1-CALC-01" in result.stdout


_TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`(?: \(((?:`[^`]+`(?:, )?)+)\))?")


def test_every_test_security_md_names_exists() -> None:
    """docs/security.md pins each attack class to tests by `file::name`; each must be a
    real test function, and each case named after it (a fault kind, a catalogue case) a
    string in that file. Every class of the reliability review has a row with a test."""
    import ast

    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    refs = _TEST_REF.findall(text)
    assert len(refs) >= 30, refs
    for file, name, cases in refs:
        source = (ROOT / file).read_text(encoding="utf-8")
        tests = {
            node.name
            for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert name in tests, f"docs/security.md names {file}::{name}, which does not exist"
        for case in re.findall(r"`([^`]+)`", cases):
            assert case in source, f"docs/security.md: {file} has no case {case!r}"
    review = text.split("## Attack classes of the reliability review")[1].split("\n## ")[0]
    rows = [line for line in review.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(line.split("|")[1]) for line in rows] == list(range(1, 18))
    for row in rows:
        assert _TEST_REF.search(row), f"no test pins: {row[:80]}"
