"""Checks run on one aligned pair: a reference claim and the reply sentence it matched.

Only aligned pairs are compared, so a fact is never held against a sentence about
something else. Each check returns a reason when the pair contradicts, else None:

* numbers and dates (``_numbers``, i.e. the grader's shared reader: any grouping, versions such as ``v0.16.2``, dates in
  English and Turkish forms): the reply states a value the claim does not, *and* a value
  of the claim is missing. A reply that leaves out values the claim restates ("541,171"
  for "1847 x 293 = 541,171") is not penalised; values from the tool results count as
  stated.
* entities: a name of the claim is missing from the reply sentence and the sentence names
  another one the *claim* does not (a swap), even when the rest of the reference mentions
  the new name. A sentence's leading capitalised word counts as a name unless it is a
  stop word or a common opener ("Venus is the closest planet" swaps "Mercury").
* subject: the claim speaks of the user ("your birthday") and the sentence, no longer
  speaking of the user, names someone else (a public person instead of "you").
* polarity: clause by clause; a reply clause is compared with the claim clause sharing
  most of its content words, and a conflict is one negated and the other not, or an
  antonym pair between them (open/closed), not both. Negation is a property of the clause
  (any negation cue), never a count over the text.
* yes/no: a leading answer particle of the claim and of the reply sentence differ.
"""

from __future__ import annotations

import re

from agenttest.judges._checks import (
    _contains,
    _yes_no,
    antonym_flips,
    negation_cues,
    reference_entities,
)
from agenttest.judges._claims import content_stems, split_clauses, split_sentences
from agenttest.text import Mention, dates_agree, match_key, mentions, numbers_agree, words

#: Share of the smaller clause's content stems two clauses must share to be compared.
CLAUSE_OVERLAP = 0.5


def _conflict(kind: str, ref: list[Mention], got: list[Mention], allowed: list[Mention],
              same: object) -> str | None:  # fmt: skip
    assert callable(same)
    extra = [g for g in got if not any(same(g, r) for r in ref + allowed)]
    lost = [r for r in ref if not any(same(r, g) for g in got)]
    if extra and lost:
        want = ", ".join(m.text for m in lost)
        have = ", ".join(m.text for m in extra)
        return f"{kind}: the reference says {want}, the reply {have}"
    return None


# Shown working: operands joined by operators and ending in "= result" ("1850 × 18 / 100 =
# 333", "$1850 \\times 0.18 = 333$"). Only the result is a figure the reply states.
_NUM = r"\d[\d.,]*"
_OP = r"\s*(?:[×x*·/÷+\-−]|\\times|\\cdot|\\div)\s*"
_WORKING_RE = re.compile(rf"\$?\(?{_NUM}\)?(?:{_OP}\(?{_NUM}\)?)+\s*=\s*\$?\s*(?={_NUM})")
# A claim that states a computation ("1850 times 0.18 is 333"): its last figure is the
# answer, the others are operands a reply may leave out or count in words ("the two
# numbers", "iki sayının").
_ARITHMETIC_RE = re.compile(r"[×*÷=+]|\b(?:times|multiplied|divided|plus|çarpi|bölü|arti)\b")


def stated(text: str) -> str:
    """``text`` with shown working reduced to its result."""
    return _WORKING_RE.sub("", text)


def _result(claim: str) -> Mention | None:
    """The result of a claim that states a computation (its last figure), else None."""
    figures = mentions(claim)[1]
    if not figures or not _ARITHMETIC_RE.search(match_key(claim)):
        return None
    return max(figures, key=lambda m: claim.rfind(m.text))


def _gives_result(claim: str, sentence: str) -> bool:
    """The claim is a computation and the sentence states its result."""
    result = _result(claim)
    return result is not None and any(numbers_agree(result, g) for g in mentions(sentence)[1])


def only_operands(claim: str, reply: str) -> bool:
    """The claim is a computation and the reply states some of its operands, no other
    figure and not its result: the question restated, no answer."""
    result = _result(claim)
    got = mentions(stated(reply))[1]
    if result is None or not got:
        return False
    operands = [m for m in mentions(claim)[1] if m is not result]
    return all(any(numbers_agree(g, o) for o in operands) for g in got) and not any(
        numbers_agree(g, result) for g in got
    )


def value_conflict(claim: str, sentence: str, tool_text: str = "") -> str | None:
    sentence = stated(sentence)
    ref_dates, ref_nums = mentions(claim)
    got_dates, got_nums = mentions(sentence)
    if _gives_result(claim, sentence):
        ref_nums = got_nums = []
    tool_dates, tool_nums = mentions(tool_text) if tool_text else ([], [])
    return _conflict("date", ref_dates, got_dates, tool_dates, dates_agree) or _conflict(
        "number", ref_nums, got_nums, tool_nums, numbers_agree
    )


# A word that starts many sentences and is no name.
_NOT_LEADING_NAMES = words(
    "yes no sure sorry today okay ok well here there hi hello unfortunately actually please "
    "evet hayır tamam maalesef üzgünüm bugün şu an lütfen"
)
_LEADING_RE = re.compile(r"^\W*([A-ZÇĞİÖŞÜ][\w-]+(?:\s+[A-ZÇĞİÖŞÜ][\w-]+)*)(['’]s)?\s+(\w+)")
# After a name comes its verb; after an imperative ("Restart the router"), not.
_NAME_VERBS = words("is was are were has had will would wrote won lives born became")
_SECOND_PERSON_RE = re.compile(r"\b(?:you|your|yours|yourself|sen|senin|siz|sizin|size|sana)\b")


def leading_name(sentence: str) -> str | None:
    """The capitalised words a sentence starts with, when they read as a name: followed by
    a possessive ("Elon Musk's meeting") or by their verb ("Mercury is the closest
    planet"); never a stop word or a common opener. (A Turkish verb comes last: Turkish
    sentences give no leading name.)"""
    found = _LEADING_RE.match(sentence)
    if found is None:
        return None
    name = found.group(1)
    first = match_key(name.split()[0])
    if first in _NOT_LEADING_NAMES or not content_stems(first):
        return None
    if not found.group(2) and match_key(found.group(3)) not in _NAME_VERBS:
        return None
    return name


def names_in(text: str) -> list[str]:
    """The names of ``text``: its entities and each sentence's leading name."""
    lead = [n for s in split_sentences(text) if (n := leading_name(s))]
    return reference_entities(text) + lead


def entity_conflict(claim: str, sentence: str) -> str | None:
    names = names_in(claim)
    if not names:
        return None
    sentence_key, claim_key = match_key(sentence), match_key(claim)
    missing = [n for n in names if not _contains(sentence_key, n)]
    new = [n for n in names_in(sentence) if not _contains(claim_key, n)]
    if missing and new:
        return f"entity: the reference says {', '.join(missing)}, the reply {', '.join(new)}"
    return None


def negated(clause: str) -> bool:
    """A clause is negative when it holds a negation cue (a leading yes/no does not count)."""
    return bool(negation_cues(clause))


def _shared(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def polarity_conflict(claim: str, sentence: str) -> str | None:
    ref_clauses = [(c, content_stems(c)) for c in split_clauses(claim)]
    for clause in split_clauses(sentence):
        stems = content_stems(clause)
        scored = [(_shared(stems, s), c) for c, s in ref_clauses]
        if not scored:
            return None
        best, ref_clause = max(scored, key=lambda x: x[0])
        if best < CLAUSE_OVERLAP:
            continue
        # an antonym ("open" / "closed") flips the clause like a "not" does, so "failed"
        # and "did not succeed" agree
        flips = antonym_flips(ref_clause, clause)
        if (negated(ref_clause) != negated(clause)) != bool(flips):
            if flips and negated(ref_clause) == negated(clause):
                return f"polarity: {', '.join(flips)} in {ref_clause!r} / {clause!r}"
            side = "reference" if negated(ref_clause) else "reply"
            return f"polarity: only the {side} negates {ref_clause!r} / {clause!r}"
    return None


def subject_conflict(claim: str, sentence: str) -> str | None:
    """The claim is about the user ("your birthday") and the sentence, no longer speaking
    of the user, names someone or something the claim does not: the subject was swapped."""
    if not _SECOND_PERSON_RE.search(match_key(claim)) or _SECOND_PERSON_RE.search(
        match_key(sentence)
    ):
        return None
    claim_key = match_key(claim)
    new = [n for n in names_in(sentence) if not _contains(claim_key, n)]
    if new:
        return f"subject: the reference is about you, the reply about {', '.join(new)}"
    return None


def yes_no_conflict(claim: str, sentence: str) -> str | None:
    a, b = _yes_no(claim), _yes_no(sentence)
    if a and b and a != b:
        return f"yes/no: the reference says {a}, the reply {b}"
    return None


def pair_conflicts(
    claim: str, sentence: str, tool_text: str = "", *, names: bool = True
) -> list[str]:
    """Every contradiction between an aligned claim and reply sentence (``names``: also
    the entity check)."""
    found = (
        value_conflict(claim, sentence, tool_text),
        entity_conflict(claim, sentence) if names else None,
        subject_conflict(claim, sentence) if names else None,
        polarity_conflict(claim, sentence),
        yes_no_conflict(claim, sentence),
    )
    return [f for f in found if f]


def values_agree(reference: str, reply: str, tool_text: str = "") -> bool:
    """The reply states figures, each one the reference's (or the tools'), and at least one
    of the reference's: its answer is the reference's answer whatever the wording."""
    if any(_gives_result(c, reply) for c in split_sentences(reference)):
        return True
    ref_dates, ref_nums = mentions(reference)
    got_dates, got_nums = mentions(stated(reply))
    tool_dates, tool_nums = mentions(tool_text) if tool_text else ([], [])
    if not (got_dates or got_nums) or not (ref_dates or ref_nums):
        return False
    known_nums, known_dates = ref_nums + tool_nums, ref_dates + tool_dates
    if any(not any(numbers_agree(g, k) for k in known_nums) for g in got_nums):
        return False
    if any(not any(dates_agree(g, k) for k in known_dates) for g in got_dates):
        return False
    return any(numbers_agree(r, g) for r in ref_nums for g in got_nums) or any(
        dates_agree(r, g) for r in ref_dates for g in got_dates
    )
