"""Judge coverage in the report: of the JUDGE criteria each judge was asked, how many it
decided (issue 17), shown next to the κ table in every format.

A judge that abstains leaves a criterion ungraded; its κ against humans is over the
attempts it decided, so a report that shows κ shows this share with it. The counting is
:func:`agenttest.rating.judge_coverage`'s (one pass over the run files of its own); this
module only decides when a run has anything to show and how it reads as JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def coverage_section(paths: Sequence[str | Path]) -> tuple[Any, ...]:
    """Coverage per judge rater (empty when no judge was asked anything)."""
    from agenttest.rating import judge_coverage

    return tuple(judge_coverage(paths))


def coverage_dict(rows: Sequence[Any]) -> list[dict[str, Any]]:
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
