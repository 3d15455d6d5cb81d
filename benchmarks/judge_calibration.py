"""Score the openvino judge on the old paraphrase set, agenttest/data/judge_calibration.jsonl.

    python benchmarks/judge_calibration.py            # per split: coverage, accuracy, κ
    python benchmarks/judge_calibration.py --errors   # also list every disagreement

The pairs are untyped: each goes through the typed procedures with the kind read from its
reference (docs/judges.md, "One path"), without a calibration gate. Development data:
one author wrote and labelled every pair, and knew them while writing the rules.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agenttest.judges import JudgeRequest, get_judge  # noqa: E402
from agenttest.stats import cohen_kappa  # noqa: E402

DATA = ROOT / "agenttest" / "data" / "judge_calibration.jsonl"
LABELS = ("PASS", "FAIL")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    rows = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    judge = get_judge("openvino", gate=False)
    results = judge.judge_batch([JudgeRequest("", r["reference"], r["candidate"]) for r in rows])  # type: ignore[attr-defined]
    print("| split | rows | decided | coverage | accuracy (decided) | κ (decided) |")
    print("|---|---:|---:|---:|---:|---:|")
    for split in ("tune", "heldout"):
        idx = [i for i, r in enumerate(rows) if r["split"] == split]
        decided = [i for i in idx if results[i].verdict in LABELS]
        labels = [rows[i]["label"] for i in decided]
        got = [results[i].verdict for i in decided]
        acc = sum(a == b for a, b in zip(labels, got, strict=True)) / len(decided)
        print(f"| {split} | {len(idx)} | {len(decided)} | {len(decided) / len(idx):.0%} | "
              f"{acc:.0%} | {cohen_kappa(labels, got):.2f} |")  # fmt: skip
    if args.errors:
        for r, res in zip(rows, results, strict=True):
            if res.verdict != r["label"]:
                print(f"{r['id']}: label {r['label']}, judge {res.verdict}: {res.evidence[:160]}")


if __name__ == "__main__":
    main()
