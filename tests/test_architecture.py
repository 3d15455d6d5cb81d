"""The house rules that the import graph can check: every package shows a face.

A package's private modules (``_name``) are its own; other packages use the names its
``__init__`` exports. Helpers several packages share live in ``agenttest/_util/``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "agenttest"
SHARED = "_util"  # the one private package every package may use


def _owner(path: Path) -> str:
    """The top-level package (or module) of agenttest a source file belongs to."""
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def _imported(tree: ast.AST, path: Path) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of every agenttest module or name a file imports."""
    rel = path.relative_to(ROOT).with_suffix("")
    here = list(rel.parts[:-1])  # the package a relative import starts from
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def violations(path: Path, source: str) -> list[str]:
    """Imports in one file of another package's private module or name."""
    owner = _owner(path)
    found = []
    for line, name in _imported(ast.parse(source), path):
        parts = name.split(".")
        if parts[0] != "agenttest" or len(parts) < 3:
            continue
        package, rest = parts[1], parts[2:]
        if package in (owner, SHARED):
            continue
        if any(p.startswith("_") for p in rest):
            found.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
    return found


def test_no_package_imports_another_packages_private_module() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += violations(path, path.read_text(encoding="utf-8"))
    assert found == []


def test_the_rule_sees_absolute_relative_and_name_imports() -> None:
    # The checker must flag each spelling, or the test above could pass for a blind reason.
    runner_file = PACKAGE / "runner" / "_config.py"
    bad = (
        "from agenttest.blocks._loader import Battery\n"
        "import agenttest.reporting._render\n"
        "from ..blocks._model import Turn\n"
        "from agenttest.reporting import _render\n"
    )
    assert len(violations(runner_file, bad)) == 4
    fine = (
        "from agenttest.blocks import Battery\n"
        "from ._client import AgentClient\n"
        "from agenttest.runner._plan import make_plan\n"
        "from agenttest._util.convert import suggest\n"
    )
    assert violations(runner_file, fine) == []
