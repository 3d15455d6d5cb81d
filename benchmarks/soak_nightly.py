"""Seven nights of `agenttest batch` against an agent that degrades, crashes and recovers.

Each night runs the real `agenttest batch` in a fresh process from a cron-like environment
(`env -i`: no TTY, only PATH, HOME and LANG=C), against a loopback agent whose behaviour
follows a schedule. It prints one row per night: the process exit code, the baseline the
batch used and the runs it passed over, and the night's summary line.

    python benchmarks/soak_nightly.py [--out DIR]

Expected: night 1 has no baseline; a regression against a complete baseline exits 1 (the
job is gated); a crashed or never-ready night exits 3 and is never a later baseline.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests._servers import Behaviour, LoopbackAgent, agent_yaml, write_battery  # noqa: E402

BLOCKS = {"L1-SOAK-01": (1, 3), "L1-SOAK-02": (2, 3), "L1-SOAK-03": (1, 3)}
_WRONG = json.dumps({"response": "no idea", "tool_calls": [], "trace": ""}).encode()


def _wrong(handler: Any) -> bool:
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(_WRONG)))
    handler.end_headers()
    handler.wfile.write(_WRONG)
    return True


def _night(n: int, agent: LoopbackAgent) -> tuple[str, Behaviour]:
    """The agent's behaviour on night ``n`` (what a week of a local model can look like)."""
    if n == 2:
        return "degraded: every turn answers wrongly", Behaviour(
            raw_turns={t: _wrong for t in range(1, 100)}
        )
    if n == 3:

        def crash(turn: int) -> None:
            if turn == 4:  # the agent process dies mid-night and stays down
                threading.Thread(target=agent.stop, daemon=True).start()

        return "crashes after 3 turns", Behaviour(on_turn=crash)
    if n == 5:
        return "never comes up", Behaviour(loading_s=10_000)
    if n == 6:
        return "half the turns answer wrongly", Behaviour(
            raw_turns={t: _wrong for t in range(1, 100, 2)}
        )
    return "healthy", Behaviour()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="soak-", dir=Path.home()))
    work.mkdir(parents=True, exist_ok=True)
    battery = write_battery(work / "battery", BLOCKS)
    config = work / "agent.yaml"
    nightly = work / "nightly.yaml"
    nightly.write_text(
        f"out: {work / 'out'}\njobs:\n  - label: soak\n    batteries: [{battery}]\n"
        f"    agent: {config}\n    gate: true\n    formats: [md, json]\n",
        encoding="utf-8",
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "LANG": "C"}
    rows = []
    for n in range(1, 8):
        agent = LoopbackAgent()
        what, behaviour = _night(n, agent)
        agent.behaviour = behaviour
        agent.state.b = behaviour
        with agent:
            config.write_text(agent_yaml(agent.url, readiness={"timeout_s": 3}), "utf-8")
            done = subprocess.run(
                ["env", "-i", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m",
                 "agenttest", "batch", str(nightly)],
                cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900,
            )  # fmt: skip
        summary = json.loads(sorted((work / "out").glob("batch_*.json"))[-1].read_text())
        job = summary["jobs"][0]
        rows.append(
            (
                n,
                what,
                done.returncode,
                Path(job["previous"]).name if job.get("previous") else "-",
                "; ".join(job.get("baseline_skipped") or []) or "-",
                Path(job["run_file"]).name if job.get("run_file") else "-",
                job.get("summary", "")[:90],
            )
        )
    print("| night | agent | exit | baseline used | passed over | run file | summary |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    print(f"\n(work folder: {work})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
