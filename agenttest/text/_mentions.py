"""The figures a text mentions, as the judge compares them: the shared reader plus number words.

Digits, decimal marks, Unicode minus, thousands separators, versions (``v0.16.2``) and
dates are read by :func:`._quantities.quantities`, the same reader the deterministic
criteria use, so "the same number" means one thing in the whole tool. A written number can
mean more than one value (``29.988`` is 29988 in Turkish and 29.988 in English), so each
mention carries the *set* of its readings and two mentions match when the sets meet.

What the judge adds is number *words* ("twenty one", "on dört"), which the grader's
criteria never accept as an answer but a paraphrase of a reference often uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ._keys import looks_turkish, match_key
from ._quantities import DateValue, quantities, same_date

#: a number's value, a version string ("0.16.2") or a date (year, month, day)
Reading = Decimal | str | tuple[int | None, int | None, int | None]


@dataclass(frozen=True)
class Mention:
    text: str
    readings: frozenset[Reading]


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
            found.append(Mention(" ".join(words[start:i]), frozenset({Decimal(total + current)})))
        else:
            i += 1
    return found


def mentions(text: str) -> tuple[list[Mention], list[Mention]]:
    """(dates, numbers) stated in ``text``; versions count as numbers (their own kind of
    reading, so ``0.16.2`` never equals a decimal)."""
    found = quantities(text)
    dates = [Mention(d.text, frozenset(d.values)) for d in found.dates]
    numbers = [Mention(n.text, frozenset(n.values)) for n in found.numbers]
    numbers += [Mention(v.text, frozenset({v.value})) for v in found.versions]
    numbers += _word_numbers(match_key(text))
    return dates, numbers


def number_mentions(text: str) -> list[Mention]:
    """The numbers of ``text`` (digits in any common format, versions, number words)."""
    return mentions(text)[1]


def date_mentions(text: str) -> list[Mention]:
    """The dates of ``text``."""
    return mentions(text)[0]


def numbers_agree(a: Mention, b: Mention) -> bool:
    """Some reading of one number mention equals some reading of the other."""
    return not a.readings.isdisjoint(b.readings)


def dates_agree(a: Mention, b: Mention) -> bool:
    """Some reading of one date mention agrees with one of the other (see ``same_date``)."""
    return same_date(_date_readings(a), _date_readings(b))


def _date_readings(m: Mention) -> list[DateValue]:
    return [r for r in m.readings if isinstance(r, tuple)]
