"""Judges: decide whether an agent's answer matches a reference answer.

``get_judge(name, **options)`` is the registry. Importing this package is cheap: the
OpenVINO judge (and numpy, openvino, tokenizers) load only when that judge is built.

Registered judges:

* ``openvino`` — on-device: all-MiniLM-L6-v2 cosine similarity combined with deterministic
  checks (numbers, dates, entities, negation, refusal). See docs/judges.md.

Planned (not yet registered; add a factory to ``_FACTORIES`` when they land):

* ``reference`` — exact/normalised match against the reference answer.
* ``openvino-genai`` — a small local LLM reading the rubric via openvino-genai.
"""

from __future__ import annotations

from collections.abc import Callable

from agenttest.errors import UsageError
from agenttest.judges._base import (
    Judge,
    JudgeRequest,
    JudgeResult,
    Verdict,
    error_result,
    score_pairs,
)
from agenttest.judges._minilm import install_model_command

__all__ = [
    "Judge",
    "JudgeRequest",
    "JudgeResult",
    "Verdict",
    "available_judges",
    "error_result",
    "get_judge",
    "install_model_command",
    "score_pairs",
]


def _openvino(**options: object) -> Judge:
    from agenttest.judges._openvino_judge import OpenVINOJudge

    return OpenVINOJudge(**options)  # type: ignore[arg-type]


_FACTORIES: dict[str, Callable[..., Judge]] = {
    "openvino": _openvino,
    # "reference": _reference,            # issue: exact/normalised-match judge
    # "openvino-genai": _openvino_genai,  # issue: local LLM judge reading the rubric
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
