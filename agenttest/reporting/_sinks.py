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
from typing import Any, Protocol

from agenttest.results import iter_records, slot_key

from ._slots import SlotKey


class AttemptSink(Protocol):
    def attempt(self, key: SlotKey, rec: dict[str, Any]) -> None:
        """One attempt record of the slot ``key``; a later one for a slot replaces it."""


def run_id_of(meta: dict[str, Any], index: int) -> str:
    """The run id the aggregator files a run under (``file<N>`` when none was recorded)."""
    return str(meta.get("run_id") or f"file{index + 1}")


def feed(paths: Sequence[str | Path], sink: AttemptSink) -> None:
    """Read the run files' attempts into ``sink`` (the aggregator does this for reports)."""
    for index, path in enumerate(paths):
        run_id = run_id_of({}, index)
        for rec in iter_records(Path(path)):
            kind = rec.get("record_type")
            if kind == "run_meta":
                run_id = run_id_of(rec, index)
            elif kind == "attempt":
                test_id, number = rec.get("test_id"), rec.get("run")
                # malformed ids: the aggregator counts them and skips them, as here
                if test_id.__class__ is str and number.__class__ is int:
                    sink.attempt(slot_key(run_id, rec.get("agent"), test_id, number), rec)
