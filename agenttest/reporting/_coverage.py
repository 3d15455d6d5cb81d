"""Judge coverage in the report: of the JUDGE criteria each judge was asked, how many it
decided (issue 17), shown next to the κ table in every format.

A judge that abstains leaves a criterion ungraded; its κ against humans is over the
attempts it decided, so a report that shows κ shows this share with it. The counting is
:func:`agenttest.rating.judge_coverage`'s (one pass over the run files of its own); this
module feeds it from the aggregator's one pass and says how it reads as JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agenttest.results import Attempt

from ._slots import SlotKey

if TYPE_CHECKING:  # imported when a judge rater is seen (below), not with the report
    from agenttest.rating import Coverage


class CoverageSink:
    """Judge coverage fed by the aggregator's one pass (reporting._sinks): the newest attempt
    record of each judge rater per attempt. Grade records written by a later
    ``agenttest grade --judge`` are not in that pass; ``agenttest agreement`` counts them."""

    def __init__(self) -> None:
        self.newest: dict[tuple[SlotKey, str], list[tuple[str, bool]]] = {}

    def attempt(self, key: SlotKey, rec: Attempt) -> None:
        rater = rec.rater
        if rater is None or "+" not in rater:  # only rules+JUDGE raters ask a judge
            return
        from agenttest.rating import judged  # after the check: an import per attempt is not free

        self.newest[(key, rater)] = list(judged(rec.criteria))

    def result(self) -> tuple[Coverage, ...]:
        """Coverage per judge rater (empty when no judge was asked anything)."""
        if not self.newest:
            return ()  # no judge rater: `agenttest.rating` is not imported for nothing
        from agenttest.rating import Coverage

        out: dict[str, Coverage] = {}
        for (_, rater), marks in self.newest.items():
            row = out.setdefault(rater, Coverage(rater))
            for kind, decided in marks:
                row.asked += 1
                row.decided += decided
                tally = row.by_kind.setdefault(kind, [0, 0])
                tally[0] += decided
                tally[1] += 1
        return tuple(out[r] for r in sorted(out) if out[r].asked)


def coverage_dict(rows: Sequence[Coverage]) -> list[dict[str, Any]]:
    return [
        {
            "rater": c.rater,
            "asked": c.asked,
            "decided": c.decided,
            "coverage": c.share,
            "by_kind": {k: list(v) for k, v in sorted(c.by_kind.items())},  # [decided, asked]
        }
        for c in rows
    ]
