"""Stemmed phrase matching, and the phrases with which a reply declines to give a value
or says it is not known or not found (one vocabulary: no block keeps a list of its own).

A phrase matches when its words appear in order, each word equal to the reply's word once
both are stemmed (Snowball English on the tolerant fold, Snowball Turkish on the Turkish
fold), so ``the docs do not cover`` finds ``the documentation doesn't cover`` no better
than a keyword would, but ``belgelerde bulunamadı`` finds ``belgede bulunamadı``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agenttest import text as nz
from agenttest.text import stem_words

#: "I don't know it / you never told me / nothing is stored": the one vocabulary every block
#: that asks whether the reply says a value is unknown uses (criterion ``says_not_known``,
#: matched as ``response_contains`` with ``stem: true``), a block adding only its own words
NOT_KNOWN = (
    "don't know", "do not know", "not sure", "haven't told", "have not told", "never told",
    "didn't tell", "did not tell", "no record", "no information", "not stored",
    "don't have", "do not have", "no idea",
    "bilmiyorum", "bilgim yok", "bilgi yok", "bilgisi yok", "emin değilim", "söylemediniz",
    "belirtmediniz", "paylaşmadınız", "kaydım yok", "kayıtlı değil", "elimde yok",
    "bilgiye sahip değilim",
)  # fmt: skip
# ("bulunmamakta", there is none, is a claim about the world: L4-LIVE-01's "there is no MLX
# for Swift" is no "I don't know"; a memory block that reads it as not known lists it)
#: "it was not found / does not exist / could not be found" (criterion ``says_not_found``)
NOT_FOUND = (
    "not found", "does not exist", "doesn't exist", "no such file", "could not find",
    "couldn't find", "cannot find", "can't find", "did not find", "didn't find",
    "unable to find", "no results", "no match",
    "bulunamadı", "bulunmuyor", "bulunmamakta", "bulamadım", "mevcut değil", "böyle bir dosya",
    "dosya yok", "sonuç bulunamadı", "sonuç yok", "eşleşme yok",
)  # fmt: skip
VOCABULARIES = {"says_not_known": NOT_KNOWN, "says_not_found": NOT_FOUND}
ABSTAIN_EN = (
    "don't know", "do not know", "not stated", "isn't stated", "is not stated",
    "doesn't say", "does not say", "don't say", "do not say", "doesn't state",
    "does not state", "don't state", "do not state", "doesn't cover", "does not cover",
    "don't cover", "do not cover", "not covered", "no information", "couldn't find",
    "could not find", "can't find", "cannot find", "did not find", "didn't find",
    "unable to find", "unable to determine", "can't determine", "cannot determine",
    "can't confirm", "cannot confirm", "could not confirm", "couldn't confirm",
    "not documented", "no mention", "not mentioned", "doesn't mention", "does not mention",
    "don't mention", "do not mention", "not listed", "incomplete", "not complete",
    "can't say", "cannot say", "no source", "none of the sources", "not in the docs",
    "couldn't reach", "could not reach", "unreachable", "unavailable", "can't give",
    "cannot give", "won't guess", "not enough information", "insufficient",
    "no match", "no matching", "no results", "nothing matched", "not sure",
)  # fmt: skip
ABSTAIN_TR = (
    "bilmiyorum", "belirtilmemiş", "belirtilmiyor", "bulamadım", "bulunamadı", "bilgi yok",
    "bilgi bulunmuyor", "yer almıyor", "geçmiyor", "bahsedilmiyor", "değinilmiyor",
    "kapsamıyor", "eksik", "tam değil", "emin değilim", "söyleyemem", "belirleyemedim",
    "doğrulayamadım", "erişilemedi", "ulaşılamadı", "ulaşamadım", "yeterli bilgi yok",
    "sonuç yok", "eşleşme yok", "sonuç bulunamadı",
)  # fmt: skip
ABSTAIN_PHRASES = tuple(dict.fromkeys(ABSTAIN_EN + ABSTAIN_TR + NOT_KNOWN + NOT_FOUND))
_WORD = re.compile(r"[^\W_]+")  # `file_write` is two words, as its role name


@lru_cache(maxsize=4096)
def _keys(word_tolerant: str, word_turkish: str) -> tuple[str, str]:
    (en,) = stem_words([word_tolerant], "english")  # this thread's stemmers: see text
    (tr,) = stem_words([word_turkish], "turkish")
    return en, tr


def _tokens(text: str) -> list[tuple[tuple[str, str], list[int]]]:
    """(stem keys, span in the original) of each word of ``text``."""
    tol = nz.normalize(text)
    tur = nz.normalize(text, turkish=True)
    a = [(m.group(0), tol.span(m.start(), m.end())) for m in _WORD.finditer(tol.text)]
    b = [(m.group(0), tur.span(m.start(), m.end())) for m in _WORD.finditer(tur.text)]
    if len(a) != len(b):  # folding split a word differently; the tolerant fold alone decides
        return [((_keys(w, w)[0], ""), span) for w, span in a]
    return [(_keys(w, v), span) for (w, span), (v, _) in zip(a, b, strict=True)]


def _same(x: tuple[str, str], y: tuple[str, str]) -> bool:
    return x[0] == y[0] or (bool(x[1]) and x[1] == y[1])


def stem_find(text: str, phrase: str) -> list[int] | None:
    """Span (in the original) of the first stemmed occurrence of ``phrase``, or None."""
    needle = [k for k, _ in _tokens(phrase)]
    if not needle:
        return None
    hay = _tokens(text)
    for i in range(len(hay) - len(needle) + 1):
        if all(_same(hay[i + j][0], n) for j, n in enumerate(needle)):
            return [hay[i][1][0], hay[i + len(needle) - 1][1][1]]
    return None


def abstain_cue(text: str) -> tuple[str, list[int]] | None:
    """The first declining phrase found in ``text`` and its span, or None."""
    found = [(span, p) for p in ABSTAIN_PHRASES if (span := stem_find(text, p)) is not None]
    if not found:
        return None
    span, phrase = min(found)
    return phrase, span
