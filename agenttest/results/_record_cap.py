"""The largest record a run file takes: an attempt whose line would be longer is written
as a garbage ERROR that keeps what identifies it, so every reader reads it back.

A line longer than the readers' cap (``MAX_LINE_BYTES``) is skipped unread; an attempt
lost that way is missing, and ``--resume`` would run it again forever. A reply is capped
at 32 MiB, but what the harness keeps of it (tool calls expanded to records, evidence,
a stream's text beside its reply) can be many times that: such a reply is garbage.
"""

from __future__ import annotations

import msgspec

from ._parts import TurnRecord
from ._records import Attempt

#: Well below the readers' 256 MiB line cap: room for a record's own growth on re-grading.
MAX_RECORD_BYTES = 64 * 1024 * 1024
#: What is kept of each turn's prompt and reply text in a record over the cap.
KEPT_CHARS = 4_096


def within_cap(record: Attempt, size: int) -> Attempt:
    """``record`` as a garbage ERROR (its turns' text clipped, their calls, evidence and
    criteria dropped) when its line is ``size`` bytes, over :data:`MAX_RECORD_BYTES`."""
    turns = [
        TurnRecord(
            prompt=t.prompt[:KEPT_CHARS],
            response=None if t.response is None else t.response[:KEPT_CHARS],
            http_status=t.http_status,
            latency_ms=t.latency_ms,
            started_at=t.started_at,
            completed_at=t.completed_at,
            notes=[f"kept the first {KEPT_CHARS:,} characters; calls and trace dropped"],
        )
        for t in record.turns
    ]
    return msgspec.structs.replace(
        record,
        turns=turns,
        status="error",
        verdict="ERROR",
        error_cause="garbage",
        error=(
            f"the attempt's record would be {size:,} bytes, over the {MAX_RECORD_BYTES:,} a "
            f"run file line may hold: the agent's replies are garbage"
        ),
        criteria=[],
        critical=[],
        workspace_files=None,
    )
