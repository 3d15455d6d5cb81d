"""The crash suite: SIGKILL the runner at many random points, resume, count what was lost
or duplicated (must be zero); the same stops in a ``--parity`` run; and a full disk on a
real, tiny filesystem.

Set AGENTTEST_SOAK=1 for the long variant (more kills, more attempts).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest

from agenttest.results import Attempt, ReadNotes, RunEnd, RunMeta, iter_records

from ._patience import EVENTUALLY_S
from ._run_file import end_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, write_battery
from .conftest import report_count, run_cli
from .test_runner_resume import TurnWatch, spawn

SOAK = os.environ.get("AGENTTEST_SOAK") == "1"
KILLS = 40 if SOAK else 10  # the default run stops early when its 16 turns run out
BLOCKS = (
    {"L1-A-01": (1, 20), "L1-B-01": (2, 20), "L1-C-01": (1, 20)}  # 80 turns: room for 40 kills
    if SOAK
    else {"L1-A-01": (1, 4), "L1-B-01": (2, 4), "L1-C-01": (1, 4)}
)
PLANNED = {(b, r) for b, (_t, k) in BLOCKS.items() for r in range(1, k + 1)}
TURNS = sum(t * k for t, k in BLOCKS.values())


def _tear_a_record(path: Path, rng: random.Random) -> None:
    """What a kill inside write(2) leaves behind: a prefix of a record, no newline."""
    record = json.dumps(
        {
            "record_type": "attempt",
            "schema_version": "2.0",
            "test_id": "L1-A-01",
            "run": 1,
            "turns": [{"response": "x" * 200}],
        }
    )
    with path.open("a", encoding="utf-8") as f:
        f.write(record[: rng.randrange(1, len(record) - 1)])


def test_sigkill_at_random_points_then_resume(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    watch = TurnWatch()
    agent = LoopbackAgent(Behaviour(turn_delay_s=0.03, on_turn=watch)).start()
    battery = write_battery(tmp_path / "battery", BLOCKS)
    config = tmp_path / "agent.yaml"
    config.write_text(agent_yaml(agent.url), encoding="utf-8")
    out = tmp_path / "out"
    path: Path | None = None
    kills = torn = 0
    try:
        turn = 0
        while kills < KILLS:
            turn += rng.randint(1, 2)
            if turn >= TURNS:
                break
            watch.arm(turn)
            proc = (
                spawn(str(battery), "--agent", str(config), "--out", str(out))
                if path is None
                else spawn("--resume", str(path))
            )
            # a generous wait: starting the CLI takes seconds on a loaded machine, and this
            # is an event, so the limit costs time only when something is broken
            if not watch.hit.wait(EVENTUALLY_S):
                proc.wait(EVENTUALLY_S)  # the run finished before the chosen turn came
                break
            delay = rng.choice([0.0, rng.uniform(0, 0.05), rng.uniform(0.025, 0.04)])
            if delay:
                __import__("time").sleep(delay)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(EVENTUALLY_S)
            kills += proc.returncode == -signal.SIGKILL
            if path is None:
                (path,) = out.glob("*.jsonl")
            if rng.random() < 0.3:
                _tear_a_record(path, rng)
                torn += 1
        assert path is not None
        watch.arm(10**9)
        final = spawn("--resume", str(path))
        _stdout, stderr = final.communicate(timeout=EVENTUALLY_S)
        assert final.returncode == 0, stderr
    finally:
        agent.stop()
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    attempts = [r for r in records if isinstance(r, Attempt)]
    per_key = Counter((a.test_id, a.run) for a in attempts)
    lost = len(PLANNED - set(per_key))
    duplicated = sum(n - 1 for n in per_key.values())
    report_count(
        "crash suite",
        f"SIGKILL x{kills} at random points (seeded), {torn} torn writes: planned {len(PLANNED)}, "
        f"recorded {len(per_key)}, lost {lost}, duplicated {duplicated}, "
        f"torn lines skipped {notes.torn}",
    )
    assert kills >= min(KILLS, 5), "the suite must really kill the runner several times"
    assert lost == 0 and duplicated == 0
    assert notes.torn == torn
    assert isinstance(records[-1], RunEnd) and end_of(records).reason == "completed"
    assert agent.state.max_work_in_flight == 1


@pytest.fixture
def tiny_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {made.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_full_disk_stops_clearly_and_keeps_the_file_intact(tmp_path: Path, tiny_disk: Path) -> None:
    big = [{"name": "calculator", "arguments": {}, "ok": True, "result": "r" * 6000}]
    with LoopbackAgent(Behaviour(tool_calls=big)) as agent:
        battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 40)})
        config = tmp_path / "agent.yaml"
        config.write_text(agent_yaml(agent.url), encoding="utf-8")
        result = run_cli(
            "run",
            str(battery),
            "--agent",
            str(config),
            "--out",
            str(tiny_disk),
            "--allow-temp",
            "--quiet",
            "--judge",
            "none",
        )
    assert result.returncode == 3, result.stderr
    assert "disk is full" in result.stderr and "--resume" in result.stderr
    assert "Traceback" not in result.stderr
    (path,) = tiny_disk.glob("*.jsonl")
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    attempts = [r for r in records if isinstance(r, Attempt)]
    report_count(
        "crash suite",
        f"full disk (48 KiB tmpfs): exit 3, {len(attempts)} whole attempts kept, "
        f"{notes.torn} torn lines",
    )
    assert isinstance(records[0], RunMeta)
    assert 0 < len(attempts) < 40
    assert notes.torn_lines == []  # every record on disk is whole
    assert path.read_bytes().endswith(b"\n")


def test_six_runs_started_at_once_into_one_folder_each_get_a_file(tmp_path: Path) -> None:
    # Each run picks a free name when it starts and creates the file once its agent is
    # ready: six started together picked one name, and five failed to create it. The agent
    # answers no health check until all six have asked, so every run has picked its name
    # before any creates its file.
    import threading

    released = threading.Event()
    together = threading.Barrier(6, action=released.set, timeout=EVENTUALLY_S)  # all, then go

    def hold_until_all_asked(_handler: object) -> bool:
        # one probe a run (no probe times out before all six have come): the barrier
        # lets them all through at once, and later probes straight away
        if not released.is_set():
            with contextlib.suppress(threading.BrokenBarrierError):
                together.wait()
        return False  # then answer as usual: ready

    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 1)})
    with LoopbackAgent(Behaviour(raw_health=hold_until_all_asked)) as agent:
        config = tmp_path / "agent.yaml"
        patient = {"timeout_s": EVENTUALLY_S, "probe_timeout_s": EVENTUALLY_S}
        config.write_text(agent_yaml(agent.url, readiness=patient), encoding="utf-8")
        runs = [
            spawn(str(battery), "--agent", str(config), "--out", str(tmp_path / "out"))
            for _ in range(6)
        ]
        results = [(*p.communicate(timeout=EVENTUALLY_S), p.returncode) for p in runs]
    assert released.is_set()  # precondition: all six picked their name, then raced
    assert [code for _out, _err, code in results] == [0] * 6, [e for _o, e, _c in results]
    files = sorted(p.name for p in (tmp_path / "out").glob("*.jsonl"))
    assert len(files) == 6 and len({out.strip() for out, _e, _c in results}) == 6
    for path in (tmp_path / "out").glob("*.jsonl"):
        records = list(iter_records(path))
        assert isinstance(records[0], RunMeta) and isinstance(records[-1], RunEnd)


class _BothAgents:
    """Counts the turns two agents receive together; fires when the count reaches a target."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.turns = 0
        self.target = 10**9
        self.hit = threading.Event()

    def __call__(self, _n: int) -> None:
        with self.lock:
            self.turns += 1
            if self.turns >= self.target:
                self.hit.set()


def test_a_parity_run_stopped_at_random_points_keeps_its_file_whole(tmp_path: Path) -> None:
    # A --parity run (two agents, one file) killed or interrupted anywhere in either
    # agent's part: every record whole, no attempt twice, an interrupt's run_end counts both
    # agents, and the file is never resumed by one agent (issue 32 #12).
    rng = random.Random(20261205)
    battery = write_battery(tmp_path / "battery", BLOCKS)
    turns = _BothAgents()
    agents = [LoopbackAgent(Behaviour(turn_delay_s=0.03, on_turn=turns)) for _ in range(2)]
    seen: Counter[str] = Counter()
    with agents[0], agents[1]:
        configs = []
        for name, agent in zip(("one", "two"), agents, strict=True):
            configs.append(tmp_path / f"{name}.yaml")
            configs[-1].write_text(agent_yaml(agent.url, name=name), encoding="utf-8")
        for point in range(6):
            out = tmp_path / f"out{point}"
            with turns.lock:
                turns.turns, turns.target = 0, rng.randint(1, 2 * TURNS - 1)
                turns.hit.clear()
            how = signal.SIGINT if point % 2 else signal.SIGKILL
            proc = spawn(
                str(battery), "--agent", str(configs[0]), "--agent", str(configs[1]),
                "--parity", "--out", str(out),
            )  # fmt: skip
            if turns.hit.wait(EVENTUALLY_S):
                os.kill(proc.pid, how)
            _stdout, stderr = proc.communicate(timeout=EVENTUALLY_S)
            (path,) = out.glob("*.jsonl")
            records = list(iter_records(path))
            attempts = [r for r in records if isinstance(r, Attempt)]
            keys = Counter((a.agent, a.test_id, a.run) for a in attempts)
            assert all(n == 1 for n in keys.values()), keys
            assert {a.agent for a in attempts} <= {"one", "two"}
            ends = [r for r in records if isinstance(r, RunEnd)]
            if proc.returncode == 0:
                seen["completed"] += 1  # the point came after the last turn
                assert len(ends) == 1 and ends[0].reason == "completed"
            elif how == signal.SIGINT:
                seen["interrupted"] += 1
                assert proc.returncode == 130, stderr
                assert "a --parity run cannot be resumed: start it again" in stderr
                assert len(ends) == 1 and records[-1] is ends[0], records[-3:]
                assert ends[0].parity and ends[0].reason == "interrupted"
                assert ends[0].attempts["planned"] == 2 * len(PLANNED)
                assert ends[0].attempts["recorded"] == len(attempts)
            else:
                seen["killed"] += 1
                assert proc.returncode == -signal.SIGKILL
            before = path.read_bytes()
            resumed = run_cli("run", "--resume", str(path), "--allow-temp", "--quiet")
            assert resumed.returncode == 2, resumed.stderr
            assert "is a --parity run (one, two): it cannot be resumed" in resumed.stderr
            assert path.read_bytes() == before
    report_count(
        "crash suite",
        "--parity: 6 stops at random points (seeded): "
        + ", ".join(f"{n} {what}" for what, n in sorted(seen.items())),
    )
    assert seen["interrupted"] + seen["killed"] >= 4  # the points fell inside the runs
