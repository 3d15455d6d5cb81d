"""The runner's own cost per attempt, against a bare httpx loop on the same loopback agent.

    python benchmarks/runner_overhead.py                  # 300 one-turn attempts
    python benchmarks/runner_overhead.py --attempts 1000 --turn-delay 0.005

Both sides talk to the same native-protocol agent on 127.0.0.1 (the loopback server of
the test suite). The bare loop sends one ``POST /v1/turn`` per attempt on a kept-alive
connection and does nothing else: the least any harness must do to get an answer. The
runner does everything an attempt takes: readiness probe, session reset, the turn,
evidence, grading (when the graders are installed), one JSON record written and fsynced.

Printed: milliseconds per attempt for each, the difference (the runner's overhead, target
<= 2 ms) and the ratio; then the same in CPU time of the calling thread (both loops run on
it; the agent's server thread is not counted). On a shared machine the wall-clock ratio
swings with the neighbours' load (2.6x to 14x between runs of one loaded hour); the CPU
ratio is the one that shows what the runner itself costs. The run file goes to a scratch folder beside this script (not a
temp folder, so fsync hits the real disk as in a real run) and is removed afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from agenttest.results import iter_records  # noqa: E402
from agenttest.runner import RunRequest, run  # noqa: E402
from tests._servers import Behaviour, LoopbackAgent, agent_yaml, write_battery  # noqa: E402


def bare_loop(url: str, attempts: int) -> tuple[float, float]:
    """Wall and CPU seconds per attempt for the least a client can do: one turn request,
    read the JSON."""
    with httpx.Client(base_url=url, timeout=30) as client:
        client.get("/health")  # open the connection outside the timing
        started, cpu = time.perf_counter(), time.thread_time()
        for i in range(attempts):
            reply = client.post("/v1/turn", json={"session_id": f"s{i}", "message": "ping"})
            reply.raise_for_status()
            reply.json()
        cpu = time.thread_time() - cpu
        return (time.perf_counter() - started) / attempts, cpu / attempts


def runner_loop(url: str, attempts: int, scratch: Path) -> tuple[float, float, int]:
    battery = write_battery(scratch / "battery", {"L1-BENCH-01": (1, attempts)})
    config = scratch / "agent.yaml"
    config.write_text(agent_yaml(url), encoding="utf-8")
    started, cpu = time.perf_counter(), time.thread_time()
    path = run(RunRequest(paths=[str(battery)], agent=str(config), out=scratch / "out", quiet=True))
    cpu = time.thread_time() - cpu
    elapsed = time.perf_counter() - started
    recorded = sum(1 for r in iter_records(path) if r["record_type"] == "attempt")
    return elapsed / attempts, cpu / attempts, recorded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=300)
    parser.add_argument("--turn-delay", type=float, default=0.0, help="agent think time (s)")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many")
    args = parser.parse_args()
    scratch = Path(__file__).resolve().parent / ".runner_overhead_scratch"
    bare_best = runner_best = bare_cpu = runner_cpu = float("inf")
    recorded = 0
    with LoopbackAgent(Behaviour(turn_delay_s=args.turn_delay)) as agent:
        try:
            for _ in range(args.rounds):
                shutil.rmtree(scratch, ignore_errors=True)
                scratch.mkdir()
                wall, cpu = bare_loop(agent.url, args.attempts)
                bare_best, bare_cpu = min(bare_best, wall), min(bare_cpu, cpu)
                wall, cpu, recorded = runner_loop(agent.url, args.attempts, scratch)
                runner_best, runner_cpu = min(runner_best, wall), min(runner_cpu, cpu)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        max_in_flight = agent.state.max_in_flight
    overhead_ms = (runner_best - bare_best) * 1000
    print(f"attempts per loop      {args.attempts} (best of {args.rounds}), turn delay {args.turn_delay * 1000:g} ms")  # fmt: skip
    print(f"bare httpx loop        {bare_best * 1000:8.3f} ms/attempt")
    print(f"agenttest runner       {runner_best * 1000:8.3f} ms/attempt  ({recorded} records written)")  # fmt: skip
    print(f"runner overhead        {overhead_ms:8.3f} ms/attempt  (target <= 2 ms)")
    print(f"ratio runner/bare      {runner_best / bare_best:8.2f}x")
    print(f"cpu: bare {bare_cpu * 1000:.3f}, runner {runner_cpu * 1000:.3f} ms/attempt, ratio {runner_cpu / bare_cpu:.2f}x (calling thread)")  # fmt: skip
    print(f"max requests in flight {max_in_flight}")
    return 0 if overhead_ms <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
