"""How fast is `agenttest report --format json` compared with merely parsing the file?

Generates a run file of 100,000 attempts (1,000 blocks × k = 100, each attempt with a
realistic turn: prompt, response, a tool call, a trace, two criteria with evidence), then
times, best of ``--repeat``:

* a bare loop of ``json.loads`` over every line (the floor any reader pays), and
* the library call behind ``agenttest report --format json`` (read, aggregate, render);

and prints their ratio (goal: ≤ 1.5×) and the report's peak Python memory (tracemalloc,
in a separate pass because tracing slows everything down) next to the file size.

    python benchmarks/report_throughput.py [--attempts 100000] [--repeat 3] [--data DIR]

The file goes to ``benchmarks/.data/`` (ignored by git through a ``.gitignore`` written
there) and is reused when it already holds the asked-for number of attempts.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from agenttest.reporting import build_report, render  # noqa: E402
from agenttest.results import iter_records  # noqa: E402

TIERS = ("L1", "L2", "L3", "L4", "HR", "MT", "SEC")


def generate(path: Path, attempts: int, k: int = 100) -> None:
    rng = random.Random(2026)
    blocks = attempts // k
    meta = {
        "record_type": "run_meta", "schema_version": "2.0", "run_id": "bench",
        "model": "bench-model", "agent": {"name": "bench"}, "tester": "bench",
        "run_type": "published", "k_nominal": k, "started_at": "2026-07-13T00:00:00+00:00",
        "battery": {"paths": ["no-such-battery"], "digest": "sha256:0000000000000000"},
        "harness": {"agenttest": "0.1.0"}, "host": {"hostname": "bench"},
        "plan": [{"test_id": f"B-{b:04d}", "runs": k} for b in range(blocks)],
    }  # fmt: skip
    filler = "The agent answered with a fairly ordinary paragraph of text. " * 6
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(meta) + "\n")
        for run in range(1, k + 1):
            for b in range(blocks):
                passed = rng.random() < 0.8
                latency = int(rng.lognormvariate(9.5, 0.7))
                record = {
                    "record_type": "attempt", "schema_version": "2.0",
                    "test_id": f"B-{b:04d}", "tier": TIERS[b % len(TIERS)], "run": run, "k": k,
                    "started_at": "2026-07-13T00:00:00+00:00",
                    "completed_at": "2026-07-13T00:00:09+00:00", "latency_ms": latency,
                    "status": "completed", "error": None, "error_cause": None,
                    "turns": [{
                        "prompt": f"please do task {b} for me", "response": filler,
                        "tool_calls": [{"name": "calculator", "arguments": {"expression": "1+2"},
                                        "ok": True, "result": "3"}],
                        "trace": "ROUTE calc\nCALL calculator {\"expression\": \"1+2\"}\nOK",
                        "http_status": 200, "latency_ms": latency,
                    }],
                    "verdict": "PASS" if passed else "FAIL",
                    "criteria": [
                        {"id": "P1", "tag": "STATE", "kind": "pass", "passed": True,
                         "critical": False, "evidence": {"turn": 1, "tool_call": 0},
                         "says": "the calculator ran"},
                        {"id": "P2", "tag": "KEYWORD", "kind": "pass", "passed": passed,
                         "critical": False, "evidence": {"turn": 1, "span": [0, 3], "text": "3"},
                         "says": "the answer is 3"},
                    ],
                    "critical": [], "rater": "rules@sha256:0000000000000000",
                    "cost_tokens": None,
                }  # fmt: skip
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
        out.write(
            json.dumps(
                {
                    "record_type": "run_end",
                    "schema_version": "2.0",
                    "completed_at": "2026-07-13T09:00:00+00:00",
                }
            )
            + "\n"
        )


def bare_loop(path: Path) -> int:
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            json.loads(line)
            count += 1
    return count


def report_json(path: Path) -> str:
    return render(build_report([path], details=False), "json")


def reader_only(path: Path) -> int:
    count = 0
    for _ in iter_records(path):
        count += 1
    return count


def best_of(repeat: int, fns: list[Callable[[Path], object]], path: Path) -> list[float]:
    """Best time of each function, interleaved so that load changes hit all of them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn(path)
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=HERE / ".data")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    (args.data / ".gitignore").write_text("*\n", encoding="utf-8")
    path = args.data / f"run_bench_{args.attempts}.jsonl"
    if not path.exists() or sum(1 for _ in path.open("rb")) != args.attempts + 2:
        start = time.perf_counter()
        generate(path, args.attempts)
        print(f"generated {path} in {time.perf_counter() - start:.1f} s")
    size_mb = path.stat().st_size / 1e6
    print(f"file: {args.attempts:,} attempts, {size_mb:.1f} MB")

    bare, reader, full = best_of(args.repeat, [bare_loop, reader_only, report_json], path)
    data = json.loads(report_json(path))
    assert data["overall"]["n"] == args.attempts, data["overall"]
    print(f"bare json.loads loop : {bare:6.2f} s")
    print(f"iter_records alone   : {reader:6.2f} s  (the shared reader: versions, torn lines)")
    print(f"report --format json : {full:6.2f} s")
    print(f"ratio                : {full / bare:6.2f}x  (goal <= 1.5x)")

    tracemalloc.start()
    report_json(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"peak Python memory   : {peak / 1e6:6.1f} MB (tracemalloc, report only; "
        f"file {size_mb:.1f} MB)"
    )
    print(f"max RSS of process   : {rss:6.1f} MB (includes the interpreter and scipy-free libs)")


if __name__ == "__main__":
    main()
