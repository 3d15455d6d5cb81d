"""Killed, interrupted and resumed runs: exactly the planned attempts, none lost, none doubled."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from msgspec.structs import replace

from agenttest.errors import UsageError
from agenttest.results import Attempt, ReadNotes, Record, RunEnd, RunWriter, dumps, iter_records
from agenttest.runner import RunRequest, run

from ._patience import EVENTUALLY_S
from ._run_file import attempts_of, end_of, meta_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, write_battery
from .conftest import ROOT, run_cli

PLAN_BLOCKS = {"L1-A-01": (1, 4), "L1-B-01": (2, 4), "L1-C-01": (1, 4)}
PLAN_KEYS = {(b, r) for b, (_turns, k) in PLAN_BLOCKS.items() for r in range(1, k + 1)}


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agenttest", "run", *args, "--allow-temp", "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


class TurnWatch:
    """Fires an event when the agent receives turn number ``target`` (or a later one).

    With ``hold`` the agent keeps that one turn unanswered until :meth:`release`, so a
    signal sent after :attr:`hit` provably arrives while the runner waits for the answer,
    however slow the machine is.
    """

    def __init__(self) -> None:
        self.target = 10**9
        self.hit = threading.Event()
        self._hold = False
        self._released = threading.Event()

    def __call__(self, n: int) -> None:
        if n >= self.target:
            self.hit.set()
            if self._hold:
                self.target, self._hold = 10**9, False
                self._released.wait(EVENTUALLY_S)

    def arm(self, target: int, hold: bool = False) -> None:
        self.hit.clear()
        self.target = target
        self._hold = hold

    def release(self) -> None:
        self._released.set()


def setup_run(tmp_path: Path, behaviour: Behaviour) -> tuple[LoopbackAgent, Path, Path]:
    agent = LoopbackAgent(behaviour).start()
    battery = write_battery(tmp_path / "battery", PLAN_BLOCKS)
    config = tmp_path / "agent.yaml"
    config.write_text(agent_yaml(agent.url), encoding="utf-8")
    return agent, battery, config


def read(path: Path) -> tuple[list[Record], ReadNotes]:
    notes = ReadNotes(str(path))
    return list(iter_records(path, notes)), notes


def test_sigkill_at_varied_points_then_resume(tmp_path: Path) -> None:
    watch = TurnWatch()
    agent, battery, config = setup_run(tmp_path, Behaviour(turn_delay_s=0.04, on_turn=watch))
    out = tmp_path / "out"
    # (turn that arms the kill, extra delay): mid-answer, during the write, between attempts
    kills = [(2, 0.0), (5, 0.043), (8, 0.061), (11, 0.02), (14, 0.09)]
    path: Path | None = None
    killed = 0
    try:
        for i, (turn, delay) in enumerate(kills):
            watch.arm(turn)
            proc = spawn(str(battery), "--agent", str(config), "--out", str(out)) if i == 0 else (
                spawn("--resume", str(path)))  # fmt: skip
            assert watch.hit.wait(EVENTUALLY_S), proc.communicate()
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.wait(EVENTUALLY_S)
            assert proc.returncode == -signal.SIGKILL
            killed += 1
            if path is None:
                (path,) = out.glob("*.jsonl")
            if i == 2:
                # a kill in the middle of writing a record leaves a torn last line
                with path.open("a", encoding="utf-8") as f:
                    f.write('{"record_type":"attempt","schema_version":"2.0","test_id":"L1-')
        assert path is not None
        watch.arm(10**9)
        proc = spawn("--resume", str(path))
        stdout, stderr = proc.communicate(timeout=EVENTUALLY_S)
        assert proc.returncode == 0, stderr
        assert stdout.strip() == str(path)
    finally:
        agent.stop()
    records, notes = read(path)
    kinds = Counter(r.record_type for r in records)
    attempts = [r for r in records if isinstance(r, Attempt)]
    per_key = Counter((a.test_id, a.run) for a in attempts)
    print(
        f"\nSIGKILL x{killed} + resume: planned {len(PLAN_KEYS)}, attempt records "
        f"{len(attempts)}, distinct {len(per_key)}, duplicated "
        f"{sum(n - 1 for n in per_key.values())}, lost {len(PLAN_KEYS - set(per_key))}, "
        f"torn lines skipped {notes.torn}, agent turns {agent.state.turns}"
    )
    assert set(per_key) == PLAN_KEYS  # zero lost
    assert max(per_key.values()) == 1  # zero duplicated
    assert len(attempts) == len(PLAN_KEYS)
    assert kinds["run_meta"] == 1 and kinds["run_end"] == 1
    assert notes.torn == 1
    assert end_of(records).reason == "completed"
    assert end_of(records).attempts["recorded"] == len(PLAN_KEYS)
    assert agent.state.max_work_in_flight == 1


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_finishes_the_record_exits_130_and_resumes(tmp_path: Path, sig: int) -> None:
    watch = TurnWatch()
    agent, battery, config = setup_run(tmp_path, Behaviour(turn_delay_s=0.3, on_turn=watch))
    # the held turn must end by the signal, not by the answer timeout
    config.write_text(agent_yaml(agent.url, timeouts={"answer_s": EVENTUALLY_S}), "utf-8")
    out = tmp_path / "out"
    try:
        watch.arm(3, hold=True)
        proc = spawn(str(battery), "--agent", str(config), "--out", str(out), "--k", "1")
        assert watch.hit.wait(EVENTUALLY_S), proc.communicate()
        proc.send_signal(sig)  # the agent holds turn 3: the runner is waiting for its answer
        stdout, stderr = proc.communicate(timeout=EVENTUALLY_S)
        watch.release()  # the agent is free again for the resumed run
        assert proc.returncode == 130, stderr
        assert "--resume" in stderr
        path = Path(stdout.strip())
        records, _ = read(path)
        assert isinstance(records[-1], RunEnd)
        assert end_of(records).reason == "interrupted"
        cut = [r for r in attempts_of(records) if r.error_cause == "interrupted"]
        assert len(cut) == 1 and cut[0].verdict == "ERROR"
        assert signal.Signals(sig).name in (cut[0].error or "")
        proc = spawn("--resume", str(path))
        _stdout, stderr = proc.communicate(timeout=EVENTUALLY_S)
        assert proc.returncode == 0, stderr
    finally:
        watch.release()
        agent.stop()
    records, _ = read(path)
    attempts = [r for r in records if isinstance(r, Attempt)]
    latest = {(a.test_id, a.run): a for a in attempts}
    assert set(latest) == {(b, 1) for b in PLAN_BLOCKS}
    assert all(a.status == "completed" for a in latest.values())
    # the cut attempt was run again and its new record supersedes it; nothing else repeated
    assert len(attempts) == len(latest) + 1
    assert end_of(records).reason == "completed"


def test_retry_errors_reruns_only_errors_and_supersedes(tmp_path: Path) -> None:
    agent, battery, config = setup_run(tmp_path, Behaviour(error_turns={2}, garbage_turns={7}))
    try:
        request = RunRequest(
            paths=[str(battery)],
            agent=str(config),
            out=tmp_path / "out",
            allow_temp=True,
            quiet=True,
        )
        path = run(request)
        records, _ = read(path)
        errors = {
            (r.test_id, r.run) for r in attempts_of(records) if r.status == "error"
        }  # fmt: skip
        assert len(errors) == 2
        turns_before = agent.state.turns
        run(RunRequest(resume=path, allow_temp=True, quiet=True))  # nothing left to do
        assert agent.state.turns == turns_before
        run(RunRequest(resume=path, retry_errors=True, allow_temp=True, quiet=True))
    finally:
        agent.stop()
    records, _ = read(path)
    attempts = [r for r in records if isinstance(r, Attempt)]
    assert len(attempts) == len(PLAN_KEYS) + 2
    latest = {(a.test_id, a.run): a for a in attempts}
    assert set(latest) == PLAN_KEYS
    assert all(a.status == "completed" for a in latest.values())
    retried = [(a.test_id, a.run) for a in attempts[len(PLAN_KEYS) :]]
    assert set(retried) == errors
    assert [r.reason for r in records if isinstance(r, RunEnd)] == ["completed"] * 3


def test_a_run_started_with_a_relative_config_resumes_from_another_directory(
    tmp_path: Path,
) -> None:
    """`--agent agent.yaml` is stored as the config's absolute path: a `--resume` from
    another directory finds it. A run file of an earlier version holds the path as typed,
    which a resume reads against its own directory, as it always did."""
    import os

    agent, battery, config = setup_run(tmp_path / "start", Behaviour(error_turns={2}))
    start, elsewhere = config.parent, tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    try:
        first = run_cli("run", str(battery), "--agent", "agent.yaml", "--k", "1",
                        "--out", str(out), "--allow-temp", "--quiet", cwd=start)  # fmt: skip
        assert first.returncode == 0, first.stderr
        path = Path(first.stdout.strip())
        records, _ = read(path)
        source = meta_of(records).agent["source"]
        assert source == str(config.resolve()) and os.path.isabs(source)
        errors = {(r.test_id, r.run) for r in attempts_of(records) if r.status == "error"}
        assert len(errors) == 1  # precondition: the resume has an attempt to run again
        # an earlier version's file: the same run with the path as it was typed
        old = out / "old.jsonl"
        written = meta_of(records)
        meta = replace(written, agent={**written.agent, "source": "agent.yaml"})
        rest = path.read_text(encoding="utf-8").splitlines(keepends=True)[1:]
        old.write_text(dumps(meta) + "\n" + "".join(rest), encoding="utf-8")
        turns_before = agent.state.turns
        resumed = run_cli("run", "--resume", str(path), "--retry-errors", "--allow-temp",
                          "--quiet", cwd=elsewhere)  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr
        assert agent.state.turns > turns_before  # the config was found: the agent was asked
        lost = run_cli("run", "--resume", str(old), "--allow-temp", "--quiet", cwd=elsewhere)
        assert lost.returncode == 2 and "agent.yaml" in lost.stderr, lost.stderr
        again = run_cli("run", "--resume", str(old), "--retry-errors", "--allow-temp",
                        "--quiet", cwd=start)  # fmt: skip
        assert again.returncode == 0, again.stderr
    finally:
        agent.stop()
    for run_file in (path, old):
        attempts = [r for r in read(run_file)[0] if isinstance(r, Attempt)]
        latest = {(a.test_id, a.run): a for a in attempts}
        assert all(a.status == "completed" for a in latest.values()), run_file
        assert {(a.test_id, a.run) for a in attempts[len(latest) :]} == errors


def test_resume_refuses_a_changed_battery_and_a_locked_file(tmp_path: Path) -> None:
    agent, battery, config = setup_run(tmp_path, Behaviour())
    try:
        path = run(
            RunRequest(
                paths=[str(battery)],
                agent=str(config),
                out=tmp_path / "out",
                allow_temp=True,
                quiet=True,
                k=1,
            )
        )
    finally:
        agent.stop()
    with RunWriter(path, create=False), pytest.raises(UsageError, match="another agenttest"):
        run(RunRequest(resume=path, allow_temp=True, quiet=True))
    block = battery / "L1-A-01.yaml"
    block.write_text(block.read_text(encoding="utf-8") + "notes: changed\n", encoding="utf-8")
    with pytest.raises(UsageError, match="battery changed"):
        run(RunRequest(resume=path, allow_temp=True, quiet=True))


def test_output_under_tmp_is_refused_with_exit_2(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 1)})
    config = tmp_path / "agent.yaml"
    config.write_text(agent_yaml("http://127.0.0.1:9"), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("run", str(battery), "--agent", str(config), "--out", str(out))
    assert result.returncode == 2, result.stderr
    assert "temp folder" in result.stderr and "--allow-temp" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists() and result.stdout == ""
    fake = tmp_path / "run.jsonl"
    fake.write_text("", encoding="utf-8")
    resumed = run_cli("run", "--resume", str(fake))
    assert resumed.returncode == 2 and "temp folder" in resumed.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 1)})
    bad = run_cli("run", str(battery), "--agent", "example", "--retry-errors", "--allow-temp")
    assert bad.returncode == 2 and "--retry-errors needs --resume" in bad.stderr
    missing = run_cli("run", str(battery), "--allow-temp", "--out", str(tmp_path))
    assert missing.returncode == 2 and "--agent is required" in missing.stderr
    unknown = run_cli(
        "run", str(battery), "--agent", "example", "--only", "L1-NOPE-01", "--allow-temp"
    )
    assert unknown.returncode == 2 and "no such block" in unknown.stderr


def test_resume_accepts_the_command_line_that_started_the_run(tmp_path: Path) -> None:
    """Up-arrow, add --resume FILE: options that match the run file are fine; a conflict is
    refused (exit 2) naming the option and both values, and nothing is written."""
    agent, battery, config = setup_run(tmp_path, Behaviour())
    out = tmp_path / "out"
    first = ["run", str(battery), "--agent", str(config), "--k", "1", "--tier", "L1",
             "--label", "nightly", "--out", str(out), "--allow-temp", "--quiet"]  # fmt: skip
    try:
        started = run_cli(*first)
        assert started.returncode == 0, started.stderr
        path = Path(started.stdout.strip())
        before = path.read_bytes()
        attempts = [r for r in iter_records(path) if isinstance(r, Attempt)]
        assert len(attempts) == len(PLAN_BLOCKS)  # precondition: k 1 was taken
        again = run_cli(*first, "--resume", str(path))
        assert again.returncode == 0, again.stderr
        conflicts = {
            "--k": ("2", "--k 2 conflicts", "--k 1"),
            "--label": ("weekly", "--label weekly conflicts", "--label nightly"),
            "--tier": ("L2", "--tier L2 conflicts", "--tier L1"),
        }
        for option, (value, ours, theirs) in conflicts.items():
            line = list(first)
            line[line.index(option) + 1] = value
            refused = run_cli(*line, "--resume", str(path))
            assert refused.returncode == 2, (option, refused.stderr)
            assert ours in refused.stderr and theirs in refused.stderr, refused.stderr
            assert "Traceback" not in refused.stderr
        other = write_battery(tmp_path / "other", {"L1-A-01": (1, 1)})
        moved = run_cli(*[str(other) if a == str(battery) else a for a in first],
                        "--resume", str(path))  # fmt: skip
        assert moved.returncode == 2 and f"PATH {other.resolve()} conflicts" in moved.stderr
    finally:
        agent.stop()
    # the refused resumes wrote nothing; the accepted one only closed the session
    assert path.read_bytes().startswith(before)
    assert len([r for r in iter_records(path) if isinstance(r, Attempt)]) == 3
