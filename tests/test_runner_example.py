"""`--agent example`: the bundled agent started on a free port, used, and always stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agenttest.results import Attempt, dumps, iter_records

from ._patience import EVENTUALLY_S
from ._run_file import meta_of
from .conftest import ROOT, run_cli


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def test_example_agent_runs_blocks_with_fixtures_and_is_stopped(tmp_path: Path) -> None:
    result = run_cli(
        "run",
        str(ROOT / "batteries"),
        "--agent",
        "example",
        "--only",
        "L1-CALC-01,L2-WEB-01",
        "--k",
        "1",
        "--out",
        str(tmp_path / "out"),
        "--allow-temp",
        "--quiet",
        "--example-args",
        "--loading-s 3",
    )
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    records = list(iter_records(path))
    meta = meta_of(records)
    assert meta.agent["source"] == "example" and meta.model == "example-agent"
    attempts = [r for r in records if isinstance(r, Attempt)]
    assert [a.test_id for a in attempts] == ["L1-CALC-01", "L2-WEB-01"]
    assert all(a.status == "completed" for a in attempts)
    # it waited while the agent was loading (3 s from its start: far more than the runner
    # needs to get from starting it to the first readiness probe, even on a loaded machine)
    assert attempts[0].waits is not None
    assert attempts[0].waits.ready_ms >= 1000
    web = attempts[1].turns[0]
    assert "swift.org" in dumps({"calls": web.tool_calls})  # the web_page fixture was served
    workspace = Path(meta.agent["workspace"])
    assert not workspace.exists()  # the disposable workspace went with the agent


def test_a_killed_runner_does_not_orphan_the_example_agent(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agenttest",
            "run",
            str(ROOT / "batteries"),
            "--agent",
            "example",
            "--only",
            "L1-CALC-01",
            "--k",
            "50",
            "--out",
            str(tmp_path),
            "--allow-temp",
            "--quiet",
            "--example-args",
            "--latency-s 0.2",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    path = proc.stdout.readline().strip()  # printed once the agent is up and the file exists
    assert path.endswith(".jsonl"), proc.stderr.read() if proc.stderr else ""
    kids = children(proc.pid)
    assert len(kids) == 1 and alive(kids[0])
    proc.send_signal(signal.SIGKILL)
    proc.wait(EVENTUALLY_S)
    deadline = time.monotonic() + EVENTUALLY_S  # the orphaned agent's watchdog notices
    while alive(kids[0]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(kids[0])


def test_resume_starts_the_example_agent_with_the_options_of_the_run(tmp_path: Path) -> None:
    """Fault knobs given with --example-args are part of the run: a resume must not quietly
    test a healthier agent than the run started with."""
    out = tmp_path / "out"
    first = run_cli(
        "run",
        str(ROOT / "batteries"),
        "--agent",
        "example",
        "--only",
        "L1-CALC-01",
        "--k",
        "1",
        "--out",
        str(out),
        "--allow-temp",
        "--quiet",
        "--judge",
        "none",
        "--example-args",
        "--garbage-probability 1 --seed 3",
    )
    assert first.returncode == 0, first.stderr
    path = Path(first.stdout.strip())
    (attempt,) = [r for r in iter_records(path) if isinstance(r, Attempt)]
    assert attempt.error_cause == "garbage"  # precondition: the knob really took effect
    again = run_cli("run", "--resume", str(path), "--retry-errors", "--allow-temp", "--quiet")
    assert again.returncode == 0, again.stderr
    attempts = [r for r in iter_records(path) if isinstance(r, Attempt)]
    assert len(attempts) == 2  # the retry was really run
    assert attempts[-1].error_cause == "garbage"
