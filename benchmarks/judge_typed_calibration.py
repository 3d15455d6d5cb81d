"""Score the on-device judge's typed criteria on agenttest/data/judge_typed/calibration.jsonl.

    python benchmarks/judge_typed_calibration.py                 # tune and held-out tables
    python benchmarks/judge_typed_calibration.py --split tune    # one split only
    python benchmarks/judge_typed_calibration.py --errors        # list every disagreement
    python benchmarks/judge_typed_calibration.py --labels author_label   # the old labels
    python benchmarks/judge_typed_calibration.py --agreement     # author vs blind labels
    python benchmarks/judge_typed_calibration.py --untyped       # kinds read from references
    python benchmarks/judge_typed_calibration.py --sealed        # the sealed split (once)

Per split and criterion kind (act / covers / consistent): rows, how many the judge decided
(coverage = decided / rows; UNDECIDED and ERROR are not decided), accuracy and Cohen's κ
over the decided rows. The split is by reference (README beside the data); `fresh` holds
the llama.cpp model's replies, added after the rules were frozen. The procedures are scored
with no calibration applied (``gate=False``): these are development numbers, and whether
a kind's verdicts count in a run comes from the user's own ratings, never from here.
Rows whose label is not PASS or FAIL (the labeller was unsure) are left out and counted.
``--sealed`` scores ``sealed.jsonl`` instead: questions and replies no rule was written or
measured on, frozen with their blind labels before the judge first saw them (README).
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
from agenttest.verdicts import kappa_interval  # noqa: E402

DATA = ROOT / "agenttest" / "data" / "judge_typed" / "calibration.jsonl"
SEALED = DATA.with_name("sealed.jsonl")
KINDS = ("act", "covers", "consistent")
SPLITS = ("tune", "heldout", "fresh", "sealed")
LABELS = ("PASS", "FAIL")


def load(path: Path = DATA) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def request(row: dict[str, object], typed: bool = True) -> JudgeRequest:
    """The row as a judge request; ``typed=False`` drops ``asks`` and ``act`` (the judge
    reads the kind from the reference)."""
    return JudgeRequest(
        rubric="",
        reference=str(row["reference"]),
        candidate=str(row["candidate"]),
        asks=str(row["asks"]) if typed else "",
        act=str(row.get("act") or "") if typed else "",
        min_items=row.get("min_items"),  # type: ignore[arg-type]
        tool_results=str(row.get("tool_results") or ""),
    )


def verdicts(
    rows: list[dict[str, object]], judge: object, typed: bool = True
) -> list[tuple[str, str]]:
    results = judge.judge_batch([request(r, typed) for r in rows])  # type: ignore[attr-defined]
    return [(res.verdict, res.evidence) for res in results]


def _kappa(labels: list[str], got: list[str]) -> str:
    if not labels:
        return "—"
    if len(set(labels)) < 2:  # κ needs both labels among the rows
        return "undef."
    return f"{cohen_kappa(labels, got):.2f}"


def _interval(keys: list[object], labels: list[str], got: list[str]) -> str:
    """The seeded 95 % percentile-bootstrap interval of κ (the rule `agreement` uses)."""
    if len(set(labels)) < 2:
        return "—"
    low, high = kappa_interval(keys, labels, got)
    return "—" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def _groups(rows: list[dict[str, object]]) -> list[tuple[tuple[str, str], list[int]]]:
    groups: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault((str(r["split"]), str(r["asks"])), []).append(i)
        groups.setdefault((str(r["split"]), "all"), []).append(i)
    order = sorted(groups, key=lambda k: (SPLITS.index(k[0]), (*KINDS, "all").index(k[1])))
    return [(k, groups[k]) for k in order]


def table(
    rows: list[dict[str, object]], results: list[tuple[str, str]], field: str = "label"
) -> list[str]:
    out = ["| split | kind | rows | decided | coverage | accuracy | κ (decided) | κ 95 % interval |",
           "|---|---|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    for (split, kind), idx in _groups(rows):
        decided = [i for i in idx if results[i][0] in LABELS]
        labels = [str(rows[i][field]) for i in decided]
        got = [results[i][0] for i in decided]
        acc = (
            f"{sum(a == b for a, b in zip(labels, got, strict=True)) / len(decided):.0%}"
            if decided
            else "—"
        )
        cov = f"{len(decided) / len(idx):.0%}"
        keys: list[object] = [rows[i]["id"] for i in decided]
        out.append(
            f"| {split} | {kind} | {len(idx)} | {len(decided)} | {cov} | {acc} | "
            f"{_kappa(labels, got)} | {_interval(keys, labels, got)} |"
        )
    return out


def agreement(rows: list[dict[str, object]]) -> list[str]:
    """The rule author's labels against the blind labeller's, per split and kind."""
    out = ["| split | kind | rows | both labelled | agree | κ (author vs blind) |",
           "|---|---|---:|---:|---:|---:|"]  # fmt: skip
    for (split, kind), idx in _groups(rows):
        both = [
            i for i in idx if rows[i].get("author_label") in LABELS and rows[i]["label"] in LABELS
        ]
        a = [str(rows[i]["author_label"]) for i in both]
        b = [str(rows[i]["label"]) for i in both]
        same = sum(x == y for x, y in zip(a, b, strict=True))
        agree = f"{same / len(both):.0%}" if both else "—"
        out.append(f"| {split} | {kind} | {len(idx)} | {len(both)} | {agree} | {_kappa(a, b)} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS)
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--labels", default="label", help="label field to score against")
    parser.add_argument("--agreement", action="store_true", help="author vs blind labels only")
    parser.add_argument("--untyped", action="store_true", help="drop asks/act: kinds read")
    parser.add_argument("--sealed", action="store_true", help="score the sealed split")
    args = parser.parse_args()
    source = SEALED if args.sealed else DATA
    rows = [r for r in load(source) if args.split in (None, r["split"])]
    if args.agreement:
        print("\n".join(agreement(rows)))
        return
    unsure = [r for r in rows if r.get(args.labels) not in LABELS]
    rows = [r for r in rows if r.get(args.labels) in LABELS]
    results = verdicts(rows, get_judge("openvino", gate=False), typed=not args.untyped)
    print("\n".join(table(rows, results, args.labels)))
    if unsure:
        print(f"\n{len(unsure)} row(s) without a PASS/FAIL {args.labels} left out: "
              + ", ".join(str(r["id"]) for r in unsure))  # fmt: skip
    if args.errors:
        for r, (verdict, evidence) in zip(rows, results, strict=True):
            if verdict != r[args.labels]:
                print(
                    f"{r['id']}: {args.labels} {r[args.labels]}, judge {verdict}: {evidence[:160]}"
                )


if __name__ == "__main__":
    main()
