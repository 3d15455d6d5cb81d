"""The house as its imports draw it: agenttest's packages on floors, and the arrows between.

    python tools/house.py            # floors from the ground up, then every arrow
    python tools/house.py --json     # the same, for a script or a diff between commits

A package's floor is one above the highest package it imports (the ground floor imports
none), so an arrow always points down; a circle has no floor and is listed apart. An import
inside a function (a lazy one, kept for start-up) counts like any other: it is still a
dependency. ``tests/test_architecture.py`` holds the house to the floors the design names.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agenttest"


def owner(path: Path, package: Path = PACKAGE) -> str:
    """The top-level package (or module) of agenttest a source file belongs to."""
    return path.relative_to(package).parts[0].removesuffix(".py")


def imported(tree: ast.AST, path: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of every module or name a file imports, relative ones resolved."""
    here = list(path.relative_to(root).with_suffix("").parts[:-1])
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


def package_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each top-level package (or module) of agenttest and the others it imports."""
    graph: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        here = owner(path, package)
        targets = graph.setdefault(here, set())
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for _, name in imported(tree, path, package.parent):
            parts = name.split(".")
            if parts[0] != "agenttest" or len(parts) < 2 or parts[1] == here:
                continue
            if (package / parts[1]).is_dir() or (package / f"{parts[1]}.py").is_file():
                targets.add(parts[1])
    graph.pop("__init__", None)  # the package's face re-exports; it is nobody's floor
    for targets in graph.values():
        targets.discard("__init__")
    return graph


def floors(graph: dict[str, set[str]]) -> tuple[dict[str, int], list[str]]:
    """(floor of each package, the packages on a circle, which have none)."""
    floor: dict[str, int] = {}
    on_circle: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> int:
        if name in floor:
            return floor[name]
        if name in path:
            on_circle.update(path[path.index(name) :])
            return 0
        below = [visit(t, (*path, name)) for t in graph.get(name, ())]
        level = 1 + max(below, default=0)
        if name not in on_circle:
            floor[name] = level
        return level

    for name in sorted(graph):
        visit(name, ())
    return floor, sorted(on_circle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    graph = package_graph()
    floor, circles = floors(graph)
    arrows = sorted((a, b) for a, targets in graph.items() for b in targets)
    if args.json:
        out = {"floors": floor, "circles": circles, "arrows": arrows}
        print(json.dumps(out, indent=1, sort_keys=True))
        return 0
    for level in sorted(set(floor.values()), reverse=True):
        names = sorted(n for n, f in floor.items() if f == level)
        print(f"floor {level}: {', '.join(names)}")
    if circles:
        print(f"on a circle: {', '.join(circles)}")
    print(f"{len(arrows)} arrows between {len(graph)} packages:")
    for a, b in arrows:
        print(f"  {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
