"""Replica pools against real loopback agents: parallel across replicas, never within one;
a replica that dies is drained, one that comes back is used again; kill -9 and resume."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agenttest.agents import parse_agent_config
from agenttest.errors import EXIT_AGENT, AgentUnavailable, InputError, exit_code_for
from agenttest.results import Attempt, RunEnd, iter_records
from agenttest.runner import RunRequest, run

from ._patience import EVENTUALLY_S
from ._run_file import end_of, meta_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, free_port, run_config, write_battery
from .test_runner_resume import spawn


def pool_config(tmp_path: Path, agents: list[LoopbackAgent], **extra: Any) -> Path:
    config = json.loads(agent_yaml(agents[0].url, **extra))
    del config["base_url"]  # a pool may leave it out: the replicas name their own
    config["replicas"] = [
        {"base_url": a.url, "workspace": str(tmp_path / f"ws{i}")} for i, a in enumerate(agents)
    ]
    for i in range(len(agents)):
        (tmp_path / f"ws{i}").mkdir(exist_ok=True)
    path = tmp_path / "pool.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def run_pool(tmp_path: Path, config: Path, blocks: dict[str, tuple[int, int]]) -> Path:
    battery = write_battery(tmp_path / "battery", blocks)
    return Path(run_config(tmp_path, battery, config, judge="none"))


def attempts(path: Path) -> list[Attempt]:
    return [r for r in iter_records(path) if isinstance(r, Attempt)]


def test_replicas_work_at_once_but_never_two_requests_on_one(tmp_path: Path) -> None:
    # Each replica's first turn waits at a barrier for the other two: the run can only get
    # past it if all three replicas are in an attempt at the same moment.
    together = threading.Barrier(3, timeout=EVENTUALLY_S)

    def first_turn_meets(n: int) -> None:
        if n == 1:
            together.wait()

    agents = [
        LoopbackAgent(Behaviour(turn_delay_s=0.01, on_turn=first_turn_meets)) for _ in range(3)
    ]
    for a in agents:
        a.start()
    try:
        config = pool_config(tmp_path, agents, timeouts={"answer_s": 40})
        path = run_pool(tmp_path, config, {"L1-A-01": (2, 4), "L1-B-01": (1, 4), "L1-C-01": (3, 3)})
    finally:
        for a in agents:
            a.stop()
    done = attempts(path)
    assert Counter((a.test_id, a.run) for a in done) == {
        (b, r): 1 for b, k in (("L1-A-01", 4), ("L1-B-01", 4), ("L1-C-01", 3)) for r in range(1, k + 1)
    }  # fmt: skip
    assert all(a.verdict == "PASS" for a in done), [a.error for a in done]
    assert not together.broken
    for agent in agents:
        assert agent.state.max_in_flight == 1  # health probes included: one at a time each
    assert {a.replica for a in done} == {0, 1, 2}
    # an attempt's turns and reset all went to one replica: the sessions it reset there
    for done_one in done:
        assert done_one.replica is not None
        server = agents[done_one.replica].state
        assert any(r.get("session_id") == done_one.session_id for r in server.resets)
    meta = meta_of(list(iter_records(path)))
    assert [r["base_url"] for r in meta.agent["replicas"]] == [a.url for a in agents]


def test_a_replica_that_dies_is_drained_and_the_run_completes(tmp_path: Path) -> None:
    agents = [LoopbackAgent(Behaviour(turn_delay_s=0.02)) for _ in range(3)]

    def crash_on_second_turn(n: int) -> None:
        if n == 2:
            agents[1].stop()  # the connection is cut while this turn is being answered

    agents[1].behaviour.on_turn = crash_on_second_turn
    for a in agents:
        a.start()
    try:
        config = pool_config(tmp_path, agents, readiness={"timeout_s": 1})
        path = run_pool(tmp_path, config, {"L1-A-01": (1, 6), "L1-B-01": (1, 6)})
    finally:
        for a in agents:
            a.stop()
    done = attempts(path)
    assert Counter((a.test_id, a.run) for a in done) == {
        (b, r): 1 for b in ("L1-A-01", "L1-B-01") for r in range(1, 7)
    }
    errors = [a for a in done if a.verdict == "ERROR"]
    assert len(errors) == 1 and errors[0].replica == 1
    assert errors[0].error_cause in ("lost", "unreachable")
    assert sum(1 for a in done if a.replica == 1) == 2  # one served, one lost, then out
    assert {a.replica for a in done if a.verdict == "PASS"} == {0, 1, 2}
    end = end_of(list(iter_records(path)))
    assert end.reason == "completed"


def test_a_replica_that_comes_back_is_used_again(tmp_path: Path) -> None:
    back_and_serving = threading.Event()
    a, b = LoopbackAgent(Behaviour()), LoopbackAgent(Behaviour())

    def a_waits_for_b(n: int) -> None:
        if n == 1:
            back_and_serving.wait(EVENTUALLY_S)  # A holds its first attempt until B served again

    def b_crashes_then_serves(n: int) -> None:
        if n == 1:
            b.restart(0.5)  # cut while this turn is being answered; back half a second later
        else:
            back_and_serving.set()

    a.behaviour.on_turn, b.behaviour.on_turn = a_waits_for_b, b_crashes_then_serves
    a.start(), b.start()
    try:
        config = pool_config(tmp_path, [a, b], timeouts={"answer_s": 40})
        path = run_pool(tmp_path, config, {"L1-A-01": (1, 5)})
    finally:
        a.stop()
        b.stop()
    assert back_and_serving.is_set()
    on_b = [x for x in attempts(path) if x.replica == 1]
    assert on_b[0].verdict == "ERROR" and on_b[0].error_cause in ("lost", "unreachable")
    assert any(x.verdict == "PASS" for x in on_b[1:])
    assert len(attempts(path)) == 5


def test_every_replica_gone_exits_3_after_recording_why(tmp_path: Path) -> None:
    agents = [LoopbackAgent(Behaviour()), LoopbackAgent(Behaviour())]
    config = json.loads(agent_yaml(agents[0].url, readiness={"timeout_s": 0.5}))
    config["replicas"] = [{"base_url": f"http://127.0.0.1:{free_port()}"} for _ in range(2)]
    path = tmp_path / "pool.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(AgentUnavailable, match="no replica"):
        run_pool(tmp_path, path, {"L1-A-01": (1, 2)})
    (run_file,) = (tmp_path / "out").glob("*.jsonl")
    records = list(iter_records(run_file))
    assert isinstance(records[-1], RunEnd)
    assert (end_of(records).reason or "").startswith("aborted")
    assert not [r for r in records if isinstance(r, Attempt)]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_kill_mid_pool_then_resume_runs_every_attempt_exactly_once(
    tmp_path: Path, sig: signal.Signals
) -> None:
    seen = threading.Event()
    count = [0]
    lock = threading.Lock()

    def after_six(_n: int) -> None:
        with lock:
            count[0] += 1
            if count[0] >= 6:
                seen.set()

    agents = [LoopbackAgent(Behaviour(turn_delay_s=0.05, on_turn=after_six)) for _ in range(3)]
    for a in agents:
        a.start()
    blocks = {"L1-A-01": (1, 6), "L1-B-01": (2, 6), "L1-C-01": (1, 6)}
    battery = write_battery(tmp_path / "battery", blocks)
    config = pool_config(tmp_path, agents)
    try:
        proc = spawn(str(battery), "--agent", str(config), "--out", str(tmp_path / "out"))
        assert seen.wait(EVENTUALLY_S), proc.communicate(timeout=EVENTUALLY_S)
        os.kill(proc.pid, sig)
        code = proc.wait(EVENTUALLY_S)
        assert code == (-9 if sig == signal.SIGKILL else 130), proc.communicate()
        (path,) = (tmp_path / "out").glob("*.jsonl")
        before = attempts(path)
        assert 0 < len(before) < 18  # precondition: killed mid-run
        if sig == signal.SIGINT:  # a clean stop says so; the attempts in flight are not kept
            assert end_of(list(iter_records(path))).reason == "interrupted"
        resumed = spawn("--resume", str(path))
        assert resumed.wait(EVENTUALLY_S) == 0, resumed.communicate()
    finally:
        for a in agents:
            a.stop()
    after = attempts(path)
    keys = Counter((a.test_id, a.run) for a in after)
    assert keys == {(b, r): 1 for b in blocks for r in range(1, 7)}
    assert all(a.verdict == "PASS" for a in after)
    assert {a.replica for a in after} == {0, 1, 2}


def _unauthorized(handler: Any) -> bool:
    handler.send_response(401)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", "2")
    handler.end_headers()
    handler.wfile.write(b"{}")
    return True


def test_a_401_on_every_turn_stops_one_agent_and_a_pool_alike(tmp_path: Path) -> None:
    # Wrong credentials: no retry can fix them. One agent and a pool of two must stop the
    # same way: exit 3 after the same attempts, a run_end, and what to fix.
    seen: dict[int, tuple[int, str | None, str]] = {}
    for replicas in (1, 2):
        where = tmp_path / f"replicas{replicas}"
        where.mkdir()
        agents = [
            LoopbackAgent(Behaviour(raw_turns={n: _unauthorized for n in range(1, 100)})).start()
            for _ in range(replicas)
        ]
        try:
            if replicas == 1:
                config = where / "agent.yaml"
                config.write_text(agent_yaml(agents[0].url), encoding="utf-8")
            else:
                config = pool_config(where, agents)
            with pytest.raises(AgentUnavailable) as stopped:
                run_pool(where, config, {"L1-A-01": (1, 6), "L1-B-01": (2, 6)})
        finally:
            for a in agents:
                a.stop()
        assert exit_code_for(stopped.value) == EXIT_AGENT
        (path,) = (where / "out").glob("*.jsonl")
        records = list(iter_records(path))
        lost = attempts(path)
        assert {(a.error_cause, a.turns[-1].http_status) for a in lost} == {("http_error", 401)}
        end = end_of(records)
        assert (end.reason or "").startswith("aborted: ")
        assert end.attempts["written_this_session"] == len(lost)
        message = str(stopped.value)
        assert "check `headers`" in message
        assert f"continue with agenttest run --resume {path} --retry-errors" in message
        seen[replicas] = (len(lost), end.reason, message.replace(str(path), "RUN"))
    assert seen[1][0] == 3
    assert seen[2] == seen[1]


def test_replica_config_errors_point_at_the_line(tmp_path: Path) -> None:
    def problems(text: str) -> list[str]:
        with pytest.raises(InputError) as caught:
            parse_agent_config(text, "pool.yaml", base_dir=tmp_path)
        return caught.value.lines()

    twice = (
        "model: m\nreplicas:\n  - base_url: http://127.0.0.1:1\n  - base_url: http://127.0.0.1:1\n"
    )
    assert problems(twice) == ["pool.yaml:2: two replicas share one base_url"]
    bad = "model: m\nreplicas:\n  - base_url: ftp://x\n"
    assert problems(bad) == ["pool.yaml:2: `base_url` must be an http(s) URL, got `ftp://x`"]
    text = (
        "model: m\nheaders: {authorization: Bearer x}\nlog_file: shared.log\nreplicas:\n"
        "  - {base_url: 'http://u:secret@127.0.0.1:1/?key=s', workspace: w1}\n"
        "  - {base_url: 'http://127.0.0.1:2'}\n"
    )
    cfg = parse_agent_config(text, "pool.yaml", base_dir=tmp_path)
    one, two = cfg.pool()
    assert one.workspace == str(tmp_path / "w1") and two.workspace is None
    assert one.log_file == two.log_file == str(tmp_path / "shared.log")
    assert one.headers == two.headers and one.replicas == ()
    redacted = json.dumps(cfg.redacted())
    assert "secret" not in redacted and "key=s" not in redacted and "Bearer" not in redacted


def test_replicas_option_is_for_the_example_agent_only(tmp_path: Path) -> None:
    from agenttest.errors import UsageError

    with pytest.raises(UsageError, match="--replicas"):
        run(RunRequest(paths=["batteries/L1"], agent="agent.yaml", replicas=2, out=tmp_path))


def test_longest_expected_attempts_go_first_within_each_round(tmp_path: Path) -> None:
    from agenttest.blocks import load_battery
    from agenttest.results import RunWriter
    from agenttest.runner import make_plan
    from agenttest.runner._pool import expected_order, expected_seconds

    folder = write_battery(
        tmp_path / "b", {"L1-A-01": (1, 2), "L1-B-01": (3, 2), "L1-C-01": (2, 2)}
    )
    plan = make_plan(list(load_battery([str(folder)])), None)
    by_turns = [(i.block.id, i.run) for i in expected_order(plan, expected_seconds(None))]
    assert by_turns == [
        ("L1-B-01", 1), ("L1-C-01", 1), ("L1-A-01", 1),
        ("L1-B-01", 2), ("L1-C-01", 2), ("L1-A-01", 2),
    ]  # fmt: skip
    baseline = tmp_path / "baseline.jsonl"
    with RunWriter(baseline, create=True) as writer:
        writer.append({"record_type": "run_meta", "schema_version": "2.0", "run_id": "x"})
        for test_id, ms in (("L1-A-01", 9000), ("L1-A-01", 7000), ("L1-B-01", 100)):
            writer.append(
                {"record_type": "attempt", "schema_version": "2.0", "test_id": test_id,
                 "run": 1, "latency_ms": ms}
            )  # fmt: skip
    timed = [i.block.id for i in expected_order(plan, expected_seconds(baseline)) if i.run == 1]
    # A took 8 s on average; C is not in the baseline, so it is assumed as long as the longest
    assert timed == ["L1-A-01", "L1-C-01", "L1-B-01"]


def test_retry_errors_reruns_a_lost_attempt_on_another_replica(tmp_path: Path) -> None:
    together = threading.Barrier(
        2, timeout=EVENTUALLY_S
    )  # run 1 and run 2 start on different replicas

    def meet(n: int) -> None:
        if n == 1:
            together.wait()

    good = LoopbackAgent(Behaviour(on_turn=meet))
    bad = LoopbackAgent(Behaviour(on_turn=meet, drop_turns={1}))  # loses its first turn
    good.start(), bad.start()
    try:
        config = pool_config(tmp_path, [good, bad], timeouts={"answer_s": 40})
        path = run_pool(tmp_path, config, {"L1-A-01": (1, 2)})
        lost = [a for a in attempts(path) if a.verdict == "ERROR"]
        assert [a.replica for a in lost] == [1]  # precondition: replica 1 lost one
        run(RunRequest(resume=path, retry_errors=True, allow_temp=True, quiet=True, judge="none"))
    finally:
        good.stop()
        bad.stop()
    retried = [a for a in attempts(path) if a.run == lost[0].run]
    assert [a.replica for a in retried] == [1, 0]
    assert retried[-1].verdict == "PASS"
    assert bad.state.turns == 1  # the retry never went back to the replica that lost it


def test_plain_progress_lines_know_the_pool() -> None:
    import io

    from agenttest.runner import Estimate, LineProgress

    out = io.StringIO()
    progress = LineProgress(out)
    progress.start(10, 2, "run.jsonl")
    progress.attempt_skipped("SEC-01", 3, "decided FAIL after 1 of 5: ...")
    progress.pool(3, 1, Estimate(100.0, 130.0, 170.0))
    progress.attempt_done(
        Attempt(test_id="L1-A-01", run=2, verdict="PASS", latency_ms=1500, replica=2)
    )
    lines = out.getvalue().splitlines()
    assert lines[1].endswith("[3/10] SEC-01 run 3: skipped, decided FAIL after 1 of 5: ...")
    assert lines[2].endswith(
        "[4/10] L1-A-01 run 2 on replica 2: PASS in 1.5s | pool: 4/10 done, "
        "1 skipped as decided; 3 busy, 1 down; eta 0:02:10 (0:01:40 to 0:02:50)"
    )
