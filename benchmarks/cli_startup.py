"""Start-up time of `agenttest --help` against a bare Typer app's `--help`, side by side.

    python benchmarks/cli_startup.py [--runs 15]

Both run in fresh interpreters, alternating, so disk cache and CPU frequency affect them
alike. Printed: the median wall time of each and the ratio. The bare app is the floor any
Typer CLI pays (Python, Typer and its help rendering); the difference is what agenttest
adds on top, and heavy modules (numpy, scipy, openvino, jinja2) must not be part of it.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BARE = (
    "import typer\n"
    "app = typer.Typer(add_completion=False)\n"
    "@app.command()\n"
    "def a() -> None: pass\n"
    "@app.command()\n"
    "def b() -> None: pass\n"
    "app()\n"
)


def _time(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    ours_argv = [sys.executable, "-m", "agenttest", "--help"]
    bare_argv = [sys.executable, "-c", BARE, "--help"]
    _time(ours_argv), _time(bare_argv)  # warm the disk cache for both
    ours, bare = [], []
    for _ in range(args.runs):
        ours.append(_time(ours_argv))
        bare.append(_time(bare_argv))
    o, b = statistics.median(ours), statistics.median(bare)
    print(
        f"cli start-up ({args.runs} runs, median): agenttest --help {o * 1000:.0f} ms, "
        f"bare Typer app --help {b * 1000:.0f} ms, ratio {o / b:.2f}x"
    )


if __name__ == "__main__":
    main()
