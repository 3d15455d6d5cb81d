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


def _sealed() -> list[dict[str, object]]:
    lines = (DATA / "sealed.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip()]


def test_the_sealed_split_shares_no_question_or_test_with_the_development_pairs() -> None:
    """A split the rules were never written on: new questions on corpus tests the
    development pairs never used, every label the blind labeller's answer as it wrote it."""
    data = _bench("judge_typed_data")
    sealed = _sealed()
    development = _rows()
    assert {r["split"] for r in sealed} == {"sealed"}
    assert not {r["reference_id"] for r in sealed} & {r["reference_id"] for r in development}
    used = {ref[1] for ref in data.REFERENCES}  # type: ignore[attr-defined]
    assert not {ref[1] for ref in data.SEALED} & used  # type: ignore[attr-defined]
    shared = {r["candidate"] for r in sealed} & {r["candidate"] for r in development}
    # only PheronAgent's canned busy reply, which its server gave to many tests
    assert shared <= {"Sunucu şu an başka bir isteği işliyor. Lütfen birkaç saniye bekleyin."}
    written = [
        json.loads(x) for x in (DATA / "sealed.labels.jsonl").read_text("utf-8").splitlines()
    ]
    assert {str(r["id"]): r["label"] for r in sealed} == {str(w["id"]): w["label"] for w in written}
    assert len(sealed) == len(written) and {r["label"] for r in sealed} == {"PASS", "FAIL"}
    for kind in ("act", "covers", "consistent"):  # both labels in every kind: κ is defined
        assert {r["label"] for r in sealed if r["asks"] == kind} == {"PASS", "FAIL"}
