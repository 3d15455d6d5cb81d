"""`agenttest example-agent`: every option reaches `agenttest.example_agent.main`."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

import agenttest.example_agent as example_agent
from agenttest.cli import main as cli_main

from ._patience import EVENTUALLY_S
from .conftest import run_cli as run_agenttest

ROOT = Path(__file__).resolve().parent.parent


def run_cli(monkeypatch: pytest.MonkeyPatch, *args: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def fake_main(host: str, port: int, workspace: Path | None, brain: str, **options: Any) -> None:
        seen.update(host=host, port=port, workspace=workspace, brain=brain, options=options)

    monkeypatch.setattr(example_agent, "main", fake_main)
    assert cli_main(["example-agent", *args]) == 0
    return seen


def test_brain_seed_and_openai_options_are_passed_through(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = run_cli(
        monkeypatch,
        "--workspace", str(tmp_path), "--brain", "openai", "--seed", "7",
        "--busy-probability", "0.25", "--openai-base-url", "http://127.0.0.1:9/v1",
        "--openai-model", "m1", "--openai-api-key-env", "MY_KEY", "--openai-seed", "3",
        "--openai-max-steps", "4", "--openai-timeout-s", "12.5",
    )  # fmt: skip
    assert seen["brain"] == "openai" and seen["workspace"] == tmp_path
    options = seen["options"]
    assert options["seed"] == 7 and options["busy_probability"] == 0.25
    assert {k: v for k, v in options.items() if k.startswith("openai_")} == {
        "openai_base_url": "http://127.0.0.1:9/v1",
        "openai_model": "m1",
        "openai_api_key_env": "MY_KEY",
        "openai_seed": 3,
        "openai_max_steps": 4,
        "openai_timeout_s": 12.5,
    }
    # and main accepts every one of them (no "unknown option")
    faults, brain_options, _ = example_agent.split_options(options)
    assert faults.seed == 7 and brain_options["openai_model"] == "m1"


def test_turn_delay_is_the_latency_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli(monkeypatch, "--turn-delay-s", "0.25")["options"]["latency_s"] == 0.25
    assert run_cli(monkeypatch, "--latency-s", "0.5")["options"]["latency_s"] == 0.5


def test_defaults_leave_options_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = run_cli(monkeypatch)
    assert seen["brain"] == "rules" and seen["host"] == "127.0.0.1" and seen["port"] == 0
    assert {k for k, v in seen["options"].items() if v is not None} == set()


def test_help_says_simulated_busy_is_503(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["example-agent", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "simulated busy: HTTP 503" in text
    for option in ("--brain", "--seed", "--openai-base-url", "--openai-model",
                   "--openai-api-key-env"):  # fmt: skip
        assert option in text


class _Model(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append(body)  # type: ignore[attr-defined]
        reply = {"choices": [{"message": {"role": "assistant", "content": "hi from the model"}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_openai_brain_through_the_real_command(tmp_path: Path) -> None:
    """The command line starts the openai brain against the given server, model and seed."""
    model = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    model.seen = []  # type: ignore[attr-defined]
    threading.Thread(target=model.serve_forever, args=(0.05,), daemon=True).start()
    base = f"http://127.0.0.1:{model.server_address[1]}/v1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenttest", "example-agent", "--workspace", str(tmp_path),
         "--brain", "openai", "--openai-base-url", base, "--openai-model", "tiny",
         "--openai-api-key-env", "", "--openai-seed", "5"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        reply = httpx.post(url + "/v1/turn", json={"session_id": "s", "message": "hello"},
                           timeout=EVENTUALLY_S)  # fmt: skip
        assert reply.status_code == 200 and reply.json()["response"] == "hi from the model"
    finally:
        proc.terminate()
        proc.wait(timeout=EVENTUALLY_S)
        model.shutdown()
        model.server_close()
    (request,) = model.seen  # type: ignore[attr-defined]
    assert request["model"] == "tiny" and request["seed"] == 5


def test_a_busy_port_is_a_plain_usage_error(tmp_path: Path) -> None:
    import socket

    # A temp folder of the test's own: other processes on the machine make theirs meanwhile.
    temp = tmp_path / "tmp"
    temp.mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_agenttest(
            "example-agent", "--port", str(port), env={"TMPDIR": str(temp)}, timeout=60
        )
    assert result.returncode == 2, result.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
    left = list(temp.glob("agenttest-agent-*"))
    assert not left, f"the unused temporary workspace was left behind: {left}"
