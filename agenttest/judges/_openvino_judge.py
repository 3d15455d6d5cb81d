"""The on-device judge: MiniLM cosine similarity + deterministic checks.

Decision rule (documented in docs/judges.md):

1. No reference text, or the model fails -> ``ERROR`` (the judge cannot decide).
2. An empty candidate -> ``FAIL``, score 0.
3. A hard check failure (a wrong number or date, opposite polarity, a refusal where the
   reference answers or vice versa) -> ``FAIL``; the score is capped at ``HARD_FAIL_CAP``.
4. Otherwise ``score = sigmoid(w . features + b)`` and the verdict is PASS iff
   ``score >= 0.5``. The features are the cosine and the soft check signals below.

The rubric and context are recorded in the evidence but not interpreted: an embedding
cannot read instructions. Use a reference answer with this judge.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agenttest.judges._base import (
    JudgeRequest,
    JudgeResult,
    JudgeVerdict,
    error_result,
    option_bool,
)
from agenttest.judges._checks import CheckReport, run_checks

if TYPE_CHECKING:
    from agenttest.judges._minilm import MiniLMEncoder

JUDGE_NAME = "openvino"
HARD_FAIL_CAP = 0.2
HARD_FEATURES = ("wrong_number", "wrong_date", "polarity_mismatch", "refusal_mismatch")

# Logistic-regression coefficients over the soft features. Fit by
# `python benchmarks/judge_calibration.py --fit` on the `tune` split of
# agenttest/data/judge_calibration.jsonl only: the 57 tune rows no hard check decides
# (42 PASS, 15 FAIL), L2 penalty 0.1 on the weights (not the intercept), Newton steps to
# convergence. The `heldout` split was never used for fitting. No tune row has a missing
# date, so that weight stays at the prior 0; a language flag was dropped because no tune
# row could identify it. With no other signal PASS needs cosine >= 0.43.
INTERCEPT = -2.516
WEIGHTS: dict[str, float] = {
    "cosine": 5.827,
    "entity_missing": -2.712,
    "entity_swap": -3.272,
    "missing_number": -0.393,
    "missing_date": 0.000,
    "facts_matched": 2.492,
    "both_refuse": 0.789,
}
SOFT_FEATURES = tuple(WEIGHTS)


def soft_features(cosine: float, report: CheckReport) -> dict[str, float]:
    """The feature vector the logistic combiner reads (names as in ``WEIGHTS``)."""
    f = report.features
    facts = [c for c in report.checks if c.name in ("numbers", "dates")]
    return {
        "cosine": cosine,
        "entity_missing": f["entity_missing"],
        "entity_swap": f["entity_swap"],
        "missing_number": f["missing_number"],
        "missing_date": f["missing_date"],
        "facts_matched": float(any(c.status == "ok" for c in facts)),
        "both_refuse": f["both_refuse"],
    }


def combine(features: dict[str, float], weights: dict[str, float], intercept: float) -> float:
    z = intercept + sum(weights[name] * features[name] for name in weights)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


class OpenVINOJudge:
    """Judge answers against a reference on the CPU with all-MiniLM-L6-v2 + checks."""

    name = JUDGE_NAME

    def __init__(
        self,
        encoder: MiniLMEncoder | None = None,
        precision: str = "f32",
        model_dir: str | None = None,
        cache_size: int | str = 2048,
        gate: bool | str = True,
    ) -> None:
        #: apply the calibration gate (``_gate``); off only to measure the procedures
        self.gate = option_bool(JUDGE_NAME, "gate", gate)  # before the model loads
        if encoder is None:
            from agenttest.judges._minilm import MiniLMEncoder

            encoder = MiniLMEncoder(model_dir=model_dir, precision=precision)
        self.encoder = encoder
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._cache_size = int(cache_size)
        self._lock = threading.Lock()

    def _embed(self, texts: Sequence[str]) -> dict[str, Any]:
        """Embeddings by text, through a small LRU (references repeat across candidates)."""
        with self._lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        if todo:
            rows = self.encoder.encode(todo)
            with self._lock:
                for text, row in zip(todo, rows, strict=True):
                    known[text] = row
                    self._cache[text] = row
                    self._cache.move_to_end(text)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return known

    def judge(self, req: JudgeRequest) -> JudgeResult:
        return self.judge_batch([req])[0]

    def judge_batch(self, reqs: Sequence[JudgeRequest]) -> list[JudgeResult]:
        """Judge many requests with one batched embedding call; order is kept."""
        results: list[JudgeResult | None] = [None] * len(reqs)
        pending: list[int] = []
        typed: list[int] = []
        for i, req in enumerate(reqs):
            fields = (req.rubric, req.reference, req.candidate, req.context)
            if not all(isinstance(x, str) for x in fields):
                results[i] = error_result(
                    JUDGE_NAME, "rubric, reference, candidate and context must be text"
                )
            elif not req.reference.strip() and req.asks != "act":
                results[i] = error_result(
                    JUDGE_NAME,
                    "no reference answer: the openvino judge compares against a reference and "
                    "cannot grade from a rubric alone",
                )
            elif not req.candidate.strip():
                results[i] = JudgeResult(0.0, "FAIL", "empty answer", JUDGE_NAME)
            elif req.asks:
                typed.append(i)
            else:
                pending.append(i)
        if typed:
            self._judge_typed(reqs, typed, results)
        if pending:
            texts = [t for i in pending for t in (reqs[i].reference, reqs[i].candidate)]
            try:
                vectors = self._embed(texts)
                lengths = dict(zip(texts, self.encoder.token_counts(texts), strict=True))
            except Exception as exc:  # the model failed: undecided, never a silent FAIL
                for i in pending:
                    results[i] = error_result(
                        JUDGE_NAME, f"embedding failed: {type(exc).__name__}: {exc}"
                    )
                pending = []
            for i in pending:
                req = reqs[i]
                cosine = float(vectors[req.reference] @ vectors[req.candidate])
                truncated = [
                    name
                    for name, text in (("reference", req.reference), ("candidate", req.candidate))
                    if lengths[text] >= self.encoder.max_tokens
                ]
                results[i] = self._decide(req, cosine, truncated)
        return [r for r in results if r is not None]

    def _judge_typed(
        self, reqs: Sequence[JudgeRequest], todo: list[int], results: list[JudgeResult | None]
    ) -> None:
        """Typed criteria (``asks``): claims embedded in one batch, then each procedure."""
        from agenttest.judges._procedures import texts_to_embed

        texts = [
            t
            for i in todo
            for t in texts_to_embed(
                reqs[i].asks, reqs[i].reference, reqs[i].candidate, reqs[i].tool_results
            )
        ]
        try:
            vectors = self._embed(texts)
        except Exception as exc:  # the model failed: undecided, never a silent FAIL
            for i in todo:
                results[i] = error_result(
                    JUDGE_NAME, f"embedding failed: {type(exc).__name__}: {exc}"
                )
            return
        for i in todo:
            results[i] = decide_typed(reqs[i], vectors.__getitem__, gate=self.gate)

    def _decide(self, req: JudgeRequest, cosine: float, truncated: list[str]) -> JudgeResult:
        report = run_checks(req.reference, req.candidate)
        p = combine(soft_features(cosine, report), WEIGHTS, INTERCEPT)
        hard = [name for name in HARD_FEATURES if report.features[name]]
        parts = [f"cosine {cosine:.3f}", f"p(pass) {p:.3f}", report.summary()]
        if hard:
            parts.insert(0, f"hard check failed: {', '.join(hard)}")
            p = min(p, HARD_FAIL_CAP)
        if truncated:
            parts.append(
                f"{' and '.join(truncated)} truncated to {self.encoder.max_tokens} word pieces "
                "for the embedding (the checks read the full text)"
            )
        if req.rubric.strip():
            parts.append("rubric not interpreted by this judge")
        verdict: JudgeVerdict = "PASS" if not hard and p >= 0.5 else "FAIL"
        score = min(1.0, max(0.0, p))
        return JudgeResult(
            score=score, verdict=verdict, evidence="; ".join(parts), judge=JUDGE_NAME
        )


def decide_typed(req: JudgeRequest, vec: Any, *, gate: bool = True) -> JudgeResult:
    """Run the procedure the request's ``asks`` names (``_procedures``); with ``gate``, a
    kind below the calibration gate (``_gate``) is UNDECIDED whatever the procedure says."""
    from agenttest.judges import _procedures as proc
    from agenttest.judges._gate import gate_reason

    if req.asks == "act":
        if req.act not in ("declines", "refuses_with_reason", "asks_clarification", "complies"):
            return error_result(JUDGE_NAME, f"asks: act needs a known act, not {req.act!r}")
        d = proc.decide_act(vec, req.act, req.reference, req.candidate)
    elif req.asks == "covers":
        d = proc.decide_covers(vec, req.reference, req.candidate, req.min_items)
    elif req.asks == "consistent":
        d = proc.decide_consistent(vec, req.reference, req.candidate, req.tool_results)
    else:
        return error_result(JUDGE_NAME, f"unknown asks {req.asks!r}: act, covers or consistent")
    if d.verdict == "ERROR":
        return error_result(JUDGE_NAME, f"{req.asks}: {d.reason}")
    verdict = d.verdict
    held = gate_reason(req.asks) if gate else None
    if held and verdict != "UNDECIDED":
        return JudgeResult(0.5, "UNDECIDED", f"{held}; the procedure said {verdict}: {d.reason}",
                           JUDGE_NAME)  # fmt: skip
    return JudgeResult(
        score=min(1.0, max(0.0, d.score)),
        verdict=verdict,
        evidence=f"{req.asks}: {d.reason}",
        judge=JUDGE_NAME,
    )
