"""The report's time-to-first-text section: quantiles per block, histogram, left out when
nothing streamed, and a retried attempt replacing the record of its slot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenttest.reporting import build_report, render
from agenttest.reporting._ttft import quantile, ttft_section

from .conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "run_2.0.jsonl"


def streamed(ms: int, final: int | None = None) -> dict[str, Any]:
    return {"prompt": "p", "response": "r", "tool_calls": [], "trace": "", "latency_ms": 999,
            "timeline": {"first_text_ms": ms, "final_ms": final or ms + 10, "order": ["text"]}}  # fmt: skip


def run_file(tmp_path: Path, attempts: list[tuple[str, int, list[dict[str, Any]]]]) -> Path:
    records = [json.loads(line) for line in GOLDEN.read_text("utf-8").splitlines()]
    meta = records[0]
    template = next(r for r in records if r["record_type"] == "attempt")
    out = [meta]
    for test_id, run, turns in attempts:
        out.append({**template, "test_id": test_id, "run": run, "turns": turns})
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    return path


def test_quantiles_per_block_and_histogram(tmp_path: Path) -> None:
    path = run_file(
        tmp_path,
        [
            ("L1-CALC-01", 1, [streamed(100), streamed(300)]),
            ("L1-CALC-01", 2, [streamed(200)]),
            ("L1-CALC-01", 3, [streamed(9000)]),
            ("L1-CALC-01", 3, [streamed(400)]),  # a retry of run 3 replaces the first record
            ("MT-02", 1, [streamed(40), {"prompt": "p", "response": "whole", "latency_ms": 5}]),
        ],
    )
    section = ttft_section([path])
    assert section is not None
    calc, mt = section.rows
    assert (calc.test_id, calc.turns, calc.max_ms) == ("L1-CALC-01", 4, 400)
    assert calc.p50_ms == 250 and calc.p95_ms == quantile([100, 200, 300, 400], 0.95) == 385
    assert (mt.turns, mt.p50_ms) == (1, 40) and section.unstreamed_turns == 1
    assert section.histogram == ((0, 50, 1), (100, 250, 2), (250, 500, 2))
    md = render(build_report([path], battery=None), "md")
    assert "## Time to first text (streamed turns)" in md
    assert "| L1-CALC-01 | 4 | 250 ms | 385 ms | 400 ms | 260 ms | 0 |" in md
    html = render(build_report([path], battery=None), "html")
    assert 'id="ttft"' in html and "385 ms" in html


def test_section_left_out_when_nothing_streamed() -> None:
    assert ttft_section([GOLDEN]) is None
    md = render(build_report([GOLDEN], battery=None), "md")
    assert "Time to first text" not in md


def silent(final: int) -> dict[str, Any]:
    """A streamed turn that sent no text at all: only its final event, with nothing in it."""
    return {"prompt": "p", "response": "", "tool_calls": [], "trace": "", "latency_ms": 999,
            "timeline": {"final_ms": final, "order": ["final"]}}  # fmt: skip


def test_a_turn_with_no_text_has_no_time_to_first_text(tmp_path: Path) -> None:
    # issue 31: the final event's time was reported as the first text of a turn that had none
    whole = {**streamed(0), "response": "all at once", "timeline": {"final_ms": 700}}
    path = run_file(
        tmp_path,
        [
            ("L1-CALC-01", 1, [streamed(100), silent(50)]),
            ("L1-CALC-01", 2, [whole]),  # text that came with the final event: its time
            ("L1-CHAT-02", 1, [silent(20)]),
            ("L1-CHAT-02", 2, [silent(30)]),
        ],
    )
    section = ttft_section([path])
    assert section is not None
    calc, chat = section.rows
    assert (calc.turns, calc.no_text, calc.p50_ms, calc.max_ms) == (2, 1, 400, 700)
    assert (chat.turns, chat.no_text, chat.p50_ms, chat.max_ms) == (0, 2, None, None)
    assert section.streamed_turns == 2 and section.no_text_turns == 3
    assert section.histogram == ((100, 250, 1), (500, 1000, 1))
    md = render(build_report([path], battery=None), "md")
    assert "| L1-CHAT-02 | 0 | n/a | n/a | n/a | 25 ms | 2 |" in md, md
    assert "3 streamed turn(s) had no text at all: their time to first text is n/a" in md
    html = render(build_report([path], battery=None), "html")
    row = '<td>L1-CHAT-02</td><td class="num">0</td>' + '<td class="num">n/a</td>' * 3
    assert row + '<td class="num">25 ms</td><td class="num">2</td>' in html


def test_only_silent_turns_give_n_a_and_no_empty_histogram(tmp_path: Path) -> None:
    path = run_file(tmp_path, [("L1-CHAT-02", 1, [silent(20)])])
    md = render(build_report([path], battery=None), "md")
    assert "| L1-CHAT-02 | 0 | n/a | n/a | n/a | 20 ms | 1 |" in md
    assert "| Time to first text | Turns |" not in md
    html = render(build_report([path], battery=None), "html")
    assert "<th>Time to first text</th>" not in html and 'id="ttft"' in html
