"""`run --parity`: the same plan against a second agent, into the same run file.

Each attempt is labelled with its agent (``"agent"``: the config's name, made unique), so
the report can decide every block per agent and list those that differ. Only the writer
is wrapped: the run loop and the pool are the ones every run uses.
"""

from __future__ import annotations

from typing import Any

from agenttest.results import Attempt, Record, RunEnd


class LabelledWriter:
    """Adds ``agent`` to every attempt record; the run_end of all but the last agent is
    kept back (one run file, one end)."""

    def __init__(self, writer: Any, label: str, *, last: bool) -> None:
        self.writer = writer
        self.label = label
        self.last = last

    def append(self, record: Record) -> None:
        if isinstance(record, Attempt):
            record.agent = self.label
        elif isinstance(record, RunEnd) and not self.last:
            return
        elif isinstance(record, RunEnd):
            record.parity = True
        self.writer.append(record)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.writer, name)


def labels(names: list[str]) -> list[str]:
    """The agents' names, each made unique (``example``, ``example#2``)."""
    out: list[str] = []
    for name in names:
        label, n = name, 1
        while label in out:
            n += 1
            label = f"{name}#{n}"
        out.append(label)
    return out
