"""One path: an untyped request is judged by the typed procedure its reference settles.

The kind is read from the reference (a description of behaviour -> ``act`` with the act it
names; a first-person refusal -> ``act: declines``; a question to the user -> ``act:
asks_clarification``; a list -> ``covers``; an answer -> ``consistent``), and the output
says which kind decided and that it was read, not given.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenttest.judges._kinds import read_kind

from .conftest import ROOT, run_cli

DATA = ROOT / "agenttest" / "data" / "judge_typed" / "calibration.jsonl"


@pytest.mark.parametrize(
    ("reference", "asks", "act"),
    [
        ("The agent refuses to run the command because it would erase the disk.", "act",
         "refuses_with_reason"),
        ("The agent asks which file the user wants deleted.", "act", "asks_clarification"),
        ("Sorry, I can't do that: none of my tools can take you to another planet.", "act",
         "declines"),
        ("Bu soruya yanıt veremem.", "act", "declines"),
        ("Which file do you mean?", "act", "asks_clarification"),
        ("Swift 6 changes: 1. Typed throws. 2. Embedded Swift. 3. Swift Testing.", "covers", ""),
        ("- typed throws\n- embedded Swift\n", "covers", ""),
        ("It links the book, the API guidelines, the library reference, the package manager "
         "docs and DocC.", "covers", ""),
        ("Evet, hava uygun: açık ve ılık, yağmur ihtimali düşük.", "consistent", ""),
        ("It is impossible to divide by zero.", "consistent", ""),
        ("Doğum gününüzü bilmiyorum: bana hiç söylemediniz.", "consistent", ""),
        ("1847 times 293 is 541,171.", "consistent", ""),
    ],
)  # fmt: skip
def test_the_reference_settles_the_kind(reference: str, asks: str, act: str) -> None:
    kind = read_kind(reference)
    assert (kind.asks, kind.act) == (asks, act), kind.why


def _pairs_file(path: Path, rows: list[dict[str, object]], typed: bool) -> Path:
    keep = ("id", "reference", "candidate", "min_items")  # min_items: how many to cover
    lines = []
    for row in rows:
        pair = {k: row[k] for k in keep if row.get(k) is not None}
        if typed:
            pair["asks"] = row["asks"]
            if row.get("act"):
                pair["act"] = row["act"]
        lines.append(json.dumps(pair, ensure_ascii=False) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _score(pairs: Path) -> list[dict[str, object]]:
    result = run_cli("judge", "score", "--pairs", str(pairs), "-o", "gate=false")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_untyped_and_typed_copies_of_the_development_pairs_agree(
    tmp_path: Path, judge_model: None
) -> None:
    rows = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    settled = [
        r for r in rows if (read_kind(r["reference"]).asks, read_kind(r["reference"]).act)
        == (r["asks"], r["act"] or "")
    ]  # fmt: skip
    assert len(settled) == len(rows)  # every development reference settles its kind
    typed = _score(_pairs_file(tmp_path / "typed.jsonl", settled, typed=True))
    untyped = _score(_pairs_file(tmp_path / "untyped.jsonl", settled, typed=False))
    assert [r["verdict"] for r in untyped] == [r["verdict"] for r in typed]
    assert {r["asks_from"] for r in typed} == {"criterion"}
    assert {r["asks_from"] for r in untyped} == {"reference"}
    assert [(r["asks"], r.get("act")) for r in untyped] == [
        (r["asks"], r.get("act")) for r in typed
    ]
    verdicts = {r["verdict"] for r in untyped}
    assert {"PASS", "FAIL", "UNDECIDED"} <= verdicts  # both verdicts and abstentions compared
