"""Report sections that read attempts in the aggregator's pass instead of a pass of their own.

A run file can hold 100,000 attempts: reading it is most of what a report costs, so it
is read once. A section that needs more of each attempt than the aggregator keeps (time to
first text, parity across agents) is an :class:`AttemptSink`: :class:`~._aggregate.Aggregator`
hands it every attempt record as it reads it, with the attempt's slot key, and the section
keeps only its own numbers, keyed by that slot key (a retry then replaces what its slot held,
and the key tuple is the aggregator's own, not a copy per section). :func:`feed` reads files
for one sink alone, for callers that want a single section (``agenttest run --parity``
prints the parity table without a report).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from agenttest.results import Attempt, RunMeta, iter_records, slot_key

from ._slots import SlotKey


class AttemptSink(Protocol):
    def attempt(self, key: SlotKey, rec: Attempt) -> None:
        """One attempt record of the slot ``key``; a later one for a slot replaces it."""


def run_id_of(meta: RunMeta | None, index: int) -> str:
    """The run id the aggregator files a run under (``file<N>`` when none was recorded)."""
    return (meta.run_id if meta is not None else None) or f"file{index + 1}"


def feed(paths: Sequence[str | Path], sink: AttemptSink) -> None:
    """Read the run files' attempts into ``sink`` (the aggregator does this for reports)."""
    for index, path in enumerate(paths):
        run_id = run_id_of(None, index)
        for rec in iter_records(Path(path)):
            if isinstance(rec, RunMeta):
                run_id = run_id_of(rec, index)
            elif isinstance(rec, Attempt):  # (its test id and run are typed: the reader says)
                sink.attempt(slot_key(run_id, rec.agent, rec.test_id, rec.run), rec)
