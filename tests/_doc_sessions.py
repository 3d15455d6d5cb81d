"""Terminal sessions written into the docs (``$ agenttest …`` followed by what it printed),
replayed by the tests that own them so that a documented output cannot drift."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from .conftest import ROOT, run_cli

_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.S)


def documented_session(doc: str, opening: str) -> list[tuple[str, str]]:
    """The fenced block of ``docs/<doc>`` whose first line is ``opening``, as (command line,
    expected output) pairs; ``$ echo $?`` is kept as a command whose output is the exit code."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    block = next(b for b in _FENCE.findall(text) if b.startswith(opening))
    pairs: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        else:
            pairs[-1][1].append(line)
    return [(command, "\n".join(out)) for command, out in pairs]


def replay(session: list[tuple[str, str]], cwd: Path) -> list[tuple[str, str]]:
    """Run each ``agenttest`` command in ``cwd``: (command, stdout then stderr, stripped)."""
    got: list[tuple[str, str]] = []
    code = 0
    for command, _ in session:
        if command == "echo $?":
            got.append((command, str(code)))
            continue
        args = shlex.split(command)
        assert args[0] == "agenttest", command
        done = run_cli(*args[1:], cwd=cwd)
        code = done.returncode
        got.append((command, (done.stdout + done.stderr).rstrip("\n")))
    return got
