"""Stop a run that is failing for a reason no retry will fix.

A typo in ``openai.path`` answers every attempt with 404; a wrong token with 401. Running
the rest of the plan only writes a night of identical ERRORs and exits 0. After
:data:`CONSECUTIVE` attempts in a row are lost to the same non-transient cause, the run
stops (exit 3, resumable) and says what to fix.
"""

from __future__ import annotations

from agenttest.results import Attempt

#: Attempts in a row lost to the same non-transient cause before the run stops.
CONSECUTIVE = 3

_HINTS = {
    401: "the agent refuses the credentials: check `headers` (and the ${VAR}s they use)",
    403: "the agent forbids the request: check `headers` and the account's permissions",
    404: "the path does not exist: check `openai.path` / `rest.request.path` and `base_url`",
    405: "the method is not allowed at that path: check `rest.request.method` and the path",
}


def _key(record: Attempt) -> tuple[str, int | None] | None:
    cause = record.error_cause
    status = None
    for turn in record.turns:
        if turn.http_status is not None:
            status = turn.http_status
    if cause == "http_error" and status in _HINTS:
        return cause, status
    if cause == "unreachable":  # refused although the agent had just reported ready
        return cause, None
    return None


class ConfigErrors(Exception):
    """Attempts in a row were lost to one configuration error: the run stops."""

    def resumable(self, path: object) -> str:
        """The message for the person, with the command that continues the run."""
        return str(self).replace("--resume FILE", f"agenttest run --resume {path}")


class ConfigErrorWatch:
    """Counts consecutive attempts lost to one non-transient cause."""

    def __init__(self, limit: int = CONSECUTIVE) -> None:
        self.limit = limit
        self._last: tuple[str, int | None] | None = None
        self._count = 0

    def seen(self, record: Attempt) -> str | None:
        """After each written attempt: the reason to stop, or None to go on."""
        key = _key(record)
        if key is None or key != self._last:
            self._last, self._count = key, (1 if key else 0)
        else:
            self._count += 1
        if key is None or self._count < self.limit:
            return None
        cause, status = key
        what = f"HTTP {status}" if status else "connection refused after the agent was ready"
        hint = _HINTS.get(status or 0, "check `base_url` and that nothing else restarts the agent")
        return (
            f"{self._count} attempts in a row were lost to {what} ({cause}); {hint}. "
            "Fix the agent config, then continue with --resume FILE --retry-errors"
        )
