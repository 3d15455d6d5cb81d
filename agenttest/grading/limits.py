"""Time and size limits of grading: a hostile or looping reply cannot stall a night.

Grading runs after every attempt, on text the agent wrote. A model stuck in a loop writes
100 KB without punctuation; a hostile one writes 32 MiB; a battery author writes
``^(a|aa)+$``. Three limits keep grading bounded whatever arrives:

* every text a criterion reads is capped at :data:`MAX_GRADED_CHARS` (the graded prefix is
  recorded in the criterion's evidence), so the normalisers' per-character work is bounded;
* patterns written by battery authors run under the ``regex`` package's timeout
  (:data:`PATTERN_TIMEOUT_S`); one that runs out leaves its criterion undecided (never a
  silent PASS or FAIL);
* the built-in detectors are linear in the text (tested at the cap).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

#: Characters of one reply, trace or tool result that grading reads. 256 Ki characters is
#: far beyond any answer a block asks for and keeps the slowest criterion well under a second.
MAX_GRADED_CHARS = 256 * 1024
#: Seconds one author pattern may take on one text before its criterion is undecided.
PATTERN_TIMEOUT_S = 2.0


class PatternTimeout(Exception):
    """An author pattern ran out of time: its criterion cannot be decided."""


def cap(text: str) -> str:
    return text if len(text) <= MAX_GRADED_CHARS else text[:MAX_GRADED_CHARS]


def capped_note(lengths: dict[int, int]) -> str:
    """The evidence note for turns (0-based index → full length) graded on a prefix."""
    where = ", ".join(f"turn {ti + 1}: {n:,} characters" for ti, n in sorted(lengths.items()))
    return (
        f"graded the first {MAX_GRADED_CHARS:,} characters only ({where}); "
        "the rest of the reply was not read"
    )


def _compile(pattern: str, flags: int) -> Any:
    import regex  # the stdlib `re` has no timeout; `regex` reads the same syntax

    return regex.compile(pattern, _regex_flags(flags))


def _regex_flags(flags: int) -> int:
    import re

    import regex

    out = 0
    for std, new in (
        (re.IGNORECASE, regex.IGNORECASE),
        (re.MULTILINE, regex.MULTILINE),
        (re.DOTALL, regex.DOTALL),
        (re.VERBOSE, regex.VERBOSE),
        (re.ASCII, regex.ASCII),
    ):
        if flags & std:
            out |= new
    return out


def _timed_out(pattern: str, text: str) -> PatternTimeout:
    return PatternTimeout(
        f"the pattern {pattern!r} took longer than {PATTERN_TIMEOUT_S:g}s on "
        f"{len(text):,} characters (catastrophic backtracking?); undecided"
    )


def search(pattern: str, text: str, flags: int = 0) -> Any:
    """``re.search`` for an author pattern, under the timeout."""
    try:
        return _compile(pattern, flags).search(cap(text), timeout=PATTERN_TIMEOUT_S)
    except TimeoutError:
        raise _timed_out(pattern, text) from None


def finditer(pattern: str, text: str, flags: int = 0) -> Iterator[Any]:
    """``re.finditer`` for an author pattern; the timeout bounds the whole iteration."""
    try:
        yield from _compile(pattern, flags).finditer(cap(text), timeout=PATTERN_TIMEOUT_S)
    except TimeoutError:
        raise _timed_out(pattern, text) from None
