"""Parts of a reply that are not the agent's answer: the prompt repeated, harness text.

An agent that repeats its prompt states every number and keyword the prompt holds; a
model-as-agent loop that gives up writes the harness's own sentence ("I stopped after 3
model requests …"). Neither is an answer, so the criteria that read the answer out of a
reply (keywords, numbers, patterns, questions) skip what lies inside such an aside and say
so in the evidence (issue 29, point 5). Grounding criteria do not use this: for them the
prompt is a source, not an answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._context import Ctx, excerpt, quoted

#: a verbatim run of this many words from a prompt is a repetition, not an answer; shorter
#: runs are how a good answer restates its subject ("the total of invoice 42 is …")
ECHO_WORDS = 8
#: a whole prompt this short (or longer) repeated word for word is an echo even below ECHO_WORDS
WHOLE_PROMPT_WORDS = 4

#: text the harness or the bundled agent writes in the agent's place (example_agent's openai
#: brain when it runs out of model requests: its GAVE_UP sentence)
HARNESS_TEXT = (re.compile(r"(?i)I stopped after \d+ model requests? without a final answer\.?"),)

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Aside:
    """A span of the reply that is not the agent's answer, and why."""

    start: int
    end: int
    why: str

    def holds(self, span: Sequence[int]) -> bool:
        return self.start <= span[0] and span[1] <= self.end


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0).casefold(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _echoes(reply: str, prompt: str) -> list[Aside]:
    said = _words(reply)
    asked = [w for w, _, _ in _words(prompt)]
    if not said or not asked:
        return []
    n = min(ECHO_WORDS, len(asked)) if len(asked) >= WHOLE_PROMPT_WORDS else ECHO_WORDS
    runs = {tuple(asked[i : i + n]) for i in range(len(asked) - n + 1)}
    echoed = [False] * len(said)
    plain = [w for w, _, _ in said]
    for i in range(len(said) - n + 1):
        if tuple(plain[i : i + n]) in runs:
            echoed[i : i + n] = [True] * n
    out: list[Aside] = []
    i = 0
    while i < len(said):
        if not echoed[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(said) and echoed[j + 1]:
            j += 1
        out.append(Aside(said[i][1], said[j][2], "repeats the prompt"))
        i = j + 1
    return out


def asides(reply: str, prompts: Sequence[str]) -> list[Aside]:
    """The spans of ``reply`` that repeat one of ``prompts`` or are harness text."""
    out = [a for p in prompts if p for a in _echoes(reply, p)]
    for pattern in HARNESS_TEXT:
        out += [Aside(m.start(), m.end(), "harness text") for m in pattern.finditer(reply)]
    return sorted(out, key=lambda a: (a.start, a.end))


def asides_of(ctx: Ctx, ti: int, reply: str) -> list[Aside]:
    """The asides of turn ``ti``'s reply: repeats of any prompt sent up to that turn (a
    reply may repeat an earlier turn's prompt), and harness text."""
    prompts = [t.prompt for t in ctx.attempt.turns[: ti + 1]]
    return asides(reply, prompts)


def aside_of(span: Sequence[int], found: Sequence[Aside], reply: str) -> Aside | None:
    """The aside ``span`` of ``reply`` lies in, if any; only its words count (a repeated
    question is an aside with its question mark, a number with its minus sign)."""
    if not found:
        return None
    words = [m.span() for m in _WORD.finditer(reply, span[0], span[1])]
    if not words:
        return None
    inner = (words[0][0], words[-1][1])
    return next((a for a in found if a.holds(inner)), None)


def skipped_note(reply: str, skipped: Sequence[tuple[str, Aside]]) -> str | None:
    """The evidence note for matches not counted: what, where, and why."""
    if not skipped:
        return None
    parts = [
        f"{quoted(what)} in {quoted(excerpt(reply[a.start : a.end], 60))} ({a.why})"
        for what, a in skipped[:3]
    ]
    return "not the agent's answer, not counted: " + "; ".join(parts)
