"""Numbers and dates pulled out of free text, tolerant of English and Turkish formats.

A written number can mean more than one value: ``29.988`` is 29988 in Turkish (dot groups
thousands) and 29.988 in English. Each token therefore yields a *set* of readings, and two
tokens match when their sets share a value. ``333,0`` can only be 333.0 (a one-digit group
is never a thousands group), so it matches ``333``.

Dates are read first and cut out of the text, so ``2024-03-15`` and ``March 15, 2024`` are
compared as dates and their parts are not compared again as numbers. Bare years stay numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agenttest.judges._text import looks_turkish, match_key

Reading = float | str  # a numeric value, or a dotted version/IP string such as "1.2.3"

_NUMBER_RE = re.compile(r"(?<![\w.,])\d+(?:(?:[.,]|[ \u00a0\u202f](?=\d{3}(?!\d)))\d+)*")

_VERSION_V_RE = re.compile(r"(?<![\w.])v(?=\d+(?:\.\d+)+\b)")

_EN_UNITS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_TR_UNITS = {
    "sifir": 0, "iki": 2, "üç": 3, "dört": 4, "beş": 5, "alti": 6, "yedi": 7, "sekiz": 8,
    "dokuz": 9, "on": 10, "yirmi": 20, "otuz": 30, "kirk": 40, "elli": 50, "altmiş": 60,
    "yetmiş": 70, "seksen": 80, "doksan": 90,
}  # fmt: skip
# "one"/"bir" alone are pronouns/articles far more often than numbers ("the old one",
# "bir hata" = "a bug"); they count only inside a compound such as "twenty one".
_EN_ONE, _TR_ONE = "one", "bir"
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_TR_SCALES = {"yüz": 100, "bin": 1000, "milyon": 1_000_000}

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
    "ocak": 1, "şubat": 2, "mart": 3, "nisan": 4, "mayis": 5, "haziran": 6, "temmuz": 7,
    "ağustos": 8, "eylül": 9, "ekim": 10, "kasim": 11, "aralik": 12,
}  # fmt: skip
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DATE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"), "ymd"),
    (re.compile(r"(?<![\d.])(\d{1,2})([./])(\d{1,2})\2(\d{4}|\d{2})(?![\d])"), "numeric"),
    (re.compile(rf"\b({_MONTH_ALT})\.? {_DAY},? (\d{{4}})(?!\d)"), "mdy"),
    (re.compile(rf"(?<!\d){_DAY}\.? (?:of )?({_MONTH_ALT})\b,? (\d{{4}})(?!\d)"), "dmy"),
    (re.compile(rf"\b({_MONTH_ALT}) (\d{{4}})(?!\d)"), "my"),
    (re.compile(rf"\b({_MONTH_ALT})\.? {_DAY}\b"), "md"),
    (re.compile(rf"(?<!\d){_DAY}\.? (?:of )?({_MONTH_ALT})\b"), "dm"),
]

DateReading = tuple[int | None, int | None, int | None]  # (year, month, day)


@dataclass(frozen=True)
class Mention:
    text: str
    readings: frozenset[Reading] | frozenset[DateReading]


def _valid(y: int | None, m: int | None, d: int | None) -> bool:
    return (m is None or 1 <= m <= 12) and (d is None or 1 <= d <= 31)


def _year(text: str) -> int:
    value = int(text)
    return value + (2000 if value < 70 else 1900) if len(text) == 2 else value


def _date_readings(kind: str, groups: tuple[str, ...]) -> set[DateReading]:
    out: set[DateReading] = set()
    if kind == "ymd":
        out.add((int(groups[0]), int(groups[1]), int(groups[2])))
    elif kind == "numeric":
        a, sep, b, y = int(groups[0]), groups[1], int(groups[2]), _year(groups[3])
        out.add((y, b, a))  # day first: European and Turkish
        if sep == "/":
            out.add((y, a, b))  # month first: US
    elif kind == "mdy":
        out.add((int(groups[2]), _MONTHS[groups[0]], int(groups[1])))
    elif kind == "dmy":
        out.add((int(groups[2]), _MONTHS[groups[1]], int(groups[0])))
    elif kind == "my":
        out.add((int(groups[1]), _MONTHS[groups[0]], None))
    elif kind == "md":
        out.add((None, _MONTHS[groups[0]], int(groups[1])))
    elif kind == "dm":
        out.add((None, _MONTHS[groups[1]], int(groups[0])))
    return {r for r in out if _valid(*r)}


def extract_dates(text: str) -> tuple[list[Mention], str]:
    """Dates in ``text`` and the text with them blanked out (same length)."""
    key = match_key(text)
    found: list[Mention] = []
    for pattern, kind in _DATE_PATTERNS:
        for m in pattern.finditer(key):
            readings = _date_readings(kind, m.groups())
            if readings:
                found.append(Mention(m.group(0), frozenset(readings)))
                key = key[: m.start()] + " " * (m.end() - m.start()) + key[m.end() :]
    return found, key


def dates_match(a: Mention, b: Mention) -> bool:
    """Some reading of ``a`` agrees with some reading of ``b`` on every field both know."""
    for ra in a.readings:
        for rb in b.readings:
            assert isinstance(ra, tuple) and isinstance(rb, tuple)
            if all(x is None or y is None or x == y for x, y in zip(ra, rb, strict=True)):
                return True
    return False


def _numeric_readings(token: str) -> set[Reading]:
    parts = re.split(r"([.,\u00a0\u202f ])", token)
    digits, seps = parts[0::2], parts[1::2]
    if not seps:
        return {float(int(token))}
    spaces = {" ", "\u00a0", "\u202f"}
    groups_of_three = all(len(g) == 3 for g in digits[1:]) and 1 <= len(digits[0]) <= 3
    kinds = {("space" if s in spaces else s) for s in seps}
    readings: set[Reading] = set()
    if len(kinds) == 1:
        (sep,) = kinds
        if groups_of_three:  # 29.988 / 29,988 / 1 500 as thousands grouping
            readings.add(float("".join(digits)))
        if len(seps) == 1 and sep != "space":  # 29.988 / 333,0 / 3.11 as a decimal
            readings.add(float(f"{digits[0]}.{digits[1]}"))
        if len(seps) > 1 and not groups_of_three and sep != "space":
            readings.add(".".join(digits))  # a version or address such as 1.2.3
        return readings
    last = seps[-1]
    if last in spaces or any(s == last for s in seps[:-1]):
        return {"".join(digits)}
    thousands = all(len(g) == 3 for g in digits[1:-1]) and 1 <= len(digits[0]) <= 3
    if thousands:  # 1,234.56 or 1.234,56: the last separator is the decimal point
        readings.add(float(f"{''.join(digits[:-1])}.{digits[-1]}"))
    else:
        readings.add("".join(digits))
    return readings


def _word_numbers(key: str) -> list[Mention]:
    turkish = looks_turkish(key)
    units = dict(_EN_UNITS)
    scales = dict(_EN_SCALES)
    ones = {_EN_ONE}
    if turkish:
        units.update(_TR_UNITS)
        scales.update(_TR_SCALES)
        ones.add(_TR_ONE)
    found: list[Mention] = []
    words = re.findall(r"[^\W\d_]+", key)
    i = 0
    while i < len(words):
        total, current, used, start = 0, 0, 0, i
        while i < len(words):
            word = words[i]
            before_scale = i + 1 < len(words) and words[i + 1] in scales
            if word in units:
                current += units[word]
            elif word in ones and (used or before_scale):
                current += 1
            elif word in scales and (used or word in _TR_SCALES):
                # Turkish "yüz" / "bin" alone mean 100 / 1000; English needs "two hundred".
                if scales[word] >= 1000:
                    total, current = total + max(current, 1) * scales[word], 0
                else:
                    current = max(current, 1) * scales[word]
            else:
                break
            used += 1
            i += 1
        if used:
            found.append(Mention(" ".join(words[start:i]), frozenset({float(total + current)})))
        else:
            i += 1
    return found


def extract_numbers(text: str) -> list[Mention]:
    """Numbers written with digits (any common grouping) or as English/Turkish words.

    Call with the text returned by :func:`extract_dates` so date parts are not counted.
    """
    # A version tag's "v" (v0.16.2) would hide the number from _NUMBER_RE's word-boundary
    # look-behind; dropping it keeps the dotted reading "0.16.2".
    key = _VERSION_V_RE.sub("", match_key(text))
    found = [
        Mention(m.group(0), frozenset(_numeric_readings(m.group(0))))
        for m in _NUMBER_RE.finditer(key)
    ]
    found.extend(_word_numbers(key))
    return [m for m in found if m.readings]


def numbers_match(a: Mention, b: Mention) -> bool:
    for ra in a.readings:
        for rb in b.readings:
            if isinstance(ra, float) and isinstance(rb, float):
                if abs(ra - rb) <= 1e-9 * max(1.0, abs(ra), abs(rb)):
                    return True
            elif ra == rb:
                return True
    return False
