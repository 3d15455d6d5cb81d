"""Streaming, choices and journeys end to end: the real runner against the real example
agent (started by `--agent example`), graded by the real grader.

Each negative case flips one fault knob of the agent and shows the criterion that catches
it; its positive twin (same blocks, no fault) passes first, so the knob is what changed.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from agenttest.agents import AgentClient, parse_agent_config
from agenttest.example_agent import Faults, serve
from agenttest.results import Attempt, Choose, iter_records

from .conftest import ROOT, run_cli

JOURNEYS = "MT-JOURNEY-01,MT-JOURNEY-02,MT-JOURNEY-03,MT-JOURNEY-04"


def run(tmp_path: Path, only: str, *extra: str, battery: Path | None = None) -> list[Attempt]:
    result = run_cli(
        "run", str(battery or ROOT / "batteries"), "--agent", "example", "--only", only,
        "--k", "1", "--out", str(tmp_path / "out"), "--allow-temp", "--quiet",
        "--judge", "none", *extra,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = list(iter_records(Path(result.stdout.strip().splitlines()[-1])))
    return [r for r in records if isinstance(r, Attempt)]


def failed(attempt: Attempt) -> dict[str, str]:
    """The failed criteria's notes, to say why an attempt did not pass."""
    return {
        c.id: (c.evidence.note if c.evidence else None) or ""
        for c in attempt.criteria
        if c.passed is False
    }


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_journey_blocks_pass_against_the_example_agent(tmp_path: Path, stream: bool) -> None:
    attempts = run(tmp_path, JOURNEYS, *(["--stream"] if stream else []))
    assert [a.test_id for a in attempts] == JOURNEYS.split(",")
    for a in attempts:
        assert a.verdict == "PASS", (a.test_id, failed(a), a.error)
        assert all((t.timeline is not None) is stream for t in a.turns), a.test_id
    tapped = attempts[0].turns[1]
    assert tapped.choose == Choose(label_matches="b.txt", offered=["a.txt", "b.txt"],
                                   chose="b.txt")  # fmt: skip
    assert tapped.prompt == "delete notes/b.txt"  # the value of the tapped choice was sent


def test_choices_that_arrive_late_fail_arrives_with(tmp_path: Path) -> None:
    (attempt,) = run(tmp_path, "MT-JOURNEY-04", "--stream", "--example-args", "--late-choices")
    assert attempt.turns[0].timeline is not None
    assert attempt.turns[0].timeline.order[-2:] == ["choices", "final"]
    assert attempt.verdict == "FAIL"
    assert set(failed(attempt)) == {"P4"} and "after the text" in failed(attempt)["P4"]


BLOCK = """
id: T-CHOOSE-01
tier: MT
category: JOURNEY
title: tap a choice that is not offered
capability: a choose turn whose label is not among the offered choices
turns:
  - prompt: "delete notes/x.txt"
  - choose: {label_matches: "maybe later"}
k: 1
fixtures:
  - {kind: file, path: notes/x.txt, content: "x"}
criteria:
  pass:
    - {id: P1, tag: STATE, type: choice_offered, says: the tapped choice was offered}
    - {id: P2, tag: STATE, type: stored_matches_stream, turn: 1, says: stored equals streamed}
"""


def test_a_choice_not_offered_fails_with_the_labels(tmp_path: Path) -> None:
    folder = tmp_path / "blocks" / "MT"
    folder.mkdir(parents=True)
    (folder / "T-CHOOSE-01.yaml").write_text(BLOCK, encoding="utf-8")
    (attempt,) = run(tmp_path, "T-CHOOSE-01", "--stream", battery=tmp_path / "blocks")
    assert attempt.status == "completed" and attempt.verdict == "FAIL"
    assert len(attempt.turns) == 2 and (attempt.turns[1].error or "").startswith("not sent")
    note = failed(attempt)["P1"]
    assert "maybe later" in note and "Yes, go ahead" in note and "Cancel" in note
    assert attempt.turns[0].stored is not None
    assert attempt.turns[0].stored.text == attempt.turns[0].stream_text


def test_stored_copy_that_drifts_fails_with_the_first_difference(tmp_path: Path) -> None:
    folder = tmp_path / "blocks" / "MT"
    folder.mkdir(parents=True)
    (folder / "T-CHOOSE-01.yaml").write_text(
        BLOCK.replace("delete notes/x.txt", "what is 1850 times 0.18?"), encoding="utf-8"
    )
    (attempt,) = run(
        tmp_path, "T-CHOOSE-01", "--stream", "--example-args", "--store-drift",
        battery=tmp_path / "blocks",
    )  # fmt: skip
    turn = attempt.turns[0]
    assert turn.stored is not None
    assert turn.stream_text == "The answer is 333." and turn.stored.text != "The answer is 333."
    note = failed(attempt)["P2"]
    assert "first difference at character 14" in note and "'333.'" in note


def test_example_agent_streams_in_both_faces(tmp_path: Path) -> None:
    with serve(faults=Faults()).start() as server:
        native = parse_agent_config(
            f"model: m\nbase_url: {server.url}\nstream: true\n", str(tmp_path / "a.yaml"), tmp_path
        )
        with AgentClient(native) as client:
            ex = client.turn("s1", "what is 1850 times 0.18?", 1)
            stored = client.stored("s1", 1)
        assert ex.reply.response == ex.reply.stream_text == stored == "The answer is 333."
        assert ex.reply.timeline and ex.reply.timeline["order"] == ["tool_call", "text", "final"]
        openai = parse_agent_config(
            f"model: m\nbase_url: {server.url}\nmode: openai\nstream: true\n",
            str(tmp_path / "o.yaml"),
            tmp_path,
        )
        with AgentClient(openai) as client:
            client.wait_ready()  # /v1/models answers
            ex = client.turn("s2", "what is 1850 times 0.18?", 1)
        assert ex.reply.response == "The answer is 333." and ex.reply.timeline is not None
        assert ex.reply.tool_calls[0].name == "calculator"
        plain = httpx.post(
            f"{server.url}/v1/chat/completions",
            json={"user": "s3", "messages": [{"role": "user", "content": "hi"}]},
        ).json()
        assert plain["choices"][0]["message"]["content"]
        assert httpx.get(f"{server.url}/v1/sessions/nope/messages").status_code == 404
        history = httpx.get(f"{server.url}/v1/sessions/s2/messages").json()["messages"]
        assert [m["role"] for m in history] == ["user", "assistant"]
        assert json.dumps(history, ensure_ascii=False).count("333") == 1


@pytest.mark.parametrize("mode", ["native", "rest", "openai"])
def test_shipped_streaming_configs_run_the_journeys(tmp_path: Path, mode: str) -> None:
    """examples/agents/example-*-stream.yaml, as shipped, against a live example agent."""
    text = (ROOT / "examples" / "agents" / f"example-{mode}-stream.yaml").read_text("utf-8")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with serve(workspace=workspace).start() as server:
        config = tmp_path / "agent.yaml"
        config.write_text(
            text.replace("http://127.0.0.1:8765", server.url).replace(
                "~/agenttest-example", str(workspace)
            ),
            encoding="utf-8",
        )
        assert server.url in config.read_text("utf-8")  # precondition: it points here
        result = run_cli(
            "run", str(ROOT / "batteries"), "--agent", str(config), "--only",
            "MT-JOURNEY-01,MT-JOURNEY-04", "--k", "1", "--out", str(tmp_path / "out"),
            "--allow-temp", "--quiet", "--judge", "none",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = list(iter_records(Path(result.stdout.strip().splitlines()[-1])))
    attempts = [r for r in records if isinstance(r, Attempt)]
    assert [a.verdict for a in attempts] == ["PASS", "PASS"], [failed(a) for a in attempts]
    assert all(t.timeline is not None for a in attempts for t in a.turns)


def test_parity_runs_two_agents_into_one_file_and_lists_the_differences(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with serve(workspace=workspace, faults=Faults(late_choices=True)).start() as server:
        config = tmp_path / "late.yaml"
        config.write_text(
            f"name: late-choices\nmodel: example-agent\nbase_url: {server.url}\n"
            f"workspace: {workspace}\nstream: true\n",
            encoding="utf-8",
        )
        result = run_cli(
            "run", str(ROOT / "batteries"), "--agent", "example", "--agent", str(config),
            "--parity", "--stream", "--only", "MT-JOURNEY-04,L1-CALC-01", "--k", "2",
            "--out", str(tmp_path / "out"), "--allow-temp", "--quiet", "--judge", "none",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip().splitlines()[-1])
    records = list(iter_records(path))
    assert [r.record_type for r in records].count("run_end") == 1
    attempts = [r for r in records if isinstance(r, Attempt)]
    by_agent: dict[tuple[str | None, str], list[str | None]] = {
        (a.agent, a.test_id): [] for a in attempts
    }
    for a in attempts:
        by_agent[(a.agent, a.test_id)].append(a.verdict)
    assert by_agent == {
        ("example", "L1-CALC-01"): ["PASS", "PASS"],
        ("example", "MT-JOURNEY-04"): ["PASS", "PASS"],
        ("late-choices", "L1-CALC-01"): ["PASS", "PASS"],
        ("late-choices", "MT-JOURNEY-04"): ["FAIL", "FAIL"],
    }
    assert "| MT-JOURNEY-04 | MT | pass 2/2 | FAIL 0/2 |" in result.stderr
    assert "L1-CALC-01 |" not in result.stderr  # the same decision: not a parity row
    report = run_cli("report", str(path))
    assert report.returncode == 0, report.stderr
    assert "## Parity across agents" in report.stdout and "1 decided differently" in report.stdout
    # the rest of the report pools both agents' attempts; none replaces another
    assert (
        "| MT-JOURNEY-04 — A clarification's choices belong to the question asked | MT | 2/4 |"
        in report.stdout
    )
    assert "| MT-JOURNEY-04 | 4 |" in report.stdout  # time to first text: 4 streamed turns
