"""The house rules that the import graph can check: every package shows a face.

A package's private modules (``_name``) are its own; other packages use the names its
``__init__`` exports. Helpers several packages share live in ``agenttest/_util/``.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "agenttest"
SHARED = "_util"  # the one private package every package may use


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


house = _tool("house")


def violations(path: Path, source: str) -> list[str]:
    """Imports in one file of another package's private module or name."""
    owner = house.owner(path, PACKAGE)
    found = []
    for line, name in house.imported(ast.parse(source), path, ROOT):
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


# -- floors: shared rules live below their users --------------------------------------------

#: (lower, higher): the lower package is on a lower floor, so the higher one may import it
#: and it can never import the higher one back, not even lazily inside a function.
BELOW = [
    ("text", "grading"),  # reading text and numbers: one package both graders use
    ("text", "judges"),
    ("judges", "grading"),  # grading runs a judge; a judge never asks the grader
    ("verdicts", "runner"),  # the block rule and which verdict counts, below every user
    ("verdicts", "reporting"),
    ("verdicts", "rating"),
    ("results", "verdicts"),
    ("results", "grading"),
    ("agents", "runner"),  # the agent seam: the runner drives agents, agents know no runs
    ("blocks", "grading"),  # criterion entries below the graders that register for them
    ("grading", "runner"),
    ("blocks", "hosted"),  # hosted tools read a block's faults and record results' calls
    ("results", "hosted"),
    ("hosted", "runner"),  # the runner starts the host; the host knows no runs
    ("reporting", "batch"),
    ("runner", "batch"),
]


def test_the_package_graph_has_no_circle() -> None:
    _, circles = house.floors(house.package_graph(PACKAGE))
    assert circles == []


@pytest.mark.parametrize(("lower", "higher"), BELOW)
def test_a_shared_rule_sits_below_its_users(lower: str, higher: str) -> None:
    floor, _ = house.floors(house.package_graph(PACKAGE))
    assert floor[lower] < floor[higher]


def test_the_floors_see_a_circle_and_a_lazy_import(tmp_path: Path) -> None:
    # The checks above must fail for the shapes they guard against: an import inside a
    # function counts, and two packages importing each other have no floor.
    pkg = tmp_path / "agenttest"
    for name, body in {
        "grading/__init__.py": "from agenttest.text import words\n",
        "text/__init__.py": "def words():\n    from agenttest.grading import x\n",
        "stats/__init__.py": "",
        "verdicts/__init__.py": "from agenttest.stats import y\n",
    }.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(body, encoding="utf-8")
    graph = house.package_graph(pkg)
    assert graph["text"] == {"grading"}
    floor, circles = house.floors(graph)
    assert circles == ["grading", "text"]
    assert floor == {"stats": 1, "verdicts": 2}
