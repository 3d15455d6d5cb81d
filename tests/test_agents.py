"""The agent seam: the runner drives any :class:`agenttest.agents.Agent` it is handed.

A kind of agent is one class with the protocol's methods and an entry in
``agenttest.agents.KINDS``; the runner asks :func:`agenttest.agents.connect` for one per
replica and knows nothing else about it. These specs run whole runs against an agent that
is no HTTP server at all, with one replica and with two.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agenttest.agents import (
    KINDS,
    Agent,
    AgentConfig,
    Evidence,
    Exchange,
    PreconditionUnmet,
    Reply,
    TurnLost,
    Waits,
    connect,
    parse_agent_config,
)
from agenttest.results import Attempt, iter_records

from ._run_file import end_of
from ._servers import agent_yaml, free_port, run_config, write_battery


class EchoAgent:
    """An agent in this process: it echoes each prompt and keeps what it was asked."""

    def __init__(self, config: AgentConfig, log: Callable[[str], None] | None) -> None:
        self.config = config
        self.waits = Waits()
        self.calls: list[str] = []
        self.turns = 0

    @property
    def evidence(self) -> Evidence:
        return Evidence()

    def start(self) -> None:
        self.calls.append("start")

    def wait_ready(
        self, *, wanted: Callable[[str], bool] | None = None, quiet: bool = False
    ) -> float:
        self.calls.append("ready")
        return 0.0

    def reset(self, session_id: str, *, memory: bool = False) -> int | None:
        self.calls.append("reset")
        return None

    def seed_memory(self, session_id: str, items: list[str]) -> None:
        raise PreconditionUnmet("an echo has no memory")

    def turn(self, session_id: str, prompt: str, number: int) -> Exchange:
        self.calls.append(f"turn {number}")
        self.turns += 1
        return Exchange(Reply(f"echo {number}: {prompt}", [], "ROUTE echo"), 200, 1)

    def stored(self, session_id: str, number: int) -> str:
        raise TurnLost("no_store", "an echo keeps nothing")

    def stop(self) -> None:
        self.calls.append("stop")


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[EchoAgent]:
    """Every agent the run asks for is an EchoAgent (registered for ``mode: native``)."""
    agents: list[EchoAgent] = []

    def make(config: AgentConfig, log: Callable[[str], None] | None) -> Agent:
        agents.append(EchoAgent(config, log))
        return agents[-1]

    monkeypatch.setitem(KINDS, "native", make)
    return agents


def _config(tmp_path: Path, replicas: int) -> Path:
    nowhere = [f"http://127.0.0.1:{free_port()}" for _ in range(replicas)]
    config: dict[str, Any] = json.loads(agent_yaml(nowhere[0]))
    if replicas > 1:
        config["replicas"] = [{"base_url": url} for url in nowhere]
    path = tmp_path / "agent.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@pytest.mark.parametrize("replicas", [1, 2])
def test_the_runner_drives_an_agent_that_is_no_http_server(
    tmp_path: Path, made: list[EchoAgent], replicas: int
) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-A-01": (2, 3), "L1-B-01": (1, 3)})
    path = run_config(tmp_path, battery, _config(tmp_path, replicas), judge="none")
    records = list(iter_records(path))
    attempts = [r for r in records if isinstance(r, Attempt)]
    assert len(attempts) == 6 and {a.verdict for a in attempts} == {"PASS"}
    two_turns = next(a for a in attempts if a.test_id == "L1-A-01")
    assert [t.response for t in two_turns.turns] == [
        "echo 1: L1-A-01 prompt 1",
        "echo 2: L1-A-01 prompt 2",
    ]
    assert end_of(records).reason == "completed"
    # one agent per replica, each started before its first request and stopped at the end
    assert len(made) == replicas
    assert sum(agent.turns for agent in made) == 9
    for agent in made:
        assert agent.calls[0] == "start" and agent.calls[-1] == "stop"
        assert agent.calls.count("start") == agent.calls.count("stop") == 1


def test_a_precondition_an_agent_cannot_meet_is_an_error_not_a_fail(
    tmp_path: Path, made: list[EchoAgent]
) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 1)})
    block = battery / "L1-A-01.yaml"
    block.write_text(
        block.read_text(encoding="utf-8").replace(
            "turns:", "fixtures:\n  - {kind: memory_seed, content: a note}\nturns:"
        ),
        encoding="utf-8",
    )
    path = run_config(tmp_path, battery, _config(tmp_path, 1), judge="none")
    (attempt,) = [r for r in iter_records(path) if isinstance(r, Attempt)]
    assert (attempt.verdict, attempt.error_cause) == ("ERROR", "precondition")
    assert "an echo has no memory" in (attempt.error or "")


def test_connect_picks_the_kind_by_mode(tmp_path: Path) -> None:
    text = agent_yaml("http://127.0.0.1:1", mode="openai")
    config = parse_agent_config(text, "agent.yaml", base_dir=tmp_path)
    agent = connect(config)
    try:
        assert agent.config is config
        assert agent.evidence == Evidence(stored_replies=False)
    finally:
        agent.stop()
