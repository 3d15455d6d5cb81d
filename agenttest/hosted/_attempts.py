"""Which attempt a hosted call belongs to, and the harness's record of it.

The runner says when an attempt starts and ends (``begin``/``end``) from its own thread; the
MCP server admits each call from its event loop thread. A call admitted while an attempt
runs is that attempt's, even if it finishes after ``end`` (``end`` waits for the calls in
flight, briefly); a call with no attempt running is refused and counted. One request in
flight per replica makes this exact.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agenttest.blocks import Fault
from agenttest.results import HostedInfo, ToolCall

from ._faults import FaultState
from ._limits import HostLimits
from ._spec import ToolOutcome

#: Refused calls past the bound are recorded up to this many more, then only counted, so a
#: flood cannot grow the record without end.
RECORDED_REFUSALS = 20
_SHOWN_ARG_CHARS = 200  # an oversized argument is recorded cut to this


class Refused(Exception):
    """A call the host will not serve: the MCP error it is answered with."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Attempt:
    """One attempt's world, faults and calls (the calls not yet taken, and counts)."""

    world: Path
    faults: FaultState
    calls: list[ToolCall] = field(default_factory=list)
    admitted: int = 0
    refused: int = 0
    in_flight: int = 0
    malformed: int = 0


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def shown_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as recorded for an oversized call: each long text cut, marked."""
    out: dict[str, Any] = {}
    for key, value in list(arguments.items())[:50]:
        if isinstance(value, str) and len(value) > _SHOWN_ARG_CHARS:
            value = value[:_SHOWN_ARG_CHARS] + f"… [{len(value)} characters]"
        elif not isinstance(value, str | int | float | bool | type(None)):
            value = json.dumps(value)[:_SHOWN_ARG_CHARS]
        out[str(key)[:_SHOWN_ARG_CHARS]] = value
    return out


def capped(text: str, limit: int) -> tuple[str, int | None]:
    """(the text the agent gets and the record keeps, its full length when it was cut)."""
    if len(text) <= limit:
        return text, None
    return text[:limit] + f"\n[... {len(text) - limit} more characters not shown]", len(text)


class Attribution:
    """The host's attempts: the one running, the calls it made, the refusals."""

    def __init__(self, url: str, limits: HostLimits) -> None:
        self.url = url
        self.limits = limits
        self.refused_outside = 0
        self._cond = threading.Condition()
        self._attempt: Attempt | None = None
        self._last: Attempt | None = None

    def begin(self, world_root: Path, faults: Sequence[Fault]) -> None:
        with self._cond:
            if self._attempt is not None:
                raise RuntimeError("hosted tools: begin() while an attempt is running")
            self._attempt = Attempt(world_root, FaultState(tuple(faults)))
            self._last = self._attempt

    def end(self) -> HostedInfo:
        with self._cond:
            attempt = self._attempt
            if attempt is None:
                raise RuntimeError("hosted tools: end() with no attempt running")
            self._attempt = None
            # a call admitted before the end belongs to the attempt: let it finish
            deadline = time.monotonic() + self.limits.max_fault_delay_s + 5
            while attempt.in_flight and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())
            return HostedInfo(
                url=self.url,
                refused=attempt.refused,
                faults_fired=attempt.faults.fired,
                malformed=attempt.malformed,
            )

    def take(self) -> list[ToolCall]:
        """The calls recorded since the last take (after ``end``: the ended attempt's rest)."""
        with self._cond:
            attempt = self._attempt or self._last
            if attempt is None:
                return []
            calls, attempt.calls = attempt.calls, []
            return calls

    def malformed(self) -> None:
        """Count a request the server answered as unreadable (it never became a call):
        the running attempt's, else one refused outside any attempt."""
        with self._cond:
            if self._attempt is None:
                self.refused_outside += 1
            else:
                self._attempt.malformed += 1

    def admit(self, name: str, arguments: Mapping[str, Any]) -> Attempt:
        """The attempt this call belongs to; :class:`Refused` (recorded when there is an
        attempt) when it is outside one or over the attempt's bound."""
        with self._cond:
            attempt = self._attempt
            if attempt is None:
                self.refused_outside += 1
                raise Refused(
                    -32600,
                    "no attempt is running on this host: a hosted tool is only served while "
                    "the harness runs an attempt",
                )
            if attempt.admitted >= self.limits.max_calls:
                attempt.refused += 1
                message = (
                    f"refused: this attempt already made {self.limits.max_calls} hosted "
                    "calls, the most one attempt may make"
                )
                if attempt.refused <= RECORDED_REFUSALS:
                    self._record(attempt, name, shown_arguments(arguments), message)
                raise Refused(-32600, message)
            attempt.admitted += 1
            attempt.in_flight += 1
            return attempt

    def refuse(self, attempt: Attempt, name: str, arguments: Mapping[str, Any], code: int,
               message: str) -> Refused:  # fmt: skip
        """Record an admitted call the host will not serve (unknown tool, oversized), and
        the error to answer it with."""
        with self._cond:
            self._record(attempt, name, shown_arguments(arguments), message)
            self._done(attempt)
        return Refused(code, message)

    def finish(self, attempt: Attempt, name: str, arguments: Mapping[str, Any],
               outcome: ToolOutcome, started: str, t0: float) -> tuple[str, bool]:  # fmt: skip
        """Record a served call; (the text the agent gets, whether it is an error)."""
        text, full = capped(outcome.result if outcome.ok else (outcome.error or ""),
                            self.limits.max_result_chars)  # fmt: skip
        call = ToolCall(
            name=name,
            arguments=dict(arguments),
            ok=outcome.ok,
            result=text if outcome.ok else None,
            error=None if outcome.ok else text,
            origin="harness",
            started_at=started,
            duration_ms=round((time.perf_counter() - t0) * 1000),
            result_chars=full,
        )
        with self._cond:
            attempt.calls.append(call)
            self._done(attempt)
        return text, not outcome.ok

    def _record(self, attempt: Attempt, name: str, arguments: dict[str, Any], error: str) -> None:
        attempt.calls.append(
            ToolCall(name=name[:200], arguments=arguments, ok=False, error=error,
                     origin="harness", started_at=now_iso(), duration_ms=0)
        )  # fmt: skip

    def _done(self, attempt: Attempt) -> None:
        attempt.in_flight -= 1
        self._cond.notify_all()
