"""The on-device judge: MiniLM alignment of claims + deterministic checks, one path.

Every request goes through the decision procedure of its kind (``_procedures``: ``act``,
``covers``, ``consistent``). A request that does not say ``asks`` has its kind read from
the reference (``_kinds``), and the result says so (``asks_from: reference``). Rules before
any procedure (docs/judges.md):

1. Bad input, or no reference for a kind that needs one -> ``ERROR``; the model failed ->
   ``ERROR`` (never a silent FAIL).
2. An empty candidate -> ``FAIL``, score 0.
3. Otherwise the procedure's PASS, FAIL or UNDECIDED (weak evidence, with the reason).

The rubric and context are not interpreted: an embedding cannot read instructions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agenttest.judges._base import (
    JudgeRequest,
    JudgeResult,
    error_result,
    option_bool,
)

if TYPE_CHECKING:
    from agenttest.judges._calibration import KindCalibration
    from agenttest.judges._minilm import MiniLMEncoder

JUDGE_NAME = "openvino"


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
        calibration: Mapping[str, KindCalibration] | None = None,
    ) -> None:
        #: hold back the verdicts of kinds not calibrated against people (``_calibration``);
        #: off only to measure the procedures themselves
        self.gate = option_bool(JUDGE_NAME, "gate", gate)  # before the model loads
        #: per kind, the user's ratings the verdicts count on (none: no kind counts)
        self.calibration = dict(calibration or {})
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
        from agenttest.judges._kinds import read_kind

        results: list[JudgeResult | None] = [None] * len(reqs)
        todo: list[tuple[int, JudgeRequest, str]] = []  # (index, typed request, asks_from)
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
                todo.append((i, req, "criterion"))
            else:
                kind = read_kind(req.reference)
                typed = replace(req, asks=kind.asks, act=kind.act)
                todo.append((i, typed, f"reference: {kind.why}"))
        if todo:
            self._judge_typed(todo, results)
        return [r for r in results if r is not None]

    def _judge_typed(
        self, todo: list[tuple[int, JudgeRequest, str]], results: list[JudgeResult | None]
    ) -> None:
        """Claims of every request embedded in one batch, then each kind's procedure."""
        from agenttest.judges._procedures import texts_to_embed

        texts = [
            t
            for _, req, _ in todo
            for t in texts_to_embed(req.asks, req.reference, req.candidate, req.tool_results)
        ]
        try:
            vectors = self._embed(texts)
        except Exception as exc:  # the model failed: undecided, never a silent FAIL
            for i, _, _ in todo:
                results[i] = error_result(
                    JUDGE_NAME, f"embedding failed: {type(exc).__name__}: {exc}"
                )
            return
        for i, req, source in todo:
            calibration = self.calibration if self.gate else None
            results[i] = decide_typed(req, vectors.__getitem__, calibration, source=source)


def decide_typed(
    req: JudgeRequest,
    vec: Any,
    calibration: Mapping[str, KindCalibration] | None,
    *,
    source: str = "criterion",
) -> JudgeResult:
    """Run the procedure the request's ``asks`` names (``_procedures``). With a
    ``calibration`` (a dict, even empty), a kind not calibrated against people is
    UNDECIDED whatever the procedure says, and a calibrated one says on what ratings it
    counts; ``None`` measures the procedure alone. ``source`` is where the kind came from:
    ``criterion``, or ``reference: WHY``."""
    from agenttest.judges import _procedures as proc
    from agenttest.judges._calibration import held_back

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
    origin = "criterion" if source == "criterion" else "reference"
    # the kind leads the evidence (rating reads it), then whether the verdict counts (an
    # evidence text is capped: what calibration reads comes first), then why
    said = "" if origin == "criterion" else f"kind read from the {source}; "
    verdict, score, reason = d.verdict, min(1.0, max(0.0, d.score)), f"{said}{d.reason}"
    if d.verdict == "ERROR":
        score = 0.0
    elif calibration is not None and verdict != "UNDECIDED":
        counts, why = held_back(req.asks, calibration)
        if counts:
            reason = f"{verdict} counted, {why}; {reason}"
        else:  # the procedure's verdict stays in the evidence, for the rater and calibration
            reason = f"the procedure said {verdict}, not counted: {why}; {reason}"
            verdict, score = "UNDECIDED", 0.5
    if req.rubric.strip():
        reason += "; rubric not interpreted by this judge"
    return JudgeResult(
        score=score,
        verdict=verdict,
        evidence=f"{req.asks}: {reason}",
        judge=JUDGE_NAME,
        asks=req.asks,
        act=req.act if req.asks == "act" else "",
        asks_from=origin,
    )
