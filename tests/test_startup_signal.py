"""SIGTERM while the agent is still starting writes the promised run_end (issue 14, defect 14).

Real processes only: `agenttest run` with the bundled example agent told to report
`loading` for ten minutes, so the runner cannot leave start-up by itself. The signal is
sent once the run is provably in start-up — the example agent is a live child of the
runner (read from /proc) and the run file holds no attempt — never after a sleep. The
documented contract (docs/agents.md, docs/nightly.md): exit 130, a `run_end` with
`reason: interrupted` once the file exists, the example agent stopped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ._patience import EVENTUALLY_S
from .conftest import ROOT

EXIT_INTERRUPTED = 130
LIMIT_S = EVENTUALLY_S  # a limit against a hang, never a measurement


def _children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid`` (from /proc/*/stat)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _example_agent(runner: int) -> int | None:
    for child in _children(runner):
        if "agenttest.example_agent" in _cmdline(child):
            return child
    return None


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _wait(condition: Any, proc: subprocess.Popen[str]) -> Any:
    deadline = time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError("the runner never reached start-up")


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        stat = Path("/proc") / str(pid) / "stat"
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agenttest", "run", *args, "--quiet", "--allow-temp"],
        cwd=ROOT,
        env={**os.environ, "AGENTTEST_TESTER": "qa-bot"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """SIGTERM, then its output; SIGKILL only if it outlives the limit (the test fails)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.communicate(timeout=LIMIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_during_start_up_writes_run_end_and_exits_130(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _spawn(
        str(ROOT / "batteries" / "L1"),
        "--only",
        "L1-CALC-01",
        "--agent",
        "example",
        "--k",
        "2",
        "--example-args",
        "--loading-s 600",
        "--out",
        str(out),
    )
    try:
        agent = _wait(lambda: _example_agent(proc.pid), proc)
        path = _wait(lambda: next(iter(out.glob("*.jsonl")), None), proc)
        # in start-up: the agent is alive and loading, the file holds run_meta and no attempt
        _wait(lambda: path.read_bytes().endswith(b"\n"), proc)
        assert [r["record_type"] for r in _records(path)] == ["run_meta"]
        assert _example_agent(proc.pid) == agent
    finally:
        stdout, stderr = _stop(proc)
    assert proc.returncode == EXIT_INTERRUPTED, stderr
    assert "interrupted by SIGTERM" in stderr and f"--resume {path}" in stderr
    assert stdout.strip() == str(path)
    records = _records(path)
    assert [r["record_type"] for r in records] == ["run_meta", "run_end"]
    end = records[-1]
    assert end["reason"] == "interrupted"
    assert end["attempts"]["planned"] == 2 and end["attempts"]["recorded"] == 0
    assert end["attempts"]["written_this_session"] == 0
    assert _gone(agent), "the example agent outlived the runner"

    # The same on --resume, where the file exists before the agent is even started:
    # signalled the moment the new example agent process appears.
    proc = _spawn("--resume", str(path))
    try:
        agent = _wait(lambda: _example_agent(proc.pid), proc)
    finally:
        _stdout, stderr = _stop(proc)
    assert proc.returncode == EXIT_INTERRUPTED, stderr
    records = _records(path)
    assert [r["record_type"] for r in records] == ["run_meta", "run_end", "run_end"]
    assert records[-1]["reason"] == "interrupted"
    assert records[-1]["attempts"]["recorded"] == 0
    assert _gone(agent), "the example agent outlived the resumed runner"
