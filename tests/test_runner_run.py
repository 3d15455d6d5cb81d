"""Whole runs in-process against misbehaving loopback agents: every attempt graded or ERROR
with its cause, none lost, none overlapping; fixtures, log evidence, run_meta and run_end."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agenttest.errors import AgentUnavailable
from agenttest.results import Attempt, PlanEntry, Record, iter_records
from agenttest.runner import RunRequest, run

from ._patience import EVENTUALLY_S
from ._run_file import end_of, meta_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, free_port, run_battery_at, write_battery
from .conftest import run_cli

HARNESS_CAUSES = {"unreachable", "timeout", "busy", "garbage", "http_error", "lost", "fixture"}


def start_run(
    tmp_path: Path, url: str, blocks: dict[str, tuple[int, int]], **config: Any
) -> tuple[Path, list[Record]]:
    battery = write_battery(tmp_path / "battery", blocks)
    path = run_battery_at(tmp_path, url, battery, judge="auto", **config)
    return path, list(iter_records(path))


def attempts_of(records: list[Record]) -> list[Attempt]:
    return [r for r in records if isinstance(r, Attempt)]


def assert_gradable_or_error(attempt: Attempt) -> None:
    if attempt.status == "completed":
        assert attempt.verdict in ("PASS", "FAIL") or attempt.error_cause in (
            "ungraded",
            "grader",
        )
    else:
        assert attempt.verdict == "ERROR"
        assert attempt.error_cause in HARNESS_CAUSES
        assert attempt.error


def test_a_misbehaving_agent_costs_no_record_and_no_overlap(tmp_path: Path) -> None:
    behaviour = Behaviour(
        loading_s=0.3,
        busy_first=2,
        garbage_turns={4},
        error_turns={6},
        turn_delay_s=0.01,
    )
    agent = LoopbackAgent(behaviour)

    def hang_8_until_polled(n: int) -> None:
        # turn 8 is answered only once the runner, past its answer limit, asks /health:
        # the limit ends that turn however slow the machine, and every other turn has
        # ten seconds to come back
        if n == 8:
            seen = len(agent.state.requests)
            deadline = time.monotonic() + EVENTUALLY_S
            while time.monotonic() < deadline and not any(
                m == "GET" for (m, _p, _t) in agent.state.requests[seen:]
            ):
                time.sleep(0.01)

    behaviour.on_turn = hang_8_until_polled
    with agent:
        _path, records = start_run(
            tmp_path,
            agent.url,
            {"L1-ONE-01": (1, 3), "L1-TWO-01": (2, 3)},
            timeouts={"answer_s": 10},
        )
    kinds = [r.record_type for r in records]
    assert kinds[0] == "run_meta" and kinds[-1] == "run_end"
    attempts = attempts_of(records)
    keys = Counter((a.test_id, a.run) for a in attempts)
    assert keys == Counter({(t, r): 1 for t in ("L1-ONE-01", "L1-TWO-01") for r in (1, 2, 3)})
    for a in attempts:
        assert_gradable_or_error(a)
    causes = Counter(a.error_cause for a in attempts if a.status != "completed")
    assert causes == {"garbage": 1, "http_error": 1, "timeout": 1}
    timed_out = next(a for a in attempts if a.error_cause == "timeout")
    assert timed_out.status == "timeout"
    assert agent.state.max_work_in_flight == 1
    end = end_of(records)
    assert end.reason == "completed"
    assert end.attempts == {
        "planned": 6,
        "skipped_as_decided": 0,
        "recorded": 6,
        "written_this_session": 6,
    }
    assert sum(end.counts["status"].values()) == 6


def test_no_two_requests_ever_overlap(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(busy_first=3, retry_after="0", turn_delay_s=0.02)) as agent:
        _path, records = start_run(tmp_path, agent.url, {"L1-A-01": (3, 2), "L1-B-01": (1, 2)})
    assert agent.state.max_in_flight == 1  # health probes included: strictly serial
    assert len(agent.state.requests) > 10
    assert len(attempts_of(records)) == 4


def test_turn_evidence_and_run_meta(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TOKEN", "s3cr3t-value")
    log = tmp_path / "agent.log"
    with LoopbackAgent(Behaviour(log_file=str(log), busy_first=1)) as agent:
        path, records = start_run(
            tmp_path,
            agent.url,
            {"L1-TWO-01": (2, 1)},
            headers={"Authorization": "Bearer ${AGENT_TOKEN}"},
            log_file=str(log),
        )
        # the secret reached the agent ...
        assert agent.state.requests
    # ... and never the run file
    assert "s3cr3t" not in path.read_text(encoding="utf-8")
    meta = meta_of(records)
    assert meta.agent["headers"] == {"Authorization": "***"}
    assert meta.model == "loopback-model" and meta.k_nominal == 1
    assert meta.run_type == "exploratory"
    assert meta.plan == [PlanEntry(test_id="L1-TWO-01", runs=1)]
    assert meta.battery is not None and (meta.battery.digest or "").startswith("sha256:")
    assert path.name.startswith("run_loopback-model_") and path.name.endswith("_k1.jsonl")
    (attempt,) = attempts_of(records)
    assert attempt.status == "completed" and attempt.error_cause in (None, "ungraded")
    t1, t2 = attempt.turns
    assert t1.response == "echo 1: L1-TWO-01 prompt 1"
    assert t2.response == "echo 2: L1-TWO-01 prompt 2"  # one session for both turns
    assert t1.tool_calls[0].name == "calculator" and t1.http_status == 200
    assert "ROUTE chat" in t1.trace and isinstance(t1.latency_ms, int)
    assert [line.split(" session")[0] for line in t1.log_lines] == ["AUDIT turn 2"]
    assert [line.split(" session")[0] for line in t2.log_lines] == ["AUDIT turn 3"]
    assert attempt.waits is not None
    assert attempt.waits.busy_replies == 1


def test_restart_mid_run_loses_only_the_attempt_in_flight(tmp_path: Path) -> None:
    agent = LoopbackAgent(Behaviour(turn_delay_s=0.01))
    agent.behaviour.on_turn = lambda n: agent.restart(0.5) if n == 3 else None
    agent.start()
    try:
        _path, records = start_run(tmp_path, agent.url, {"L1-A-01": (1, 5)})
    finally:
        agent.stop()
    attempts = attempts_of(records)
    assert [a.run for a in attempts] == [1, 2, 3, 4, 5]
    lost = [a for a in attempts if a.status != "completed"]
    assert [(a.run, a.error_cause) for a in lost] == [(3, "lost")]
    assert attempts[3].waits is not None
    assert attempts[3].waits.ready_ms >= 300  # waited for the agent to come back


def test_refused_then_back_before_the_first_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agent comes up once the runner has been refused, not after a wall-clock delay
    # (which a slow start of the run on a busy machine could swallow).
    from agenttest.agents import AgentClient

    port = free_port()
    agent = LoopbackAgent(port=port)
    refused: list[str] = []
    probe = AgentClient.probe

    def first_refused_then_up(client: AgentClient) -> str:
        state = probe(client)
        if state.startswith("unreachable") and not refused:
            refused.append(state)
            agent.start()
        return state

    monkeypatch.setattr(AgentClient, "probe", first_refused_then_up)
    try:
        _path, records = start_run(tmp_path, f"http://127.0.0.1:{port}", {"L1-A-01": (1, 2)})
    finally:
        agent.stop()
    assert refused == ["unreachable (connection refused)"]
    attempts = attempts_of(records)
    assert [a.status for a in attempts] == ["completed", "completed"]
    assert attempts[0].waits is not None
    assert attempts[0].waits.ready_ms > 0  # the wait was counted as readiness


def test_never_ready_exits_3_after_recording_why(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(loading_s=60)) as agent, pytest.raises(AgentUnavailable):
        start_run(tmp_path, agent.url, {"L1-A-01": (1, 2)}, readiness={"timeout_s": 0.3})
    (path,) = (tmp_path / "out").glob("*.jsonl")
    records = list(iter_records(path))
    assert [r.record_type for r in records] == ["run_meta", "run_end"]
    reason = end_of(records).reason or ""
    assert reason.startswith("aborted:") and "loading" in reason


def test_fixtures_are_made_before_the_turns_and_torn_down_after(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "old.txt").parent.mkdir(parents=True)
    (workspace / "old.txt").write_text("stale", encoding="utf-8")
    seen: dict[str, Any] = {}

    def look(_n: int) -> None:
        seen["notes"] = (workspace / "notes" / "a.txt").read_text(encoding="utf-8")
        seen["dir"] = (workspace / "empty").is_dir()
        seen["old"] = (workspace / "old.txt").exists()
        seen["page"] = (workspace / ".web/docs.example.test/guide/index.html").read_text()
        seen["git"] = (workspace / "repo" / ".git").is_dir()
        seen["ticket"] = json.loads((workspace / ".tickets/T-1.json").read_text("utf-8"))

    battery = write_battery(tmp_path / "battery", {"L1-FIX-01": (1, 1)})
    block = battery / "L1-FIX-01.yaml"
    block.write_text(
        block.read_text(encoding="utf-8")
        + """\
fixtures:
  - {kind: file, path: notes/a.txt, content: "hello fixture"}
  - {kind: dir, path: empty}
  - {kind: absent, path: old.txt}
  - {kind: web_page, url: "https://docs.example.test/guide/", content: "<p>page</p>"}
  - {kind: git_repo, path: repo, commits: [first, second]}
  - {kind: ticket, ticket_id: T-1, state: open, transitions: {open: [done]}, content: Fix it}
  - {kind: memory_reset}
teardown:
  - {kind: remove, path: notes}
""",
        encoding="utf-8",
    )
    with LoopbackAgent(Behaviour(on_turn=look)) as agent:
        # Generous limits: the git fixture and the resets must not race a loaded machine's clock.
        path = run_battery_at(
            tmp_path, agent.url, battery, judge="auto", workspace=str(workspace),
            timeouts={"connect_s": 10, "answer_s": 60},
            readiness={"timeout_s": 60, "probe_timeout_s": 10},
        )  # fmt: skip
    assert seen == {
        "notes": "hello fixture",
        "dir": True,
        "old": False,
        "page": "<p>page</p>",
        "git": True,
        "ticket": {
            "id": "T-1",
            "title": "Fix it",
            "state": "open",
            "transitions": {"open": ["done"]},
        },
    }
    assert not (workspace / "notes").exists()  # teardown
    assert [r.get("memory") for r in agent.state.resets] == [False, True]
    (attempt,) = attempts_of(list(iter_records(path)))
    assert attempt.status == "completed"


def test_memory_reset_happens_at_its_place_among_the_fixtures(tmp_path: Path) -> None:
    """A block may reset memory and then seed it: the reset must not run after the seed."""
    workspace = tmp_path / "ws"
    at_reset: list[tuple[bool, bool]] = []

    def on_reset(body: dict[str, Any]) -> None:
        if body.get("memory"):
            at_reset.append(
                ((workspace / "before.txt").exists(), (workspace / "seed.txt").exists())
            )

    battery = write_battery(tmp_path / "battery", {"L1-MEM-01": (1, 1)})
    block = battery / "L1-MEM-01.yaml"
    block.write_text(
        block.read_text(encoding="utf-8")
        + """\
fixtures:
  - {kind: file, path: before.txt, content: "made first"}
  - {kind: memory_reset}
  - {kind: file, path: seed.txt, content: "seeded after the reset"}
""",
        encoding="utf-8",
    )
    with LoopbackAgent(Behaviour(on_reset=on_reset)) as agent:
        run_battery_at(tmp_path, agent.url, battery, workspace=str(workspace))
    assert at_reset == [(True, False)]


def test_a_fixture_escaping_the_workspace_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "link").symlink_to(outside)
    battery = write_battery(tmp_path / "battery", {"L1-ESC-01": (1, 1)})
    block = battery / "L1-ESC-01.yaml"
    block.write_text(
        block.read_text(encoding="utf-8")
        + 'fixtures:\n  - {kind: file, path: link/evil.txt, content: "x"}\n',
        encoding="utf-8",
    )
    with LoopbackAgent() as agent:
        path = run_battery_at(tmp_path, agent.url, battery, judge="auto", workspace=str(workspace))
    assert not (outside / "evil.txt").exists()
    (attempt,) = attempts_of(list(iter_records(path)))
    assert (attempt.verdict, attempt.error_cause) == ("ERROR", "fixture")
    assert "escapes the workspace" in (attempt.error or "")
    assert agent.state.turns == 0  # no prompt was sent to an unprepared workspace


def test_plan_runs_in_rounds_and_k_overrides(tmp_path: Path) -> None:
    with LoopbackAgent() as agent:
        battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 3), "L1-B-01": (1, 1)})
        config = tmp_path / "agent.yaml"
        config.write_text(agent_yaml(agent.url), encoding="utf-8")
        path = run(
            RunRequest(
                paths=[str(battery)],
                agent=str(config),
                out=tmp_path / "out",
                allow_temp=True,
                quiet=True,
                k=2,
                only=["L1-B-01"],
                label="smoke",
            )
        )
    records = list(iter_records(path))
    assert [(a.test_id, a.run) for a in attempts_of(records)] == [
        ("L1-B-01", 1),
        ("L1-B-01", 2),
    ]
    assert path.name.endswith("_k2_smoke.jsonl")
    selection = meta_of(records).selection
    assert selection is not None and selection.only == ["L1-B-01"]
    assert json.loads(path.read_text().splitlines()[0])["label"] == "smoke"


def test_completed_attempts_are_graded_and_a_grader_bug_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agenttest.grading

    with LoopbackAgent() as agent:
        _path, records = start_run(tmp_path / "graded", agent.url, {"L1-A-01": (1, 1)})
        (graded,) = attempts_of(records)
        assert (graded.verdict, graded.error_cause) == ("PASS", None)
        assert (graded.rater or "").startswith("rules") and graded.criteria[0].passed

        def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("grader bug")

        monkeypatch.setattr(agenttest.grading, "grade_attempt", broken)
        _path, records = start_run(tmp_path / "bare", agent.url, {"L1-A-01": (1, 1)})
    (ungraded,) = attempts_of(records)
    assert ungraded.status == "completed" and ungraded.verdict == "ERROR"
    assert ungraded.error_cause == "grader" and "grader bug" in (ungraded.error or "")
    assert ungraded.turns[0].response  # the evidence survived the bug


def test_cli_exits_3_when_the_agent_never_gets_ready(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 1)})
    config = tmp_path / "agent.yaml"
    port = free_port()  # nothing listens: refused until the limit
    config.write_text(
        agent_yaml(f"http://127.0.0.1:{port}", readiness={"timeout_s": 0.5}), encoding="utf-8"
    )
    result = run_cli(
        "run", str(battery), "--agent", str(config), "--out", str(tmp_path / "out"),
        "--allow-temp", "--quiet",
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "not ready within" in result.stderr and "--resume" in result.stderr
    path = Path(result.stdout.strip())
    records = list(iter_records(path))
    assert [r.record_type for r in records] == ["run_meta", "run_end"]
    assert "connection refused" in (end_of(records).reason or "")


def test_a_harness_bug_is_recorded_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttest.agents import RestAdapter

    original = RestAdapter.parse
    calls = {"n": 0}

    def flaky(self: RestAdapter, session_id: str, prompt: str, body: bytes) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom")
        return original(self, session_id, prompt, body)

    monkeypatch.setattr(RestAdapter, "parse", flaky)
    with LoopbackAgent() as agent:
        _path, records = start_run(tmp_path, agent.url, {"L1-A-01": (1, 2)})
    first, second = attempts_of(records)
    assert (first.verdict, first.error_cause) == ("ERROR", "harness")
    assert "RuntimeError: boom" in (first.error or "")
    assert second.status == "completed"
    assert end_of(records).reason == "completed"


def test_auto_judge_is_loaded_only_for_blocks_that_need_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agenttest.runner._run as run_module

    loads: list[str | None] = []
    monkeypatch.setattr(
        run_module, "resolve_judge", lambda name, note, calibrate_from=(): loads.append(name)
    )
    with LoopbackAgent() as agent:
        start_run(tmp_path / "plain", agent.url, {"L1-A-01": (1, 1)})
        assert loads == []  # no JUDGE criterion: the model is never loaded
        battery = write_battery(tmp_path / "judged" / "battery", {"L1-J-01": (1, 1)})
        block = battery / "L1-J-01.yaml"
        block.write_text(
            block.read_text(encoding="utf-8")
            + "    - {id: P2, tag: JUDGE, type: judge, asks: consistent, rubric: 'The answer echoes the prompt back.',"
            " reference: echo, says: it echoes}\n",
            encoding="utf-8",
        )
        run_battery_at(tmp_path / "judged", agent.url, battery, judge="auto")
    assert loads == ["auto"]
