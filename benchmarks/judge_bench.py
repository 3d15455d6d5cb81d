"""The on-device judge's speed against sentence-transformers on torch CPU, same model files.

    python benchmarks/judge_bench.py [--threads 2] [--rounds 5] [--texts 32]
                                     [--attempts 40] [--parts grid,workload,cold]

What is measured, and how it is kept fair (issue 33):

* **equal threads**: both engines get ``--threads`` compute threads (OpenVINO's
  ``INFERENCE_NUM_THREADS``, torch's ``set_num_threads``; torch's inter-op pool is 1);
* **interleaved**: every round runs every side once, the order alternating round by round,
  so machine load hits all sides alike; each cell reports min / median / max of the rounds;
* **warm**: in one process, after a warm-up call of every side at that shape;
* **cold**: a fresh interpreter per run (import, load, first embedding), both engines
  alternating, threads pinned the same way;
* **the judge's real workload**: the typed JUDGE requests of the development pairs
  (agenttest/data/judge_typed/calibration.jsonl), one attempt at a time as grading calls
  the judge; what is embedded is what the procedures embed: the reply's sentences, the
  reference's claims or items and, for ``act``, the example sentences. Both engines run
  the very same judge procedures (the torch side through an encoder adapter), each both
  with the judge's embedding cache and without it, so no side alone gets a cache.

sentence-transformers and torch are not dependencies of agenttest: install them in the
benchmark's venv (``pip install torch==2.13.0 sentence-transformers``; the model files are
the packaged ones, loaded offline). Without them the torch columns say "not installed".
Nothing here is timed in a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from agenttest.judges import JudgeRequest  # noqa: E402
from agenttest.judges._minilm import MiniLMEncoder, find_model_dir  # noqa: E402
from agenttest.judges._openvino_judge import OpenVINOJudge  # noqa: E402
from agenttest.judges._procedures import texts_to_embed  # noqa: E402

DATA = ROOT / "agenttest" / "data" / "judge_typed" / "calibration.jsonl"
LENGTHS = {"short": 12, "medium": 64, "long": 256}
BATCHES = (1, 32)
CACHE = 4096

COLD_OV = (
    "import time; t0 = time.perf_counter()\n"
    "from agenttest.judges._minilm import MiniLMEncoder\n"
    "MiniLMEncoder(threads={threads}).encode(['warm up'])\n"
    "print(time.perf_counter() - t0)\n"
)
COLD_ST = (
    "import time; t0 = time.perf_counter()\n"
    "import torch\n"
    "torch.set_num_threads({threads}); torch.set_num_interop_threads(1)\n"
    "from sentence_transformers import SentenceTransformer\n"
    "m = SentenceTransformer({model!r}, device='cpu')\n"
    "m.encode(['warm up'])\n"
    "print(time.perf_counter() - t0)\n"
)

Stats = tuple[float, float, float]  # min, median, max


def load_rows() -> list[dict[str, Any]]:
    return [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]


def st_model(threads: int) -> Any | None:
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    return SentenceTransformer(str(find_model_dir()), device="cpu")


def stats(values: list[float]) -> Stats:
    return min(values), statistics.median(values), max(values)


def show(s: Stats, digits: int = 1) -> str:
    return f"{s[0]:.{digits}f} / {s[1]:.{digits}f} / {s[2]:.{digits}f}"


def interleaved(sides: dict[str, Callable[[], int]], rounds: int) -> dict[str, Stats]:
    """Items per second per side over ``rounds`` rounds; the side order alternates."""
    names = list(sides)
    got: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else list(reversed(names)):
            t0 = time.perf_counter()
            count = sides[name]()
            got[name].append(count / (time.perf_counter() - t0))
    return {n: stats(v) for n, v in got.items()}


def sized_texts(rows: list[dict[str, Any]], encoder: MiniLMEncoder, n: int) -> dict[str, list[str]]:
    """n texts per length class, cut from the development replies by word pieces."""
    tok = encoder._rt.tokenizer  # the judge's own tokenizer, to cut at word pieces
    words = " ".join(str(r["candidate"]) for r in rows).split()
    out: dict[str, list[str]] = {}
    for name, pieces in LENGTHS.items():
        texts, start = [], 0
        while len(texts) < n:
            chunk = words[start : start + pieces]
            start = (start + pieces // 2) % max(1, len(words) - pieces)
            enc = tok.encode(" ".join(chunk))
            texts.append(tok.decode(enc.ids[1 : pieces - 1]))
        out[name] = texts
    return out


def encode_grid(texts: dict[str, list[str]], st: Any, rounds: int, threads: int) -> list[str]:
    ov = MiniLMEncoder(threads=threads)
    lines = [
        "| text length | batch | OpenVINO texts/s (min / median / max) | torch texts/s "
        "(min / median / max) | ratio of medians |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, group in texts.items():
        for batch in BATCHES:

            def run_ov(group: list[str] = group, batch: int = batch) -> int:
                for i in range(0, len(group), batch):
                    ov.encode(group[i : i + batch])
                return len(group)

            def run_st(group: list[str] = group, batch: int = batch) -> int:
                st.encode(group, batch_size=batch, normalize_embeddings=True)
                return len(group)

            sides = {"ov": run_ov} | ({"st": run_st} if st is not None else {})
            for warm in sides.values():
                warm()
            got = interleaved(sides, rounds)
            torch_rate = show(got["st"], 0) if st is not None else "not installed"
            ratio = f"{got['ov'][1] / got['st'][1]:.2f}x" if st is not None else "—"
            lines.append(
                f"| {name} (~{LENGTHS[name]}) | {batch} | {show(got['ov'], 0)} | {torch_rate} "
                f"| {ratio} |"
            )
    return lines


def cold(rounds: int, threads: int, with_st: bool) -> list[str]:
    times: dict[str, list[float]] = {"ov": [], "st": []}
    model = str(find_model_dir())
    for r in range(rounds):
        for side in ["ov", "st"] if r % 2 == 0 else ["st", "ov"]:
            if side == "st" and not with_st:
                continue
            code = (COLD_OV if side == "ov" else COLD_ST).format(threads=threads, model=model)
            out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                                 text=True, check=True)  # fmt: skip
            times[side].append(float(out.stdout.strip().splitlines()[-1]))
    ov = stats(times["ov"])
    st = f"{show(stats(times['st']), 2)} s" if with_st else "not installed"
    ratio = f"; torch / OpenVINO {stats(times['st'])[1] / ov[1]:.2f}x" if with_st else ""
    return [
        f"cold start, fresh process to first embedding (min / median / max of {rounds}): "
        f"OpenVINO {show(ov, 2)} s, torch {st}{ratio}"
    ]


class TorchEncoder:
    """sentence-transformers behind the judge's encoder interface (same procedures)."""

    max_tokens = 256

    def __init__(self, model: Any) -> None:
        self.model = model

    def encode(self, texts: list[str]) -> Any:
        return self.model.encode(list(texts), batch_size=32, normalize_embeddings=True)


def workload(rows: list[dict[str, Any]], st: Any, rounds: int, threads: int) -> list[str]:
    reqs = [
        JudgeRequest("", str(r["reference"]), str(r["candidate"]), asks=str(r["asks"]),
                     act=str(r.get("act") or ""), min_items=r.get("min_items"))
        for r in rows
    ]  # fmt: skip
    per_attempt = [texts_to_embed(q.asks, q.reference, q.candidate, q.tool_results) for q in reqs]
    n_texts = sum(len(t) for t in per_attempt)
    distinct = len({t for ts in per_attempt for t in ts})
    encoders: dict[str, Any] = {"ov": MiniLMEncoder(threads=threads)}
    if st is not None:
        encoders["st"] = TorchEncoder(st)

    def judged(engine: str, cache: int) -> Callable[[], int]:
        def run() -> int:  # a fresh judge per round: its cache starts empty
            judge = OpenVINOJudge(encoder=encoders[engine], cache_size=cache, gate=False)
            for q in reqs:
                judge.judge(q)
            return len(reqs)

        return run

    sides = {f"{e}_{c}": judged(e, size) for e in encoders for c, size in (("cache", CACHE),
             ("nocache", 0))}  # fmt: skip
    for warm in sides.values():
        warm()
    got = interleaved(sides, rounds)
    lines = [
        f"real workload: {len(reqs)} typed JUDGE attempts, {n_texts} texts to embed "
        f"({distinct} distinct), one attempt at a time; {threads} thread(s) each",
        "| judge's embedding cache | OpenVINO attempts/s (min / median / max) | torch "
        "attempts/s (min / median / max) | ratio of medians |",
        "|---|---:|---:|---:|",
    ]
    for cache in ("cache", "nocache"):
        ov = got[f"ov_{cache}"]
        st_side = got.get(f"st_{cache}")
        torch_rate = show(st_side) if st_side else "not installed"
        ratio = f"{ov[1] / st_side[1]:.2f}x" if st_side else "—"
        label = "on (both)" if cache == "cache" else "off (both)"
        lines.append(f"| {label} | {show(ov)} | {torch_rate} | {ratio} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--texts", type=int, default=32)
    parser.add_argument(
        "--attempts", type=int, default=0, help="workload: every k-th row, to about this many"
    )
    parser.add_argument(
        "--parts", default="grid,workload,cold", help="comma-separated: grid, workload, cold"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    rows = load_rows()
    st = st_model(args.threads)
    print(f"threads per engine: {args.threads}; rounds: {args.rounds}; "
          f"torch: {'installed' if st is not None else 'not installed'}\n")  # fmt: skip
    if "grid" in parts:
        texts = sized_texts(rows, MiniLMEncoder(threads=args.threads), args.texts)
        print("\n".join(encode_grid(texts, st, args.rounds, args.threads)) + "\n")
    if "workload" in parts:
        step = max(1, len(rows) // args.attempts) if args.attempts else 1
        print("\n".join(workload(rows[::step], st, args.rounds, args.threads)) + "\n")
    if "cold" in parts:
        print("\n".join(cold(args.rounds, args.threads, st is not None)))


if __name__ == "__main__":
    main()
