"""The example agent's misbehaviour on purpose: slow starts, busy replies, hangs, crashes.

All off by default; the command line and tests turn them on (``--busy-probability`` ...),
and the server's endpoints apply them per request.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

CRASH_EXIT_CODE = 70


@dataclass(frozen=True)
class Faults:
    """Misbehaviour on purpose, for tests and demos. All off by default.

    ``hang_after=N`` and ``crash_after=N``: the first N turns are answered normally; the
    next turn then never answers (it holds the agent busy until shutdown), or the process
    exits hard (``os._exit``) right after the N-th answer was sent.
    """

    loading_s: float = 0.0
    busy_probability: float = 0.0
    latency_s: float = 0.0
    hang_after: int | None = None
    crash_after: int | None = None
    garbage_probability: float = 0.0
    seed: int | None = None
    late_choices: bool = False  # streamed choices arrive after the question's text
    store_drift: bool = False  # the stored copy of a reply is not the one that was sent

    def __post_init__(self) -> None:
        for name in ("busy_probability", "garbage_probability"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1]")
        for name in ("loading_s", "latency_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        for name in ("hang_after", "crash_after"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name} must not be negative")

    @classmethod
    def names(cls) -> set[str]:
        return {f.name for f in fields(cls)}
