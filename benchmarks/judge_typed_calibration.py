"""Score the on-device judge's typed criteria on agenttest/data/judge_typed/calibration.jsonl.

    python benchmarks/judge_typed_calibration.py                 # tune and held-out tables
    python benchmarks/judge_typed_calibration.py --split tune    # one split only
    python benchmarks/judge_typed_calibration.py --errors        # list every disagreement

Per split and criterion kind (act / covers / consistent): rows, how many the judge decided
(coverage = decided / rows; UNDECIDED and ERROR are not decided), accuracy and Cohen's κ
over the decided rows. The split is by reference (README beside the data). The rules were
frozen (committed) before the held-out split was first scored.
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

DATA = ROOT / "agenttest" / "data" / "judge_typed" / "calibration.jsonl"
KINDS = ("act", "covers", "consistent")


def load(path: Path = DATA) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def request(row: dict[str, object]) -> JudgeRequest:
    return JudgeRequest(
        rubric="",
        reference=str(row["reference"]),
        candidate=str(row["candidate"]),
        asks=str(row["asks"]),
        act=str(row.get("act") or ""),
        min_items=row.get("min_items"),  # type: ignore[arg-type]
        tool_results=str(row.get("tool_results") or ""),
    )


def verdicts(rows: list[dict[str, object]], judge: object) -> list[tuple[str, str]]:
    results = judge.judge_batch([request(r) for r in rows])  # type: ignore[attr-defined]
    return [(res.verdict, res.evidence) for res in results]


def _kappa(labels: list[str], got: list[str]) -> str:
    if not labels:
        return "—"
    if len(set(labels) | set(got)) < 2:
        return "undef."
    return f"{cohen_kappa(labels, got):.2f}"


def table(rows: list[dict[str, object]], results: list[tuple[str, str]]) -> list[str]:
    out = ["| split | kind | rows | decided | coverage | accuracy | κ (decided) |",
           "|---|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    groups: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault((str(r["split"]), str(r["asks"])), []).append(i)
        groups.setdefault((str(r["split"]), "all"), []).append(i)
    for split, kind in sorted(groups, key=lambda k: (k[0] != "tune", (*KINDS, "all").index(k[1]))):
        idx = groups[(split, kind)]
        decided = [i for i in idx if results[i][0] in ("PASS", "FAIL")]
        labels = [str(rows[i]["label"]) for i in decided]
        got = [results[i][0] for i in decided]
        acc = (
            f"{sum(a == b for a, b in zip(labels, got, strict=True)) / len(decided):.0%}"
            if decided
            else "—"
        )
        cov = f"{len(decided) / len(idx):.0%}"
        out.append(
            f"| {split} | {kind} | {len(idx)} | {len(decided)} | {cov} | {acc} | {_kappa(labels, got)} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "heldout"))
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    rows = [r for r in load() if args.split in (None, r["split"])]
    results = verdicts(rows, get_judge("openvino"))
    print("\n".join(table(rows, results)))
    if args.errors:
        for r, (verdict, evidence) in zip(rows, results, strict=True):
            if verdict != r["label"]:
                print(f"{r['id']}: label {r['label']}, judge {verdict}: {evidence[:160]}")


if __name__ == "__main__":
    main()
