"""The nightly soak: `agenttest batch` night after night against an agent that degrades,
crashes and recovers on a schedule (issue 14, "Done means").

Shared by the slow-marked test (``tests/test_soak.py``) and the benchmark script that
prints the table for the closing note (``benchmarks/soak_nightly.py``). Every night is a
real `agenttest batch` process started like cron starts it: ``env -i`` (only PATH, HOME
and LANG=C), no TTY, stdin from /dev/null.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._servers import Behaviour, LoopbackAgent, agent_yaml, write_battery

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = {"L1-SOAK-01": (1, 3), "L1-SOAK-02": (2, 3), "L1-SOAK-03": (1, 3)}
_WRONG = json.dumps({"response": "no idea", "tool_calls": [], "trace": ""}).encode()

#: The exit code each night of the schedule must end with (docs/nightly.md): 1 for a
#: gated regression, 3 when the agent crashed or never came up, else 0.
EXPECTED_EXIT = {1: 0, 2: 1, 3: 3, 4: 0, 5: 3, 6: 1, 7: 0}


def _wrong(handler: Any) -> bool:
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(_WRONG)))
    handler.end_headers()
    handler.wfile.write(_WRONG)
    return True


def _silent(_handler: Any) -> bool:
    return True  # nothing is sent: the stop cut the connection


def behaviour(n: int, agent: LoopbackAgent) -> tuple[str, Behaviour]:
    """The agent's behaviour on night ``n`` (what a week of a local model can look like)."""
    if n == 2:
        return "degraded: every turn answers wrongly", Behaviour(
            raw_turns={t: _wrong for t in range(1, 100)}
        )
    if n == 3:

        def crash(turn: int) -> None:
            # The agent process dies mid-night, before it answers turn 4, and stays down. In
            # this handler's own thread, not one of its own: a stop left to another thread
            # could come after the remaining turns on a loaded machine (all 9 answered).
            if turn == 4:
                agent.stop()

        return "crashes after 3 turns", Behaviour(
            on_turn=crash,
            raw_turns={t: _silent for t in range(4, 100)},  # a dead agent is silent
        )
    if n == 5:
        return "never comes up", Behaviour(loading_s=10_000)
    if n == 6:
        return "half the turns answer wrongly", Behaviour(
            raw_turns={t: _wrong for t in range(1, 100, 2)}
        )
    return "healthy", Behaviour()


@dataclass(frozen=True)
class Night:
    n: int
    agent: str
    exit: int
    baseline: str  # the run file the batch compared with, or "-"
    passed_over: str  # newer runs it did not take as baseline, with why
    run_file: str
    summary: str


class Soak:
    """A work folder with the battery, the agent config and the nightly batch file."""

    def __init__(self, work: Path, *, allow_temp: bool = False) -> None:
        self.work = work
        work.mkdir(parents=True, exist_ok=True)
        battery = write_battery(work / "battery", BLOCKS)
        self.config = work / "agent.yaml"
        self.nightly = work / "nightly.yaml"
        self.nightly.write_text(
            f"out: {work / 'out'}\njobs:\n  - label: soak\n    batteries: [{battery}]\n"
            f"    agent: {self.config}\n    gate: true\n    formats: [md, json]\n"
            + ("    allow_temp: true\n" if allow_temp else ""),
            encoding="utf-8",
        )

    def night(self, n: int) -> Night:
        agent = LoopbackAgent()
        what, b = behaviour(n, agent)
        agent.behaviour = b
        agent.state.b = b
        env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "LANG": "C"}
        env["AGENTTEST_CACHE_DIR"] = os.environ["AGENTTEST_CACHE_DIR"]  # not the home's
        with agent:
            self.config.write_text(agent_yaml(agent.url, readiness={"timeout_s": 3}), "utf-8")
            done = subprocess.run(
                ["env", "-i", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m",
                 "agenttest", "batch", str(self.nightly)],
                cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900,
            )  # fmt: skip
        summaries = sorted((self.work / "out").glob("batch_*.json"))
        job = json.loads(summaries[-1].read_text(encoding="utf-8"))["jobs"][0]
        return Night(
            n,
            what,
            done.returncode,
            Path(job["previous"]).name if job.get("previous") else "-",
            "; ".join(job.get("baseline_skipped") or []) or "-",
            Path(job["run_file"]).name if job.get("run_file") else "-",
            job.get("summary", "")[:90],
        )


def table(nights: list[Night]) -> str:
    lines = [
        "| night | agent | exit | baseline used | passed over | run file | summary |",
        "|---|---|---|---|---|---|---|",
    ]
    for x in nights:
        cells = (x.n, x.agent, x.exit, x.baseline, x.passed_over, x.run_file, x.summary)
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)
