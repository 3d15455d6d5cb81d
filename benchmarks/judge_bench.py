"""Throughput and cold start of the openvino judge (and torch-CPU, when torch is importable).

    python benchmarks/judge_bench.py [--rounds 3]

* cold start: a fresh interpreter, from ``import agenttest.judges`` to the first embedding
  (reading the safetensors, building the graph, compiling for CPU, loading the tokenizer);
* judge throughput: pairs/s through ``score_pairs`` over the calibration pairs with the
  embedding cache off, so every pair costs two embeddings plus the checks;
* single-pair latency: ``judge()`` one request at a time (median);
* torch: the same weights run by a plain torch forward pass in this script, only if torch
  can be imported here; otherwise that line says it was skipped.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agenttest.judges import JudgeRequest, score_pairs  # noqa: E402
from agenttest.judges._minilm import find_model_dir  # noqa: E402
from agenttest.judges._openvino_judge import OpenVINOJudge  # noqa: E402

DATA = ROOT / "agenttest" / "data" / "judge_calibration.jsonl"

COLD = (
    "import time; t0 = time.perf_counter()\n"
    "from agenttest.judges import get_judge\n"
    "judge = get_judge('openvino')\n"
    "judge.encoder.encode(['warm up'])\n"
    "print(time.perf_counter() - t0)\n"
)


def cold_start(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", COLD], cwd=ROOT, capture_output=True, text=True, check=True
        )
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return times


def torch_encode_fn() -> Any:
    """A torch forward pass of the same BERT encoder, or None when torch is missing."""
    try:
        import torch
    except ImportError:
        return None
    from agenttest.judges._minilm import MiniLMEncoder
    from agenttest.judges._safetensors import read_safetensors

    weights = read_safetensors(find_model_dir() / "model.safetensors")
    w = {k: torch.from_numpy(v) for k, v in weights.items()}
    tokenizer = MiniLMEncoder()._rt.tokenizer
    fn = torch.nn.functional

    def dense(x: Any, p: str) -> Any:
        return fn.linear(x, w[f"{p}.weight"], w[f"{p}.bias"])

    def norm(x: Any, p: str) -> Any:
        return fn.layer_norm(x, (384,), w[f"{p}.weight"], w[f"{p}.bias"], 1e-12)

    @torch.inference_mode()
    def encode(texts: list[str]) -> Any:
        enc = tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in enc])
        mask = torch.tensor([e.attention_mask for e in enc])
        b, s = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:s]
        )
        x = norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        bias = (1.0 - mask[:, None, None, :].float()) * -10000.0
        for n in range(6):
            p = f"encoder.layer.{n}"

            def heads(t: Any) -> Any:
                return t.view(b, s, 12, 32).transpose(1, 2)

            q, k, v = (
                heads(dense(x, f"{p}.attention.self.{m}")) for m in ("query", "key", "value")
            )
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(32) + bias, -1) @ v
            att = att.transpose(1, 2).reshape(b, s, 384)
            x = norm(
                dense(att, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm"
            )
            hidden = fn.gelu(dense(x, f"{p}.intermediate.dense"))
            x = norm(dense(hidden, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        m = mask[:, :, None].float()
        return fn.normalize((x * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=1).numpy()

    return encode


def main() -> None:
    parser = argparse.ArgumentParser(description="openvino judge throughput and cold start")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]
    texts = [t for r in rows for t in (r["reference"], r["candidate"])]

    cold = cold_start(args.rounds)
    print(f"cold start (fresh process to first embedding): median {statistics.median(cold):.2f} s")

    judge = OpenVINOJudge(cache_size=0)
    judge.encoder.encode(texts[:8])
    rates = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        n = sum(1 for _ in score_pairs(judge, iter(rows)))
        rates.append(n / (time.perf_counter() - t0))
    print(
        f"judge throughput (score_pairs, {len(rows)} pairs, no cache): {statistics.median(rates):.0f} pairs/s"
    )

    enc_rates = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        judge.encoder.encode(texts)
        enc_rates.append(len(texts) / (time.perf_counter() - t0))
    print(f"openvino encoder throughput: {statistics.median(enc_rates):.0f} texts/s")

    latencies = []
    for r in rows[:40]:
        t0 = time.perf_counter()
        judge.judge(JudgeRequest("", r["reference"], r["candidate"]))
        latencies.append(time.perf_counter() - t0)
    print(f"single-pair judge() latency: median {1000 * statistics.median(latencies):.1f} ms")

    torch_encode = torch_encode_fn()
    if torch_encode is None:
        print("torch-CPU comparison: skipped (torch is not importable here)")
        return
    torch_encode(texts[:8])
    torch_rates = []
    by_length = sorted(texts, key=len)  # length-sorted batches of 32, as the openvino encoder
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        for i in range(0, len(by_length), 32):
            torch_encode(by_length[i : i + 32])
        torch_rates.append(len(texts) / (time.perf_counter() - t0))
    ov_emb = judge.encoder.encode(texts[:64])
    diff = float(abs(torch_encode(texts[:64]) - ov_emb).max())
    print(f"torch-CPU encoder throughput: {statistics.median(torch_rates):.0f} texts/s")
    speedup = statistics.median(enc_rates) / statistics.median(torch_rates)
    print(f"ratio openvino/torch encoder throughput: {speedup:.2f}x (same texts, same run)")
    print(f"max abs difference torch vs openvino (64 texts): {diff:.2e}")


if __name__ == "__main__":
    main()
