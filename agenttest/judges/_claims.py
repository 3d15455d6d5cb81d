"""Texts cut into the units the typed judge compares: sentences, listed items, clauses.

A reference and a reply are compared claim by claim, never as two whole texts: a summary
covers a page when it covers the page's *items*; a contradiction lives in one *clause*.
Everything here is plain text work (regexes and a Snowball stemmer), no model.

Splitting rules:

* sentences: one per line of a list (bullets and ``1.`` numbers are dropped), numbered
  items written inline (``1. A. 2. B.``), and sentence ends (``.``, ``!``, ``?``) followed
  by a space; a dot inside a number or version (``v0.16.2``, ``18.5``) never splits.
* items (what a ``covers`` reference lists): each sentence, and inside a sentence each
  element of an enumeration of three or more parts (``A, B, C and D``). Commas inside
  parentheses do not count.
* clauses (where negation lives): a sentence cut at ``;``, ``:``, ``, and``, the contrast words
  *but*, *however*, *although*, *while*, *ama*, *fakat*, *ancak*.
"""

from __future__ import annotations

import re

from agenttest.text import looks_turkish, match_key, normalise, words
from agenttest.text import stem_words as text_stem_words

_BULLET_RE = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")
_INLINE_NUMBER_RE = re.compile(r"(?:(?<=^)|(?<=\s))\d{1,2}[.)]\s+(?=\S)")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[^\s])")
_ABBREVIATIONS = words("e.g. i.e. etc. vs. mr. mrs. ms. dr. no. örn. vb. vs.")
_MARKDOWN_RE = re.compile(r"\*\*|__|`|^#+\s*", re.MULTILINE)
_CLAUSE_RE = re.compile(
    r"\s*[;:]\s+|,\s+(?:and|ve)\s+"
    r"|,?\s+\b(?:but|however|although|though|whereas|while|ama|fakat|ancak|oysa)\b\s+",
    re.IGNORECASE,
)
_AND_RE = re.compile(r",?\s+\b(?:and|or|ve|veya|ya da)\s+", re.IGNORECASE)
_LEADING_AND_RE = re.compile(r"^(?:and|or|ve|veya|ya da)\s+", re.IGNORECASE)
_STOPWORDS = words(
    "a an the and or of to in on at for with by from as is are was were be been being it its "
    "this that these those there their they them you your yours we our i me my he she his her "
    "do does did has have had will would can could should may might must not no so if then than "
    "also just only very more most some any all each both such what which who whom how when "
    "where why about into over under out up down again here now still too much many "
    "ve bir bu şu o için ile de da ki mi mı mu mü ne çok daha gibi olarak ama veya ya her "
    "olan oldu olur en sen siz ben biz onu bunu şunu ise "
    "never none nothing nobody neither nor cannot değil yok hiç asla hayır evet yes"
)
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def _clean(text: str) -> str:
    return _MARKDOWN_RE.sub("", normalise_lines(text))


def normalise_lines(text: str) -> str:
    """:func:`normalise` per line, keeping the line breaks (lists are read line by line)."""
    return "\n".join(normalise(line) for line in str(text).splitlines())


def _split_line(line: str) -> list[str]:
    line = _BULLET_RE.sub("", line).strip()
    parts = [p for p in _INLINE_NUMBER_RE.split(line) if p.strip()]
    out: list[str] = []
    for part in parts:
        pieces = _SENTENCE_END_RE.split(part)
        merged: list[str] = []
        for piece in pieces:
            last = merged[-1].split()[-1].lower() if merged and merged[-1].split() else ""
            if merged and last in _ABBREVIATIONS:
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        out.extend(m.strip() for m in merged)
    return [s for s in out if any(ch.isalnum() for ch in s)]


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (list lines and inline numbered items count as sentences)."""
    found: list[str] = []
    for line in _clean(text).splitlines():
        found.extend(_split_line(line))
    return found


def _top_level_commas(sentence: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(sentence):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(sentence[start:i])
            start = i + 1
    parts.append(sentence[start:])
    return [p.strip() for p in parts if p.strip()]


def _enumeration(sentence: str) -> list[str]:
    parts = _top_level_commas(sentence)
    if len(parts) >= 2:
        # "A, B and C": the last part holds two items; "A, B, and C" (serial comma): one.
        last = parts[-1]
        opened = _LEADING_AND_RE.match(last)
        split = [last[opened.end() :]] if opened else _AND_RE.split(last, maxsplit=1)
        parts = parts[:-1] + [p for p in split if p.strip()]
    parts = [_LEADING_AND_RE.sub("", p.strip()).rstrip(".") for p in parts]
    return parts if len(parts) >= 3 else [sentence.rstrip(".")]


def split_items(text: str) -> list[str]:
    """The items a reference lists: sentences, and the elements of their enumerations."""
    items: list[str] = []
    for sentence in split_sentences(text):
        if sentence.rstrip().endswith(":"):
            continue  # a lead-in ("Any three of these:") introduces the items, it is none
        items.extend(p for p in _enumeration(sentence) if content_stems(p))
    return items


def split_clauses(sentence: str) -> list[str]:
    """A sentence cut where a new clause (with its own polarity) starts."""
    return [c.strip() for c in _CLAUSE_RE.split(sentence) if c and any(x.isalnum() for x in c)]


def stem_words(tokens: list[str], turkish: bool) -> list[str]:
    """Snowball stems (Turkish or English) of lower-case tokens (this thread's stemmer)."""
    return text_stem_words(tokens, "turkish" if turkish else "english")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens in the comparison form (Turkish casefold, apostrophes cut)."""
    return [w.split("'")[0] for w in _WORD_RE.findall(match_key(text))]


def content_stems(text: str) -> frozenset[str]:
    """Stems of the content words (no stop words, no one-letter words) of ``text``."""
    kept = [t for t in tokens(text) if t not in _STOPWORDS and len(t) > 1]
    return frozenset(stem_words(kept, looks_turkish(text)))


def overlap(needle: str, haystack: str) -> float:
    """Share of ``needle``'s content stems found in ``haystack`` (0 when it has none).

    Stems are compared by prefix of four letters or more as well as equality, so that an
    English stem still meets its Turkish-suffixed form ("DocC" / "DocC'yi").
    """
    want = content_stems(needle)
    if not want:
        return 0.0
    have = content_stems(haystack)
    hits = sum(1 for w in want if w in have or (len(w) >= 4 and any(h.startswith(w) for h in have)))
    return hits / len(want)
