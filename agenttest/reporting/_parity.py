"""Parity across engines: one run file, the same plan against two agents, and every block
whose decision differs between them.

The published lesson: a migration to a new engine silently dropped a deterministic rule
because the regression check only booted the old path. `agenttest run --agent A --agent B
--parity` records both in one file, each attempt labelled with its ``agent``; this module
collects such a file's labelled attempts (an attempt sink fed by the report's one pass,
see :mod:`._sinks`) and decides each block per agent with the report's own block rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttest.results import Attempt
from agenttest.verdicts import Rate, block_rule

from ._sinks import feed
from ._slots import SlotKey


@dataclass(frozen=True)
class ParityCell:
    passed: int
    failed: int
    errors: int
    decision: bool | None  # the block rule: pass, fail, or None (no gradable attempt)

    @property
    def text(self) -> str:
        word = {True: "pass", False: "FAIL", None: "no data"}[self.decision]
        extra = f" (+{self.errors} ERROR)" if self.errors else ""
        return f"{word} {self.passed}/{self.passed + self.failed}{extra}"


@dataclass(frozen=True)
class ParityRow:
    test_id: str
    tier: str
    cells: tuple[ParityCell, ...]  # one per agent, in `agents` order

    @property
    def differs(self) -> bool:
        return len({c.decision for c in self.cells}) > 1


@dataclass(frozen=True)
class Parity:
    agents: tuple[str, ...]
    rows: tuple[ParityRow, ...]  # every block

    @property
    def differing(self) -> tuple[ParityRow, ...]:
        return tuple(r for r in self.rows if r.differs)


# slot key -> agent, verdict, critical, tier
Latest = dict[SlotKey, tuple[str, str, bool, str]]


class ParitySink:
    """Collects the labelled attempts as the report's one pass reads them."""

    def __init__(self) -> None:
        self.latest: Latest = {}
        self.agents: list[str] = []

    def attempt(self, key: SlotKey, rec: Attempt) -> None:
        agent = rec.agent
        if agent is None:
            return
        if agent not in self.agents:
            self.agents.append(agent)
        self.latest[key] = (
            agent,
            str(rec.verdict),
            bool(rec.critical),
            str(rec.tier or ""),
        )

    def result(self) -> Parity | None:
        """The parity of the labelled attempts, or None when fewer than two agents ran."""
        agents = self.agents
        if len(agents) < 2:
            return None
        tally: dict[tuple[str, str], list[int]] = {}  # (test_id, agent) -> [p, f, e, crit]
        tiers: dict[str, str] = {}
        for (_run, test_id, _n), (agent, verdict, critical, tier) in self.latest.items():
            counts = tally.setdefault((test_id, agent), [0, 0, 0, 0])
            counts[{"PASS": 0, "FAIL": 1}.get(verdict, 2)] += 1
            counts[3] += 1 if critical else 0
            tiers[test_id] = tier
        rows = []
        for test_id in sorted(tiers):
            cells = []
            for agent in agents:
                p, f, e, crit = tally.get((test_id, agent), [0, 0, 0, 0])
                decision, _why = block_rule(tiers[test_id], Rate.of(p, f, e), crit)
                cells.append(ParityCell(p, f, e, decision))
            rows.append(ParityRow(test_id, tiers[test_id], tuple(cells)))
        return Parity(tuple(agents), tuple(rows))


def parity(paths: Sequence[str | Path]) -> Parity | None:
    """The parity of these run files alone (a report gets it from its own pass)."""
    sink = ParitySink()
    feed(paths, sink)
    return sink.result()


def render_parity_markdown(result: Parity | None) -> str:
    """The parity table: blocks whose decision differs (empty text when not a parity run)."""
    if result is None:
        return ""
    head = " | ".join(result.agents)
    lines = [
        "## Parity across agents",
        "",
        f"{len(result.rows)} blocks run against {len(result.agents)} agents; "
        f"{len(result.differing)} decided differently.",
        "",
    ]
    if result.differing:
        lines += [f"| Block | Tier | {head} |", "|---|---|" + "---|" * len(result.agents)]
        for row in result.differing:
            cells = " | ".join(c.text for c in row.cells)
            lines.append(f"| {row.test_id} | {row.tier} | {cells} |")
    else:
        lines.append("Every block got the same decision from every agent.")
    return "\n".join(lines) + "\n"
