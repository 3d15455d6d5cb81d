"""Inline enumerations: "a, b ve c", "a, b, and c", "dosyalar: a ve b" as list items.

A reply that lists in running text ("Masaüstünde şu dosyalar listelendi: `.DS_Store`,
`.localized` ve `Photos`.") has three items, not none: ``list_items`` counts them when the
reply has no list lines. An enumeration is one clause (after a colon when there is one)
whose parts are separated by commas and a final conjunction; each part after the first is
short (an item, not a clause), and without a colon there are at least three, so "Tamam,
bekliyorum" lists nothing.
"""

from __future__ import annotations

import re

#: a sentence ends at . ! ? … followed by space (not inside `.DS_Store`), or a line ends
_SEGMENT_END = re.compile(r"[.!?…]+(?=\s|$)|\n")
_CONJUNCTION = re.compile(r"(?i)[ \t,]+(?:ve|and|or|veya|ya da|ile|&)[ \t]+")
_MAX_WORDS = 5  # an item of more words is a clause


def inline_items(text: str) -> list[tuple[int, int]]:
    """(start, end) of each item of the longest inline enumeration in ``text``."""
    best: list[tuple[int, int]] = []
    start = 0
    for m in [*_SEGMENT_END.finditer(text), None]:
        end = m.start() if m else len(text)
        items = _items(text, start, end)
        if len(items) > len(best):
            best = items
        start = m.end() if m else end
    return best


def _items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    colon = text.rfind(":", start, end)
    after_colon = colon != -1
    if after_colon:
        start = colon + 1
    conjunctions = list(_CONJUNCTION.finditer(text, start, end))
    if not conjunctions:
        return []
    conj = conjunctions[-1]  # the last conjunction closes the enumeration
    cuts = [start, *(i for i in range(start, conj.start()) if text[i] == ",")]
    parts = [(a + (a > start), b) for a, b in zip(cuts, [*cuts[1:], conj.start()], strict=True)]
    parts.append((conj.end(), end))
    items = [_strip(text, a, b) for a, b in parts]
    items = [(a, b) for a, b in items if a < b]
    short = all(len(text[a:b].split()) <= _MAX_WORDS for a, b in items[1:])
    if after_colon:
        short = short and len(text[items[0][0] : items[0][1]].split()) <= _MAX_WORDS
    enough = len(items) >= (2 if after_colon else 3)
    return items if short and enough else []


def _strip(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b
