"""The process exit status of every documented outcome, through a real subprocess.

click ends a command in several ways (a returned status, ``Exit``, a returned 130 for
Ctrl-C in newer Typer); each must reach the process status. Interrupts are sent at a
moment the child is provably blocked in (a FIFO that nobody writes yet, a prompt reading
stdin, a turn the loopback agent is holding), never after a sleep.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agenttest.errors import (
    EXIT_AGENT,
    EXIT_DATA,
    EXIT_GATE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    AgentTestError,
    GateFailed,
    InputError,
    Interrupted,
    Problem,
    exit_code_for,
)

from ._patience import EVENTUALLY_S
from ._servers import Behaviour, LoopbackAgent, agent_yaml, free_port, write_battery
from .conftest import ROOT, run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

GATED_BLOCK = """\
id: QUIET-01
tier: L1
category: TEST
title: answers without tools
capability: answers
turns: ["say hello"]
k: 12
criteria:
  pass:
    - {id: P1, tag: STATE, type: no_tool_calls, says: it used no tool}
"""


def _start(*args: str, stdin: int | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agenttest", *args],
        cwd=ROOT,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _blocked_in(proc: subprocess.Popen[str], wchans: tuple[str, ...]) -> str:
    """Wait until the child sleeps in one of these kernel wait channels; returns it.

    The child must get there; on a busy machine its start-up alone can take many seconds,
    so the bound only catches a child that never does (or exits first: its output shows).
    """
    deadline = time.monotonic() + EVENTUALLY_S
    seen = ""
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            seen = Path(f"/proc/{proc.pid}/wchan").read_text()
        except OSError:
            seen = ""
        if seen in wchans:
            return seen
        time.sleep(0.02)
    if proc.poll() is not None:
        out, err = proc.communicate()
        pytest.fail(f"the child exited {proc.returncode} before blocking in {wchans}: {out}{err}")
    pytest.fail(f"the child never blocked in {wchans} (last {seen!r})")


def _interrupt(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=EVENTUALLY_S)
    return proc.returncode, out, err


needs_proc = pytest.mark.skipif(
    not Path(f"/proc/{os.getpid()}/wchan").exists(), reason="needs /proc/PID/wchan (Linux)"
)


# -- the one mapping --------------------------------------------------------------------------


def test_exit_code_for_maps_the_whole_tree() -> None:
    assert exit_code_for(InputError([Problem("f", 1, "bad")])) == EXIT_USAGE
    assert exit_code_for(Interrupted("x")) == EXIT_INTERRUPTED
    assert exit_code_for(KeyboardInterrupt()) == EXIT_INTERRUPTED
    assert exit_code_for(BrokenPipeError()) == EXIT_OK
    assert exit_code_for(SystemExit(EXIT_GATE)) == EXIT_GATE
    assert exit_code_for(SystemExit(None)) == EXIT_OK
    assert exit_code_for(ValueError("a bug")) == EXIT_INTERNAL
    # a gate's decision: blocked by the agent's results, or by data that cannot carry one
    assert exit_code_for(GateFailed("blocked: SEC-01 failed 3 of 3")) == EXIT_GATE
    assert exit_code_for(GateFailed("blocked: 56 of 102 attempts lost", EXIT_DATA)) == EXIT_DATA
    codes = {EXIT_OK, EXIT_GATE, EXIT_USAGE, EXIT_AGENT, EXIT_INTERNAL, EXIT_DATA, EXIT_INTERRUPTED}
    assert len(codes) == 7  # every outcome keeps its own code


def test_every_runner_exception_is_in_the_tree() -> None:
    from agenttest.agents import AgentNotReady, Garbage, OverlapError, ReplyTooLarge, TurnLost
    from agenttest.runner import FixtureError

    for cls in (AgentNotReady, FixtureError, Garbage, OverlapError, ReplyTooLarge, TurnLost):
        assert issubclass(cls, AgentTestError), cls
        assert cls.__name__ in (sys.modules["agenttest.errors"].__doc__ or ""), cls
    assert exit_code_for(AgentNotReady("never ready")) == EXIT_AGENT
    assert exit_code_for(OverlapError("two in flight")) == EXIT_INTERNAL
    assert not issubclass(OverlapError, AssertionError)  # `python -O` must not change it


# -- batch ------------------------------------------------------------------------------------


def _nightly(tmp: Path, agent: Path, battery: Path, **job: str) -> Path:
    extra = "".join(f"    {k}: {v}\n" for k, v in job.items())
    path = tmp / "nightly.yaml"
    path.write_text(
        f"out: {tmp / 'nightly'}\njobs:\n  - label: gated\n    batteries: [{battery}]\n"
        f"    agent: {agent}\n    gate: true\n    allow_temp: true\n{extra}",
        encoding="utf-8",
    )
    return path


def test_batch_exits_0_then_1_when_the_gated_job_regresses(tmp_path: Path) -> None:
    battery = tmp_path / "battery"
    battery.mkdir()
    (battery / "QUIET-01.yaml").write_text(GATED_BLOCK, encoding="utf-8")
    with LoopbackAgent(Behaviour(tool_calls=[])) as agent:
        config = tmp_path / "agent.yaml"
        config.write_text(agent_yaml(agent.url), encoding="utf-8")
        nightly = _nightly(tmp_path, config, battery)
        first = run_cli("batch", str(nightly), timeout=300)
        assert first.returncode == EXIT_OK, first.stdout + first.stderr
        assert "gated: ok:" in first.stdout
        # The agent starts calling a tool on every turn: 12/12 -> 0/12 is significant.
        agent.state.b.tool_calls = [
            {"name": "calculator", "arguments": {}, "ok": True, "result": "2"}
        ]
        second = run_cli("batch", str(nightly), timeout=300)
    assert second.returncode == EXIT_GATE, second.stdout + second.stderr
    assert "gated: blocked:" in second.stdout
    assert "agenttest: batch finished with exit status 1" in second.stderr


def test_batch_exits_2_for_a_refused_job_and_prints_its_problems(tmp_path: Path) -> None:
    battery = tmp_path / "battery"
    battery.mkdir()
    bad = battery / "BAD-01.yaml"
    bad.write_text(GATED_BLOCK.replace("id: QUIET-01", "id: BAD-01\ncolour: blue"), "utf-8")
    nightly = _nightly(tmp_path, tmp_path / "agent.yaml", battery)
    result = run_cli("batch", str(nightly), timeout=300)
    assert result.returncode == EXIT_USAGE, result.stdout + result.stderr
    assert "gated: refused:" in result.stdout
    assert f"{bad}:2: unknown key `colour`" in result.stdout  # the FILE:LINE, not a count


def test_batch_exits_3_when_the_agent_never_comes_up(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"B-01": (1, 1)})
    config = tmp_path / "agent.yaml"
    url = f"http://127.0.0.1:{free_port()}"
    config.write_text(agent_yaml(url, readiness={"timeout_s": 0.3}), encoding="utf-8")
    result = run_cli("batch", str(_nightly(tmp_path, config, battery)), timeout=300)
    assert result.returncode == EXIT_AGENT, result.stdout + result.stderr
    assert "gated: aborted:" in result.stdout


def test_batch_exits_130_when_interrupted_mid_turn(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"B-01": (1, 3)})
    arrived = threading.Event()
    release = threading.Event()

    def hold(_turn: int) -> None:
        arrived.set()
        release.wait(EVENTUALLY_S)  # the turn stays in flight until the child was interrupted

    with LoopbackAgent(Behaviour(on_turn=hold)) as agent:
        config = tmp_path / "agent.yaml"
        config.write_text(
            agent_yaml(agent.url, timeouts={"answer_s": EVENTUALLY_S}), encoding="utf-8"
        )
        proc = _start("batch", str(_nightly(tmp_path, config, battery)))
        try:
            assert arrived.wait(EVENTUALLY_S), "the batch's run never sent a turn"
            code, out, err = _interrupt(proc)
        finally:
            release.set()
    assert code == EXIT_INTERRUPTED, out + err
    assert "interrupted" in err


# -- Ctrl-C where Typer, not the runner, sees it -----------------------------------------------


@needs_proc
def test_ctrl_c_in_run_before_the_run_file_exists_exits_130(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"B-01": (1, 1)})
    fifo = tmp_path / "agent.yaml"
    os.mkfifo(fifo)  # reading the agent config blocks until a writer comes: none does
    out = tmp_path / "out"
    proc = _start("run", str(battery), "--agent", str(fifo), "--out", str(out), "--allow-temp")
    _blocked_in(proc, ("wait_for_partner", "fifo_open"))
    code, _out, err = _interrupt(proc)
    assert code == EXIT_INTERRUPTED, err
    assert "agenttest: interrupted" in err
    assert not out.exists() or not list(out.glob("*.jsonl"))


@needs_proc
def test_ctrl_c_during_report_o_exits_130(tmp_path: Path) -> None:
    fifo = tmp_path / "run.jsonl"
    os.mkfifo(fifo)
    target = tmp_path / "report.md"
    proc = _start("report", str(fifo), "-o", str(target))
    _blocked_in(proc, ("wait_for_partner", "fifo_open"))
    code, _out, err = _interrupt(proc)
    assert code == EXIT_INTERRUPTED, err
    assert "agenttest: interrupted" in err
    assert not target.exists()


@needs_proc
def test_ctrl_c_at_the_rate_prompt_exits_130(tmp_path: Path) -> None:
    run_file = write(
        tmp_path / "run.jsonl",
        [meta("r1", []), attempt("L1-CALC-01", 1, "PASS", k=1), run_end()],
    )
    read_end, write_end = os.pipe()
    try:
        proc = _start("rate", str(run_file), "--rater", "ann", stdin=read_end)
        _blocked_in(proc, ("pipe_read", "pipe_wait", "anon_pipe_read"))
        code, out, err = _interrupt(proc)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert code == EXIT_INTERRUPTED, out + err
    assert "interrupted" in err
