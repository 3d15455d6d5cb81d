"""Time and size limits of grading: a hostile or looping reply cannot stall a night.

Grading runs after every attempt, on text the agent wrote. A model stuck in a loop writes
100 KB without punctuation; a hostile one writes 32 MiB; a battery author writes
``^(a|aa)+$``. Three limits keep grading bounded whatever arrives:

* every text a criterion reads is capped at :data:`MAX_GRADED_CHARS` (the graded prefix is
  recorded in the criterion's evidence), so the normalisers' per-character work is bounded;
* patterns written by battery authors run under the ``regex`` package's timeout
  (:data:`PATTERN_TIMEOUT_S`); one that runs out leaves its criterion undecided (never a
  silent PASS or FAIL). That limit is per search, and a criterion may search once per
  line, per call or per source (10,000 searches of 1.9 s each is five hours), so a
  criterion also has :data:`CRITERION_TIMEOUT_S` and an attempt :data:`ATTEMPT_TIMEOUT_S`
  for all its searches (:func:`deadline`); past either, what is left is undecided;
* the built-in detectors are linear in the text (tested at the cap).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: Characters of one reply, trace or tool result that grading reads. 256 Ki characters is
#: far beyond any answer a block asks for and keeps the slowest criterion well under a second.
MAX_GRADED_CHARS = 256 * 1024
#: Seconds one author pattern may take on one text before its criterion is undecided.
PATTERN_TIMEOUT_S = 2.0
#: Seconds all the author-pattern searches of one criterion may take.
CRITERION_TIMEOUT_S = 10.0
#: Seconds all the author-pattern searches of one attempt's grading may take.
ATTEMPT_TIMEOUT_S = 60.0

# the budgets in force in this thread (pool workers grade at once, each to its own)
_local = threading.local()
_clock = time.monotonic


class PatternTimeout(Exception):
    """An author pattern ran out of time: its criterion cannot be decided."""


class _Budget:
    """Seconds of author-pattern searching left to a criterion or an attempt. Only the
    searches' own time counts: a judge thinking for a minute spends none of it."""

    def __init__(self, seconds: float, what: str) -> None:
        self.seconds, self.what, self.spent = seconds, what, 0.0

    def left(self) -> float:
        return self.seconds - self.spent

    def out(self) -> PatternTimeout:
        return PatternTimeout(
            f"{self.what}'s {self.seconds:g}s for author patterns ran out (patterns that "
            "backtrack on many texts?); undecided"
        )


def _budgets() -> list[_Budget]:
    found: list[_Budget] | None = getattr(_local, "budgets", None)
    if found is None:
        found = _local.budgets = []
    return found


@contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """Searches made inside share ``seconds`` (and any outer budget's time left); past it,
    a search raises :class:`PatternTimeout` saying ``what`` ran out."""
    budgets = _budgets()
    budgets.append(_Budget(seconds, what))
    try:
        yield
    finally:
        budgets.pop()


def _budget() -> tuple[float, _Budget | None]:
    """Seconds the next search may take: the per-search limit, or what a budget has left
    (with that budget, to name it when the search runs out)."""
    budgets = _budgets()
    if not budgets:
        return PATTERN_TIMEOUT_S, None
    tightest = min(budgets, key=_Budget.left)
    if tightest.left() <= 0:
        raise tightest.out()
    if tightest.left() < PATTERN_TIMEOUT_S:
        return tightest.left(), tightest
    return PATTERN_TIMEOUT_S, None


def _spent(seconds: float) -> None:
    for budget in _budgets():
        budget.spent += seconds


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


def _timed_out(pattern: str, text: str, budget: float, limiting: _Budget | None) -> PatternTimeout:
    if limiting is not None:  # the criterion's or the attempt's time ran out
        return limiting.out()
    return PatternTimeout(
        f"the pattern {pattern!r} took longer than {budget:g}s on "
        f"{len(text):,} characters (catastrophic backtracking?); undecided"
    )


def search(pattern: str, text: str, flags: int = 0) -> Any:
    """``re.search`` for an author pattern, under the timeout and the budgets."""
    budget, limiting = _budget()
    started = _clock()
    try:
        return _compile(pattern, flags).search(cap(text), timeout=budget)
    except TimeoutError:
        raise _timed_out(pattern, text, budget, limiting) from None
    finally:
        _spent(_clock() - started)


def finditer(pattern: str, text: str, flags: int = 0) -> Iterator[Any]:
    """``re.finditer`` for an author pattern; the timeout bounds the whole iteration."""
    budget, limiting = _budget()
    started = _clock()
    try:
        yield from _compile(pattern, flags).finditer(cap(text), timeout=budget)
    except TimeoutError:
        raise _timed_out(pattern, text, budget, limiting) from None
    finally:
        _spent(_clock() - started)
