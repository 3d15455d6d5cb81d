"""A pool's replicas and what their workers hand to the driving thread (:mod:`._pool`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from agenttest.agents import Agent, AgentConfig, Waits
from agenttest.results import Attempt

from ._attempt import AttemptRunner
from ._plan import PlanItem

#: Harness causes after which a replica is checked before it gets another attempt.
SUSPECT_CAUSES = frozenset({"unreachable", "lost", "timeout", "busy"})


def replica_log(log: Callable[[str], None], index: int, of: int) -> Callable[[str], None]:
    """What one replica says, as the run shows it: named when there are several."""
    return log if of == 1 else (lambda message: log(f"replica {index}: {message}"))


@dataclass
class Replica:
    index: int
    agent: Agent
    attempts: AttemptRunner
    down_since: float | None = None  # monotonic time it was first seen not ready
    gone: bool = False  # down for its whole readiness timeout: counts towards stopping
    why_gone: str = ""  # what its readiness wait last said
    busy: bool = False
    suspect: bool = False
    working: bool = False  # its worker is running
    waited: Waits | None = None  # waited until it was back: counted in its next attempt
    served: int = 0
    seconds: float = 0.0  # wall time of the attempts it served

    @property
    def config(self) -> AgentConfig:
        return self.agent.config

    @property
    def mean_s(self) -> float | None:
        return self.seconds / self.served if self.served else None


# -- what a worker hands to the driving thread ------------------------------------------


@dataclass
class Started:
    item: PlanItem


@dataclass
class Skipped:
    item: PlanItem
    why: str


@dataclass
class Finished:
    replica: Replica
    item: PlanItem
    record: Attempt
    written: threading.Event = field(default_factory=threading.Event)


@dataclass
class AllGone:
    message: str


@dataclass
class Left:
    """A worker is done (nothing left for it, or the run is stopping)."""


Event = Started | Skipped | Finished | AllGone | Left
