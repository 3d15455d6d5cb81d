"""The shared normalisation layer: what "the same text" means.

Everything a grader compares goes through here, so the rules live in one place and are
tested once (docs/grading.md describes them for battery authors):

* ``clean``: literal ``\\n``/``\\t``/``\\r`` sequences become real whitespace (agents that
  double-encode JSON send them), Markdown backticks and emphasis markers are dropped,
  quotes become spaces, whitespace runs collapse to one space.
* ``fold``: ``clean`` plus tolerant case folding: every Turkish and Latin i (``İ I ı i``)
  folds to ``i``, then Unicode case folding, NFKC and accent stripping, so ``İSTANBUL``,
  ``Istanbul`` and ``istanbul`` are equal. ``turkish=True`` instead applies Turkish casing
  (``İ→i``, ``I→ı``) and keeps accents, for checks that must tell ``ı`` from ``i``.
* Every transformed text keeps, per character, the index it came from, so a match found in
  the normalised text is reported as a span of the original response.

Numbers are read in :mod:`._numbers`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_ESCAPES = {"n": "\n", "t": "\t", "r": "\n"}
_QUOTES = frozenset("\"'“”‘’«»„‚‹›")
_TOLERANT_I = str.maketrans({"İ": "i", "I": "i", "ı": "i"})
_TURKISH_UPPER = str.maketrans({"İ": "i", "I": "ı"})


@dataclass(frozen=True)
class Mapped:
    """A transformed text and, for each of its characters, the index it came from."""

    text: str
    pos: tuple[int, ...]
    original: str

    def span(self, start: int, end: int) -> list[int]:
        """The ``[start, end)`` span of the original text behind ``text[start:end]``."""
        if not self.pos or start >= end:
            at = self.pos[start] if start < len(self.pos) else len(self.original)
            return [at, at]
        return [self.pos[start], self.pos[end - 1] + 1]


def _unescape(text: str) -> tuple[list[str], list[int]]:
    chars: list[str] = []
    pos: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            # `\r\n` written out literally is one line break, not two.
            if text[i + 1] == "r" and text[i + 2 : i + 4] == "\\n":
                chars.append("\n")
                pos.append(i)
                i += 4
                continue
            chars.append(_ESCAPES[text[i + 1]])
            pos.append(i)
            i += 2
            continue
        chars.append(ch)
        pos.append(i)
        i += 1
    return chars, pos


def _is_word(ch: str) -> bool:
    return ch.isalnum()


def _strip_markdown(
    chars: list[str], pos: list[int], *, quotes: bool = True
) -> tuple[list[str], list[int]]:
    out: list[str] = []
    out_pos: list[int] = []
    n = len(chars)
    for i, ch in enumerate(chars):
        if ch == "`" and quotes:
            continue
        if ch in "*_~":
            prev = chars[i - 1] if i > 0 else " "
            nxt = chars[i + 1] if i + 1 < n else " "
            doubled = prev == ch or nxt == ch
            # `**bold**`, `__x__`, `~~x~~` always go; a single `*`/`_` only at a word edge
            # (`*x*`), so `snake_case` and `3 * 4` survive.
            if ch != "~" and (doubled or (_is_word(prev) != _is_word(nxt))):
                continue
            if ch == "~" and doubled:
                continue
        if ch in _QUOTES and quotes:
            ch = " "
        out.append(ch)
        out_pos.append(pos[i])
    return out, out_pos


def _collapse(chars: list[str], pos: list[int]) -> tuple[str, tuple[int, ...]]:
    out: list[str] = []
    out_pos: list[int] = []
    for ch, p in zip(chars, pos, strict=True):
        if ch.isspace():
            if not out or out[-1] == " ":
                continue
            ch = " "
        out.append(ch)
        out_pos.append(p)
    while out and out[-1] == " ":
        out.pop()
        out_pos.pop()
    return "".join(out), tuple(out_pos)


def _fold_char(ch: str, *, case: bool, turkish: bool, accents: bool) -> str:
    if case:
        if turkish:
            ch = ch.translate(_TURKISH_UPPER).lower()
        else:
            ch = ch.translate(_TOLERANT_I).casefold()
    ch = unicodedata.normalize("NFKC", ch)
    if accents:
        ch = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        if case and not turkish:
            ch = ch.translate(_TOLERANT_I)
    return ch


def clean(
    text: str, *, markdown: bool = True, collapse: bool = True, quotes: bool = True
) -> Mapped:
    """Literal escapes to whitespace, Markdown markers and quotes out, whitespace collapsed.

    ``quotes=False`` keeps quotes and backticks (only emphasis markers go), for patterns
    that look at quoting themselves.
    """
    chars, pos = _unescape(text)
    if markdown:
        chars, pos = _strip_markdown(chars, pos, quotes=quotes)
    if not collapse:
        return Mapped("".join(chars), tuple(pos), text)
    out, out_pos = _collapse(chars, pos)
    return Mapped(out, out_pos, text)


def light(text: str) -> Mapped:
    """Literal escapes only (for regexes and list/sentence structure, which need Markdown)."""
    chars, pos = _unescape(text)
    return Mapped("".join(chars), tuple(pos), text)


def normalize(
    text: str,
    *,
    case: bool = True,
    turkish: bool = False,
    accents: bool | None = None,
    markdown: bool = True,
) -> Mapped:
    """``clean`` then per-character folding; ``accents`` defaults to ``not turkish``."""
    strip_accents = (not turkish) if accents is None else accents
    chars, pos = _unescape(text)
    if markdown:
        chars, pos = _strip_markdown(chars, pos)
    folded: list[str] = []
    folded_pos: list[int] = []
    for ch, p in zip(chars, pos, strict=True):
        for c in _fold_char(ch, case=case, turkish=turkish, accents=strip_accents and case):
            folded.append(c)
            folded_pos.append(p)
    out, out_pos = _collapse(folded, folded_pos)
    return Mapped(out, out_pos, text)


def fold(text: str, *, turkish: bool = False, case: bool = True) -> str:
    """The comparison key of a short value (an argument, a keyword)."""
    return normalize(strip_wrappers(text), case=case, turkish=turkish).text


def strip_wrappers(value: str) -> str:
    """Whitespace, backticks, quotes, emphasis and angle brackets around a value."""
    wrappers = "`*_<>" + "".join(_QUOTES)
    prev = None
    value = value.strip()
    while value != prev:
        prev = value
        value = value.strip().strip(wrappers)
    return value


def find(
    haystack: Mapped, value: str, *, stem: bool = False, case_sensitive: bool = False
) -> list[int] | None:
    """Span (in the original) of the first whole-word occurrence of ``value``.

    Both sides are normalised the same way. A value edge that is a letter or digit must sit
    at a word edge of the haystack (``ankara`` is not found in ``ankaralı``); with
    ``stem=True`` the value may end inside a word, which is what agglutinative languages
    need (``ankara`` is found in ``Ankara'nın`` either way, since the quote splits it), and
    the words are also compared one by one through the English and Turkish stemmers
    (``dosya yok`` finds ``dosyası yok``, ``bulunamadı`` finds ``bulunamıyor``).
    """
    spans = find_all(haystack, value, stem=stem, case_sensitive=case_sensitive)
    return spans[0] if spans else None


def find_all(
    haystack: Mapped, value: str, *, stem: bool = False, case_sensitive: bool = False
) -> list[list[int]]:
    """Spans (in the original) of every occurrence of ``value``; see :func:`find`."""
    needle = (
        normalize(value, case=False, accents=False) if case_sensitive else normalize(value)
    ).text
    if not needle:
        return []
    before = r"(?<!\w)" if _is_word(needle[0]) else ""
    after = r"(?!\w)" if _is_word(needle[-1]) and not stem else ""
    rx = re.compile(before + re.escape(needle) + after)
    found = {(m.start(), m.end()) for m in rx.finditer(haystack.text)}
    if stem:  # word by word, through real stemmers (text/_stem.py)
        from ._stem import find_words

        found.update(find_words(haystack.text, needle))
    return [haystack.span(a, b) for a, b in sorted(found)]


def haystack(text: str, *, case_sensitive: bool = False) -> Mapped:
    return normalize(text, case=False, accents=False) if case_sensitive else normalize(text)
