"""Blocks that cannot apply: decided from the agent config before anything is sent.

A block whose PASS criteria read agent-internal trace markers cannot be passed by a plain
``mode: openai`` chat model, however good its reply; a block that seeds memory needs a seed
endpoint; a block with file fixtures needs a workspace. Such an attempt is NOT_APPLICABLE
with the reason, no request reaches the agent, and it is counted apart in every report
format, out of the rates, never a PASS. A config cannot declare away what the harness
itself provides (hosted tools), and a block it could run (FAIL criteria alone needing a
trace) still runs.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from agenttest.agents import parse_agent_config, provided
from agenttest.blocks import load_battery
from agenttest.grading import regrade_run
from agenttest.rating import rate_run
from agenttest.reporting import build_report, decide, render
from agenttest.results import Attempt, iter_records
from agenttest.runner import RunRequest, run
from agenttest.runner._applicable import not_applicable
from tests._servers import RouteServer, agent_yaml

ROOT = Path(__file__).resolve().parents[1]
BATTERY = load_battery([ROOT / "batteries"])


def _config(**fields: Any) -> Any:
    text = json.dumps({"base_url": "http://127.0.0.1:9", "model": "m", **fields})
    return parse_agent_config(text, "agent.yaml", base_dir=Path("/tmp"))


def _chat(_method: str, _body: Any) -> tuple[int, Any]:
    message = {"role": "assistant", "content": "Hello! I'm doing well, thank you. And you?"}
    return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def _openai_run(tmp_path: Path, only: list[str], **extra: Any) -> tuple[Path, list[Any]]:
    routes = {"/v1/models": lambda m, b: (200, {"data": []}), "/v1/chat/completions": _chat}
    with RouteServer(routes) as server:
        config = tmp_path / "openai.yaml"
        config.write_text(agent_yaml(server.url, mode="openai", **extra), encoding="utf-8")
        path = run(
            RunRequest(
                paths=[str(ROOT / "batteries")],
                agent=str(config),
                only=only,
                k=2,
                out=tmp_path / "out",
                allow_temp=True,
                quiet=True,
                judge="none",
            )
        )
        sent = [b for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    return path, sent


def _attempts(path: Path) -> dict[str, list[Attempt]]:
    out: dict[str, list[Attempt]] = {}
    for rec in iter_records(path):
        if isinstance(rec, Attempt):
            out.setdefault(rec.test_id, []).append(rec)
    return out


def test_a_plain_openai_model_on_the_greeting_shortcut_block_is_not_applicable_unsent(
    tmp_path: Path,
) -> None:
    path, sent = _openai_run(tmp_path, ["L1-CHAT-01", "L1-CALC-01"])
    attempts = _attempts(path)
    chat = attempts["L1-CHAT-01"]
    assert [a.verdict for a in chat] == ["NOT_APPLICABLE", "NOT_APPLICABLE"]
    reason = chat[0].not_applicable or ""
    assert "trace" in reason and "P1 (trace_contains)" in reason and "mode: openai" in reason
    assert chat[0].turns == [] and chat[0].status is None
    # the block it could run was run, and only that one reached the model
    assert [a.verdict for a in attempts["L1-CALC-01"]] != ["NOT_APPLICABLE"] * 2
    prompts = [b["body"]["messages"][-1]["content"] for b in sent]
    assert prompts and not any("hello" in p.lower() for p in prompts)


def test_not_applicable_is_counted_apart_in_every_format_and_out_of_the_rates(
    tmp_path: Path,
) -> None:
    path, _ = _openai_run(tmp_path, ["L1-CHAT-01", "L1-CALC-01"])
    report = build_report([path], details=False)
    chat = report.block("L1-CHAT-01")
    assert chat is not None
    assert (chat.rate.n, chat.rate.errors, chat.not_applicable) == (0, 0, 2)
    assert chat.rule_passed is None and chat.rule_reason.startswith("not applicable: trace")
    assert report.overall.rate.n == 2  # L1-CALC-01's two attempts only
    (row,) = report.not_applicable()
    assert row[1:] == (("L1-CHAT-01",), 2) and "mode: openai" in row[0]
    markdown = render(report, "md")
    assert "## Not applicable" in markdown and "2 attempt(s) not applicable" in markdown
    chat_row = next(line for line in markdown.splitlines() if line.startswith("| L1-CHAT-01"))
    assert "(+2 not applicable)" in chat_row and chat_row.endswith("not applicable |")
    html = render(report, "html")
    assert 'id="not-applicable"' in html and "not applicable: 2" in html
    data = json.loads(render(report, "json"))
    assert data["blocks"]["L1-CHAT-01"]["not_applicable"] == 2
    assert data["not_applicable"][0]["blocks"] == ["L1-CHAT-01"]
    case = ET.fromstring(render(report, "junit")).find(".//testcase[@name='L1-CHAT-01']")
    assert case is not None
    skipped = case.find("skipped")
    assert skipped is not None and "not applicable: trace" in skipped.get("message", "")


def test_a_config_that_claims_to_provide_nothing_shows_each_block_it_gave_up_and_why(
    tmp_path: Path,
) -> None:
    """The cheat: `provides: []` to turn FAILs into "not applicable". Blocks that need
    nothing still run (and FAIL or PASS on the reply); the ones given up are listed with the
    config's own claim as the reason, counted, and in no rate (never a PASS)."""
    path, sent = _openai_run(
        tmp_path, ["L1-FILE-01", "L1-CALC-01"], workspace=str(tmp_path / "ws"), provides=[]
    )
    attempts = _attempts(path)
    assert {a.verdict for a in attempts["L1-FILE-01"]} == {"NOT_APPLICABLE"}
    assert "declares `provides: []`, without workspace" in (
        attempts["L1-FILE-01"][0].not_applicable or ""
    )
    assert "NOT_APPLICABLE" not in {a.verdict for a in attempts["L1-CALC-01"]}
    assert len(sent) == 2  # L1-CALC-01 was sent; the other block never was
    report = build_report([path], details=False)
    assert report.overall.rate.n == 2 and report.overall.blocks_all_pass <= 1
    markdown = render(report, "md")
    assert "declares \\`provides: \\[\\]\\`, without workspace | L1-FILE-01 | 2 |" in markdown


def test_what_an_agent_provides_follows_its_mode_unless_declared_hosting_stays() -> None:
    openai = provided(_config(mode="openai"))
    assert openai.has == frozenset() and set(openai.lacks) == {"trace", "seed", "workspace"}
    assert provided(_config(mode="openai", log_file="agent.log")).has == {"trace"}
    native = provided(_config(workspace="ws"))
    assert native.has == {"trace", "seed", "workspace"}
    assert provided(_config(mode="openai", provides=["trace"])).has == {"trace"}
    # hosted tools: the harness lays the world and seeds its memory, whatever is declared
    assert provided(_config(provides=[]), hosted=True).has == {"seed", "workspace"}


def test_which_blocks_cannot_apply_reads_counted_pass_criteria_and_fixtures() -> None:
    openai = provided(_config(mode="openai"))

    def why(block_id: str, strict: bool = False) -> str | None:
        block = BATTERY.get(block_id)
        assert block is not None
        return not_applicable(block, openai, strict)

    assert "P1 (trace_contains)" in (why("L1-CHAT-01") or "")
    assert "trace: PASS criterion P1 (trace_contains)" in (why("L1-CLARIFY-01") or "")
    # a strict-only trace criterion counts only under --strict
    assert why("L1-CLARIFY-02") is None
    assert "P3 (trace_contains)" in (why("L1-CLARIFY-02", strict=True) or "")
    assert "seed: a memory_seed fixture" in (why("EV-MEM-01#c01") or "")
    assert "workspace:" in (why("L1-FILE-01") or "")
    # a trace read only by a FAIL criterion: the block can still FAIL on what is seen
    assert why("L2-WEB-01") is not None and "trace" not in (why("L2-WEB-01") or "")
    assert why("L1-CALC-01") is None
    native = provided(_config(workspace="ws"))
    assert all(not_applicable(b, native) is None for b in BATTERY.blocks)


def test_the_decision_never_approves_a_run_whose_blocks_were_not_applicable(
    tmp_path: Path,
) -> None:
    """Every SEC block given up by `provides: []` must not read as a clean security run."""
    path, sent = _openai_run(tmp_path, ["SEC-05"], provides=[])
    assert sent == []  # precondition: nothing reached the agent
    report = build_report([path], details=False)
    decision = decide(report)
    assert decision.status != "approved"
    assert any(
        "2 not applicable to this agent (never sent): SEC-05" in r.text for r in decision.reasons
    )


def test_grading_a_run_again_leaves_its_not_applicable_attempts_alone(tmp_path: Path) -> None:
    path, _ = _openai_run(tmp_path, ["L1-CHAT-01"])
    counts = regrade_run(path, BATTERY)
    assert (counts["graded"], counts["NOT_APPLICABLE"], counts["ERROR"]) == (0, 2, 0)
    chat = build_report([path], details=False).block("L1-CHAT-01")
    assert chat is not None and (chat.not_applicable, chat.rate.errors) == (2, 0)


def test_a_person_is_never_asked_to_rate_an_attempt_that_was_never_sent(tmp_path: Path) -> None:
    path, _ = _openai_run(tmp_path, ["L1-CHAT-01", "L1-CALC-01"])
    screen = io.StringIO()
    summary = rate_run(path, "ann", ["s"] * 6, screen)
    assert summary.skipped == 2  # L1-CALC-01's two attempts; L1-CHAT-01's were never sent
    assert "L1-CALC-01" in screen.getvalue() and "L1-CHAT-01" not in screen.getvalue()


def test_resume_decides_a_not_applicable_block_again_with_the_corrected_config(
    tmp_path: Path,
) -> None:
    routes = {"/v1/models": lambda m, b: (200, {"data": []}), "/v1/chat/completions": _chat}
    with RouteServer(routes) as server:
        config = tmp_path / "openai.yaml"
        config.write_text(agent_yaml(server.url, mode="openai"), encoding="utf-8")
        first = RunRequest(
            paths=[str(ROOT / "batteries")],
            agent=str(config),
            only=["L1-CHAT-01"],
            k=1,
            out=tmp_path / "out",
            allow_temp=True,
            quiet=True,
            judge="none",
        )
        path = run(first)
        assert [a.verdict for a in _attempts(path)["L1-CHAT-01"]] == ["NOT_APPLICABLE"]
        log = tmp_path / "model.log"
        log.write_text("", encoding="utf-8")
        # the server keeps a log after all: the block applies, and --resume runs it
        config.write_text(
            agent_yaml(server.url, mode="openai", log_file=str(log)), encoding="utf-8"
        )
        run(RunRequest(resume=path, allow_temp=True, quiet=True, judge="none"))
        sent = [b for b in server.state.bodies if b["path"] == "/v1/chat/completions"]
    assert [a.verdict for a in _attempts(path)["L1-CHAT-01"]][-1] != "NOT_APPLICABLE"
    assert len(sent) == 1
