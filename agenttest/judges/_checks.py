"""What a sentence says that an embedding cannot see: names, negation, antonyms, yes/no.

The readers the aligned-pair checks (``_pairs``) and the procedures use; nothing here
compares whole texts (the old whole-text checks and their combiner are gone: every
request goes through a typed procedure, docs/judges.md "One path").

* entities: capitalised words that do not start a sentence, quoted spans and code-like
  tokens (paths, file names, identifiers). Compared by Turkish-aware :func:`match_key` as
  word prefixes, so Turkish case suffixes ("Ankara'da", "İstanbul'dur") still match.
* negation cues: English words and n't; Turkish değil/yok/hiç/asla and the verb negation
  morpheme -me/-ma in its common tense forms (-miyor, -mez, -medi, -meyecek, -memiş...).
* antonym pairs (open/closed, increase/decrease, açık/kapalı...).
* a leading yes/no (evet/hayır).
"""

from __future__ import annotations

import re

from agenttest.text import (
    looks_turkish,
    match_key,
    normalise,
    tr_casefold,
    words,
)

# All cue patterns run on match_key() text: Turkish-casefolded with ı folded onto i.
# "without" (and Turkish -meden/-madan) is left out: "ran without errors" is a common
# positive phrasing, so counting it flagged more paraphrases than it caught flips.
_NEG_WORDS_EN = r"not|no|never|none|nothing|nobody|neither|nor|cannot|nowhere"
_NEG_WORDS_TR = r"değil\w*|yok|yoktur|yoktu|yokmuş|hiç|hiçbir\w*|asla"
_NEG_RE = re.compile(rf"\b(?:{_NEG_WORDS_EN}|{_NEG_WORDS_TR})\b|\w+n't\b")
# Turkish verb negation -me/-ma in its common tense forms, matched per word. The forms
# in _SAFE never occur in English words; the _RISKY ones do ("immediately" reads as
# gel-me-di, "amazing" as -amaz), so they only count in Turkish-looking text.
_NEG_SUFFIX_SAFE = re.compile(
    r"\w{2,}?(?:m[iuü]yor|m[ae]y[ae]c[ae]k|m[ae]m[iuü]ş|m[ae]m[ae]li|m[ae]m[ae]k)\w*"
)
_NEG_SUFFIX_RISKY = re.compile(
    r"\w{2,}?(?:m[ae]z|m[ae]d[iuü]|m[ae]y[ae]n|[ae]m[ae][mzd]|[ae]m[ae]y)\w*"
)
# Antonym pairs as word-stem regexes: one side in the reference and the other in the
# candidate flips the polarity once, like a negation would (so "failed" vs "did not
# succeed" comes out consistent: one flip plus one negation).
_ANTONYMS: list[tuple[str, str]] = [
    (r"open(?:s|ed)?", r"clos(?:e|es|ed)"),
    (r"up", r"down"),
    (r"increas\w*", r"decreas\w*"),
    (r"ris(?:e|es|en|ing)|rose", r"f(?:all|alls|ell|allen|alling)"),
    (r"succe\w*", r"fail\w*"),
    (r"pass(?:ed|es)?", r"fail(?:ed|s)?"),
    (r"add(?:s|ed)?", r"remov\w*|delet\w*"),
    (r"enabl\w*", r"disabl\w*"),
    (r"install(?:s|ed)?", r"uninstall\w*|missing"),
    (r"allow\w*", r"den(?:y|ies|ied)|forbid\w*|block\w*"),
    (r"accept\w*", r"reject\w*"),
    (r"start(?:s|ed)?", r"stop(?:s|ped)?"),
    (r"online", r"offline"),
    (r"valid", r"invalid"),
    (r"correct", r"incorrect|wrong"),
    (r"true", r"false"),
    (r"before", r"after"),
    (r"north\w*", r"south\w*"),
    (r"east\w*", r"west\w*"),
    (r"left", r"right"),
    (r"morning", r"evening|night"),
    (r"faster|quicker", r"slower"),
    (r"higher|more|larger|bigger", r"lower|less|fewer|smaller"),
    (r"minimum|min", r"maximum|max"),
    (r"first", r"last"),
    (r"green", r"red"),
    (r"safe", r"unsafe|dangerous"),
    (r"public", r"private"),
    (r"inside|internal", r"outside|external"),
    (r"açik\w*|açil\w*", r"kapali\w*|kapan\w*"),
    (r"art(?:ti|iş)\w*", r"azal\w*"),
    (r"başarili\w*", r"başarisiz\w*"),
    (r"yukari\w*", r"aşaği\w*"),
    (r"hizli\w*", r"yavaş\w*"),
    (r"kuzey\w*", r"güney\w*"),
    (r"doğru\w*", r"yanliş\w*"),
    (r"eklen\w*|ekledi\w*", r"kaldiril\w*|silin\w*"),
]
_ANTONYM_RES = [(re.compile(rf"\b(?:{a})\b"), re.compile(rf"\b(?:{b})\b")) for a, b in _ANTONYMS]
_YES_NO_RE = re.compile(r"^\W*(yes|no|yeah|nope|evet|hayir)\b")
_YES = frozenset({"yes", "yeah", "evet"})

_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;]\s+|\n)\W*$")
_CAP_RE = re.compile(r"(?<![\w'])[A-ZÇĞİÖŞÜ][\w-]*")
_QUOTED_RE = re.compile(r"(?<!\w)['\"]([^'\"\n]{2,60})['\"](?!\w)")
_CODE_RE = re.compile(r"(?<![\w/])(?=[\w./-]*[A-Za-z])[\w-]*(?:[./_][\w-]+)+/?")
_NOT_ENTITIES = words(
    "i i'm i've i'd i'll ok yes no sorry please thanks mr mrs ms dr january february march "
    "april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday"
)


def reference_entities(reference: str) -> list[str]:
    """Names, quoted spans and code-like tokens the candidate is expected to repeat."""
    text = normalise(reference)
    found: list[str] = [m.group(1).strip() for m in _QUOTED_RE.finditer(text)]
    found += [m.group(0).strip("./-") for m in _CODE_RE.finditer(text)]
    for m in _CAP_RE.finditer(text):
        word = m.group(0).split("'")[0]
        if _SENTENCE_START_RE.search(text[: m.start()]) or tr_casefold(word) in _NOT_ENTITIES:
            continue
        found.append(word)
    unique: dict[str, str] = {}
    for entity in found:
        key = match_key(entity)
        if len(key) >= 2 and not key.replace(".", "").replace(",", "").isdigit():
            unique.setdefault(key, entity)
    return list(unique.values())


def _contains(haystack_key: str, entity: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(match_key(entity))}", haystack_key) is not None


def negation_cues(text: str) -> list[str]:
    """Negation cues in ``text`` (without a leading yes/no answer particle)."""
    key = _YES_NO_RE.sub(" ", match_key(text), count=1)
    cues = [m.group(0) for m in _NEG_RE.finditer(key)]
    turkish = looks_turkish(text)
    for word in re.findall(r"\w+", key):
        if _NEG_SUFFIX_SAFE.fullmatch(word) or (turkish and _NEG_SUFFIX_RISKY.fullmatch(word)):
            cues.append(word)
    return cues


def antonym_flips(reference: str, candidate: str) -> list[str]:
    """Antonym pairs split between the texts ("open" in one, "closed" in the other)."""
    ref, cand = match_key(reference), match_key(candidate)
    flips: list[str] = []
    for left, right in _ANTONYM_RES:
        for one, other in ((left, right), (right, left)):
            a, b = one.search(ref), other.search(cand)
            if a and b and not one.search(cand) and not other.search(ref):
                flips.append(f"{a.group(0)}/{b.group(0)}")
    return flips


def _yes_no(text: str) -> str | None:
    m = _YES_NO_RE.match(match_key(text))
    if m is None:
        return None
    return "yes" if m.group(1) in _YES else "no"
