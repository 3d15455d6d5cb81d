"""The ``openvino-genai`` judge: a local chat model in OpenVINO IR reads the rubric.

For users who have an OpenVINO IR chat model folder (as written by ``optimum-cli export
openvino`` or by openvino-genai from a GGUF file). The folder must hold
``openvino_model``, ``openvino_tokenizer`` and ``openvino_detokenizer``, each as ``.xml``
and ``.bin``. All six are checked before anything loads: the pipeline itself only fails
at generation time when the detokenizer is missing.

The prompt is the rubric prompt of the ``reference`` judge, put through the model's own
chat template; decoding is greedy, so the verdict is deterministic. The reply is parsed
strictly (:func:`agenttest.judges._reference_judge.parse_verdict`); anything else is
``ERROR``, never ``FAIL``.

Needs the optional extra: ``pip install "agenttest[genai]"`` (openvino-genai, whose
version must equal the installed openvino's).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from agenttest.errors import JudgeUnavailable
from agenttest.judges._base import JudgeRequest, JudgeResult, error_result, unusable_request
from agenttest.judges._reference_judge import build_messages, result_from_reply

JUDGE_NAME = "openvino-genai"
MODEL_DIR_ENV = "AGENTTEST_GENAI_MODEL_DIR"
REQUIRED_PARTS = ("openvino_model", "openvino_tokenizer", "openvino_detokenizer")
INSTALL_HINT = (
    'pip install "agenttest[genai]"  (or: pip install openvino-genai==<your openvino version>)'
)


def missing_model_files(model_dir: str | Path) -> list[str]:
    """The required IR files absent from ``model_dir``, in a fixed order."""
    folder = Path(model_dir)
    return [
        f"{part}{suffix}"
        for part in REQUIRED_PARTS
        for suffix in (".xml", ".bin")
        if not (folder / f"{part}{suffix}").is_file()
    ]


def check_model_dir(model_dir: str | Path | None) -> Path:
    """The model folder, checked; raises JudgeUnavailable naming every missing file."""
    if model_dir is None or not str(model_dir).strip():
        model_dir = os.environ.get(MODEL_DIR_ENV) or None
    if model_dir is None:
        raise JudgeUnavailable(
            "the openvino-genai judge needs an OpenVINO IR chat model folder: pass "
            f"--option model_dir=PATH (or set {MODEL_DIR_ENV})"
        )
    folder = Path(model_dir).expanduser()
    if not folder.is_dir():
        raise JudgeUnavailable(f"openvino-genai judge: {folder} is not a folder")
    missing = missing_model_files(folder)
    if missing:
        raise JudgeUnavailable(
            f"openvino-genai judge: {folder} is not a complete OpenVINO IR chat model; missing "
            f"{', '.join(missing)}. Export one with `optimum-cli export openvino --model "
            "<hf-model> <folder>` (it writes the model, tokenizer and detokenizer)"
        )
    return folder


def _load_genai() -> Any:
    try:
        import openvino_genai
    except ImportError as exc:
        raise JudgeUnavailable(
            f"the openvino-genai judge needs the openvino-genai package ({exc}). Fix: {INSTALL_HINT}"
        ) from None
    return openvino_genai


class GenAIJudge:
    """Judge answers with a local OpenVINO IR chat model through openvino_genai.LLMPipeline.

    Options: ``model_dir`` (the IR folder; default ``$AGENTTEST_GENAI_MODEL_DIR``),
    ``device`` (``CPU``), ``max_new_tokens`` (256), ``seed`` (0; decoding is greedy, the
    seed only pins the generator in case a model's config asks for sampling).
    """

    name = JUDGE_NAME

    def __init__(
        self,
        model_dir: str | Path | None = None,
        device: str = "CPU",
        max_new_tokens: int | str = 256,
        seed: int | str = 0,
    ) -> None:
        self.model_dir = check_model_dir(model_dir)
        try:
            self.max_new_tokens = int(max_new_tokens)
            self.seed = int(seed)
        except ValueError as exc:
            raise JudgeUnavailable(f"openvino-genai judge: bad numeric option: {exc}") from None
        self.device = device
        genai = _load_genai()
        try:
            self._pipe = genai.LLMPipeline(str(self.model_dir), device)
        except Exception as exc:  # a broken or unsupported model: say so before judging anything
            raise JudgeUnavailable(
                f"openvino-genai judge: cannot load {self.model_dir} on {device}: "
                f"{type(exc).__name__}: {str(exc).strip()[:500]}"
            ) from None
        self._tokenizer = self._pipe.get_tokenizer()
        self._has_template = bool(getattr(self._tokenizer, "chat_template", ""))
        self._config = self._pipe.get_generation_config()
        self._config.max_new_tokens = self.max_new_tokens
        self._config.do_sample = False
        self._config.num_beams = 1
        self._config.rng_seed = self.seed
        # The prompt below is already templated; do not let the pipeline template it again.
        self._config.apply_chat_template = False
        self._lock = threading.Lock()  # an LLMPipeline serves one generate() at a time

    def prompt(self, req: JudgeRequest) -> str:
        """The exact text fed to the model: the rubric messages through its chat template.

        A model without a chat template gets the two messages as plain text followed by
        an ``Answer:`` cue.
        """
        messages = build_messages(req)
        if self._has_template:
            return str(self._tokenizer.apply_chat_template(messages, add_generation_prompt=True))
        return "\n\n".join(m["content"] for m in messages) + "\n\nAnswer:\n"

    def generate(self, prompt: str) -> str:
        with self._lock:
            out = self._pipe.generate(prompt, self._config)
        texts = getattr(out, "texts", None)
        return str(texts[0]) if texts else str(out)

    def judge(self, req: JudgeRequest) -> JudgeResult:
        unusable = unusable_request(JUDGE_NAME, req)
        if unusable is not None:
            return unusable
        try:
            reply = self.generate(self.prompt(req))
        except Exception as exc:  # the model failed: undecided, never a silent FAIL
            return error_result(
                JUDGE_NAME, f"generation failed: {type(exc).__name__}: {str(exc).strip()[:300]}"
            )
        return result_from_reply(JUDGE_NAME, self.model_dir.name, reply)
