"""The criterion types of streamed turns and of offered choices (graders:
``agenttest/grading/_stream_criteria.py``; docs/grading.md says how each is decided).

A turn that was not streamed still has a time to first text: the whole body arrived at
once, so its first text came with its answer (``latency_ms``). Users feel that wait the
same way, and a criterion must not pass because the agent stopped streaming.
"""

from __future__ import annotations

from collections.abc import Iterator

from ._kinds import NO_CALLS, CriterionType, Needs, register
from ._model import Criterion

STREAM_PARTS: tuple[str, ...] = ("choices", "tool_call")


def _check_parts(c: Criterion, where: str) -> Iterator[tuple[str, str]]:
    for part in c.values:
        if part not in STREAM_PARTS:
            yield (
                "values",
                (
                    f"`{part}` in {where}.values is not a stream part; use "
                    + ", ".join(STREAM_PARTS)
                ),
            )


register(
    CriterionType(
        "ttft_max",
        "time to first text of the turn (every turn by default) is at most `seconds`; a "
        "turn that did not stream counts its whole answer time",
        ("seconds",),
        ("turn",),
        reads_calls=NO_CALLS,
    ),
    CriterionType(
        "arrives_with",
        "each part in `values` (`choices`, `tool_call`) arrived in the same event as the "
        "turn's first text, or before it, never after (default: the last turn)",
        ("values",),
        ("turn",),
        reads_calls="stream events the harness saw",
        check=_check_parts,
    ),
    CriterionType(
        "choice_offered",
        "the reply offered a choice: for every `choose:` turn, a choice whose label matched "
        "(by default); with `turn`, that reply offered a choice (whose label matches one of "
        "`values`, stemmed, English and Turkish)",
        (),
        ("values", "turn"),
        reads_calls=NO_CALLS,
        checks_choices=True,
    ),
    CriterionType(
        "stored_matches_stream",
        "the stored copy of each streamed reply (read back from the agent) equals the text "
        "the stream showed (default: every streamed turn)",
        (),
        ("turn",),
        reads_calls=NO_CALLS,
        needs=Needs(read_back=True),
    ),
)
