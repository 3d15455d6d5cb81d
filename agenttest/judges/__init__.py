"""Judges: decide whether an agent's answer matches a reference answer.

``get_judge(name, **options)`` is the registry. Importing this package is cheap: the
OpenVINO judge (and numpy, openvino, tokenizers) load only when that judge is built.

Registered judges:

* ``openvino`` — on-device: all-MiniLM-L6-v2 cosine similarity combined with deterministic
  checks (numbers, dates, entities, negation, refusal). See docs/judges.md.
* ``reference`` — a chat model behind any OpenAI-compatible endpoint reads the rubric and
  answers with a strict JSON verdict (httpx; temperature 0 and a seed).
* ``openvino-genai`` — a local OpenVINO IR chat model reads the same rubric prompt
  (optional extra ``genai``: openvino-genai).
"""

from __future__ import annotations

from collections.abc import Callable

from agenttest.errors import UsageError
from agenttest.judges._acts import decline_cues
from agenttest.judges._base import (
    Judge,
    JudgeRequest,
    JudgeResult,
    JudgeVerdict,
    error_result,
    score_pairs,
)
from agenttest.judges._calibration import KindCalibration
from agenttest.judges._claims import split_items as reference_items
from agenttest.judges._minilm import install_model_command
from agenttest.judges._pairs_file import check_pairs, score_pairs_file

__all__ = [
    "Judge",
    "JudgeRequest",
    "JudgeResult",
    "JudgeVerdict",
    "KindCalibration",
    "available_judges",
    "check_pairs",
    "decline_cues",
    "error_result",
    "get_judge",
    "install_model_command",
    "reference_items",
    "score_pairs",
    "score_pairs_file",
]


def _openvino(**options: object) -> Judge:
    from agenttest.judges._openvino_judge import OpenVINOJudge

    return _with_options(OpenVINOJudge, "openvino", options)


def _with_options(cls: Callable[..., Judge], name: str, options: dict[str, object]) -> Judge:
    """Build ``cls(**options)``; an option it does not take is a usage error, not a crash."""
    import inspect

    try:
        inspect.signature(cls).bind(**options)
    except TypeError as exc:
        raise UsageError(f"judge {name!r} does not take these options: {exc}") from None
    return cls(**options)


def _reference(**options: object) -> Judge:
    from agenttest.judges._reference_judge import ReferenceJudge

    return _with_options(ReferenceJudge, "reference", options)


def _openvino_genai(**options: object) -> Judge:
    from agenttest.judges._genai_judge import GenAIJudge

    return _with_options(GenAIJudge, "openvino-genai", options)


_FACTORIES: dict[str, Callable[..., Judge]] = {
    "openvino": _openvino,
    "reference": _reference,
    "openvino-genai": _openvino_genai,
}


def available_judges() -> list[str]:
    """Names accepted by :func:`get_judge`."""
    return sorted(_FACTORIES)


def get_judge(name: str, **options: object) -> Judge:
    """Build the judge called ``name``; raises UsageError for an unknown name and
    JudgeUnavailable (with the fix command) when the judge cannot run here."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        known = ", ".join(available_judges())
        raise UsageError(f"unknown judge {name!r}; known judges: {known}") from None
    return factory(**options)
