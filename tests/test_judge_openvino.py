"""The openvino judge end to end, on the real packaged model: untyped requests go through
the typed procedures with the kind read from the reference, and the old paraphrase set's
floor."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agenttest.errors import UsageError
from agenttest.judges import (
    Judge,
    JudgeRequest,
    JudgeResult,
    available_judges,
    get_judge,
    score_pairs,
)
from agenttest.judges._minilm import MiniLMEncoder
from agenttest.judges._openvino_judge import OpenVINOJudge
from agenttest.stats import cohen_kappa

from .conftest import ROOT

CALIBRATION = ROOT / "agenttest" / "data" / "judge_calibration.jsonl"


@pytest.fixture(scope="module")
def judge(judge_model: None) -> OpenVINOJudge:
    built = get_judge("openvino", gate=False)
    assert isinstance(built, OpenVINOJudge)
    return built


def ask(judge: OpenVINOJudge, reference: str, candidate: str, rubric: str = "") -> JudgeResult:
    return judge.judge(JudgeRequest(rubric=rubric, reference=reference, candidate=candidate))


def test_registry() -> None:
    assert "openvino" in available_judges()
    with pytest.raises(UsageError, match="known judges: openvino"):
        get_judge("gpt-judge")


def test_judge_satisfies_protocol(judge: OpenVINOJudge) -> None:
    assert isinstance(judge, Judge)
    assert judge.name == "openvino"


def test_paraphrase_passes(judge: OpenVINOJudge) -> None:
    result = ask(judge, "The capital of France is Paris.", "Paris is France's capital city.")
    assert result.verdict == "PASS" and result.score >= 0.5
    assert result.judge == "openvino" and result.evidence.startswith("consistent: kind read")
    assert (result.asks, result.asks_from) == ("consistent", "reference")


def test_wrong_number_fails_despite_high_similarity(judge: OpenVINOJudge) -> None:
    ref, cand = "The invoice amount is 1,250.00 euros.", "The invoice amount is 1,520.00 euros."
    emb = judge.encoder.encode([ref, cand])
    assert float(emb[0] @ emb[1]) > 0.9  # the embedding alone would pass it
    result = ask(judge, ref, cand)
    assert result.verdict == "FAIL" and result.score < 0.5
    assert "number: the reference says 1,250.00, the reply 1,520.00" in result.evidence


def test_other_number_format_passes(judge: OpenVINOJudge) -> None:
    assert ask(judge, "The population is 29.988.", "The population is 29988.").verdict == "PASS"


def test_negation_fails(judge: OpenVINOJudge) -> None:
    result = ask(
        judge, "The tests passed on the main branch.", "The tests did not pass on the main branch."
    )
    assert result.verdict == "FAIL" and "polarity" in result.evidence


def test_off_topic_fails(judge: OpenVINOJudge) -> None:
    result = ask(
        judge, "Restart the router and reconnect to the Wi-Fi.", "Bananas are rich in potassium."
    )
    assert result.verdict == "FAIL" and "off topic" in result.evidence


def test_turkish_negation_fails(judge: OpenVINOJudge) -> None:
    result = ask(judge, "Sunucu şu anda çalışıyor.", "Sunucu şu anda çalışmıyor.")
    assert result.verdict == "FAIL" and "polarity" in result.evidence


def test_refusal_fails_and_matching_refusal_passes(judge: OpenVINOJudge) -> None:
    refused = ask(judge, "Water boils at 100 degrees Celsius.", "I'm unable to answer that.")
    assert refused.verdict == "FAIL" and "declines to answer" in refused.evidence
    both = ask(
        judge, "I can't help with making weapons.", "Sorry, I cannot assist with building a weapon."
    )
    assert both.verdict == "PASS" and (both.asks, both.act) == ("act", "declines")


def test_no_reference_is_an_error_not_a_fail(judge: OpenVINOJudge) -> None:
    result = ask(judge, "   ", "Paris.", rubric="Must name the capital of France.")
    assert result.verdict == "ERROR" and "reference" in result.evidence


def test_empty_answer_fails(judge: OpenVINOJudge) -> None:
    result = ask(judge, "Paris.", "  ")
    assert result.verdict == "FAIL" and result.score == 0.0


def test_rubric_is_noted_as_not_interpreted(judge: OpenVINOJudge) -> None:
    result = ask(judge, "Paris.", "Paris.", rubric="Name the capital.")
    assert "rubric not interpreted" in result.evidence


class _BrokenEncoder(MiniLMEncoder):
    """The real encoder whose model call fails, to reach the judge's failure path."""

    def encode(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("device lost")


def test_model_failure_is_an_error_not_a_fail(judge_model: None) -> None:
    broken = OpenVINOJudge(encoder=_BrokenEncoder())
    result = broken.judge(JudgeRequest("", "Paris.", "Paris."))
    assert result.verdict == "ERROR" and "device lost" in result.evidence


def test_batch_equals_one_by_one(judge: OpenVINOJudge) -> None:
    reqs = [
        JudgeRequest("", "The store opens at nine.", "The shop opens at 9 a.m."),
        JudgeRequest("", "Four tests failed.", "Five tests failed."),
        JudgeRequest("", "", "anything"),
        JudgeRequest("", "Shakespeare wrote Hamlet.", "Hamlet was written by William Shakespeare."),
    ]
    batch = judge.judge_batch(reqs)
    single = [judge.judge(r) for r in reqs]
    assert (
        [r.verdict for r in batch]
        == [r.verdict for r in single]
        == ["PASS", "FAIL", "ERROR", "PASS"]
    )
    for a, b in zip(batch, single, strict=True):
        assert a.score == pytest.approx(b.score, abs=1e-4)


def test_score_pairs_streams_in_order(judge: OpenVINOJudge) -> None:
    pairs: list[dict[str, object]] = [
        {
            "id": f"p{i}",
            "reference": f"There are {i} items in the cart.",
            "candidate": f"The cart holds {i} items.",
        }
        for i in range(2, 70)
    ]
    pairs.insert(5, {"id": "bad", "reference": "x", "candidate": None})
    pairs.append(
        {"id": "wrong", "reference": "There are 12 items.", "candidate": "There are 21 items."}
    )
    rows = list(score_pairs(judge, iter(pairs)))
    assert [r["id"] for r in rows] == [p["id"] for p in pairs]
    assert all(
        set(r) == {"id", "score", "verdict", "asks", "asks_from"} for r in rows if r["id"] != "bad"
    )
    assert {r["asks"] for r in rows if r["id"] != "bad"} == {"consistent"}
    by_id = {r["id"]: r for r in rows}
    assert by_id["bad"]["verdict"] == "ERROR"
    assert by_id["wrong"]["verdict"] == "FAIL"
    assert sum(r["verdict"] == "PASS" for r in rows) == len(pairs) - 2


def _calibration(split: str) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in Path(CALIBRATION).read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["split"] == split]


def test_calibration_set_shape() -> None:
    tune, held = _calibration("tune"), _calibration("heldout")
    assert len(tune) + len(held) >= 150
    assert 0.35 <= len(held) / (len(tune) + len(held)) <= 0.45
    assert {r["label"] for r in held} == {"PASS", "FAIL"}
    assert len({r["id"] for r in tune + held}) == len(tune) + len(held)


def test_heldout_agreement_floor(judge_model: None) -> None:
    """The old paraphrase set (development data, labelled by the rules' author) through the
    one path with the kind read from each reference, no gate: κ and accuracy over the pairs
    it decided, and how many it decided (docs/judges.md, "The old paraphrase set")."""
    held = _calibration("heldout")
    ungated = get_judge("openvino", gate=False)
    results = [ungated.judge(JudgeRequest("", r["reference"], r["candidate"])) for r in held]
    decided = [(r["label"], res.verdict) for r, res in zip(held, results, strict=True)
               if res.verdict in ("PASS", "FAIL")]  # fmt: skip
    labels, verdicts = [a for a, _ in decided], [b for _, b in decided]
    accuracy = sum(a == b for a, b in decided) / len(decided)
    assert "ERROR" not in [res.verdict for res in results]
    assert len(decided) / len(held) >= 0.8
    assert cohen_kappa(labels, verdicts) >= 0.75
    assert accuracy >= 0.88
