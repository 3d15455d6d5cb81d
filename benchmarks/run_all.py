"""Run every benchmark, one after another, and print their ratios together.

    python benchmarks/run_all.py            # the defaults below, a few minutes on 2 cores
    python benchmarks/run_all.py --quick    # smaller inputs, for a smoke check

Each benchmark measures agenttest against a baseline *in the same run* (a bare json.loads
loop, a bare httpx loop, a bare Typer app, torch when installed), so the ratios hold on any
machine even when the absolute times do not. The latest output is kept in
docs/performance.md with a description of the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BENCHMARKS = {
    "report throughput": (
        "report_throughput.py",
        ["--attempts", "100000"],
        ["--attempts", "10000"],
    ),
    "cli start-up": ("cli_startup.py", ["--runs", "15"], ["--runs", "5"]),
    "battery start-up": (
        "battery_startup.py",
        ["--runs", "7"],
        ["--runs", "3", "--commands", "run"],
    ),
    "runner overhead": (
        "runner_overhead.py",
        ["--attempts", "300"],
        ["--attempts", "60", "--rounds", "1"],
    ),
    "judge throughput": ("judge_bench.py", [], ["--rounds", "1"]),
    "hosted tools overhead": (
        "hosted_overhead.py",
        ["--calls", "300"],
        ["--calls", "50", "--rounds", "1"],
    ),
    "agent-hours": (
        "agent_hours.py",
        [],
        ["--tier", "L1", "--turn-delay", "0.2", "--overhead-attempts", "80"],
    ),
    "html viewer": ("viewer_size.py", ["--repeat", "3"], ["--repeat", "1"]),
}


def describe_machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (
        f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores{mem}, "
        f"Python {platform.python_version()}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--only", action="append", default=[], help="run only these (by name)")
    args = parser.parse_args()
    print(f"machine: {describe_machine()}")
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    failed = 0
    for name, (script, full, quick) in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        argv = [sys.executable, str(HERE / script), *(quick if args.quick else full)]
        print(
            f"\n== {name}: {' '.join(Path(a).name if a.endswith('.py') else a for a in argv[1:])}",
            flush=True,
        )
        start = time.perf_counter()
        result = subprocess.run(argv, text=True, capture_output=True)
        print(result.stdout.rstrip())
        if result.returncode != 0:
            failed += 1
            print(f"FAILED (exit {result.returncode}): {result.stderr.strip()[-500:]}")
        print(f"({time.perf_counter() - start:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
