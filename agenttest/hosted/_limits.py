"""The host's bounds: what one attempt, one call and one result may cost."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HostLimits:
    """Bounds the host enforces; a call past one is refused with an MCP error and recorded."""

    #: Calls one attempt may make; the excess is refused and counted (``HostedInfo.refused``).
    max_calls: int = 200
    #: A result longer than this is stored cut (the record's ``result_chars`` says how long).
    max_result_chars: int = 16_000
    #: The arguments of one call, as JSON; larger ones are refused before the tool runs.
    max_argument_chars: int = 64_000
    #: A `timeout` fault hangs at most this long, whatever the block asks.
    max_fault_delay_s: float = 30.0
    #: One HTTP request body; a larger one is answered 413 before it is parsed.
    max_request_bytes: int = 1_000_000
