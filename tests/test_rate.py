"""`agenttest rate`: blind, resumable, seeded human rating that appends grade records."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agenttest.blocks import load_battery
from agenttest.errors import UsageError
from agenttest.rating import human_rater, rate_run
from agenttest.results import SCHEMA_VERSION, Attempt, Grade, RunWriter, iter_records

from .conftest import ROOT
from .fixtures.reports import builders

# Names and strings that must never reach the rater's screen.
OTHER_JUDGE = "judge-zeta-distinct"
OTHER_HUMAN = "human:bob-distinct"
ATTEMPT_RATER = "rules@sha256:rater-distinct"
EVIDENCE = "EVIDENCE-MARKER-9931"
HIDDEN_VERDICTS = ("PASS", "FAIL")

BLOCKS = {
    "calc.yaml": """
id: L1-CALC-01
tier: L1
category: CALC
title: Adds with the calculator
capability: The agent adds two numbers by calling its calculator tool.
turns: ["What is 19 + 23?"]
k: 3
criteria:
  pass:
    - {id: P1, tag: STATE, type: tool_called, tool: calculator, says: Calls the calculator tool}
    - {id: P2, tag: KEYWORD, type: response_number, value: 42, says: States the sum 42}
  fail:
    - {id: F1, tag: STATE, type: tool_called, tool: shell, says: Runs a shell command}
""",
    "file.yaml": """
id: L2-FILE-02
tier: L2
category: FILE
title: Reads a note
capability: The agent reads notes.txt from its workspace and quotes the first line.
turns: ["What is the first line of notes.txt?"]
k: 3
criteria:
  pass:
    - {id: P1, tag: STATE, type: tool_called, tool: file_read, says: Reads notes.txt}
""",
}


def write_battery(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in BLOCKS.items():
        (folder / name).write_text(text.lstrip(), encoding="utf-8")
    return folder


def attempt(test_id: str, run: int, verdict: str, response: str, **extra: Any) -> dict[str, Any]:
    tool = "calculator" if test_id.startswith("L1") else "file_read"
    record: dict[str, Any] = {
        "record_type": "attempt",
        "schema_version": "2.0",
        "test_id": test_id,
        "tier": test_id[:2],
        "run": run,
        "k": 3,
        "started_at": f"2026-07-01T10:0{run}:00+00:00",
        "completed_at": f"2026-07-01T10:0{run}:09+00:00",
        "latency_ms": 9000,
        "status": "completed",
        "error": None,
        "turns": [
            {
                "prompt": f"prompt of {test_id}",
                "response": response,
                "tool_calls": [
                    {
                        "name": tool,
                        "arguments": {"expr": f"arg-{test_id}-{run}"},
                        "ok": True,
                        "result": "42",
                    }
                ],
                "trace": f"route=tool trace-line-{test_id}-{run}",
                "http_status": 200,
                "latency_ms": 9000,
                "log_lines": [f"log-line-{test_id}-{run}"],
            }
        ],
        "verdict": verdict,
        "criteria": [
            {
                "id": "P1",
                "tag": "STATE",
                "kind": "pass",
                "passed": verdict == "PASS",
                "evidence": {"turn": 1, "text": EVIDENCE},
                "says": "Recorded wording of P1",
            },
            {
                "id": "F1",
                "tag": "STATE",
                "kind": "fail",
                "passed": True,
                "triggered": False,
                "evidence": {"note": EVIDENCE},
                "says": "Recorded wording of F1",
            },
        ],
        "critical": [{"rule": "unknown_tool", "criterion": "F1", "evidence": {"text": EVIDENCE}}],
        "rater": ATTEMPT_RATER,
        "cost_tokens": None,
    }
    record.update(extra)
    return record


def grade(test_id: str, run: int, rater: str, verdict: str) -> dict[str, Any]:
    criteria = [{"id": "P1", "passed": verdict == "PASS", "evidence": {"text": EVIDENCE}}]
    return builders.grade(
        test_id,
        run,
        rater,
        verdict,
        "2026-07-02T09:00:00+00:00",
        criteria=criteria,
        attempt_started_at=f"2026-07-01T10:0{run}:00+00:00",
    )


def write_run(
    tmp_path: Path, records: list[dict[str, Any]] | None = None, battery: bool = True
) -> Path:
    folder = write_battery(tmp_path / "battery")
    meta = {
        "record_type": "run_meta",
        "schema_version": "2.0",
        "run_id": "run-rate-test",
        "model": "tiny",
        "battery": {
            "paths": [str(folder if battery else tmp_path / "moved")],
            "digest": load_battery([folder]).digest,
            "overlay": None,
        },
    }
    if records is None:
        records = []
        for test_id in ("L1-CALC-01", "L2-FILE-02"):
            for run in (1, 2, 3):
                verdict = "PASS" if run != 2 else "FAIL"
                records.append(attempt(test_id, run, verdict, f"answer {test_id} #{run}"))
                records.append(grade(test_id, run, OTHER_JUDGE, "PASS"))
                records.append(grade(test_id, run, OTHER_HUMAN, "FAIL"))
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [meta, *records]), encoding="utf-8")
    return path


def rate(path: Path, answers: list[str], rater: str = "alice", **kw: Any) -> tuple[Any, str]:
    out = io.StringIO()
    summary = rate_run(path, rater, answers, out, **kw)
    return summary, out.getvalue()


def my_grades(path: Path, rater: str = "human:alice") -> list[Grade]:
    return [r for r in iter_records(path) if isinstance(r, Grade) and r.rater == rater]


def shown(screen: str) -> list[str]:
    """The (test id, run) of every attempt screen, in order."""
    return [line.split(" · ", 1)[1] for line in screen.splitlines() if line.startswith("Attempt ")]


# --- blindness ---------------------------------------------------------------------------


def test_screen_shows_block_and_transcript_but_no_verdicts(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    summary, screen = rate(path, ["s"] * 6)
    assert summary.skipped == 6 and summary.rated == 0
    assert len(shown(screen)) == 6
    # What the rater needs to judge:
    for text in (
        "The agent adds two numbers by calling its calculator tool.",
        "Adds with the calculator  [L1 · CALC]",
        "Calls the calculator tool",
        "States the sum 42",
        "Runs a shell command",
        "The agent must not:",
        "prompt of L1-CALC-01",
        "answer L1-CALC-01 #2",
        'calculator({"expr": "arg-L1-CALC-01-2"}) → ok',
        "trace-line-L2-FILE-02-3",
        "log-line-L1-CALC-01-1",
    ):
        assert text in screen, text
    # ... and nothing that says how anyone else rated it, while such grades exist:
    assert {r.rater for r in iter_records(path) if isinstance(r, Grade)} == {
        OTHER_JUDGE,
        OTHER_HUMAN,
    }
    for hidden in (
        *HIDDEN_VERDICTS,
        OTHER_JUDGE,
        OTHER_HUMAN,
        ATTEMPT_RATER,
        EVIDENCE,
        "unknown_tool",
    ):
        assert hidden not in screen, hidden


def test_fallback_to_recorded_criteria_stays_blind(tmp_path: Path) -> None:
    path = write_run(tmp_path, battery=False)
    _, screen = rate(path, ["s"] * 6)
    assert "cannot load the battery" in screen
    assert "Recorded wording of P1" in screen and "Recorded wording of F1" in screen
    assert "the capability text cannot be shown" in screen
    for hidden in (*HIDDEN_VERDICTS, OTHER_JUDGE, EVIDENCE):
        assert hidden not in screen


# --- grades ------------------------------------------------------------------------------


def test_answers_append_grade_records(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    before = path.read_bytes()
    summary, screen = rate(path, ["p", "F", "fail", "PASS", "s", "q"], rater="human:alice")
    assert (summary.rated, summary.skipped, summary.remaining, summary.stopped) == (4, 1, 2, True)
    assert path.read_bytes().startswith(before)  # nothing rewritten, only appended
    grades = my_grades(path)
    assert [g.verdict for g in grades] == ["PASS", "FAIL", "FAIL", "PASS"]
    order = shown(screen)
    assert [f"{g.test_id} · run {g.run}" for g in grades] == order[:4]
    for g in grades:
        assert g.schema_version == SCHEMA_VERSION and g.criteria == []
        assert g.attempt_started_at == f"2026-07-01T10:0{g.run}:00+00:00"
        assert g.graded_at is not None and g.graded_at.startswith("20")


def test_resume_skips_what_this_rater_graded(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    _, first = rate(path, ["p", "f", "q"])
    first_seen = shown(first)[:2]
    summary, second = rate(path, ["p"] * 10)
    assert summary.already == 2 and summary.rated == 4 and summary.remaining == 0
    assert not set(first_seen) & set(shown(second))
    assert len(my_grades(path)) == 6
    third, screen = rate(path, [])
    assert third.rated == 0 and shown(screen) == [] and third.already == 6
    # Another rater's grades do not count as this rater's.
    other, _ = rate(path, ["q"], rater="dave")
    assert other.already == 0


def test_invalid_answer_asks_again_and_end_of_input_stops(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    summary, screen = rate(path, ["maybe", "", "p"])
    assert "'maybe' is not an answer" in screen
    assert summary.rated == 1 and summary.stopped
    assert [g.verdict for g in my_grades(path)] == ["PASS"]


# --- sampling ----------------------------------------------------------------------------


def test_same_seed_same_sample(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    _, a = rate(path, ["s"] * 3, sample=3, seed=11)
    _, b = rate(path, ["s"] * 3, sample=3, seed=11)
    _, c = rate(path, ["s"] * 3, sample=3, seed=12)
    assert len(shown(a)) == 3
    assert shown(a) == shown(b)
    assert shown(a) != shown(c)
    _, everything = rate(path, ["s"] * 6, sample=50, seed=1)
    assert len(shown(everything)) == 6


def test_resume_within_a_sample(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    _, full = rate(path, ["s"] * 3, sample=3, seed=5)
    _, first = rate(path, ["p", "q"], sample=3, seed=5)
    summary, second = rate(path, ["f", "f"], sample=3, seed=5)
    assert shown(first)[0] == shown(full)[0]
    assert shown(second) == shown(full)[1:]
    assert summary.already == 1 and summary.remaining == 0
    assert len(my_grades(path)) == 3


# --- which attempts --------------------------------------------------------------------


def test_only_the_latest_completed_attempts_are_shown(tmp_path: Path) -> None:
    records = [
        attempt("L1-CALC-01", 1, "FAIL", "old answer"),
        grade("L1-CALC-01", 1, "human:alice", "FAIL"),  # graded the old attempt
        attempt("L1-CALC-01", 1, "PASS", "retried answer", started_at="2026-07-01T11:00:00+00:00"),
        attempt("L1-CALC-01", 2, "ERROR", "", status="timeout", turns=[]),
    ]
    path = write_run(tmp_path, records)
    summary, screen = rate(path, ["p"])
    assert shown(screen) == ["L1-CALC-01 · run 1"]
    assert "retried answer" in screen and "old answer" not in screen
    assert summary.already == 0 and summary.rated == 1
    latest = my_grades(path)[-1]
    assert latest.attempt_started_at == "2026-07-01T11:00:00+00:00"


def test_rater_names_and_bad_sample(tmp_path: Path) -> None:
    assert human_rater("alice") == human_rater("human:alice") == "human:alice"
    for bad in ("", "a b", "human:", "x" * 80):
        with pytest.raises(UsageError):
            human_rater(bad)
    with pytest.raises(UsageError):
        rate(write_run(tmp_path), [], sample=0)


def test_refuses_while_another_process_writes_the_run(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    with (
        RunWriter(path, create=False),
        pytest.raises(UsageError, match="another agenttest process"),
    ):
        rate(path, ["p"])
    assert my_grades(path) == []


# --- the real command with piped stdin ------------------------------------------------------


def test_cli_with_piped_stdin(tmp_path: Path) -> None:
    path = write_run(tmp_path)

    def cli(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agenttest", "rate", str(path), "--rater", "carol", *args],
            cwd=ROOT,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = cli("p\nf\nq\n", "--sample", "4", "--seed", "9")
    assert first.returncode == 0, first.stderr
    assert "recorded pass" in first.stdout and "recorded fail" in first.stdout
    assert "2 left (run the same command again to continue)" in first.stdout
    for hidden in (*HIDDEN_VERDICTS, OTHER_JUDGE, OTHER_HUMAN, EVIDENCE):
        assert hidden not in first.stdout
    second = cli("s\np\n", "--sample", "4", "--seed", "9")  # input ends after two answers
    assert second.returncode == 0, second.stderr
    assert "2 graded before" in second.stdout
    verdicts = [g.verdict for g in my_grades(path, "human:carol")]
    assert verdicts == ["PASS", "FAIL", "PASS"]
    bad = cli("", "--rater", "two words")
    assert bad.returncode == 2 and "--rater must be a short name" in bad.stderr


def test_judged_references_are_shown_with_their_placeholders_filled() -> None:
    """L4-LIVE-03's judge compares against `{{weather_advice}}`; a rater must read the
    advice the grader uses, not the placeholder."""
    from agenttest.blocks import load_battery
    from agenttest.rating._rate import _criteria_lines

    from .conftest import ROOT

    block = load_battery([ROOT / "batteries"]).get("L4-LIVE-03")
    assert block is not None
    raw = [c.reference for c in block.criteria.pass_ if c.reference]
    assert any("{{" in r for r in raw)  # precondition: the block really uses a placeholder
    should, must_not = _criteria_lines(block, Attempt(test_id=block.id, run=1))
    shown = "\n".join(should + must_not)
    assert "reference answer:" in shown and "{{" not in shown
    assert block.reference.vars["weather_advice"].split()[0] in shown
