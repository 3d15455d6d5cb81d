"""Security properties that cross modules: secrets never reach results or reports, and
untrusted run files and transcripts are data, never code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from agenttest.cli import main

from ._patience import EVENTUALLY_S
from ._servers import Behaviour, LoopbackAgent, run_battery_at, write_battery

SECRET = "sk-live-7f3a9c0d1e2b4a6f8e0d2c4b6a8f0e1d"
PASSWORD = "hunter2-never-print-me"


def test_secrets_never_reach_results_or_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 1)})
    with LoopbackAgent(Behaviour()) as agent:
        url = agent.url.replace("http://", f"http://tester:{PASSWORD}@")
        headers = {"Authorization": "Bearer ${AGENT_TOKEN}", "X-Api-Key": "${AGENT_TOKEN}"}
        path = run_battery_at(tmp_path, url, battery, headers=headers)
        sent = agent.state.bodies
    # precondition: the secret really was configured and the run really talked to the agent
    assert sent, "the agent received no turn"
    outputs = [path.read_text(encoding="utf-8")]
    for fmt in ("md", "html", "json", "junit"):
        target = tmp_path / f"report.{fmt}"
        assert main(["report", str(path), "--format", fmt, "-o", str(target)]) == 0
        outputs.append(target.read_text(encoding="utf-8"))
    outputs.append(capsys.readouterr().out)
    for text in outputs:
        assert SECRET not in text and PASSWORD not in text
    meta = json.loads(outputs[0].splitlines()[0])
    assert "***" in json.dumps(meta["agent"])  # redacted, not silently dropped


def test_untrusted_transcripts_are_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    canary = tmp_path / "canary"
    payloads = [
        f"$(touch {canary})",
        f"`touch {canary}`",
        "!!python/object/apply:os.system ['touch " + str(canary) + "']",
        "{{ cycler.__init__.__globals__.os.system('touch " + str(canary) + "') }}",
        "<script>document.title='pwned'</script>",
    ]
    legacy = tmp_path / "run_evil-model_20260101_k1.jsonl"
    with legacy.open("w", encoding="utf-8") as f:
        for i, text in enumerate(payloads, start=1):
            envelope = json.dumps({"response": text, "toolsUsed": [text], "done": True})
            record = {
                "id": "L1-HESAP-01",
                "run": i,
                "k": 5,
                "started_at": "2026-01-01T00:00:00Z",
                "turns": [{"prompt": text, "response": envelope, "audit_excerpt": text}],
            }
            f.write(json.dumps(record) + "\n")
    out = tmp_path / "out"
    assert (
        main(["import", str(legacy), "--from", "methodology-v1", "--out", str(out), "--allow-temp"])
        == 0
    )
    (converted,) = out.glob("*.jsonl")
    for fmt in ("md", "html", "json", "junit"):
        assert (
            main(["report", str(converted), "--format", fmt, "-o", str(tmp_path / f"r.{fmt}")]) == 0
        )
    capsys.readouterr()
    assert payloads[0] in converted.read_text(encoding="utf-8")  # kept verbatim as data
    assert not canary.exists()
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script>document.title" not in html


def hostile_run_file(tmp_path: Path, text: str) -> Path:
    """The golden run with its attempt failed and ``text`` added to the reply, a tool name and
    the evidence (the places reports print), written by "another tool" with JSON escapes."""
    golden = Path(__file__).parent / "golden" / "run_2.0.jsonl"
    lines = []
    for line in golden.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["record_type"] in ("attempt", "grade"):
            record["verdict"] = "FAIL"
            for turn in record.get("turns") or []:
                turn["response"] += text
                for call in turn.get("tool_calls") or []:
                    call["name"] += text
            for criterion in record.get("criteria") or []:
                criterion["passed"] = False
        lines.append(json.dumps(record))  # ensure_ascii: a surrogate stays a valid escape
    path = tmp_path / "run_other-tool_20260101_k1.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_readers_tolerate_lone_surrogates_from_other_writers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = hostile_run_file(tmp_path, " cut \ud83d")
    assert "\\ud83d" in path.read_text(encoding="utf-8")  # precondition: the escape is there
    for fmt in ("md", "html", "json", "junit"):
        target = tmp_path / f"r.{fmt}"
        assert main(["report", str(path), "--format", fmt, "-o", str(target)]) == 0
        text = target.read_text(encoding="utf-8")  # strict UTF-8
        if fmt in ("md", "html"):
            assert "cut \ufffd" in text
    capsys.readouterr()


def test_writer_stores_any_value_as_strict_utf8_json(tmp_path: Path) -> None:
    from agenttest.results import Record, RunWriter

    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        hostile = {"record_type": "x", "text": "a\udc80b", "n": float("nan"), "i": 1e999}
        writer.append(cast(Record, hostile))  # no constructor would build it: the point
    line = path.read_bytes().decode("utf-8")  # strict: raises on an unencodable surrogate
    record = json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} written"))
    assert record["text"] == "a\ufffdb" and record["n"] == "NaN" and record["i"] == "Infinity"


ESCAPES = " \x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\x9b31m"


def test_terminal_escapes_from_the_agent_never_reach_a_terminal_or_markdown(
    tmp_path: Path,
) -> None:
    from .conftest import run_cli

    path = hostile_run_file(tmp_path, ESCAPES)
    assert "\\u001b]52" in path.read_text(encoding="utf-8")  # precondition: escapes stored
    shown = run_cli("report", str(path))  # Markdown on stdout
    assert shown.returncode == 0, shown.stderr
    assert "pwned" in shown.stdout  # the text is shown ...
    for text in (shown.stdout, shown.stderr):
        assert not any(ch in text for ch in "\x1b\x07\x9b")  # ... without its controls
    target = tmp_path / "r.md"
    assert run_cli("report", str(path), "-o", str(target)).returncode == 0
    assert "\x1b" not in target.read_text(encoding="utf-8")


def test_terminal_escapes_from_the_agent_never_reach_the_rating_screen(tmp_path: Path) -> None:
    # `rate` shows a person the agent's reply to judge: an OSC 52 there sets their
    # clipboard, an OSC title or ESC [2J repaints the screen (the report's fix never
    # reached rating/).
    import subprocess
    import sys

    path = hostile_run_file(tmp_path, ESCAPES)
    shown = subprocess.run(
        [sys.executable, "-m", "agenttest", "rate", str(path), "--rater", "zed-rater"],
        input="s\nq\n",
        capture_output=True,
        text=True,
        timeout=EVENTUALLY_S,
    )
    assert shown.returncode == 0, shown.stderr
    assert "pwned" in shown.stdout  # the reply is shown ...
    for text in (shown.stdout, shown.stderr):
        assert not any(ch in text for ch in "\x1b\x07\x9b")  # ... without its controls


def test_secrets_stay_out_of_stderr_run_end_and_errors_when_the_agent_fails(
    tmp_path: Path,
) -> None:
    from ._servers import agent_yaml
    from .conftest import run_cli

    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 1)})
    token = "tok-" + SECRET
    with LoopbackAgent(Behaviour(loading_s=600)) as agent:  # never ready
        url = agent.url.replace("http://", f"http://tester:{PASSWORD}@") + f"/?api_key={SECRET}"
        config = tmp_path / "agent.yaml"
        config.write_text(
            agent_yaml(url, headers={"X-Token": token}, readiness={"timeout_s": 0.5}), "utf-8"
        )
        result = run_cli(
            "run", str(battery), "--agent", str(config), "--out", str(tmp_path / "out"),
            "--allow-temp", "--judge", "none",
        )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "not ready" in result.stderr  # precondition: the failure was reported
    (path,) = (tmp_path / "out").glob("*.jsonl")
    stored = path.read_text(encoding="utf-8")
    assert "aborted" in json.loads(stored.splitlines()[-1])["reason"]
    for text in (result.stdout, result.stderr, stored):
        assert SECRET not in text and PASSWORD not in text and token not in text


def test_report_into_a_pipe_or_device_writes_into_it_and_never_replaces_it(
    tmp_path: Path,
) -> None:
    """`report -o /dev/null` as root once put a regular file in place of /dev/null for the
    whole machine (the report is written beside the target and renamed over it). A FIFO
    stands in for the device here: the report must arrive through it and it must stay one."""
    import os
    import stat
    import threading

    from .conftest import run_cli

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(
        target=lambda: got.append(fifo.read_text(encoding="utf-8")), daemon=True
    )
    reader.start()
    golden = Path(__file__).parent / "golden" / "run_2.1.jsonl"
    done = run_cli("report", str(golden), "--format", "json", "-o", str(fifo))
    reader.join(EVENTUALLY_S)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode), "the pipe was replaced by a regular file"
    assert got and got[0].startswith("{"), got
    assert not (tmp_path / "pipe.part").exists()


def test_a_pool_says_a_replica_is_back_without_its_secrets(tmp_path: Path) -> None:
    """The pool's own status lines (a replica out of rotation, back again) once went out with
    the URL-only redaction: a header value in a replica's URL reached stderr (#27)."""
    import threading

    from ._servers import agent_yaml
    from .conftest import run_cli

    token = "tok-" + SECRET
    back = threading.Event()
    served = [0]

    def health(handler: Any) -> bool:
        if back.is_set():
            return False
        handler._send(503, {"status": "down"})
        return True

    def count(_n: int) -> None:
        served[0] += 1
        if served[0] == 12:  # well past the down replica's 0.2 s readiness limit
            back.set()

    battery = write_battery(tmp_path / "battery", {"L1-A-01": (1, 40)})
    up = LoopbackAgent(Behaviour(turn_delay_s=0.05, on_turn=count))
    down = LoopbackAgent(Behaviour(turn_delay_s=0.05, raw_health=health, path_prefix=f"/{token}"))
    with up, down:
        config = json.loads(
            agent_yaml(up.url, headers={"X-Token": token}, readiness={"timeout_s": 0.2})
        )
        del config["base_url"]
        # a token in the URL's path: no password or query, so only the header list knows it
        config["replicas"] = [{"base_url": up.url}, {"base_url": f"{down.url}/{token}"}]
        path = tmp_path / "pool.yaml"
        path.write_text(json.dumps(config), encoding="utf-8")
        result = run_cli(
            "run", str(battery), "--agent", str(path), "--out", str(tmp_path / "out"),
            "--allow-temp", "--judge", "none",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "replica 1 is back" in result.stderr  # precondition: the status line was shown
    (run,) = (tmp_path / "out").glob("*.jsonl")
    for text in (result.stdout, result.stderr, run.read_text(encoding="utf-8")):
        assert token not in text and SECRET not in text
