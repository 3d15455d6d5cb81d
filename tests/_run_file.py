"""A run file's records by type, for the specs that read back what a run wrote: the first
line is its run_meta, the last (of a run that ended) its run_end."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agenttest.results import Attempt, Grade, Record, RunEnd, RunMeta


def meta_of(records: Sequence[Record]) -> RunMeta:
    """The run_meta that opens the file."""
    first = records[0]
    assert isinstance(first, RunMeta), first
    return first


def end_of(records: Sequence[Record]) -> RunEnd:
    """The run_end that closes the file."""
    last = records[-1]
    assert isinstance(last, RunEnd), last
    return last


def attempts_of(records: Iterable[Record]) -> list[Attempt]:
    return [r for r in records if isinstance(r, Attempt)]


def grades_of(records: Iterable[Record]) -> list[Grade]:
    return [r for r in records if isinstance(r, Grade)]
