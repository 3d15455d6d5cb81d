"""A battery checked against the reference misbehaving agents: can a verdict be had for free?

Each reference agent (:data:`agenttest.agents.REFERENCE_AGENTS`: idle, echo, yes-man,
refuser, liar) runs the battery once (k = 1, every case of a parameterised block) through
the ordinary runner, in this process, and each block's outcome is held against what the
block expects of it: never PASS, unless the block's ``reference_agents`` says otherwise and
why (a refuser passes a block whose right answer is to decline). A block that an agent
passes against its expectation is a problem, reported with the criteria that let it
through, so its author can see which checks a shrug or a lie satisfies.
"""

from __future__ import annotations

import collections
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agenttest.agents import REFERENCE_AGENTS
from agenttest.blocks import Battery, Expectation, load_battery
from agenttest.errors import Problem
from agenttest.results import Attempt, iter_records

from ._hosted import free_loopback_url
from ._progress import Progress
from ._run import run
from ._session import RunRequest

NEVER_PASS = "not PASS"


@dataclass
class Cell:
    """One block × one reference agent: the verdicts its attempts got."""

    block: str
    agent: str
    verdicts: collections.Counter[str] = field(default_factory=collections.Counter)
    expected: Expectation | None = None
    #: the counted pass criteria that held on an attempt that passed: "P1: says"
    through: list[str] = field(default_factory=list)
    where: Problem | None = None  # the block's file and line, for the problem's message

    @property
    def outcome(self) -> str:
        """``PASS``, ``FAIL``, … when every attempt agrees, else the counts."""
        if len(self.verdicts) == 1:
            return next(iter(self.verdicts))
        return ", ".join(f"{v} {n}" for v, n in sorted(self.verdicts.items()))

    @property
    def wanted(self) -> str:
        return self.expected.outcome if self.expected is not None else NEVER_PASS

    @property
    def met(self) -> bool:
        verdicts = {v.split(" ")[0] for v in self.verdicts}  # "ERROR (cause)" is an ERROR
        if self.expected is None:
            return "PASS" not in verdicts
        return verdicts == {self.expected.outcome}


@dataclass
class ReferenceCheck:
    """Every cell of the battery × reference agents table."""

    cells: list[Cell]

    def unmet(self) -> list[Cell]:
        return [c for c in self.cells if not c.met]

    def problems(self) -> list[Problem]:
        """One located problem per unmet expectation, naming the criteria that let a
        PASS through."""
        found = []
        for c in self.unmet():
            text = f"{c.block}: the {c.agent} agent got {c.outcome}, expected {c.wanted}"
            if c.through:
                text += "; let through by " + "; ".join(c.through)
            file, line = (c.where.file, c.where.line) if c.where else (c.block, 0)
            found.append(Problem(file, line, text))
        return found

    def table(self) -> str:
        """The table as Markdown: a row per block, a column per agent (outcome, and the
        expectation where the block states one)."""
        rows: dict[str, dict[str, Cell]] = {}
        for c in self.cells:
            rows.setdefault(c.block, {})[c.agent] = c
        agents = [a for a in REFERENCE_AGENTS if any(a in r for r in rows.values())]
        lines = [
            "| block | " + " | ".join(agents) + " |",
            "|---|" + "---|" * len(agents),
        ]
        for block in sorted(rows):
            shown = []
            for a in agents:
                cell = rows[block].get(a)
                text = "—" if cell is None else cell.outcome
                if cell is not None and cell.expected is not None:
                    text += f" (expected: {cell.expected.because})"
                if cell is not None and not cell.met:
                    text = f"**{text}** ✗"
                shown.append(text)
            lines.append(f"| {block} | " + " | ".join(shown) + " |")
        return "\n".join(lines) + "\n"


def reference_agent_config(folder: Path, agent: str, hosted: bool = True) -> Path:
    """Write the agent config of reference agent ``agent`` (idle, echo, …) into ``folder``."""
    path = folder / f"reference-{agent}.yaml"
    # base_url is never contacted: a reference agent lives in this process. With hosted
    # tools, a call the liar claims of a hosted tool meets the harness's record and the
    # hosted-only blocks run.
    hosted_line = f"hosted_tools: {{url: '{free_loopback_url()}'}}\n" if hosted else ""
    path.write_text(
        f"mode: reference\nmodel: {agent}\nbase_url: http://127.0.0.1:9\n{hosted_line}",
        encoding="utf-8",
    )
    return path


def _cells(battery: Battery, agent: str, path: Path) -> list[Cell]:
    cells: dict[str, Cell] = {}
    for record in iter_records(path):
        if not isinstance(record, Attempt) or record.verdict is None:
            continue
        block = battery.get(record.test_id)
        stated = block.reference_agents.items() if block is not None else ()
        expected = next((e for name, e in stated if name == agent), None)
        where = None
        if block is not None and block.source is not None:
            where = Problem(block.source.file, block.source.line, "")
        cell = cells.setdefault(
            record.test_id, Cell(record.test_id, agent, expected=expected, where=where)
        )
        cause = (
            f" ({record.error_cause})" if record.verdict == "ERROR" and record.error_cause else ""
        )
        cell.verdicts[record.verdict + cause] += 1
        if record.verdict == "PASS":
            for c in record.criteria:
                if c.kind == "pass" and c.passed and not c.strict_only:
                    held = f"{c.id}: {c.says}" if c.says else c.id
                    if held not in cell.through:
                        cell.through.append(held)
    return list(cells.values())


def check_reference_agents(
    paths: Sequence[str],
    *,
    overlay: str | None = None,
    agents: Sequence[str] = REFERENCE_AGENTS,
    judge: str | None = "none",
    only: Sequence[str] = (),
    tiers: Sequence[str] = (),
    strict: bool = False,
    progress: Progress | None = None,
) -> ReferenceCheck:
    """Run each reference agent over the battery and hold each block to its expectation.

    The run files go to a temporary folder that is removed afterwards: they are a means,
    not a record. ``judge`` is ``none`` by default (a JUDGE criterion stays undecided, which
    never PASSes), so the check needs no model and its answer does not depend on one."""
    battery = load_battery(paths, overlay)
    cells: list[Cell] = []
    with tempfile.TemporaryDirectory(prefix="agenttest-reference-") as tmp:
        folder = Path(tmp)
        for agent in agents:
            request = RunRequest(
                paths=list(paths),
                agent=str(reference_agent_config(folder, agent)),
                overlay=overlay,
                k=1,
                only=list(only),
                tiers=list(tiers),
                out=folder,
                label=agent,
                allow_temp=True,
                judge=judge,
                strict=strict,
            )
            cells += _cells(battery, agent, run(request, progress=progress))
    return ReferenceCheck(cells)
