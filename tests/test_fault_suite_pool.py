"""The fault suite for replica pools and parity runs: agents that stop being ready.

Three real loopback replicas; one (or every one) answers its health check 503 from the
moment it has served its first attempt, so it is taken an attempt it cannot start. The run
ends either way, in bounded time: the attempt it gives back is run by a replica that is
still up, or, with none left, the run stops with exit 3 and a ``run_end``. Nothing is lost,
nothing duplicated. A ``--parity`` run whose first or second agent never comes up ends
with one ``run_end`` that counts both agents, and it is never resumed by one agent.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agenttest.errors import EXIT_AGENT, EXIT_USAGE, AgentUnavailable, UsageError, exit_code_for
from agenttest.results import Attempt, RunEnd, iter_records
from agenttest.runner import RunRequest, run

from ._patience import EVENTUALLY_S
from ._run_file import attempts_of, end_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, run_config, write_battery
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


# -- parity runs: two agents, one file, one run_end (issue 32 #12) ---------------------------


def _parity(tmp_path: Path, first: LoopbackAgent, second: LoopbackAgent) -> Path | BaseException:
    """``run --parity`` of BLOCKS on ``first`` then ``second``; the run file, or what it
    raised."""
    battery = write_battery(tmp_path / "battery", BLOCKS)
    with first, second:
        configs = []
        for name, agent in (("one", first), ("two", second)):
            path = tmp_path / f"{name}.yaml"
            path.write_text(
                agent_yaml(agent.url, name=name, readiness={"timeout_s": 0.5}), encoding="utf-8"
            )
            configs.append(path)
        try:
            return Path(
                run_config(tmp_path, battery, configs[0], parity=[str(configs[1])], judge="none")
            )
        except AgentUnavailable as exc:
            return exc


@pytest.mark.parametrize("never_ready", ["first", "second"])
def test_a_parity_agent_never_ready_ends_the_file_with_one_run_end_for_both(
    tmp_path: Path, never_ready: str
) -> None:
    # agent 1 never ready: no run_end at all; agent 2 never ready: `recorded: 0` although
    # agent 1's 30 attempts were in the file
    down = Behaviour(loading_s=600)  # says "loading" for the whole test
    agents = [LoopbackAgent(Behaviour()), LoopbackAgent(Behaviour())]
    agents[0 if never_ready == "first" else 1] = LoopbackAgent(down)
    stopped = _parity(tmp_path, *agents)
    assert isinstance(stopped, AgentUnavailable), stopped
    assert exit_code_for(stopped) == EXIT_AGENT
    (path,) = (tmp_path / "out").glob("*.jsonl")
    records = list(iter_records(path))
    ends = [r for r in records if isinstance(r, RunEnd)]
    assert len(ends) == 1 and records[-1] is ends[0]
    end = ends[0]
    done = attempts_of(records)
    assert len(done) == (0 if never_ready == "first" else 30)
    assert end.parity and (end.reason or "").startswith("aborted")
    assert end.attempts["planned"] == 60  # both agents' plans
    assert end.attempts["recorded"] == len(done)
    assert "loading" in (end.reason or "")  # precondition: the agent was up, never ready
    assert "--parity run cannot be resumed: start it again" in str(stopped)
    assert "--resume" not in str(stopped)
    assert sum(end.counts["verdict"].values()) == len(done)


def test_a_plain_resume_of_a_parity_file_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    # it resumed with agent 1 on agent 2's slots, unlabelled
    agents = [LoopbackAgent(Behaviour()), LoopbackAgent(Behaviour(loading_s=600))]
    assert isinstance(_parity(tmp_path, *agents), AgentUnavailable)
    (path,) = (tmp_path / "out").glob("*.jsonl")
    before = path.read_bytes()
    with pytest.raises(UsageError) as refused:
        run(RunRequest(resume=path, allow_temp=True, quiet=True, judge="none"))
    assert exit_code_for(refused.value) == EXIT_USAGE
    assert f"{path} is a --parity run (one, two): it cannot be resumed" in str(refused.value)
    assert path.read_bytes() == before
