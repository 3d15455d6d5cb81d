"""`run --parity`: the same plan against a second agent, into the same run file.

Each attempt is labelled with its agent (``"agent"``: the config's name, made unique), so
the report can decide every block per agent and list those that differ. Only the writer
is wrapped: the run loop and the pool are the ones every run uses.

The file has one ``run_end``, and it speaks for the whole file: every agent's plan is
planned, every agent's records are counted. It is written when the last agent completes,
or as soon as any agent's drive stops the run (an agent never ready, a stop signal): a
first agent that never came up left a file with no ``run_end`` at all, and a second one's
said ``recorded: 0`` over the first one's attempts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agenttest.results import Attempt, Record, RunEnd, RunMeta

#: What a run_end's ``attempts`` sums over the agents (``recorded`` is counted in the file).
_SUMMED = ("skipped_as_decided", "written_this_session")


class ParityEnd:
    """What the agents of one parity run have written: the one run_end counts them all."""

    def __init__(self, agents: int) -> None:
        self.agents = agents
        self.slots: set[tuple[str, str, int]] = set()  # (agent, test id, run) recorded
        self.summed: Counter[str] = Counter()
        self.status: Counter[str] = Counter()
        self.verdict: Counter[str] = Counter()

    def seen(self, record: Attempt) -> None:
        self.slots.add((record.agent or "", record.test_id, record.run))

    def keep(self, end: RunEnd) -> None:
        """A completed agent's run_end, kept back: its counts go into the last one."""
        for key in _SUMMED:
            self.summed[key] += end.attempts.get(key, 0)
        self.status.update(end.counts.get("status", {}))
        self.verdict.update(end.counts.get("verdict", {}))

    def close(self, end: RunEnd) -> RunEnd:
        """The run_end of the whole file, from the agent whose drive ended the run."""
        self.keep(end)
        attempts = dict(end.attempts)
        attempts["planned"] = end.attempts.get("planned", 0) * self.agents
        attempts["recorded"] = len(self.slots)
        for key in _SUMMED:
            attempts[key] = self.summed[key]
        end.attempts = attempts
        end.counts = {"status": dict(self.status), "verdict": dict(self.verdict)}
        end.parity = True
        return end


class LabelledWriter:
    """Adds ``agent`` to every attempt record; a completed run_end of all but the last
    agent is kept back (one run file, one end), and the one written counts every agent."""

    def __init__(self, writer: Any, label: str, end: ParityEnd, *, last: bool) -> None:
        self.writer = writer
        self.label = label
        self.end = end
        self.last = last

    def append(self, record: Record) -> None:
        if isinstance(record, Attempt):
            record.agent = self.label
            self.end.seen(record)
        elif isinstance(record, RunEnd):
            if record.reason == "completed" and not self.last:
                self.end.keep(record)  # the next agent goes on
                return
            record = self.end.close(record)  # the run ends here, whichever agent this is
        self.writer.append(record)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.writer, name)


def refuse_resume(meta: RunMeta, path: object) -> str | None:
    """Why ``path`` cannot be resumed: a --parity run (its agents' slots would be run by
    one agent, unlabelled). None for any other run."""
    if not meta.parity:
        return None
    names = ", ".join(str(p.get("label", "?")) for p in meta.parity)
    return (
        f"{path} is a --parity run ({names}): it cannot be resumed, or one agent would run "
        "the other's attempts; start it again (`agenttest run ... --parity AGENT`)"
    )


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
