"""Deterministic checks that sentence embeddings cannot see.

Two answers can be 0.9 cosine-similar and still disagree on the one fact that matters: a
number, a date, a name, a "not", or whether the agent answered at all. Each check compares
the candidate with the reference and reports ``ok``, ``fail`` (a hard contradiction),
``warn`` (something is missing, a soft signal) or ``n/a``.

Heuristics, and their known limits (see docs/judges.md):

* numbers/dates: see ``_numbers``; every reference value must appear in the candidate. A
  reference value that is absent while the candidate states a different value -> ``fail``;
  absent with nothing in its place -> ``warn``. Numbers the reference lacks are allowed.
* entities: capitalised words that do not start a sentence, quoted spans and code-like
  tokens (paths, file names, identifiers) of the reference; a sentence-initial name is
  missed. Compared by Turkish-aware :func:`match_key` as word prefixes, so Turkish case
  suffixes ("Ankara'da", "İstanbul'dur") still match.
* negation: parity of negation cues (English words and n't; Turkish değil/yok/hiç/asla and
  the verb negation morpheme -me/-ma in its common tense forms: -miyor, -mez, -medi,
  -meyecek, -memiş, -meli, -meden, -emem...). Parity means a double negation cancels out.
  A leading yes/no (evet/hayır) is compared on its own. Limit: a paraphrase that swaps a
  word for a negated antonym ("failed" vs "did not succeed") is flagged as a mismatch,
  and a bare Turkish verb stem ending in -me (a noun like "gelme") may be missed.
* refusal: first-person inability/apology phrases in English and Turkish (I can't, I'm
  unable, as an AI, yapamam, üzgünüm, maalesef, yardımcı olamam...). A refusal where the
  reference answers, or an answer where the reference refuses, is a ``fail``; when both
  refuse the negation check is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from agenttest.text import (
    Mention,
    dates_agree,
    looks_turkish,
    match_key,
    mentions,
    normalise,
    numbers_agree,
    tr_casefold,
    words,
)

Status = Literal["ok", "fail", "warn", "n/a"]

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

_REFUSAL_RE = re.compile(
    r"\bi(?:'m| am) (?:sorry|unable|not able|afraid)\b"
    r"|\bi (?:can't|cannot|can not|won't|will not|must decline|must refuse|am not allowed)\b"
    r"|\bi (?:don't|do not) (?:have access|know)\b|\bas an ai\b"
    r"|\b(?:sorry|unfortunately),? (?:but )?i\b|\bunable to (?:help|assist|answer|provide)\b"
    r"|\büzgünüm\b|\bmaalesef\b|\byardimci olam\w*|\bbilmiyorum\b"
    r"|\b\w{2,}[ae]m[ae]m\b|\b\w+[ae]miyorum\b"
)

_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;]\s+|\n)\W*$")
_CAP_RE = re.compile(r"(?<![\w'])[A-ZÇĞİÖŞÜ][\w-]*")
_QUOTED_RE = re.compile(r"(?<!\w)['\"]([^'\"\n]{2,60})['\"](?!\w)")
_CODE_RE = re.compile(r"(?<![\w/])(?=[\w./-]*[A-Za-z])[\w-]*(?:[./_][\w-]+)+/?")
_NOT_ENTITIES = words(
    "i i'm i've i'd i'll ok yes no sorry please thanks mr mrs ms dr january february march "
    "april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday"
)


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: Status
    detail: str


@dataclass(frozen=True)
class CheckReport:
    checks: tuple[CheckResult, ...]
    features: dict[str, float] = field(default_factory=dict)

    @property
    def hard_failures(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == "fail"]

    def summary(self) -> str:
        return "; ".join(f"{c.name}: {c.status} ({c.detail})" for c in self.checks)


def _compare(
    name: str, ref: list[Mention], cand: list[Mention], same: object
) -> tuple[CheckResult, bool, bool]:
    """Generic 'every reference value must appear' rule; returns (result, wrong, missing)."""
    assert callable(same)
    if not ref:
        return CheckResult(name, "n/a", "reference states none"), False, False
    lost = [r for r in ref if not any(same(r, c) for c in cand)]
    extra = [c for c in cand if not any(same(c, r) for r in ref)]
    if not lost:
        return CheckResult(name, "ok", f"{len(ref)} matched"), False, False
    lost_text = ", ".join(m.text.strip() for m in lost)
    if extra:
        extra_text = ", ".join(m.text.strip() for m in extra)
        return CheckResult(name, "fail", f"expected {lost_text}, got {extra_text}"), True, False
    return CheckResult(name, "warn", f"missing {lost_text}"), False, True


def check_facts(reference: str, candidate: str) -> tuple[list[CheckResult], dict[str, float]]:
    """Dates, then numbers (dates are cut out before numbers are read)."""
    ref_dates, ref_nums = mentions(reference)
    cand_dates, cand_nums = mentions(candidate)
    dates, wrong_d, missing_d = _compare("dates", ref_dates, cand_dates, dates_agree)
    nums, wrong_n, missing_n = _compare("numbers", ref_nums, cand_nums, numbers_agree)
    features = {
        "wrong_number": float(wrong_n),
        "missing_number": float(missing_n),
        "wrong_date": float(wrong_d),
        "missing_date": float(missing_d),
    }
    return [nums, dates], features


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


def check_entities(reference: str, candidate: str) -> tuple[CheckResult, dict[str, float]]:
    entities = reference_entities(reference)
    if not entities:
        return CheckResult("entities", "n/a", "reference names none"), {
            "entity_missing": 0.0,
            "entity_swap": 0.0,
        }
    cand_key = match_key(candidate)
    missing = [e for e in entities if not _contains(cand_key, e)]
    ref_key = match_key(reference)
    new = [e for e in reference_entities(candidate) if not _contains(ref_key, e)]
    features = {
        "entity_missing": len(missing) / len(entities),
        "entity_swap": float(bool(missing) and bool(new)),
    }
    if not missing:
        return CheckResult("entities", "ok", f"{len(entities)} present"), features
    detail = "missing " + ", ".join(missing) + (f"; new {', '.join(new)}" if new else "")
    return CheckResult("entities", "warn", detail), features


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


def is_refusal(text: str) -> bool:
    """Does the text decline to answer (English or Turkish first-person refusal)?"""
    return _REFUSAL_RE.search(match_key(text)) is not None


def check_refusal(reference: str, candidate: str) -> CheckResult:
    ref, cand = is_refusal(reference), is_refusal(candidate)
    if ref == cand:
        return CheckResult("refusal", "ok", "both refuse" if ref else "both answer")
    if cand:
        return CheckResult("refusal", "fail", "candidate refuses; the reference answers")
    return CheckResult("refusal", "fail", "candidate answers; the reference refuses")


def check_negation(reference: str, candidate: str) -> CheckResult:
    ref_answer, cand_answer = _yes_no(reference), _yes_no(candidate)
    if ref_answer and cand_answer and ref_answer != cand_answer:
        return CheckResult(
            "polarity", "fail", f"reference says {ref_answer}, candidate {cand_answer}"
        )
    ref_cues, cand_cues = negation_cues(reference), negation_cues(candidate)
    flips = antonym_flips(reference, candidate)
    detail = f"negations {ref_cues or 'none'} vs {cand_cues or 'none'}"
    if flips:
        detail += f", antonyms {flips}"
    if (len(ref_cues) + len(cand_cues) + len(flips)) % 2 == 0:
        return CheckResult("polarity", "ok", detail)
    return CheckResult("polarity", "fail", detail)


def run_checks(reference: str, candidate: str) -> CheckReport:
    """All checks; ``features`` feeds the combiner in ``_openvino_judge``."""
    fact_checks, features = check_facts(reference, candidate)
    entities, entity_features = check_entities(reference, candidate)
    refusal = check_refusal(reference, candidate)
    both_refuse = refusal.status == "ok" and is_refusal(reference)
    negation = (
        CheckResult("polarity", "n/a", "both refuse")
        if both_refuse or refusal.status == "fail"
        else check_negation(reference, candidate)
    )
    features.update(entity_features)
    features["polarity_mismatch"] = float(negation.status == "fail")
    features["refusal_mismatch"] = float(refusal.status == "fail")
    features["both_refuse"] = float(both_refuse)
    features["turkish"] = float(looks_turkish(reference) or looks_turkish(candidate))
    checks = (*fact_checks, entities, negation, refusal)
    return CheckReport(checks=checks, features=features)
