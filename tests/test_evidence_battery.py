"""The EV tier: its battery, its lint rules, the example agent's docs and memory tools,
and memory seeding (an agent that cannot be seeded gets ERROR with cause precondition)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agenttest.blocks import load_battery
from agenttest.blocks._lint import lint_battery
from agenttest.example_agent import AgentServer, serve
from agenttest.results import Attempt, iter_records

from ._servers import LoopbackAgent, run_battery_at
from .conftest import ROOT

EV = ROOT / "batteries" / "EV"


def _records(run_file: Path) -> list[Attempt]:
    return [r for r in iter_records(run_file) if isinstance(r, Attempt)]


# --------------------------------------------------------------------------- the battery


def test_ev_battery_has_the_failure_classes_and_the_published_case_split() -> None:
    battery = load_battery([EV])
    families = {b.case.parent if b.case else b.id for b in battery}
    for prefix in ("EV-TOTAL", "EV-NEAR", "EV-ADJ", "EV-CITE", "EV-REACH", "EV-UNFIN", "EV-MEM"):
        assert any(f is not None and f.startswith(prefix) for f in families), prefix

    def split(parent: str) -> Counter[str | None]:
        return Counter(b.case.category for b in battery if b.case and b.case.parent == parent)

    assert split("EV-MEM-01") == Counter({"true": 25, "contradict": 22, "silent": 3})
    # the knowledge-base experiment on hosted tools (issue 28): its categories and inverse
    assert split("EV-KB-01") == Counter({"near": 4, "adjacent": 4, "total": 4, "inverse": 4})
    assert all(b.tier == "EV" and b.k == 5 for b in battery)


def test_shipped_ev_blocks_are_lint_clean() -> None:
    assert lint_battery(load_battery([EV])) == []


BASE = """\
id: {id}
tier: EV
category: T
title: t
capability: c
turns: ["According to the docs, what is X?"]
k: 1
{extra}criteria:
  pass:
{passes}
  fail:
    - {{id: F1, tag: STATE, type: abstains, negate: true, says: answers anyway}}
"""
PIN = "    - {id: P1, tag: STATE, type: tool_called, tool: docs_search, says: searched}\n"
DECLINE = "    - {id: P2, tag: STATE, type: abstains, values: [X], says: declines}\n"
PLAIN = "    - {id: P2, tag: KEYWORD, type: response_contains, values: [x], says: answers}\n"


def _lint(tmp_path: Path, **blocks: tuple[str, str]) -> list[str]:
    for bid, (extra, passes) in blocks.items():
        text = BASE.format(id=bid, extra=extra, passes=passes)
        (tmp_path / f"{bid}.yaml").write_text(text, encoding="utf-8")
    return [
        f"{Path(p.file).name}:{p.line}: {p.message}" for p in lint_battery(load_battery([tmp_path]))
    ]


def test_lint_quiet_on_a_declining_block_with_its_inverse(tmp_path: Path) -> None:
    assert (
        _lint(tmp_path, **{"EV-A": ("inverse: [EV-B]\n", PIN + DECLINE), "EV-B": ("", PIN + PLAIN)})
        == []
    )


def test_lint_fires_without_inverse_or_pin(tmp_path: Path) -> None:
    out = _lint(tmp_path, **{"EV-A": ("", DECLINE)})
    assert any("[evidence-precondition] EV block `EV-A` pins no evidence" in m for m in out), out
    assert any("[evidence-inverse] `EV-A` accepts declining" in m for m in out), out


def test_lint_fires_on_an_inverse_that_declines_too_or_is_missing(tmp_path: Path) -> None:
    out = _lint(
        tmp_path,
        **{
            "EV-A": ("inverse: [EV-B, EV-NOPE]\n", PIN + DECLINE),
            "EV-B": ("inverse: [EV-A]\n", PIN + DECLINE),
        },
    )
    assert (
        "EV-A.yaml:8: [evidence-inverse] `EV-A` names inverse `EV-B`, which accepts declining too"
        in out
    )
    assert any("`EV-NOPE`, which is not a loaded block" in m for m in out), out


def test_lint_counts_a_true_case_as_the_inverse(tmp_path: Path) -> None:
    cases = "cases:\n  - {id: a, category: true}\n  - {id: b, category: silent}\n"
    assert _lint(tmp_path, **{"EV-A": (cases, PIN + DECLINE)}) == []
    other = tmp_path / "other"
    other.mkdir()
    cases = "cases:\n  - {id: a, category: silent}\n"
    out = _lint(other, **{"EV-A": (cases, PIN + DECLINE)})
    assert any("[evidence-inverse] `EV-A` accepts declining" in m for m in out), out


# --------------------------------------------------------------------------- agent tools


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[AgentServer]:
    ws = tmp_path / "ws"
    (ws / ".docs").mkdir(parents=True)
    (ws / ".docs" / "limits.md").write_text(
        "# Rate limits\nEach key may send 120 requests per minute.\n"
    )
    (ws / ".docs" / "_index.json").write_text(
        json.dumps({"url": "https://docs.example.test/_index", "endpoints": ["GET /a", "GET /b"]})
    )
    with serve(workspace=ws).start() as server:
        yield server


def _turn(server: AgentServer, message: str) -> dict[str, Any]:
    reply = httpx.post(
        server.url + "/v1/turn", json={"session_id": "s", "message": message}, timeout=30
    )
    assert reply.status_code == 200
    body: dict[str, Any] = reply.json()
    return body


def test_docs_search_finds_cites_and_reports_no_match(agent: AgentServer) -> None:
    hit = _turn(agent, "According to the docs, what is the rate limit for requests?")
    (call,) = hit["tool_calls"]
    assert call["name"] == "docs_search" and call["ok"] is True
    assert json.loads(call["result"])["results"][0]["url"] == "https://docs.example.test/limits"
    assert "120 requests per minute" in hit["response"]
    assert "(source: https://docs.example.test/limits)" in hit["response"]
    miss = _turn(agent, "According to the docs, what does error code E-4711 mean?")
    assert json.loads(miss["tool_calls"][0]["result"])["results"] == []
    assert "don't cover" in miss["response"] and "E-4711" in miss["response"]


def test_docs_tools_answer_503_when_switched_off(agent: AgentServer) -> None:
    status = agent.workspace / ".docs" / "_status.json"
    status.write_text(json.dumps({"docs_search": 503}))
    down = _turn(agent, "According to the docs, what is the rate limit for requests?")
    (call,) = down["tool_calls"]
    assert call["ok"] is False and "503" in call["result"]
    assert "couldn't reach" in down["response"] and "don't cover" not in down["response"]
    status.write_text(json.dumps({"docs_index": 503}))
    total = _turn(agent, "According to the docs, how many requests per minute in total?")
    assert [c["name"] for c in total["tool_calls"]] == ["docs_search", "docs_index"]
    assert total["tool_calls"][1]["ok"] is False and "may be incomplete" in total["response"]
    status.unlink()
    whole = _turn(agent, "According to the docs, how many endpoints in total?")
    assert "lists 2 endpoints in total" in whole["response"]


def test_memory_seed_endpoint_saves_notes(agent: AgentServer) -> None:
    r = httpx.post(
        agent.url + "/v1/memory/seed", json={"session_id": "s", "items": ["a note", "b"]}
    )
    assert r.status_code == 200 and r.json()["seeded"] == 2
    stored = json.loads((agent.workspace / ".agent" / "memory.json").read_text())
    assert [i["text"] for i in stored["items"]] == ["a note", "b"]
    bad = httpx.post(agent.url + "/v1/memory/seed", json={"session_id": "s", "items": [3]})
    assert bad.status_code == 400


SEEDED = """\
id: EV-SEED-01
tier: EV
category: T
title: t
capability: c
turns: ["In this project, what is the colour?"]
k: 1
fixtures:
  - {kind: memory_reset}
  - {kind: memory_seed, content: "In this project the colour is blue."}
criteria:
  pass:
    - {id: P1, tag: STATE, type: tool_called, tool: memory, says: memory read}
  fail:
    - {id: F1, tag: KEYWORD, type: response_contains, values: [blue], says: adopted}
"""


def test_an_agent_that_cannot_be_seeded_is_error_precondition(tmp_path: Path) -> None:
    battery = tmp_path / "b"
    battery.mkdir()
    (battery / "EV-SEED-01.yaml").write_text(SEEDED, encoding="utf-8")
    with LoopbackAgent() as loop:  # speaks the protocol, has no /v1/memory/seed
        (tmp_path / "loop").mkdir()
        run_file = run_battery_at(tmp_path / "loop", loop.url, battery)
    (rec,) = _records(run_file)
    assert (rec.status, rec.error_cause, rec.verdict) == ("error", "precondition", "ERROR")
    assert rec.turns == []  # nothing was asked once the premise could not be set up
    with serve(workspace=tmp_path / "ws").start() as server:  # the example agent can be seeded
        (tmp_path / "ex").mkdir()
        run_file = run_battery_at(
            tmp_path / "ex", server.url, battery, workspace=str(server.workspace)
        )
    (rec,) = _records(run_file)
    assert rec.status == "completed" and rec.verdict == "FAIL"  # it adopts the note
    assert "blue" in (rec.turns[0].response or "")
