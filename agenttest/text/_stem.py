"""Word forms for keyword matching: real stemmers, token by token (issue 12, class 4).

Keyword criteria with ``stem: true`` compare the value and the response word by word. Two
words are the same word when one of these holds (both sides already folded by
``agenttest.text``):

* equal, or the response word starts with the value word (the value names a stem, as
  battery lists always did: ``dosya`` in ``dosyası``);
* the Snowball stemmer of English or Turkish gives both the same stem
  (``refused``/``refusing``; ``şehirde``/``şehir``);
* negative Turkish verb forms (``-ma``/``-me``, ``-ama``/``-eme``) in the past or the
  present: with the tense taken off the roots agree, the vowel ``-iyor`` swallows included,
  and the person agrees, however each tense spells it (``bulunamadı``/``bulunamıyor``,
  ``göndermedim``/``göndermiyorum``; not ``göndermedim``/``göndermedin``);
  never a positive form against a negative one
  (``bulundu`` is not ``bulunamadı``), and positive forms are not unified across tenses
  ("kaydedildi", saved, is not "kaydedilmiş", a participle);
* Turkish vowel drop: ``şehir`` matches ``şehri``, ``şehrin`` (the last vowel of the value
  word falls out before a vowel-initial case or possessive ending).

Everything else stays exact: tool names, categories, call order and argument keys never go
through this module (methodology §3.1).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._snowball import stem_words

#: folded tense/aspect endings (``ı`` folds to ``i``, ``ü`` to ``u``), longest first
_TENSES = ("iyor", "uyor", "di", "du", "ti", "tu")
#: person endings (folded), longest first, each with its person: the past and the present
#: spell one person differently (``göndermedim``/``göndermiyorum``: -m/-um, both "I")
_PERSONS = (
    ("", "3sg"),
    ("lar", "3pl"),
    ("ler", "3pl"),
    ("siniz", "2pl"),
    ("sunuz", "2pl"),
    ("niz", "2pl"),
    ("nuz", "2pl"),
    ("sin", "2sg"),
    ("sun", "2sg"),
    ("im", "1sg"),
    ("um", "1sg"),
    ("iz", "1pl"),
    ("uz", "1pl"),
    ("m", "1sg"),
    ("n", "2sg"),
    ("k", "1pl"),
    ("z", "1pl"),
)
_YOR = ("iyor", "uyor")
_MIN_ROOT = 4
#: vowel-initial endings after a dropped vowel (folded): case, possessive, plural person
_AFTER_DROP = re.compile(r"^[iuea](?:m|n|miz|niz|nin|nun|ne|na|nde|nda|nden|ndan|yle)?$")
_CONSONANT = re.compile(r"[^aeiou\d_]")


@lru_cache(maxsize=4096)
def _stems(word: str) -> frozenset[str]:
    out = {stem_words([word], "english")[0], stem_words([word], "turkish")[0]}
    verb = _verb_root(word)
    if verb:
        out.add("v:" + verb)
    return frozenset(s for s in out if s)


def _verb_root(word: str) -> str | None:
    """``root|person`` of a negative Turkish verb form (``-ma``/``-me``, ``-ama``/``-eme``),
    tense removed; None for anything else. Positive forms are not unified across tenses:
    "was saved" and "will be saved" make different claims."""
    for tense in _TENSES:
        for ending, person in _PERSONS:
            end = tense + ending
            if not word.endswith(end) or len(word) - len(end) < _MIN_ROOT:
                continue
            root = word[: len(word) - len(end)]
            if tense not in _YOR and root[-1] in "ae":
                root = root[:-1]  # bulunama|dı ~ bulunam|ıyor: -iyor swallows the vowel
            return f"{root}|{person}" if root.endswith("m") else None
    return None


def _vowel_drop(value: str, word: str) -> bool:
    if len(value) < 4 or value[-2] not in "iu" or not _CONSONANT.match(value[-1]):
        return False
    if not _CONSONANT.match(value[-3]):
        return False
    dropped = value[:-2] + value[-1]
    return word.startswith(dropped) and bool(_AFTER_DROP.match(word[len(dropped) :]))


def same_word(value: str, word: str) -> bool:
    """Whether the response ``word`` is a form of the value word (both folded)."""
    if word == value or word.startswith(value):
        return True
    if value.isdigit() or word.isdigit():
        return False
    return bool(_stems(value) & _stems(word)) or _vowel_drop(value, word)


_WORD = re.compile(r"\w+")


def find_words(text: str, value: str) -> list[tuple[int, int]]:
    """(start, end) in ``text`` of each run of words that matches the words of ``value``."""
    wanted = _WORD.findall(value)
    if not wanted:
        return []
    words = list(_WORD.finditer(text))
    out: list[tuple[int, int]] = []
    for i in range(len(words) - len(wanted) + 1):
        if all(same_word(v, words[i + j].group(0)) for j, v in enumerate(wanted)):
            out.append((words[i].start(), words[i + len(wanted) - 1].end()))
    return out
