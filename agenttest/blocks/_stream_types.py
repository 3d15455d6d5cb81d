"""The criterion types of streamed turns and of offered choices (their graders live in
``agenttest.grading``; docs/grading.md says how each is decided).

A turn that was not streamed still has a time to first text: the whole body arrived at
once, so its first text came with its answer (``latency_ms``). Users feel that wait the
same way, and a criterion must not pass because the agent stopped streaming.
"""

from __future__ import annotations

#: (name, doc, required, optional), the fields of ``CriterionType``.
STREAM_TYPES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "ttft_max",
        "time to first text of the turn (every turn by default) is at most `seconds`; a "
        "turn that did not stream counts its whole answer time",
        ("seconds",),
        ("turn",),
    ),
    (
        "arrives_with",
        "each part in `values` (`choices`, `tool_call`) arrived in the same event as the "
        "turn's first text, or before it, never after (default: the last turn)",
        ("values",),
        ("turn",),
    ),
    (
        "choice_offered",
        "the reply offered a choice: for every `choose:` turn, a choice whose label matched "
        "(by default); with `turn`, that reply offered a choice (whose label matches one of "
        "`values`, stemmed, English and Turkish)",
        (),
        ("values", "turn"),
    ),
    (
        "stored_matches_stream",
        "the stored copy of each streamed reply (read back from the agent) equals the text "
        "the stream showed (default: every streamed turn)",
        (),
        ("turn",),
    ),
)
STREAM_PARTS: tuple[str, ...] = ("choices", "tool_call")
