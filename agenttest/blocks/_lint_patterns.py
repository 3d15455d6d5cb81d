"""Lint rule ``[pattern]``: author regexes that backtrack catastrophically.

A pattern such as ``^(a|aa)+$`` or ``(\\w+\\s?)+$`` is valid and passes on every short
reply, then takes exponential time on a long one that almost matches. Grading bounds it
with a timeout (the criterion is then undecided), but the block is still broken, so the
lint says so at the line of the criterion.

The check is an experiment rather than a proof: each pattern is searched, under a short
timeout, in strings built to trigger backtracking (a run of one character the pattern
names, then a character that makes the match fail). A linear or polynomial pattern answers
these 65-character probes in microseconds; an exponential one needs some 2^40 steps or more and runs
into the timeout, so the outcome does not depend on how busy the machine is.
"""

from __future__ import annotations

from collections.abc import Iterator

from agenttest.errors import Problem

from ._lint_facts import _Lines, _walk
from ._model import Block, Criterion

_RUN = 64
_PROBE_TIMEOUT_S = 1.0
_FILLERS = "a0 _.-\t"
_ENDINGS = ("!", "\x00", "\n")


def catastrophic(pattern: str) -> str | None:
    """The probe string on which ``pattern`` ran out of time, or None."""
    import regex

    try:
        compiled = regex.compile(pattern)
    except regex.error:
        return None  # the loader reports invalid patterns
    fillers = dict.fromkeys(ch for ch in pattern + _FILLERS if ch.isprintable() or ch == "\t")
    for ch in fillers:
        for end in _ENDINGS:
            probe = ch * _RUN + end
            try:
                compiled.search(probe, timeout=_PROBE_TIMEOUT_S)
            except TimeoutError:
                return probe
    return None


def _patterns(block: Block, c: Criterion) -> Iterator[tuple[str, str]]:
    if c.pattern:
        yield "pattern", c.pattern
    if c.match == "regex" and isinstance(c.value, str):
        yield "value", c.value


def rule_pattern(block: Block, lines: _Lines) -> list[Problem]:
    file = block.source.file if block.source else "?"
    out = []
    for group, top in (("pass", block.criteria.pass_), ("fail", block.criteria.fail)):
        for c in top:
            for sub in _walk([c]):
                for key, pattern in _patterns(block, sub):
                    if "{{" in pattern:
                        continue  # filled per attempt; checked when graded (timeout)
                    probe = catastrophic(pattern)
                    if probe is None:
                        continue
                    out.append(
                        Problem(
                            file,
                            lines.criterion(block, group, c.id),
                            f"[pattern] criterion `{sub.id}` {key} {pattern!r} backtracks "
                            f"catastrophically (no answer within {_PROBE_TIMEOUT_S:g}s on "
                            f"{probe[:1]!r} x {_RUN} + {probe[-1]!r}); remove the nested or "
                            "overlapping repetition, e.g. `(a|aa)+` -> `a+`",
                        )
                    )
    category = block.reference.category_pattern
    if category and catastrophic(category):
        out.append(
            Problem(
                file,
                lines.key(block, "reference"),
                f"[pattern] reference category_pattern {category!r} backtracks "
                "catastrophically; remove the nested or overlapping repetition",
            )
        )
    return out
