"""Dates and versions in free text, and the figures of a text read as all three.

What a written number can mean is decided in :func:`._numbers.readings` (decimal marks,
Unicode minus, thousands separators, ambiguity kept as a set of values); this module adds
what a *comparison of two texts* needs on top:

* :func:`extract_dates`: ``2024-03-15``, ``15.03.2024``, ``03/15/2024`` (both orders when
  ambiguous), ``March 15, 2024``, ``15 Mart 2024``, ``15th of March``, ``March 2024``. Each
  date is the set of (year, month, day) readings it allows, a missing part is ``None``.
* :func:`extract_versions`: ``v0.16.2``, ``1.2.3``, ``192.168.0.1`` — dotted strings that
  are no single number; compared as the string of their parts (``v`` dropped).
* :func:`quantities`: all three, with the numbers inside a date or version left out and
  digits glued to a word (``L1``, ``Qwen3``, ``x86``) read as part of a name, not a figure.

Every token carries its span in the original text. docs/grading.md lists the formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from ._normalize import normalize
from ._numbers import NumberToken, extract_numbers, readings

DateValue = tuple[int | None, int | None, int | None]  # (year, month, day)

# Keys are in the folded form normalize() gives (accents stripped, every i folded to i).
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
    "ocak": 1, "subat": 2, "mart": 3, "nisan": 4, "mayis": 5, "haziran": 6, "temmuz": 7,
    "agustos": 8, "eylul": 9, "ekim": 10, "kasim": 11, "aralik": 12,
}  # fmt: skip
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DATE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"), "ymd"),
    (re.compile(r"(?<![\d.])(\d{1,2})([./])(\d{1,2})\2(\d{4}|\d{2})(?!\d)"), "numeric"),
    (re.compile(rf"\b({_MONTH_ALT})\.? {_DAY},? (\d{{4}})(?!\d)"), "mdy"),
    (re.compile(rf"(?<!\d){_DAY}\.? (?:of )?({_MONTH_ALT})\b,? (\d{{4}})(?!\d)"), "dmy"),
    (re.compile(rf"\b({_MONTH_ALT}) (\d{{4}})(?!\d)"), "my"),
    (re.compile(rf"\b({_MONTH_ALT})\.? {_DAY}\b"), "md"),
    (re.compile(rf"(?<!\d){_DAY}\.? (?:of )?({_MONTH_ALT})\b"), "dm"),
]
# A dotted string of three or more parts, or two and more after a "v" (v0.16, v1.2.3).
_VERSION_RE = re.compile(r"(?<![\w.,])(?:v(\d+(?:\.\d+)+)|(\d+(?:\.\d+){2,}))(?![\w]|\.\d)")


@dataclass(frozen=True)
class DateToken:
    start: int
    end: int
    text: str
    values: frozenset[DateValue]


@dataclass(frozen=True)
class VersionToken:
    start: int
    end: int
    text: str
    value: str  # the dotted parts without the "v": "0.16.2"


class Quantities(NamedTuple):
    dates: list[DateToken]
    versions: list[VersionToken]
    numbers: list[NumberToken]


def _year(text: str) -> int:
    value = int(text)
    return value + (2000 if value < 70 else 1900) if len(text) == 2 else value


def _date_values(kind: str, g: tuple[str, ...]) -> set[DateValue]:
    out: set[DateValue] = set()
    if kind == "ymd":
        out.add((int(g[0]), int(g[1]), int(g[2])))
    elif kind == "numeric":
        a, sep, b, y = int(g[0]), g[1], int(g[2]), _year(g[3])
        out.add((y, b, a))  # day first: European and Turkish
        if sep == "/":
            out.add((y, a, b))  # month first: US
    elif kind == "mdy":
        out.add((int(g[2]), _MONTHS[g[0]], int(g[1])))
    elif kind == "dmy":
        out.add((int(g[2]), _MONTHS[g[1]], int(g[0])))
    elif kind == "my":
        out.add((int(g[1]), _MONTHS[g[0]], None))
    elif kind == "md":
        out.add((None, _MONTHS[g[0]], int(g[1])))
    elif kind == "dm":
        out.add((None, _MONTHS[g[1]], int(g[0])))
    return {
        v for v in out if (v[1] is None or 1 <= v[1] <= 12) and (v[2] is None or 1 <= v[2] <= 31)
    }


def extract_dates(text: str) -> list[DateToken]:
    """Dates in ``text``, in the order of the patterns above (full dates first)."""
    mapped = normalize(text)
    key = mapped.text
    found: list[DateToken] = []
    for pattern, kind in _DATE_PATTERNS:
        for m in pattern.finditer(key):
            values = _date_values(kind, m.groups())
            if values:
                start, end = mapped.span(m.start(), m.end())
                found.append(DateToken(start, end, text[start:end], frozenset(values)))
                # blank it (same length) so a shorter pattern does not read it again
                key = key[: m.start()] + " " * (m.end() - m.start()) + key[m.end() :]
    return found


def dates_match(a: DateToken, b: DateToken) -> bool:
    return same_date(a.values, b.values)


def same_date(a: Iterable[DateValue], b: Iterable[DateValue]) -> bool:
    """Some reading of ``a`` agrees with some reading of ``b`` on every part both know."""
    others = list(b)
    return any(
        all(x is None or y is None or x == y for x, y in zip(ra, rb, strict=True))
        for ra in a
        for rb in others
    )


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < b and a < end for a, b in spans)


def extract_versions(text: str, *, skip: list[tuple[int, int]] | None = None) -> list[VersionToken]:
    """Version and address strings; ``skip``: spans already read as something else."""
    mapped = normalize(text)
    out: list[VersionToken] = []
    for m in _VERSION_RE.finditer(mapped.text):
        parts = m.group(1) or m.group(2)
        if m.group(2) and readings(parts):
            continue  # 1.234.567 is a thousands-grouped number, not a version
        start, end = mapped.span(m.start(), m.end())
        if not _overlaps(start, end, skip or []):
            out.append(VersionToken(start, end, text[start:end], parts))
    return out


def quantities(text: str) -> Quantities:
    """Dates, then versions, then the numbers outside both (see the module docstring)."""
    dates = extract_dates(text)
    taken = [(d.start, d.end) for d in dates]
    versions = extract_versions(text, skip=taken)
    taken += [(v.start, v.end) for v in versions]
    numbers = [
        n
        for n in extract_numbers(text)
        if not _overlaps(n.start, n.end, taken) and not (n.start and text[n.start - 1].isalpha())
    ]
    return Quantities(dates, versions, numbers)


def values_match(a: frozenset[Decimal], b: frozenset[Decimal]) -> bool:
    """Two numbers agree when some reading of one equals some reading of the other."""
    return not a.isdisjoint(b)
