"""Tests that kill mutants the hand mutation check found alive (issue 13).

Each pins a behaviour a one-token change of the code would break without any other test
noticing: the writer's fsync, the readiness back-off cap.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agenttest.results import RunWriter, attempt, run_meta
from agenttest.results import _files as files
from agenttest.runner import parse_agent_config

from ._servers import Behaviour, LoopbackAgent, agent_yaml


class _Spy:
    """The writer's view of the os module, with write and fsync recorded."""

    def __init__(self, write: object, fsync: object) -> None:
        self.write, self.fsync = write, fsync

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)


def test_append_fsyncs_after_writing_each_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A kill -9 test cannot see a missing fsync (the page cache survives the process); only
    # the order of the calls can.
    calls: list[str] = []
    real_write, real_fsync = os.write, os.fsync

    def write(fd: int, data: memoryview) -> int:
        calls.append("write")
        written: int = real_write(fd, data)
        return written

    def fsync(fd: int) -> None:
        calls.append("fsync")
        real_fsync(fd)

    writer = RunWriter(tmp_path / "run.jsonl", create=True)
    monkeypatch.setattr(files, "os", _Spy(write, fsync))
    try:
        writer.append(run_meta(run_id="x"))
        writer.append(attempt(test_id="T-01", run=1))
    finally:
        monkeypatch.undo()
        writer.close()
    assert calls == ["write", "fsync", "write", "fsync"]


def test_the_readiness_back_off_stops_growing_at_max_poll_s(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour(loading_s=3600)) as agent:
        config = agent_yaml(
            agent.url, readiness={"timeout_s": 3600, "poll_s": 0.01, "max_poll_s": 0.04}
        )
        client = files_client(config, tmp_path)
        pauses: list[float] = []

        def sleep(seconds: float) -> None:
            pauses.append(seconds)
            if len(pauses) == 8:
                agent.state.started = time.monotonic() - 7200  # ready from now on
            time.sleep(seconds)

        client.sleep = sleep
        client.wait_ready()
    assert pauses[0] == pytest.approx(0.01)
    assert max(pauses) == pytest.approx(0.04)  # it grew to the cap ...
    assert pauses[-3:] == pytest.approx([0.04, 0.04, 0.04])  # ... and stayed there


def files_client(config_text: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    from agenttest.runner import AgentClient

    cfg = parse_agent_config(config_text, str(tmp_path / "agent.yaml"), tmp_path)
    return AgentClient(cfg)


def test_a_retried_attempt_drops_the_always_fail_hit_of_the_attempt_it_replaces(
    tmp_path: Path,
) -> None:
    from agenttest.reporting import build_report

    from .fixtures.reports.builders import attempt as attempt_record
    from .fixtures.reports.builders import meta, write

    hit = [{"rule": "dangerous_command", "criterion": "F1", "evidence": {"turn": 1}}]
    first = attempt_record("X", 1, "FAIL", started_at="2026-07-13T08:00:00+00:00", critical=hit)
    retry = attempt_record("X", 1, "FAIL", started_at="2026-07-13T10:00:00+00:00")
    alone = build_report([write(tmp_path / "a.jsonl", [meta("r", []), first])], details=False)
    assert alone.blocks[0].critical == 1  # precondition: the first attempt's hit counts
    both = write(tmp_path / "b.jsonl", [meta("r", []), first, retry])
    report = build_report([both], details=False)
    assert report.integrity.superseded == 1
    assert report.blocks[0].critical == 0 and report.critical == ()
