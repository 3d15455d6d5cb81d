"""Verdict table of graded run files: PASS / FAIL / ERROR by cause, per file, tier and block.

Used to measure grading changes on the imported PheronAgent corpus (issue 12)::

    python benchmarks/verdict_table.py FOLDER_OR_FILES... > table.txt

Counts come from the run files' attempt records (the verdict the importer graded), plus
the number of criteria left undecided (``passed: null``) by criterion id, and the strict-check
warnings and fixture-free attempts when the records carry them.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def _files(args: list[str]) -> list[Path]:
    out: list[Path] = []
    for a in args:
        p = Path(a)
        out += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    return out


def _label(rec: dict) -> str:
    verdict = str(rec.get("verdict"))
    cause = rec.get("error_cause")
    return f"ERROR:{cause}" if verdict == "ERROR" else verdict


def _width(col: str) -> int:
    return max(18, len(col) + 2)


def _row(name: str, counts: Counter, cols: list[str]) -> str:
    return (
        f"{name:<48}"
        + "".join(f"{counts.get(c, 0):>{_width(c)}}" for c in cols)
        + f"{sum(counts.values()):>7}"
    )


def main(argv: list[str]) -> int:
    per_file: dict[str, Counter] = {}
    per_tier: dict[str, Counter] = defaultdict(Counter)
    per_block: dict[str, Counter] = defaultdict(Counter)
    undecided: Counter = Counter()
    not_applicable: Counter = Counter()
    strict: Counter = Counter()
    no_fixtures = 0
    for path in _files(argv):
        counts: Counter = Counter()
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("record_type") != "attempt":
                continue
            label = _label(rec)
            counts[label] += 1
            per_tier[str(rec.get("tier"))][label] += 1
            per_block[str(rec.get("test_id"))][label] += 1
            if rec.get("fixtures_applied") is False:
                no_fixtures += 1
            for c in rec.get("criteria") or []:
                if c.get("applies") is False:
                    not_applicable[f"{rec.get('test_id')} {c.get('id')} {c.get('type')}"] += 1
                elif c.get("passed") is None:
                    undecided[f"{rec.get('test_id')} {c.get('id')} {c.get('type')}"] += 1
            for w in rec.get("strict_warnings") or []:
                strict[f"{rec.get('test_id')} {w.get('criterion', w)}"] += 1
        per_file[path.name] = counts
    cols = sorted({c for cnt in per_file.values() for c in cnt})
    head = f"{'':<48}" + "".join(f"{c:>{_width(c)}}" for c in cols) + f"{'total':>7}"
    total: Counter = Counter()
    print("== per file")
    print(head)
    for name, cnt in per_file.items():
        total += cnt
        print(_row(name, cnt, cols))
    print(_row("ALL", total, cols))
    print("\n== per tier")
    print(head)
    for tier in sorted(per_tier):
        print(_row(tier, per_tier[tier], cols))
    print("\n== per block")
    print(head)
    for block in sorted(per_block):
        print(_row(block, per_block[block], cols))
    print(f"\n== undecided criteria (passed: null), {sum(undecided.values())} in all")
    for key, n in sorted(undecided.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:>6}  {key}")
    print(
        f"\n== fixture-bound criteria with no fixture-free rule (not applied), {sum(not_applicable.values())}"
    )
    for key, n in sorted(not_applicable.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:>6}  {key}")
    print(f"\n== attempts graded without fixtures: {no_fixtures}")
    print(f"== strict-check warnings: {sum(strict.values())}")
    for key, n in sorted(strict.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:>6}  {key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
