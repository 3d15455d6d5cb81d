"""The `openvino-genai` judge: the folder check, and the real load → prompt → generate → parse path.

No instruct model can be installed here, so the test writes tiny llama models itself with
numpy and the `gguf` package, lets openvino_genai convert each GGUF into an OpenVINO IR
folder (model, tokenizer, detokenizer), and points the judge at that folder.

Two models are written:

* a *wired* model whose weights are set by hand so that greedy decoding prints
  ``{"verdict": "PASS", ...}`` when the prompt contains the character ``^`` and
  ``{"verdict": "FAIL", ...}`` otherwise. One attention head finds the ``^`` anywhere in the
  prompt; the rest of the network is a lookup table from the current token to the next.
  The verdict therefore depends on the candidate text, which proves the candidate reaches
  the model through the chat template and tokenizer, and that the reply comes back through
  the detokenizer and the strict parser;
* a *random* model with random weights, whose reply is noise and must be an ``ERROR``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agenttest.errors import JudgeUnavailable
from agenttest.judges import JudgeRequest, get_judge, score_pairs
from agenttest.judges._genai_judge import (
    REQUIRED_PARTS,
    GenAIJudge,
    check_model_dir,
    missing_model_files,
)
from agenttest.judges._reference_judge import build_messages

ALL_FILES = [f"{part}{suffix}" for part in REQUIRED_PARTS for suffix in (".xml", ".bin")]
MARK = "^"  # the wired model answers PASS iff the prompt contains this character
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
PIECES = (
    '{"verdict": ',
    '"PASS"',
    '"FAIL"',
    ', "score": 0.9',
    ', "score": 0.1',
    ', "reason": "tiny wired model"}',
)


def _byte_alphabet() -> dict[int, str]:
    """GPT-2 byte-level BPE: each byte is shown as one printable character."""
    printable = [*range(33, 127), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    shown = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in shown:
            shown[b] = chr(256 + extra)
            extra += 1
    return shown


def write_tiny_gguf(path: Path, *, wired: bool) -> None:
    """A one-layer llama GGUF with a byte-level vocabulary and a ChatML template."""
    gguf = pytest.importorskip("gguf", reason="the gguf package writes the tiny test model")
    alphabet = _byte_alphabet()
    tokens = [alphabet[b] for b in range(256)]
    types = [1] * 256
    for special in ("<|endoftext|>", "<|im_start|>", "<|im_end|>"):
        tokens.append(special)
        types.append(3)  # control token
    merge_left, merge_right = alphabet[ord("h")], alphabet[ord("i")]
    # Whole reply pieces are single tokens; the tokenizer never produces them (no merges lead
    # there), but the detokenizer prints them. One merge is required by the BPE reader.
    for piece in (*PIECES, merge_left + merge_right):
        tokens.append(piece)
        types.append(1)
    index = {tok: i for i, tok in enumerate(tokens)}
    vocab, dim, ffn = len(tokens), 288, 32
    assert vocab < dim - 1
    flag = dim - 1  # the residual dimension that says "the prompt contained MARK"
    end = index["<|im_end|>"]

    if wired:
        embed = np.eye(vocab, dim, dtype=np.float32)  # token i -> unit vector i
        head = np.zeros((vocab, dim), np.float32)  # logits[next] = head[next] . state

        def link(current: int, following: int, weight: float = 1.0) -> None:
            head[following, current] = weight

        link(ord("\n"), index[PIECES[0]])  # the template ends in "assistant\n"
        link(index[PIECES[0]], index['"FAIL"'], 1.0)
        link(index[PIECES[0]], index['"PASS"'], 0.9)
        head[index['"PASS"'], flag] = 0.5  # ... and the flag tips it to PASS
        head[index['"FAIL"'], flag] = -0.5
        link(index['"PASS"'], index[PIECES[3]])
        link(index['"FAIL"'], index[PIECES[4]])
        link(index[PIECES[3]], index[PIECES[5]])
        link(index[PIECES[4]], index[PIECES[5]])
        link(index[PIECES[5]], end)
        # Attention: every position queries on the last head dimension (the slowest RoPE
        # frequency, so position barely matters); only MARK answers, and its value writes
        # the flag. With MARK absent all values are zero and nothing is written.
        scale = np.sqrt(dim)  # RMSNorm turns a unit one-hot into sqrt(dim) * one-hot
        w_q = np.zeros((dim, dim), np.float32)
        w_q[dim - 1, :] = 20.0 / scale
        w_k = np.zeros((dim, dim), np.float32)
        w_k[dim - 1, ord(MARK)] = 20.0 / scale
        w_v = np.zeros((dim, dim), np.float32)
        w_v[0, ord(MARK)] = 1.0 / scale
        w_o = np.zeros((dim, dim), np.float32)
        w_o[flag, 0] = 1.0
        gate = np.zeros((ffn, dim), np.float32)
        up = np.zeros((ffn, dim), np.float32)
        down = np.zeros((dim, ffn), np.float32)
    else:
        rng = np.random.default_rng(1234)

        def noise(*shape: int) -> Any:
            return rng.standard_normal(shape).astype(np.float32) * 0.5

        embed, head = noise(vocab, dim), noise(vocab, dim)
        w_q, w_k, w_v, w_o = (noise(dim, dim) for _ in range(4))
        gate, up, down = noise(ffn, dim), noise(ffn, dim), noise(dim, ffn)

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(1)
    writer.add_context_length(2048)
    writer.add_embedding_length(dim)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(1)
    writer.add_head_count_kv(1)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_freq_base(10000.0)
    writer.add_file_type(1)  # F16 weights; norms stay F32
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges([f"{merge_left} {merge_right}"])
    writer.add_bos_token_id(index["<|im_start|>"])
    writer.add_eos_token_id(end)
    writer.add_chat_template(CHAT_TEMPLATE)

    def f16(array: Any) -> Any:
        return np.asarray(array, np.float32).astype(np.float16)

    ones = np.ones(dim, np.float32)
    writer.add_tensor("token_embd.weight", f16(embed))
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", f16(head))
    writer.add_tensor("blk.0.attn_norm.weight", ones)
    writer.add_tensor("blk.0.ffn_norm.weight", ones)
    for name, weight in (
        ("attn_q", w_q),
        ("attn_k", w_k),
        ("attn_v", w_v),
        ("attn_output", w_o),
        ("ffn_gate", gate),
        ("ffn_up", up),
        ("ffn_down", down),
    ):
        writer.add_tensor(f"blk.0.{name}.weight", f16(weight))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def export_ir(workdir: Path, *, wired: bool) -> Path:
    """GGUF -> OpenVINO IR folder holding exactly the six files a user's export has."""
    genai = pytest.importorskip(
        "openvino_genai", reason="openvino-genai is not installed (optional extra `genai`)"
    )
    source = workdir / "gguf"
    source.mkdir()
    write_tiny_gguf(source / "tiny.gguf", wired=wired)
    # Loading a GGUF with enable_save_ov_model writes the IR files beside it.
    genai.LLMPipeline(str(source / "tiny.gguf"), "CPU", enable_save_ov_model=True)
    folder = workdir / "ir"
    folder.mkdir()
    for name in ALL_FILES:
        shutil.copy(source / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def wired_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_ir(tmp_path_factory.mktemp("wired"), wired=True)


@pytest.fixture(scope="module")
def wired(wired_dir: Path) -> GenAIJudge:
    return GenAIJudge(wired_dir)


def req(candidate: str, reference: str = "Paris") -> JudgeRequest:
    return JudgeRequest(
        rubric="Names the capital of France.", reference=reference, candidate=candidate
    )


# --- the folder check (no openvino-genai needed) -----------------------------------------


def test_empty_folder_lists_all_six_files(tmp_path: Path) -> None:
    with pytest.raises(JudgeUnavailable) as info:
        check_model_dir(tmp_path)
    message = str(info.value)
    for name in ALL_FILES:
        assert name in message


def test_partial_folder_lists_only_the_missing_files(tmp_path: Path) -> None:
    for name in ("openvino_model.xml", "openvino_model.bin", "openvino_tokenizer.xml"):
        (tmp_path / name).write_text("x")
    assert missing_model_files(tmp_path) == [
        "openvino_tokenizer.bin",
        "openvino_detokenizer.xml",
        "openvino_detokenizer.bin",
    ]
    with pytest.raises(JudgeUnavailable, match=r"missing openvino_tokenizer\.bin, openvino_detok"):
        GenAIJudge(tmp_path)
    with pytest.raises(JudgeUnavailable) as info:
        get_judge("openvino-genai", model_dir=str(tmp_path))
    assert "openvino_model.xml" not in str(info.value)


def test_no_folder_given_or_not_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTTEST_GENAI_MODEL_DIR", raising=False)
    with pytest.raises(JudgeUnavailable, match="AGENTTEST_GENAI_MODEL_DIR"):
        GenAIJudge()
    with pytest.raises(JudgeUnavailable, match="is not a folder"):
        GenAIJudge(tmp_path / "nope")
    monkeypatch.setenv("AGENTTEST_GENAI_MODEL_DIR", str(tmp_path))
    with pytest.raises(JudgeUnavailable, match=r"openvino_model\.xml"):
        GenAIJudge()


def test_missing_package_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ALL_FILES:
        (tmp_path / name).write_text("x")
    monkeypatch.setitem(__import__("sys").modules, "openvino_genai", None)
    with pytest.raises(JudgeUnavailable, match=r"agenttest\[genai\]"):
        GenAIJudge(tmp_path)


# --- the real pipeline on the tiny models ------------------------------------------------


def test_rubric_prompt_goes_through_the_chat_template(wired: GenAIJudge) -> None:
    prompt = wired.prompt(req("It is Lyon."))
    assert prompt.startswith("<|im_start|>system\n")
    assert prompt.endswith("<|im_start|>assistant\n")
    assert "<|im_start|>user\nRUBRIC:\nNames the capital of France." in prompt
    assert "REFERENCE ANSWER:\nParis" in prompt and "CANDIDATE ANSWER:\nIt is Lyon." in prompt
    # The wired model keys on MARK; the fixed part of the prompt must not contain it.
    assert all(MARK not in m["content"] for m in build_messages(req("It is Lyon.")))


def test_verdict_follows_the_candidate_through_the_model(wired: GenAIJudge) -> None:
    passed = wired.judge(req(f"It is Paris {MARK}"))
    failed = wired.judge(req("It is Lyon."))
    assert (passed.verdict, passed.score) == ("PASS", 0.9)
    assert (failed.verdict, failed.score) == ("FAIL", 0.1)
    assert passed.judge == "openvino-genai"
    assert passed.evidence == "ir: tiny wired model"


def test_long_prompt_and_determinism(wired: GenAIJudge) -> None:
    long_candidate = "Paris is the capital. " * 60 + MARK
    first = wired.judge(req(long_candidate))
    assert first.verdict == "PASS"
    assert wired.judge(req(long_candidate)) == first
    assert wired.judge(req("Paris is the capital. " * 60)).verdict == "FAIL"


def test_cut_off_reply_is_error_not_fail(wired_dir: Path) -> None:
    short = GenAIJudge(wired_dir, max_new_tokens=2)
    result = short.judge(req("It is Lyon."))
    assert result.verdict == "ERROR"
    # The reply was the start of a FAIL verdict; cut off, it is undecided, not a FAIL.
    assert "unusable verdict" in result.evidence and '"FAIL"' in result.evidence


def test_registry_and_score_pairs(wired_dir: Path) -> None:
    judge = get_judge("openvino-genai", model_dir=str(wired_dir), max_new_tokens="64")
    rows = list(
        score_pairs(
            judge,
            [
                {"id": "a", "reference": "Paris", "candidate": f"Paris {MARK}"},
                {"id": "b", "reference": "Paris", "candidate": "Lyon"},
                {"id": "c", "reference": "", "candidate": "Lyon"},
            ],
        )
    )
    assert [(r["id"], r["verdict"]) for r in rows] == [("a", "PASS"), ("b", "FAIL"), ("c", "ERROR")]


def test_missing_detokenizer_is_caught_before_loading(wired_dir: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(wired_dir, partial)
    (partial / "openvino_detokenizer.bin").unlink()
    with pytest.raises(JudgeUnavailable, match=r"missing openvino_detokenizer\.bin\."):
        GenAIJudge(partial)


def test_random_weights_give_error_not_fail(tmp_path: Path) -> None:
    judge = GenAIJudge(export_ir(tmp_path, wired=False), max_new_tokens=24)
    result = judge.judge(req("It is Paris."))
    assert result.verdict == "ERROR", result
    assert "unusable verdict" in result.evidence
