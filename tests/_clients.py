"""Clients of the loopback agents on a virtual clock, for the client's and the stream's specs.

A :class:`Clock` moves only when the client sleeps or the agent "works" on a request, so
latencies, waits and back-off are exact numbers, never wall-clock measurements.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agenttest.agents import AgentClient, parse_agent_config

from ._servers import agent_yaml


class Clock:
    """A monotonic clock that starts at 1000 s and moves only when told: by the client's
    sleeps, or by the agent while it "works" on a request (``Behaviour.on_turn``)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> Callable[[int], None]:
        return lambda _turn: setattr(self, "now", self.now + seconds)


class Clocked(AgentClient):
    """A client on a :class:`Clock` that keeps what it logged in ``lines``."""

    def __init__(self, url: str, tmp_path: Path, clock: Clock, **extra: object) -> None:
        text = agent_yaml(url, **extra)
        self.lines: list[str] = []
        cfg = parse_agent_config(text, str(tmp_path / "agent.yaml"), tmp_path)
        super().__init__(cfg, log=self.lines.append, clock=clock, sleep=clock.sleep)


clocked = Clocked


def polled_between(requests: list[tuple[str, str, float]]) -> list[str]:
    """The paths asked, with a run of health polls as one: how many polls it takes until the
    agent has finished an abandoned request depends on the machine, that it polls does not."""
    paths: list[str] = []
    for _m, path, _t in requests:
        if not (path == "/health" and paths and paths[-1] == "/health"):
            paths.append(path)
    return paths
