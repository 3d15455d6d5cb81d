"""Start-up on the whole battery against the same command on a one-file battery, side by side.

    python benchmarks/battery_startup.py [--runs 7] [--block L1-CALC-01] [--commands run]

What is measured is the cost of the battery's size: `agenttest run batteries --only BLOCK
--k 1 --agent example` against the same run from a folder holding only that block's file
(its content copied, nothing else), and `list` and `validate` of each. Every command runs
in a fresh interpreter with the same settings on both sides, in turn (battery, one file,
battery, ...), so disk cache, CPU frequency and the neighbours' load affect them alike.
Printed per command: the median wall time of each side, the median of the pairs' ratios
battery / one file in wall and in CPU time (user + system of the command and the children
it waited for; the steadier of the two on a busy machine), and when the battery's command
first wrote a line. The goal for the run is a ratio <= 1.5x with a warm cache.

Each command is timed *warm*, with the parse cache filled by an earlier command (what
every command after the first sees), and *cold*, with an empty cache folder each time
(the first command after every file changed, or a fresh machine). The cache folder is a
scratch folder (``AGENTTEST_CACHE_DIR``), never the user's own.
"""

from __future__ import annotations

import argparse
import os
import resource
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BATTERY = ROOT / "batteries"


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float
    first_output: float


def _block_file(block: str) -> Path:
    for path in sorted(BATTERY.rglob("*.yaml")):
        if "overlays" not in path.parts and path.stem == block:
            return path
    raise SystemExit(f"no file {block}.yaml under {BATTERY}")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(argv: list[str], env: dict[str, str]) -> Timing:
    """Wall and CPU seconds of one command, and when it first wrote anything."""
    cpu, start = _children_cpu(), time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    first: float | None = None
    tail = b""
    with selectors.DefaultSelector() as streams:
        assert child.stdout is not None and child.stderr is not None
        streams.register(child.stdout, selectors.EVENT_READ)
        streams.register(child.stderr, selectors.EVENT_READ)
        while streams.get_map():
            for key, _ in streams.select():
                data = os.read(key.fd, 65536)
                if not data:
                    streams.unregister(key.fileobj)
                    continue
                if first is None:
                    first = time.perf_counter() - start
                tail = (tail + data)[-800:]
    code = child.wait()
    wall = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} exited {code}: {tail.decode(errors='replace')}")
    return Timing(wall, _children_cpu() - cpu, wall if first is None else first)


def _measure(
    runs: int, full: list[str], one: list[str], env: Callable[[str], dict[str, str]]
) -> tuple[list[Timing], list[Timing]]:
    battery, single = [], []
    for i in range(runs):
        battery.append(_time(full, env(f"b{i}")))
        single.append(_time(one, env(f"o{i}")))
    return battery, single


def _line(label: str, battery: list[Timing], single: list[Timing]) -> str:
    def ratio(what: Callable[[Timing], float]) -> float:
        return statistics.median(what(b) / what(o) for b, o in zip(battery, single, strict=True))

    return (
        f"  {label}: battery {statistics.median(t.wall for t in battery) * 1000:5.0f} ms, "
        f"one file {statistics.median(t.wall for t in single) * 1000:5.0f} ms; "
        f"ratio wall {ratio(lambda t: t.wall):.2f}x, cpu {ratio(lambda t: t.cpu):.2f}x; "
        f"battery's first line after "
        f"{statistics.median(t.first_output for t in battery) * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--block", default="L1-CALC-01")
    parser.add_argument("--commands", default="run,list,validate", help="comma-separated")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="agenttest-startup-"))
    try:
        one = scratch / "one"
        one.mkdir()
        source = _block_file(args.block)
        (one / source.name).write_bytes(source.read_bytes())
        out = scratch / "out"
        run_options = ["--only", args.block, "--k", "1", "--agent", "example"]
        commands = {
            "run": lambda p: ["run", p, *run_options, "--out", str(out), "--allow-temp"],
            "list": lambda p: ["list", p],
            "validate": lambda p: ["validate", p],
        }
        files = [p for p in BATTERY.rglob("*.yaml") if "overlays" not in p.parts]
        print(
            f"battery start-up ({args.runs} pairs each, medians): battery = {len(files)} block "
            f"files under batteries/, one file = {source.name} alone in a folder"
        )
        warm_cache = scratch / "cache-warm"

        def warm(_run: str) -> dict[str, str]:
            return {**os.environ, "AGENTTEST_CACHE_DIR": str(warm_cache)}

        def cold(run: str) -> dict[str, str]:
            folder = scratch / f"cache-cold-{run}"
            shutil.rmtree(folder, ignore_errors=True)  # an empty cache for every command
            return {**os.environ, "AGENTTEST_CACHE_DIR": str(folder)}

        for name in [c.strip() for c in args.commands.split(",") if c.strip()]:
            words = commands[name]
            full = [sys.executable, "-m", "agenttest", *words("batteries")]
            single = [sys.executable, "-m", "agenttest", *words(str(one))]
            _time(full, warm("")), _time(single, warm(""))  # fill the cache, warm the disk
            print(f"agenttest {' '.join(words('batteries'))}".replace(str(out), "OUT"))
            print(_line("warm", *_measure(args.runs, full, single, warm)))
            print(_line("cold", *_measure(args.runs, full, single, cold)))
        print("goal: run, warm, ratio <= 1.5x; a first line within a second")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
