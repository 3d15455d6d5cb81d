"""Decisions per agent-hour: one agent vs a pool of 4, fixed k vs --until-decided.

    python benchmarks/agent_hours.py                      # whole battery, k 5, 0.5 s per turn
    python benchmarks/agent_hours.py --tier L1 --turn-delay 0.2 --overhead-attempts 80

The whole battery at k = 5 against the bundled example agent with a fixed think time per
turn (``--turn-delay-s``), three ways, in one run:

  (a) one agent, fixed k;  (b) 4 replicas, fixed k;  (c) 4 replicas, ``--until-decided``.

Printed: wall time and attempts sent for each, the speed-ups b/a and c/a, and whether the
three give identical block decisions (they must). Speed-ups are over the span of the
attempts (first started to last recorded), the part a pool changes; the time to start the
example agents (4 processes at once on a small machine) is printed beside it. Then the harness's own cost per attempt
at 4 and 8 replicas: a pool of instant loopback agents driven by the runner against bare
httpx loops, one thread per agent, on the same agents (the least any client must do).

The judge is off (``--judge none``) in all three, so its model's cost (judge_bench.py)
does not hide the scheduling; blocks with JUDGE criteria decide the same way in each.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from agenttest.reporting import build_report  # noqa: E402
from agenttest.results import iter_records  # noqa: E402
from agenttest.runner import RunRequest, run  # noqa: E402
from tests._servers import LoopbackAgent, agent_yaml, write_battery  # noqa: E402

SCRATCH = Path(__file__).resolve().parent / ".agent_hours_scratch"


def battery_run(
    out: Path, delay: float, replicas: int | None, until_decided: bool, tiers: list[str]
) -> dict:
    started = time.perf_counter()
    path = run(
        RunRequest(
            paths=[str(ROOT / "batteries")],
            agent="example",
            k=5,
            tiers=tiers,
            out=out,
            quiet=True,
            judge="none",
            replicas=replicas,
            until_decided=until_decided,
            example_args=("--turn-delay-s", str(delay)),
        )
    )
    wall = time.perf_counter() - started
    records = list(iter_records(path))
    attempts = [r for r in records if r["record_type"] == "attempt"]
    report = build_report([path], details=False)
    starts = [datetime.fromisoformat(a["started_at"]) for a in attempts]
    ends = [datetime.fromisoformat(a["completed_at"]) for a in attempts]
    return {
        "wall": wall,
        # first attempt started → last one recorded: the agent-hours part, without starting
        # the example agents (a real pool's agents are already up)
        "span": (max(ends) - min(starts)).total_seconds(),
        "sent": len(attempts),
        "turns": sum(len(a["turns"]) for a in attempts),
        "errors": sum(
            1 for a in attempts if a["verdict"] == "ERROR" and a["status"] != "completed"
        ),
        "skipped": records[-1]["attempts"].get("skipped_as_decided", 0),
        "decisions": {b.test_id: b.rule_passed for b in report.blocks},
        "missing": report.integrity.missing,
    }


def bare_threads(urls: list[str], per_agent: int) -> float:
    """Wall seconds for the least a client can do: each agent its own thread and kept-alive
    connection, one turn request per attempt."""

    def loop(url: str) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            for i in range(per_agent):
                reply = client.post("/v1/turn", json={"session_id": f"s{i}", "message": "ping"})
                reply.raise_for_status()
                reply.json()

    threads = [threading.Thread(target=loop, args=(u,)) for u in urls]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


def serve(replicas: int) -> int:
    """Child mode: N instant loopback agents, their URLs on stdout, until stdin closes.
    (A process of their own, as real agents are: in the benchmark's process their threads
    would fight the runner's for the interpreter lock and bill it to the harness.)"""
    agents = [LoopbackAgent().start() for _ in range(replicas)]
    print(" ".join(a.url for a in agents), flush=True)
    sys.stdin.read()
    for a in agents:
        a.stop()
    return 0


class Cost(NamedTuple):
    """Milliseconds per attempt: wall clock and CPU of this process (the harness alone: the
    agents run in a child), for the bare loops and for the runner."""

    bare: float
    runner: float
    bare_cpu: float
    runner_cpu: float
    records: int


def pool_overhead(replicas: int, attempts: int, scratch: Path) -> Cost:
    """What the harness costs per attempt with a pool of instant loopback agents."""
    import json
    import subprocess

    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(replicas)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        urls = child.stdout.readline().split()
        per = attempts // replicas
        for url in urls:  # open each server's accept path outside the timing
            httpx.get(f"{url}/health", timeout=10)
        cpu = time.process_time()
        bare = bare_threads(urls, per) / (per * replicas)
        bare_cpu = (time.process_time() - cpu) / (per * replicas)
        config = json.loads(agent_yaml(urls[0]))
        if replicas > 1:
            config["replicas"] = [{"base_url": url} for url in urls]
        (scratch / "pool.yaml").write_text(json.dumps(config), encoding="utf-8")
        battery = write_battery(scratch / "battery", {"L1-BENCH-01": (1, per * replicas)})
        started, cpu = time.perf_counter(), time.process_time()
        path = run(
            RunRequest(
                paths=[str(battery)],
                agent=str(scratch / "pool.yaml"),
                out=scratch / f"out{replicas}",
                quiet=True,
                judge="none",
            )
        )
        runner = (time.perf_counter() - started) / (per * replicas)
        runner_cpu = (time.process_time() - cpu) / (per * replicas)
        records = [r for r in iter_records(path) if r["record_type"] == "attempt"]
        if replicas > 1 and len({r["replica"] for r in records}) != replicas:
            raise SystemExit("not every replica served")
        return Cost(bare * 1000, runner * 1000, bare_cpu * 1000, runner_cpu * 1000, len(records))
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turn-delay", type=float, default=0.5, help="agent think time (s)")
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--overhead-attempts", type=int, default=400)
    parser.add_argument("--skip-battery", action="store_true", help="only the overhead part")
    parser.add_argument(
        "--tier", action="append", default=[], help="only these tiers (default: all)"
    )
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir()
    ok = True
    try:
        if not args.skip_battery:
            n = args.replicas
            a = battery_run(SCRATCH / "a", args.turn_delay, None, False, args.tier)
            b = battery_run(SCRATCH / "b", args.turn_delay, n, False, args.tier)
            c = battery_run(SCRATCH / "c", args.turn_delay, n, True, args.tier)
            same = a["decisions"] == b["decisions"] == c["decisions"]
            blocks = len(a["decisions"])
            print(f"battery                {blocks} blocks, k 5, {args.turn_delay:g} s per turn, judge off")  # fmt: skip
            for name, r in (("(a) 1 agent, fixed k", a), (f"(b) {n} replicas, fixed k", b),
                            (f"(c) {n} replicas, until-decided", c)):  # fmt: skip
                print(
                    f"{name:<32} {r['span']:7.1f} s attempts ({r['wall']:6.1f} s with start-up)  "
                    f"{r['sent']:4d} attempts sent ({r['turns']} turns, {r['skipped']} skipped "
                    f"as decided, {r['errors']} harness errors, {r['missing']} missing)"
                )
            for label, x, goal in (("b/a", b, "3.6"), ("c/a", c, "5")):
                print(
                    f"speed-up {label}           {a['span'] / x['span']:5.2f}x  (goal >= {goal}x; "
                    f"{a['wall'] / x['wall']:.2f}x with start-up)"
                )
            print(f"attempts c/a           {c['sent'] / a['sent']:5.2f}")
            verdicts = sorted({str(v) for v in a["decisions"].values()})
            counts = {v: sum(1 for x in a["decisions"].values() if str(x) == v) for v in verdicts}
            print(f"block decisions        {'identical' if same else 'DIFFERENT'} in a, b, c  {counts}")  # fmt: skip
            ok = same and a["errors"] == b["errors"] == c["errors"] == 0
        serial = 0.0
        pool_overhead(2, 20, SCRATCH)  # warm-up: lazy imports (grading, templates) once
        for replicas in (1, 4, 8):
            c = pool_overhead(replicas, args.overhead_attempts, SCRATCH)
            wall, cpu = c.runner - c.bare, c.runner_cpu - c.bare_cpu
            serial = serial or wall
            what = "1 agent   " if replicas == 1 else f"{replicas} replicas"
            print(
                f"harness at {what}  wall: bare {c.bare:6.3f}, runner {c.runner:6.3f} ms/attempt, "
                f"cost {wall:6.3f}"
                + ("" if replicas == 1 else f" ({wall / serial:4.2f}x one agent's)")
                + f"; CPU: bare {c.bare_cpu:5.3f}, runner {c.runner_cpu:5.3f} ms/attempt, "
                f"cost {cpu:5.3f} ms/attempt ({c.records} records)"
            )
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
