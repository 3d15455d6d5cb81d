"""The typed-judge calibration set: blind labels, split by reference, and the gate it sets."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "agenttest" / "data" / "judge_typed"


def _bench(name: str) -> object:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict[str, object]]:
    lines = (DATA / "calibration.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip()]


def test_every_label_is_the_blind_labellers_and_the_author_label_is_kept() -> None:
    data = _bench("judge_typed_data")
    rows = _rows()
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["labeller"] for r in rows} == {data.BLIND_LABELLER}  # type: ignore[attr-defined]
    assert {r["label"] for r in rows} <= {"PASS", "FAIL"}
    blind = {}
    for name in ("batch1.labels.jsonl", "batch2.labels.jsonl"):
        if (DATA / name).exists():
            for line in (DATA / name).read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                blind[rec["id"]] = rec["label"]
    assert {str(r["id"]): r["label"] for r in rows} == blind  # the labels are the labeller's
    # the rows labelled before the blind labeller came keep the rule author's label
    assert sum("author_label" in r for r in rows) == 160


def test_split_is_by_reference_and_the_labeller_sees_no_split_or_source() -> None:
    data = _bench("judge_typed_data")
    split_of: dict[object, set[object]] = {}
    for r in _rows():
        if r["split"] != "fresh":  # fresh: new replies to all questions, split by source
            split_of.setdefault(r["reference_id"], set()).add(r["split"])
        seen = data.blind(r)  # type: ignore[attr-defined]
        assert set(seen) == {"id", "question", "reference", "reply"}
    assert all(len(s) == 1 for s in split_of.values()), split_of
    assert {next(iter(s)) for s in split_of.values()} == {"tune", "heldout"}


def test_the_labelled_pairs_are_development_data_saying_who_labelled_them() -> None:
    """No κ from these pairs is shipped as a gate: they are development data, each label
    saying who or what gave it (calibration comes from the user's own ratings)."""
    import agenttest.judges as judges

    assert all(str(r["labeller"]).strip() for r in _rows())
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    assert "development data" in readme.lower() and "not a person" in readme
    assert not hasattr(judges, "_gate") and not (ROOT / "agenttest/judges/_gate.py").exists()
