"""The openvino judge end to end, on the real packaged model, plus its calibration floor."""

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
from agenttest.judges._openvino_judge import (
    HARD_FAIL_CAP,
    INTERCEPT,
    WEIGHTS,
    OpenVINOJudge,
    combine,
)
from agenttest.stats import cohen_kappa

from .conftest import ROOT

CALIBRATION = ROOT / "agenttest" / "data" / "judge_calibration.jsonl"


@pytest.fixture(scope="module")
def judge(judge_model: None) -> OpenVINOJudge:
    built = get_judge("openvino")
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
    assert result.judge == "openvino" and "cosine" in result.evidence


def test_off_topic_fails(judge: OpenVINOJudge) -> None:
    result = ask(
        judge, "Restart the router and reconnect to the Wi-Fi.", "Bananas are rich in potassium."
    )
    assert result.verdict == "FAIL" and result.score < 0.5


def test_wrong_number_fails_despite_high_similarity(judge: OpenVINOJudge) -> None:
    ref, cand = "The invoice amount is 1,250.00 euros.", "The invoice amount is 1,520.00 euros."
    emb = judge.encoder.encode([ref, cand])
    assert float(emb[0] @ emb[1]) > 0.9  # the embedding alone would pass it
    result = ask(judge, ref, cand)
    assert result.verdict == "FAIL" and result.score <= HARD_FAIL_CAP
    assert "wrong_number" in result.evidence


def test_other_number_format_passes(judge: OpenVINOJudge) -> None:
    assert ask(judge, "The population is 29.988.", "The population is 29988.").verdict == "PASS"


def test_negation_fails(judge: OpenVINOJudge) -> None:
    result = ask(
        judge, "The tests passed on the main branch.", "The tests did not pass on the main branch."
    )
    assert result.verdict == "FAIL" and "polarity_mismatch" in result.evidence


def test_turkish_negation_fails_and_paraphrase_passes(judge: OpenVINOJudge) -> None:
    assert ask(judge, "Sunucu şu anda çalışıyor.", "Sunucu şu anda çalışmıyor.").verdict == "FAIL"
    assert (
        ask(judge, "Türkiye'nin başkenti Ankara'dır.", "Ankara, Türkiye'nin başkentidir.").verdict
        == "PASS"
    )


def test_refusal_fails_and_matching_refusal_passes(judge: OpenVINOJudge) -> None:
    assert (
        ask(judge, "Water boils at 100 degrees Celsius.", "I'm unable to answer that.").verdict
        == "FAIL"
    )
    both = ask(
        judge, "I can't help with making weapons.", "Sorry, I cannot assist with building a weapon."
    )
    assert both.verdict == "PASS"


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


def test_long_inputs_note_truncation(judge: OpenVINOJudge) -> None:
    long = " ".join(["The service restarted after the configuration change."] * 60)
    result = ask(judge, long, long)
    assert result.verdict == "PASS" and "truncated to 256" in result.evidence


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
    assert all(set(r) == {"id", "score", "verdict"} for r in rows)
    by_id = {r["id"]: r for r in rows}
    assert by_id["bad"]["verdict"] == "ERROR"
    assert by_id["wrong"]["verdict"] == "FAIL"
    assert sum(r["verdict"] == "PASS" for r in rows) == len(pairs) - 2


def test_combiner_is_monotone_in_cosine() -> None:
    base = {name: 0.0 for name in WEIGHTS}
    low = combine({**base, "cosine": 0.2}, WEIGHTS, INTERCEPT)
    high = combine({**base, "cosine": 0.95}, WEIGHTS, INTERCEPT)
    assert low < 0.5 < high
    assert (
        combine(
            {**base, "cosine": 0.95, "entity_swap": 1.0, "entity_missing": 1.0}, WEIGHTS, INTERCEPT
        )
        < high
    )


def _calibration(split: str) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in Path(CALIBRATION).read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["split"] == split]


def test_calibration_set_shape() -> None:
    tune, held = _calibration("tune"), _calibration("heldout")
    assert len(tune) + len(held) >= 150
    assert 0.35 <= len(held) / (len(tune) + len(held)) <= 0.45
    assert {r["label"] for r in held} == {"PASS", "FAIL"}
    assert len({r["id"] for r in tune + held}) == len(tune) + len(held)


def test_heldout_agreement_floor(judge: OpenVINOJudge) -> None:
    """Measured at commit time: kappa 0.854, accuracy 0.928 on 69 held-out pairs."""
    held = _calibration("heldout")
    results = judge.judge_batch([JudgeRequest("", r["reference"], r["candidate"]) for r in held])
    labels = [r["label"] for r in held]
    verdicts = [res.verdict for res in results]
    accuracy = sum(a == b for a, b in zip(labels, verdicts, strict=True)) / len(held)
    assert "ERROR" not in verdicts
    assert cohen_kappa(labels, verdicts) >= 0.75
    assert accuracy >= 0.88
