"""Grading is bounded whatever the agent wrote (issue 14, defect 3).

A looping model's 32 MiB unpunctuated reply, a criterion whose keyword sits past the graded
prefix, an author pattern that backtracks exponentially, and a stop signal that arrives
while grading. Unbounded grading shows up here as a grade that never returns: each grade
runs in a thread that must finish within GUARD_S, a limit some hundred times what bounded
grading needs on a loaded machine (unbounded grading would take hours to years), so the
guard does not measure speed, only whether grading ends.

Each rule is pinned twice: at the real 256 Ki cap (seconds each, so ``tools/mutation.py``
leaves those tests out) and with the cap lowered to a few characters (``small_cap``), where
the same rules (the prefix decides, the evidence says so, a pattern that runs out of time
leaves its criterion undecided) are pinned in milliseconds.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from agenttest.blocks import load_battery
from agenttest.grading import Ctx, GradeOutcome, grade_attempt, limits
from agenttest.grading.limits import MAX_GRADED_CHARS

from ._patience import EVENTUALLY_S
from ._servers import Behaviour, LoopbackAgent, agent_yaml
from .conftest import ROOT
from .fixtures.grading import attempt, block, crit, turn

GUARD_S = float(os.environ.get("AGENTTEST_GRADING_GUARD_S", "300"))


def _grade_within_guard(*args: Any, **kwargs: Any) -> GradeOutcome:
    done: list[GradeOutcome] = []
    worker = threading.Thread(target=lambda: done.append(grade_attempt(*args, **kwargs)))
    worker.daemon = True  # an unbounded grade must not keep the test process alive
    worker.start()
    worker.join(GUARD_S)
    assert done, f"grading did not end within {GUARD_S:g}s: it is not bounded"
    return done[0]


def _notes(outcome: GradeOutcome) -> list[str]:
    """Each criterion's note ("" when it has none)."""
    evidence = [c.evidence for c in outcome.criteria]
    assert all(e is not None for e in evidence)
    return [e.note or "" for e in evidence if e is not None]


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(limits, "MAX_GRADED_CHARS", 20)
    return 20


# -- the graded prefix decides, and the evidence says how much was read ---------------------------


def test_a_32_mib_unpunctuated_reply_is_graded_on_the_shipped_edge_block() -> None:
    [edge] = [b for b in load_battery([str(ROOT / "batteries")]) if b.id == "L1-EDGE-02"]
    reply = "a" * (32 * 1024 * 1024)  # a model stuck in a loop: no punctuation, no end
    outcome = _grade_within_guard(edge, attempt(turn(reply)))
    by_id = {c.id: c for c in outcome.criteria}
    assert by_id["P2"].passed is False  # asks_question: no question in the prefix
    assert outcome.verdict == "FAIL"
    assert all("graded the first 262,144 characters" in n for n in _notes(outcome))


def test_the_graded_prefix_is_what_decides_and_the_evidence_says_so() -> None:
    b = block([crit("P1", "response_contains", "KEYWORD", values=["needle"])])
    beyond = "word " * (MAX_GRADED_CHARS // 5 + 10) + "needle"
    within = "needle " + "word " * (MAX_GRADED_CHARS // 5 + 10)
    outcome = grade_attempt(b, attempt(turn(beyond)))
    assert outcome.verdict == "FAIL"  # the keyword exists, but past the graded prefix
    assert f"{len(beyond):,} characters" in _notes(outcome)[0]
    assert grade_attempt(b, attempt(turn(within))).verdict == "PASS"
    short = grade_attempt(b, attempt(turn("a needle")))
    assert short.verdict == "PASS" and "graded the first" not in _notes(short)[0]


def test_the_prefix_decides_and_the_note_says_how_much_was_read(small_cap: int) -> None:
    b = block([crit("P1", "response_contains", "KEYWORD", values=["needle"])])
    beyond = "w " * 10 + "needle"  # 26 characters, the keyword past the cap of 20
    outcome = grade_attempt(b, attempt(turn(beyond)))
    assert outcome.verdict == "FAIL"
    assert _notes(outcome)[0].endswith(
        "graded the first 20 characters only (turn 1: 26 characters); "
        "the rest of the reply was not read"
    )
    exact = "w " * 7 + "needle"  # exactly the cap: read whole, no note
    assert len(exact) == small_cap
    whole = grade_attempt(b, attempt(turn(exact)))
    assert whole.verdict == "PASS"
    assert "graded the first" not in _notes(whole)[0]


def test_the_note_lists_every_capped_turn_in_order_with_thousands_marks() -> None:
    assert limits.capped_note({2: 1_000_000, 0: 300_000}) == (
        "graded the first 262,144 characters only "
        "(turn 1: 300,000 characters, turn 3: 1,000,000 characters); "
        "the rest of the reply was not read"
    )


def test_a_trace_is_capped_like_a_reply(small_cap: int) -> None:
    ctx = Ctx(block(), attempt(turn("short", trace="t" * 30)))
    assert ctx.response(0) == "short"
    assert ctx.trace_lines(0) == [("trace", 1, "t" * small_cap)]
    assert ctx.capped == {0: 30}


# -- an author pattern: its flags kept, and undecided when it runs out of time --------------------


def test_an_exponential_author_pattern_leaves_its_criterion_undecided() -> None:
    b = block([crit("P1", "response_regex", "KEYWORD", pattern="^(a|aa)+$")])
    assert grade_attempt(b, attempt(turn("aaaa"))).verdict == "PASS"  # precondition: it works
    outcome = _grade_within_guard(b, attempt(turn("a" * 64 + "!")))
    [p1] = outcome.criteria
    assert p1.evidence is not None
    assert p1.passed is None and "took longer than" in (p1.evidence.note or "")
    assert (outcome.verdict, outcome.error_cause) == ("UNDECIDED", None)


def test_pattern_flags_carry_over_to_the_regex_package() -> None:
    assert limits.search("^b", "a\nb") is None
    assert limits.search("^b", "a\nb", re.MULTILINE) is not None
    assert limits.search("B", "b") is None
    assert limits.search("B", "b", re.IGNORECASE) is not None
    assert limits.search("a.b", "a\nb") is None
    assert limits.search("a.b", "a\nb", re.DOTALL) is not None
    assert limits.search("a b # comment", "ab", re.VERBOSE) is not None
    assert limits.search(r"\w", "ş", re.ASCII) is None
    assert limits.search(r"\w", "ş") is not None
    assert [m.group() for m in limits.finditer(r"\d", "a1b2")] == ["1", "2"]
    both = re.IGNORECASE | re.MULTILINE  # flags combine, none is dropped
    assert limits.search("^B", "a\nb", both) is not None
    assert limits.search("^B", "a\nb", re.MULTILINE) is None


class _Exhausted:
    """A compiled pattern that runs out of time, recording the limit it was given."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def search(self, text: str, timeout: float) -> Any:
        self.timeouts.append(timeout)
        raise TimeoutError

    def finditer(self, text: str, timeout: float) -> Any:
        self.timeouts.append(timeout)
        raise TimeoutError


def test_a_pattern_out_of_time_leaves_its_criterion_undecided_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exhausted = _Exhausted()
    monkeypatch.setattr(limits, "_compile", lambda pattern, flags: exhausted)
    why = (
        "the pattern '^(a|aa)+$' took longer than 2s on 1,200 characters "
        "(catastrophic backtracking?); undecided"
    )
    with pytest.raises(limits.PatternTimeout) as caught:
        limits.search("^(a|aa)+$", "a" * 1200)
    assert str(caught.value) == why
    with pytest.raises(limits.PatternTimeout):
        list(limits.finditer("^(a|aa)+$", "a" * 1200))
    assert exhausted.timeouts == [limits.PATTERN_TIMEOUT_S] * 2  # both run under the limit
    b = block([crit("P1", "response_regex", "KEYWORD", pattern="^(a|aa)+$")])
    outcome = grade_attempt(b, attempt(turn("a" * 1200)))
    assert outcome.criteria[0].passed is None
    assert outcome.criteria[0].evidence is not None
    assert outcome.criteria[0].evidence.note == why
    assert outcome.verdict == "UNDECIDED" and outcome.error_cause is None


# -- a stop signal while grading ------------------------------------------------------------------


BLOCK = """\
id: L1-SLOW-01
tier: L1
category: TEST
title: a block whose pattern is slow to grade
capability: answers
turns: ["{prompt}"]
k: 2
criteria:
  pass:
    - {{id: P1, tag: KEYWORD, type: response_regex, pattern: "(a|aa)+$", says: a run of a}}
  fail:
    - {{id: F1, tag: STATE, type: status, value: error, says: it failed}}
"""


def test_sigterm_while_grading_stops_the_run_and_records_the_attempt(tmp_path: Path) -> None:
    battery = tmp_path / "battery"
    battery.mkdir()
    # the agent echoes the prompt: the reply ends in a's and a "!", so P1 backtracks until
    # its timeout, and the signal arrives while the first attempt is being graded
    (battery / "L1-SLOW-01.yaml").write_text(BLOCK.format(prompt="a" * 200 + "!"), "utf-8")
    arrived = threading.Event()
    with LoopbackAgent(Behaviour(on_turn=lambda n: arrived.set())) as agent:
        config = tmp_path / "agent.yaml"
        config.write_text(agent_yaml(agent.url), encoding="utf-8")
        out = tmp_path / "out"
        proc = subprocess.Popen(
            [sys.executable, "-m", "agenttest", "run", str(battery), "--agent", str(config),
             "--out", str(out), "--allow-temp", "--quiet", "--judge", "none"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        try:
            assert arrived.wait(EVENTUALLY_S), "the agent never got a turn"
            threading.Event().wait(0.3)  # short on purpose: the reply is back, grading has started
            proc.send_signal(signal.SIGTERM)
            _stdout, stderr = proc.communicate(timeout=GUARD_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        turns = agent.state.turns
    assert proc.returncode == 130, stderr
    assert turns == 1, "the run went on after the signal"
    (path,) = out.glob("*.jsonl")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert records[-1]["record_type"] == "run_end" and records[-1]["reason"] == "interrupted"
    attempts = [r for r in records if r["record_type"] == "attempt"]
    assert len(attempts) == 1 and attempts[0]["error_cause"] == "interrupted"
    assert "while grading" in attempts[0]["error"]
    assert attempts[0]["turns"][0]["response"].endswith("!")  # the evidence is kept


# -- a deadline per criterion and per attempt (issue 32 #15) ----------------------------------


class _SlowMiss:
    """A compiled pattern whose every search takes 1.9 s (on a clock of its own) and finds
    nothing: under the 2 s limit of one search, but many add up."""

    needs = 0.95 * limits.PATTERN_TIMEOUT_S

    def __init__(self) -> None:
        self.now = 0.0
        self.searches = 0

    def clock(self) -> float:
        return self.now

    def search(self, text: str, timeout: float) -> Any:
        self.searches += 1
        self.now += min(timeout, self.needs)
        if timeout < self.needs:
            raise TimeoutError
        return None

    def finditer(self, text: str, timeout: float) -> Any:
        if self.search(text, timeout) is None:
            yield from ()


def test_many_searches_in_one_criterion_share_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `category` searches every trace line: 10,000 lines at 1.9 s each was five hours
    slow = _SlowMiss()
    monkeypatch.setattr(limits, "_compile", lambda pattern, flags: slow)
    monkeypatch.setattr(limits, "_clock", slow.clock)
    b = block([crit("P1", "category", value="billing")], category_pattern=r"ROUTE (\w+)")
    outcome = _grade_within_guard(b, attempt(turn("ok", trace="x\n" * 10_000)))
    assert slow.searches <= limits.CRITERION_TIMEOUT_S / slow.needs + 1
    assert outcome.criteria[0].passed is None
    assert "criterion P1's 10s for author patterns ran out" in _notes(outcome)[0]
    assert slow.now <= limits.CRITERION_TIMEOUT_S + limits.PATTERN_TIMEOUT_S


def test_the_searches_of_all_criteria_share_the_attempts_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slow = _SlowMiss()
    monkeypatch.setattr(limits, "_compile", lambda pattern, flags: slow)
    monkeypatch.setattr(limits, "_clock", slow.clock)
    criteria = [crit(f"P{i}", "response_regex", "KEYWORD", pattern="x") for i in range(100)]
    outcome = _grade_within_guard(block(criteria), attempt(turn("ok")))
    notes = _notes(outcome)
    ran_out = [n for n in notes if "the attempt's 60s for author patterns ran out" in n]
    assert len(ran_out) >= 100 - limits.ATTEMPT_TIMEOUT_S / slow.needs - 1
    assert all(c.passed is None for c in outcome.criteria[-len(ran_out) :])
    assert slow.now <= limits.ATTEMPT_TIMEOUT_S + limits.PATTERN_TIMEOUT_S
    assert outcome.verdict != "PASS"  # undecided criteria never pass silently


def test_validate_strict_names_a_catastrophic_file_content_pattern_and_ends(
    tmp_path: Path,
) -> None:
    # the fixture check asked the stdlib `re` (no timeout) before the [pattern] lint ran
    from .conftest import run_cli

    (tmp_path / "L1-CAT-01.yaml").write_text(
        "id: L1-CAT-01\ntier: L1\ncategory: FILE\ntitle: Keep a file\n"
        "capability: The agent leaves a file as it is.\nturns: [please leave notes/a.txt alone]\n"
        f'k: 1\nfixtures:\n  - {{kind: file, path: notes/a.txt, content: "{"a" * 40}!"}}\n'
        "criteria:\n  pass:\n    - {id: P1, tag: STATE, type: file_content, path: notes/a.txt,"
        ' match: regex, value: "^(a|aa)+$", says: only a}\n',
        encoding="utf-8",
    )
    done = run_cli("validate", "--strict", str(tmp_path), timeout=GUARD_S)
    assert done.returncode == 2, done.stderr
    assert "[pattern] criterion `P1` value '^(a|aa)+$' backtracks catastrophically" in done.stderr
