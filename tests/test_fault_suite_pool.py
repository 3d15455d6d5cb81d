"""The fault suite for replica pools: replicas that stop being ready between attempts.

Three real loopback replicas; one (or every one) answers its health check 503 from the
moment it has served its first attempt, so it is taken an attempt it cannot start. The run
ends either way, in bounded time: the attempt it gives back is run by a replica that is
still up, or, with none left, the run stops with exit 3 and a ``run_end``. Nothing is lost,
nothing duplicated.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agenttest.errors import EXIT_AGENT, AgentUnavailable, exit_code_for
from agenttest.results import Attempt, iter_records

from ._patience import EVENTUALLY_S
from ._run_file import attempts_of, end_of
from ._servers import Behaviour, LoopbackAgent
from .test_runner_pool import pool_config, run_pool

BLOCKS = {"L1-A-01": (1, 10), "L1-B-01": (2, 10), "L1-C-01": (1, 10)}  # 30 attempts


def _down_after_first_turn(agent: LoopbackAgent) -> threading.Event:
    """``agent`` answers /health 503 from its first turn on, for good."""
    down = threading.Event()

    def health(handler: Any) -> bool:
        if not down.is_set():
            return False
        handler._send(503, {"status": "down"})
        return True

    agent.behaviour.raw_health = health
    agent.behaviour.on_turn = lambda _n: down.set()
    return down


def _run_bounded(tmp_path: Path, agents: list[LoopbackAgent]) -> Path | BaseException:
    """The pool run (its agents started, then stopped) in a thread, so a hang fails the
    test instead of blocking the suite."""
    for a in agents:
        a.start()
    config = pool_config(
        tmp_path, agents, readiness={"timeout_s": 1, "poll_s": 0.05, "max_poll_s": 0.2}
    )
    outcome: list[Path | BaseException] = []

    def go() -> None:
        try:
            outcome.append(run_pool(tmp_path, config, BLOCKS))
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    thread = threading.Thread(target=go, daemon=True)
    try:
        thread.start()
        thread.join(EVENTUALLY_S)
    finally:
        for a in agents:
            a.stop()
    assert outcome, "the pool run never ended"
    return outcome[0]


def test_a_replica_that_stops_being_ready_gives_its_attempt_to_the_others(
    tmp_path: Path,
) -> None:
    agents = [LoopbackAgent(Behaviour(turn_delay_s=0.02)) for _ in range(3)]
    down = _down_after_first_turn(agents[2])
    path = _run_bounded(tmp_path, agents)
    assert isinstance(path, Path), path
    assert down.is_set()  # precondition: the replica went down mid-run
    records = list(iter_records(path))
    done = attempts_of(records)
    assert Counter((a.test_id, a.run) for a in done) == {
        (b, r): 1 for b in BLOCKS for r in range(1, 11)
    }
    assert [a.replica for a in done].count(2) == 1  # its first attempt, then nothing
    assert all(a.verdict == "PASS" for a in done)
    assert end_of(records).reason == "completed"


def test_every_replica_stopping_being_ready_ends_the_run_with_exit_3(tmp_path: Path) -> None:
    agents = [LoopbackAgent(Behaviour(turn_delay_s=0.02)) for _ in range(3)]
    for a in agents:
        _down_after_first_turn(a)
    stopped = _run_bounded(tmp_path, agents)
    assert isinstance(stopped, AgentUnavailable), stopped
    assert exit_code_for(stopped) == EXIT_AGENT
    assert "--resume" in str(stopped)
    (path,) = (tmp_path / "out").glob("*.jsonl")
    records = list(iter_records(path))
    done = [r for r in records if isinstance(r, Attempt)]
    keys = [(a.test_id, a.run) for a in done]
    assert len(keys) == len(set(keys)) == 3  # one served on each, none twice
    assert (end_of(records).reason or "").startswith("aborted")


@pytest.mark.parametrize("replicas_down", [1, 2])
def test_replicas_down_from_the_start_leave_the_work_to_the_rest(
    tmp_path: Path, replicas_down: int
) -> None:
    agents = [LoopbackAgent(Behaviour(turn_delay_s=0.01)) for _ in range(3)]
    for a in agents[:replicas_down]:
        _down_after_first_turn(a).set()
    path = _run_bounded(tmp_path, agents)
    assert isinstance(path, Path), path
    records = list(iter_records(path))
    done = attempts_of(records)
    assert len(done) == 30 and {a.replica for a in done} == set(range(replicas_down, 3))
    assert end_of(records).reason == "completed"


def _not_found(handler: Any) -> bool:
    handler._send(404, {"error": "no such path"})
    return True


def test_a_404_on_every_replica_stops_the_pool_with_exit_3(tmp_path: Path) -> None:
    # A wrong path answers every turn on every replica: the stop after three attempts in a
    # row holds for a pool as for one agent (it wrote 30 ERRORs and exited 0).
    agents = [
        LoopbackAgent(Behaviour(raw_turns={n: _not_found for n in range(1, 40)})) for _ in range(3)
    ]
    stopped = _run_bounded(tmp_path, agents)
    assert isinstance(stopped, AgentUnavailable), stopped
    assert exit_code_for(stopped) == EXIT_AGENT and "check `openai.path`" in str(stopped)
    (path,) = (tmp_path / "out").glob("*.jsonl")
    records = list(iter_records(path))
    lost = attempts_of(records)
    assert 3 <= len(lost) < 30
    assert {a.error_cause for a in lost} == {"http_error"}
    assert (end_of(records).reason or "").startswith("aborted")
