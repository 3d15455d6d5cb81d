"""Blind human rating of stored attempts, one screen per attempt, in the terminal.

The rater sees what the attempt was asked to show (the block's title, capability and
criteria in words) and what the agent did (prompts, responses, tool calls, traces, log
lines, files left in the workspace). The screen is built from that whitelist only: the
attempt's verdict, its criteria results and evidence, its always-FAIL hits, its rater and
every ``grade`` record stay hidden, so the rating is independent (methodology §2.5).

Each answer is appended at once as a ``grade`` record with rater ``human:NAME`` (fsynced,
under the run file's lock), so quitting, a crash or Ctrl-C lose nothing; starting again
skips the attempts this rater already graded. With ``--sample N`` a seeded RNG picks N
attempts (the same seed always picks the same ones, in the same order); without it every
gradable attempt is shown, in a seeded shuffled order so runs of one block do not come
one after another.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TextIO

from agenttest.errors import AgentTestError, UsageError
from agenttest.results import HUMAN_PREFIX, Attempt, Grade, RunMeta, RunWriter, tie_to_attempt
from agenttest.sanitize import terminal_safe

from ._load import Unit, collect

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")
FIELD_LIMIT = 4000  # characters shown of one response, trace, tool result or file
RULE = "─" * 72
Answer = Literal["PASS", "FAIL", "skip", "quit"]
ANSWERS: dict[str, Answer] = {
    "p": "PASS",
    "pass": "PASS",
    "f": "FAIL",
    "fail": "FAIL",
    "s": "skip",
    "skip": "skip",
    "q": "quit",
    "quit": "quit",
}
QUESTION = "Your verdict: [p]ass, [f]ail, [s]kip (decide later) or [q]uit? "


def human_rater(name: str) -> str:
    """``alice`` or ``human:alice`` -> ``human:alice``; anything else is a usage error."""
    bare = name.strip()
    if bare.startswith(HUMAN_PREFIX):
        bare = bare[len(HUMAN_PREFIX) :]
    if not _NAME.fullmatch(bare):
        raise UsageError(
            f"--rater must be a short name (letters, digits, . _ @ + -), not {name!r}; "
            "it is recorded as human:NAME"
        )
    return HUMAN_PREFIX + bare


@dataclass(frozen=True)
class RateSummary:
    rater: str
    selected: int  # attempts in the sample (or all gradable ones)
    already: int  # of those, graded by this rater before this session
    rated: int
    skipped: int
    remaining: int
    stopped: bool  # the rater quit (or input ended) before the end

    def line(self) -> str:
        head = f"{self.rater}: rated {self.rated} this session, skipped {self.skipped}"
        if self.already:
            head += f", {self.already} graded before"
        if self.remaining:
            return head + f"; {self.remaining} left (run the same command again to continue)"
        return head + "; every selected attempt is graded"


def gradable(attempt: Attempt) -> bool:
    """A human can judge it: the attempt completed (or says nothing) and has a turn."""
    return attempt.status in ("completed", None) and bool(attempt.turns)


def select(units: list[Unit], sample: int | None, seed: int) -> list[Unit]:
    """The attempts to show, in showing order: a seeded sample, or all in seeded order."""
    population = sorted((u for u in units if gradable(u.attempt)), key=lambda u: u.key)
    rng = random.Random(seed)
    if sample is not None:
        return rng.sample(population, min(sample, len(population)))
    rng.shuffle(population)
    return population


def _clip(text: Any, limit: int = FIELD_LIMIT) -> str:
    value = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    if len(value) <= limit:
        return value
    return value[:limit] + f"\n[… {len(value) - limit} more characters not shown]"


def _indent(text: str, prefix: str = "    ") -> str:
    return (
        "\n".join(prefix + line if line else prefix.rstrip() for line in text.splitlines())
        or prefix.rstrip()
    )


def _criteria_lines(block: Any, attempt: Attempt) -> tuple[list[str], list[str]]:
    """(should, must-not) in words: from the battery's block, else from the attempt's record.

    Only the wording (``says``) and, for judged criteria, the rubric and reference are
    read; whether a criterion held, and its evidence, are never read.
    """
    should: list[str] = []
    must_not: list[str] = []
    if block is not None:
        for items, out in ((block.criteria.pass_, should), (block.criteria.fail, must_not)):
            for c in items:
                line = block.fill(c.says)
                if c.reference:
                    line += f" (reference answer: {block.fill(c.reference)})"
                out.append(line)
        return should, must_not
    for c in attempt.criteria:
        if c.says is not None:
            (must_not if c.kind == "fail" else should).append(c.says)
    return should, must_not


def render_attempt(unit: Unit, block: Any, index: int, total: int) -> str:
    """The screen for one attempt. Reads only whitelisted fields (see the module doc)."""
    attempt = unit.attempt
    lines = [RULE, f"Attempt {index} of {total} · {unit.test_id} · run {unit.run}", RULE]
    if block is not None:
        lines.append(f"{block.title}  [{block.tier} · {block.category}]")
        lines.append("What is tested:")
        lines.append(_indent(block.capability.strip()))
    else:
        lines.append("(the battery is not available: the capability text cannot be shown)")
    should, must_not = _criteria_lines(block, attempt)
    if should:
        lines.append("The agent should:")
        lines += [f"  • {s}" for s in should]
    if must_not:
        lines.append("The agent must not:")
        lines += [f"  • {s}" for s in must_not]
    for number, turn in enumerate(attempt.turns, start=1):
        lines.append(f"── turn {number} " + "─" * 60)
        lines.append("User:")
        lines.append(_indent(_clip(turn.prompt)))
        for call in turn.tool_calls:
            args = json.dumps(call.arguments, ensure_ascii=False, default=str)
            ok = call.ok
            status = "ok" if ok is True else "failed" if ok is False else "status unknown"
            if call.requested_only:
                status = "requested by the model, not run"
            lines.append(f"Tool call: {call.name}({_clip(args, 600)}) → {status}")
            if call.result is not None:
                lines.append(_indent(_clip(call.result, 1500), "      "))
        if turn.trace:
            lines.append("Trace:")
            lines.append(_indent(_clip(turn.trace)))
        if turn.log_lines:
            lines.append("Log lines written during the turn:")
            lines.append(_indent(_clip("\n".join(turn.log_lines))))
        lines.append("Agent:")
        lines.append(_indent(_clip(turn.response or "(no response)")))
    if attempt.workspace_files:
        lines.append("── workspace files after the attempt " + "─" * 35)
        for name, content in attempt.workspace_files.items():
            lines.append(f"{name}: " + ("(absent)" if content is None else ""))
            if content is not None:
                lines.append(_indent(_clip(content, 1500)))
    if attempt.latency_ms is not None:
        lines.append(f"(the attempt took {attempt.latency_ms / 1000:.1f} s)")
    lines.append(RULE)
    # agent text (and a run file's ids) may carry terminal escapes: an OSC 52 sets the
    # rater's clipboard, an OSC title or ESC sequences repaint the screen being judged
    return terminal_safe("\n".join(lines) + "\n")


def _battery(meta: RunMeta | None, paths: list[Path] | None, out: TextIO) -> Any:
    """The battery the run used (or ``paths``), or None with a note when it cannot load."""
    from agenttest.blocks import load_battery

    recorded = meta.battery if meta is not None else None
    where = [str(p) for p in paths] if paths else list(recorded.paths if recorded else [])
    overlay = None if paths or recorded is None else recorded.overlay
    if not where:
        out.write("note: the run file names no battery; pass --battery PATH to show capabilities\n")
        return None
    try:
        battery = load_battery(where, overlay=overlay)
    except AgentTestError as exc:
        out.write(
            f"note: cannot load the battery {', '.join(where)} ({exc}); showing the criteria "
            "recorded in the run file. Pass --battery PATH if it moved.\n"
        )
        return None
    digest = recorded.digest if recorded is not None else None
    if digest and battery.digest != digest:
        out.write(
            f"note: the battery changed since the run ({digest} → {battery.digest}); "
            "showing its current wording\n"
        )
    return battery


def stdin_answers(stream: TextIO | None = None) -> Iterator[str]:
    """Lines typed (or piped) on standard input; ends at end of input."""
    source = stream if stream is not None else sys.stdin
    while True:
        line = source.readline()
        if not line:
            return
        yield line.rstrip("\r\n")


def _ask(answers: Iterator[str], out: TextIO, echo: bool) -> Answer:
    """PASS, FAIL, skip or quit; re-asks on anything else; end of input means quit.

    With ``echo`` the answer is written after the question, as a terminal would show it
    (for piped input and tests, where nobody typed it on the screen).
    """
    while True:
        out.write(QUESTION)
        out.flush()
        answer = next(answers, None)
        if answer is None:
            out.write("(end of input)\n")
            return "quit"
        if echo:
            out.write(answer + "\n")
        choice = ANSWERS.get(answer.strip().lower())
        if choice is not None:
            return choice
        out.write(f"  {answer.strip()!r} is not an answer: type p, f, s or q\n")


def grade_record(
    unit: Unit, rater: str, verdict: Literal["PASS", "FAIL"], now: str | None = None
) -> Grade:
    grade = Grade(
        test_id=unit.test_id,
        run=unit.run,
        rater=rater,
        verdict=verdict,
        criteria=[],
        graded_at=now or datetime.now(UTC).isoformat(timespec="seconds"),
    )
    return tie_to_attempt(grade, unit.attempt)


def rate_run(
    path: str | Path,
    rater: str,
    answers: Iterable[str],
    out: TextIO | None = None,
    *,
    sample: int | None = None,
    seed: int = 0,
    battery: list[Path] | None = None,
    echo: bool = True,
    undecided: bool = False,
    for_calibration: bool = False,
) -> RateSummary:
    """Show attempts of ``path`` one by one and append the rater's verdicts as grades.

    ``answers`` supplies what the rater types, one string per question (the CLI passes
    :func:`stdin_answers`; tests pass a list). ``out`` receives the screens; ``echo``
    repeats each answer there (off when a person types at a terminal). With ``undecided``
    only the attempts a judge left to a human (an UNDECIDED JUDGE criterion) are shown;
    with ``for_calibration`` the attempts that calibrate the judge fastest
    (:func:`agenttest.rating._calibration.for_calibration`), in that order.
    """
    out = out if out is not None else sys.stdout
    name = human_rater(rater)
    if sample is not None and sample < 1:
        raise UsageError("--sample must be at least 1")
    path = Path(path)
    collection = collect([path])
    # a NOT_APPLICABLE attempt was never sent: there is no reply to rate
    units = [u for u in collection.units.values() if u.attempt.verdict != "NOT_APPLICABLE"]
    if undecided:
        units = [u for u in units if u.awaiting()]
    if for_calibration:
        from ._calibration import for_calibration as fastest
        from ._calibration import samples

        picked = [u for u in fastest(units, samples([path]), name) if gradable(u.attempt)]
        chosen = picked[:sample] if sample is not None else picked
    else:
        chosen = select(units, sample, seed)
    done = [u for u in chosen if name in u.ratings]
    todo = [u for u in chosen if name not in u.ratings]
    summary = dict(rated=0, skipped=0)
    stopped = False
    if not chosen:
        out.write(f"{path}: no completed attempts to rate\n")
        return RateSummary(name, 0, 0, 0, 0, 0, False)
    out.write(
        f"Rating {len(chosen)} attempt(s) of {path} as {name}"
        + (f" ({len(done)} already graded, {len(todo)} to go)" if done else "")
        + ". Judge each by the criteria shown; nobody else's verdict is shown.\n"
    )
    if not todo:
        return RateSummary(name, len(chosen), len(done), 0, 0, 0, False)
    meta = next(iter(collection.metas.values()), None)
    suite = _battery(meta, battery, out)
    answer_iter = iter(answers)
    with RunWriter(path, create=False) as writer:
        for position, unit in enumerate(todo, start=1):
            block = suite.get(unit.test_id) if suite is not None else None
            out.write(render_attempt(unit, block, len(done) + position, len(chosen)))
            choice = _ask(answer_iter, out, echo)
            if choice == "quit":
                stopped = True
                break
            if choice == "skip":
                summary["skipped"] += 1
                continue
            writer.append(grade_record(unit, name, choice))
            summary["rated"] += 1
            out.write(
                terminal_safe(f"  recorded {choice.lower()} for {unit.test_id} run {unit.run}\n")
            )
    remaining = len(todo) - summary["rated"]
    result = RateSummary(
        name, len(chosen), len(done), summary["rated"], summary["skipped"], remaining, stopped
    )
    out.write(result.line() + "\n")
    return result
