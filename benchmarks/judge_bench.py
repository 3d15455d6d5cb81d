"""The on-device judge's speed against sentence-transformers on torch CPU, same model files.

    python benchmarks/judge_bench.py [--rounds 3] [--texts 64] [--skip-cold]

Every comparison runs both sides on the same texts in the same process, *interleaved*
(round r runs OpenVINO then torch, round r+1 torch then OpenVINO), and reports medians
and the ratio, so machine load hits both alike. Nothing is timed in a test.

1. encoder grid: texts/s by text length (short ~12, medium ~64, long ~256 word pieces)
   and batch size (1, 32);
2. cold start: a fresh interpreter, import to first embedding, each side;
3. the judge's real workload: the typed JUDGE requests of the calibration set
   (agenttest/data/judge_typed/calibration.jsonl: battery and corpus references and
   replies), one attempt at a time as grading calls it. Torch side: sentence-transformers
   encodes every text the procedures need, per attempt, with its own length-sorted
   batching and no cache, under the very same judge procedures. OpenVINO side: the judge as shipped (length-bucketed batches,
   embeddings cached across attempts, so a reference and the act examples are embedded
   once), and the same judge with the cache off.

sentence-transformers and torch are not dependencies of agenttest: install them into the
benchmark's venv (``pip install torch==2.13.0 sentence-transformers``). Without them the
torch columns say "not installed". The model is loaded offline from the packaged files.
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

from agenttest.judges._minilm import MiniLMEncoder, find_model_dir  # noqa: E402
from agenttest.judges._openvino_judge import OpenVINOJudge  # noqa: E402
from agenttest.judges._procedures import texts_to_embed  # noqa: E402

DATA = ROOT / "agenttest" / "data" / "judge_typed" / "calibration.jsonl"
LENGTHS = {"short": 12, "medium": 64, "long": 256}
BATCHES = (1, 32)

COLD_OV = (
    "import time; t0 = time.perf_counter()\n"
    "from agenttest.judges import get_judge\n"
    "get_judge('openvino').encoder.encode(['warm up'])\n"
    "print(time.perf_counter() - t0)\n"
)
COLD_ST = (
    "import time; t0 = time.perf_counter()\n"
    "from sentence_transformers import SentenceTransformer\n"
    f"m = SentenceTransformer({str(find_model_dir())!r}, device='cpu')\n"
    "m.encode(['warm up'])\n"
    "print(time.perf_counter() - t0)\n"
)


def load_rows() -> list[dict[str, Any]]:
    return [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]


def sized_texts(rows: list[dict[str, Any]], encoder: MiniLMEncoder, n: int) -> dict[str, list[str]]:
    """n texts per length class, cut from the calibration replies by word pieces."""
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


def st_model() -> Any | None:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    return SentenceTransformer(str(find_model_dir()), device="cpu")


def rate(fn: Callable[[], int]) -> float:
    t0 = time.perf_counter()
    count = fn()
    return count / (time.perf_counter() - t0)


def interleaved(sides: dict[str, Callable[[], int]], rounds: int) -> dict[str, float]:
    """Median items/s per side; the order of the sides alternates round by round."""
    names = list(sides)
    got: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            got[name].append(rate(sides[name]))
    return {n: statistics.median(v) for n, v in got.items()}


def encode_grid(texts: dict[str, list[str]], st: Any, rounds: int) -> list[str]:
    ov = MiniLMEncoder()
    lines = [
        "| text length | batch | OpenVINO texts/s | torch texts/s | ratio |",
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
            run_ov()  # warm up both at this shape
            if st is not None:
                run_st()
            med = interleaved(sides, rounds)
            torch_rate = f"{med['st']:.0f}" if st is not None else "not installed"
            ratio = f"{med['ov'] / med['st']:.2f}x" if st is not None else "—"
            lines.append(
                f"| {name} (~{LENGTHS[name]}) | {batch} | {med['ov']:.0f} | {torch_rate} | {ratio} |"
            )
    return lines


def cold(rounds: int, with_st: bool) -> list[str]:
    times: dict[str, list[float]] = {"ov": [], "st": []}
    for r in range(rounds):
        order = ["ov", "st"] if r % 2 == 0 else ["st", "ov"]
        for side in order:
            if side == "st" and not with_st:
                continue
            code = COLD_OV if side == "ov" else COLD_ST
            out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                                 text=True, check=True)  # fmt: skip
            times[side].append(float(out.stdout.strip().splitlines()[-1]))
    ov = statistics.median(times["ov"])
    st = f"{statistics.median(times['st']):.2f} s" if with_st else "not installed"
    return [f"cold start (fresh process to first embedding): OpenVINO {ov:.2f} s, torch {st}"]


def workload(rows: list[dict[str, Any]], st: Any, rounds: int) -> list[str]:
    from agenttest.judges import JudgeRequest

    reqs = [
        JudgeRequest("", str(r["reference"]), str(r["candidate"]), asks=str(r["asks"]),
                     act=str(r.get("act") or ""), min_items=r.get("min_items"))
        for r in rows
    ]  # fmt: skip
    per_attempt = [texts_to_embed(q.asks, q.reference, q.candidate, q.tool_results) for q in reqs]
    n_texts = sum(len(t) for t in per_attempt)
    encoder = MiniLMEncoder()

    def judged(cache: int) -> Callable[[], int]:
        def run() -> int:
            judge = OpenVINOJudge(encoder=encoder, cache_size=cache)  # a cold cache per round
            for q in reqs:
                judge.judge(q)
            return len(reqs)

        return run

    class TorchEncoder:  # the same judge procedures over sentence-transformers
        max_tokens = 256

        def encode(self, texts: list[str]) -> Any:
            return st.encode(list(texts), batch_size=32, normalize_embeddings=True)

    def run_st() -> int:
        judge = OpenVINOJudge(encoder=TorchEncoder(), cache_size=0)  # type: ignore[arg-type]
        for q in reqs:
            judge.judge(q)
        return len(reqs)

    sides = {"ov": judged(4096), "ov_nocache": judged(0)}
    if st is not None:
        sides["st"] = run_st
    med = interleaved(sides, rounds)
    lines = [
        f"real workload: {len(reqs)} typed JUDGE attempts, {n_texts} texts to embed "
        f"({len(set(t for ts in per_attempt for t in ts))} distinct), one attempt at a time",
        "| side | attempts/s | ratio to torch |",
        "|---|---:|---:|",
    ]
    for name, label in (
        ("ov", "OpenVINO judge (cache on)"),
        ("ov_nocache", "OpenVINO judge (cache off)"),
    ):
        ratio = f"{med[name] / med['st']:.2f}x" if st is not None else "—"
        lines.append(f"| {label} | {med[name]:.1f} | {ratio} |")
    if st is not None:
        lines.append(f"| sentence-transformers encode (no cache) | {med['st']:.1f} | 1.00x |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--texts", type=int, default=64)
    parser.add_argument(
        "--attempts",
        type=int,
        default=0,
        help="workload: every k-th calibration row, to about this many (0: all)",
    )
    parser.add_argument(
        "--parts", default="grid,workload,cold", help="comma-separated: grid, workload, cold"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    rows = load_rows()
    st = st_model()
    if "grid" in parts:
        print(
            "\n".join(encode_grid(sized_texts(rows, MiniLMEncoder(), args.texts), st, args.rounds))
        )
        print()
    if "workload" in parts:
        step = max(1, len(rows) // args.attempts) if args.attempts else 1
        print("\n".join(workload(rows[::step], st, args.rounds)))
        print()
    if "cold" in parts:
        print("\n".join(cold(args.rounds, st is not None)))


if __name__ == "__main__":
    main()
