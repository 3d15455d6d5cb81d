"""The decision procedure of each kind of JUDGE criterion (``asks: act|covers|consistent``).

Every procedure reads claims, not whole texts (``_claims``), aligns them with MiniLM
(each reference claim with its best reply sentence), runs the deterministic checks of
``_pairs`` only inside aligned pairs, and returns PASS, FAIL or ``UNDECIDED`` with the
reason. UNDECIDED is the honest answer when the evidence is weak (a reply in another
language than the reference, a cue and the example vote disagreeing, items neither
clearly covered nor clearly missing); the criterion then stays ungraded for a human.

The thresholds below were set on the ``tune`` part of the calibration data and frozen
before its held-out part was scored (docs/judges.md, "Calibration").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agenttest.judges import _acts
from agenttest.judges._base import JudgeVerdict
from agenttest.judges._checks import negation_cues
from agenttest.judges._claims import (
    content_stems,
    overlap,
    split_clauses,
    split_items,
    split_sentences,
)
from agenttest.judges._pairs import (
    names_in,
    only_operands,
    pair_conflicts,
    values_agree,
    yes_no_conflict,
)
from agenttest.text import looks_turkish, match_key, mentions

if TYPE_CHECKING:
    import numpy as np

    Vec = Callable[[str], np.ndarray]

#: A claim and a reply sentence are *aligned* at this cosine, or at this content overlap.
ALIGN_COSINE = 0.45
ALIGN_OVERLAP = 0.5
#: An item is covered (strong) / possibly covered (weak) at these cosines or overlaps.
COVER_STRONG, COVER_WEAK = 0.62, 0.45
OVERLAP_STRONG, OVERLAP_WEAK = 0.67, 0.34
#: The example vote decides alone only with this margin over the runner-up act.
VOTE_MARGIN = 0.05
#: A consistent reply must align with the reference's main claim this well (no yes/no).
SUPPORT_COSINE = 0.6
#: Below this best cosine and content overlap, and with no shared figure, an English reply
#: is about something else: off topic (the old paraphrase set's off-topic pairs reach
#: 0.08, its PASS pairs start at 0.53).
OFF_TOPIC_COSINE, OFF_TOPIC_OVERLAP = 0.3, 0.2
#: A reply sentence is about a claim (no model) when it holds this share of the content
#: stems of one of the claim's clauses ("know your name" / "Your name is ...": 1 of 3).
CLOSE_OVERLAP = 0.3
#: The speaker does not know: no answer where the reference gives one.
NOT_KNOWN_CUES: tuple[str, ...] = (
    "i do not know", "i am not sure", "no idea", "bilmiyorum", "emin değilim",
    "fikrim yok", "bilgim yok",
)  # fmt: skip


@dataclass(frozen=True)
class Decision:
    verdict: JudgeVerdict
    score: float
    reason: str


def _cos(vec: Vec, a: str, b: str) -> float:
    return float(vec(a) @ vec(b))


def _best(vec: Vec, claim: str, sentences: Sequence[str]) -> tuple[str, float]:
    scored = [(s, _cos(vec, claim, s)) for s in sentences]
    return max(scored, key=lambda x: x[1]) if scored else ("", 0.0)


def _aligned(vec: Vec, claim: str, sentences: Sequence[str]) -> list[str]:
    """Reply sentences aligned with ``claim``: the best one if it clears a threshold,
    plus any other that shares most of the claim's content words."""
    best, cosine = _best(vec, claim, sentences)
    out = (
        [best] if best and (cosine >= ALIGN_COSINE or overlap(claim, best) >= ALIGN_OVERLAP) else []
    )
    out += [s for s in sentences if s not in out and overlap(claim, s) >= ALIGN_OVERLAP]
    return out


def texts_to_embed(kind: str, reference: str, reply: str, tool_text: str) -> list[str]:
    """Every text a procedure will look up, so the judge can embed them in one batch."""
    texts = split_sentences(reply)
    if kind == "covers":
        texts += split_items(reference)
    elif kind == "consistent":
        texts += split_sentences(reference)
    elif kind == "act":
        texts += [e for examples in _acts.EXAMPLES.values() for e in examples]
    return texts


# ---------------------------------------------------------------------------- act


def _vote(vec: Vec, sentences: Sequence[str]) -> tuple[str, float, dict[str, float]]:
    scores: dict[str, float] = {}
    for act, examples in _acts.EXAMPLES.items():
        per_sentence = []
        for s in sentences:
            sims = sorted((_cos(vec, s, e) for e in examples), reverse=True)
            per_sentence.append(sum(sims[:2]) / 2)
        scores[act] = max(per_sentence) if per_sentence else 0.0
    ranked = sorted(scores.items(), key=lambda x: x[1], reverse=True)
    return ranked[0][0], ranked[0][1] - ranked[1][1], scores


def _reply_act(vec: Vec, reply: str) -> tuple[str | None, str]:
    """What the reply does, read from its grammar first: a refusal phrase ("could not",
    "unable to", yapamam) and no question declines, wherever a reason stands; a question
    (or a request for information) and no refusal asks; an assertion with neither
    complies. Only a reply with both, or a question without a question word, goes to the
    example vote (English only: the model's vote is no evidence on Turkish)."""
    declined, asked = _acts.decline_cues(reply), _acts.ask_cues(reply)
    if declined and not asked:
        return "declines", f"grammar: a refusal ({', '.join(declined)}), no question"
    if asked and not declined:
        return "asks_clarification", f"grammar: asks ({', '.join(asked)}), no refusal"
    if not declined and "?" not in reply:
        return "complies", "grammar: an assertion, with no refusal and no question"
    fired = f"refusal {declined or 'none'}, question {asked or 'a question mark'}"
    if looks_turkish(reply):
        return None, f"{fired}: the grammar is mixed (Turkish: no example vote)"
    candidates = {"declines", "asks_clarification"} if declined else set(_acts.EXAMPLES)
    voted, margin, _ = _vote(vec, split_sentences(reply))
    seen = f"{fired}; example vote {voted} (margin {margin:.2f})"
    if voted in candidates and margin >= VOTE_MARGIN:
        return voted, f"mixed grammar, the examples decide: {seen}"
    return None, f"mixed grammar and no clear vote: {seen}"


def _reference_act(reference: str) -> str | None:
    if not reference.strip():
        return None
    if _acts.is_description(reference):
        return _acts.described_act(reference)
    cue, _ = _acts.cue_act(reference)
    if cue == "declines" and _acts.gives_reason(reference):
        return "refuses_with_reason"
    return cue


def decide_act(vec: Vec, expected: str, reference: str, reply: str) -> Decision:
    ref_act = _reference_act(reference)
    declining = {"declines", "refuses_with_reason"}
    if ref_act and ref_act != expected and not {ref_act, expected} <= declining:
        return Decision(
            "ERROR",
            0.0,
            f"the criterion asks for act {expected} but its reference reads as {ref_act}",
        )
    got, seen = _reply_act(vec, reply)
    if got is None:
        return Decision("UNDECIDED", 0.5, seen)
    reason = _acts.gives_reason(reply)
    if expected == "refuses_with_reason" and got == "declines" and not reason:
        if len(split_sentences(reply)) > 1:
            return Decision("UNDECIDED", 0.5, f"declines; no reason cue in a longer reply; {seen}")
        return Decision("FAIL", 0.2, f"declines without saying why; {seen}")
    ok = _acts.satisfies(expected, got, bool(reason))  # type: ignore[arg-type]
    what = f"reply {got}" + (f" (reason: {', '.join(reason)})" if reason else "")
    return Decision(
        "PASS" if ok else "FAIL", 0.9 if ok else 0.1, f"{what}; wanted {expected}; {seen}"
    )


# ---------------------------------------------------------------------------- covers


def decide_covers(vec: Vec, reference: str, reply: str, need: int | None) -> Decision:
    items = split_items(reference)
    # Only what the reply states covers an item: a sentence that asks or requests (the
    # request echoed back, "Summarise: A, B and C.") states none of them.
    sentences = [s for s in split_sentences(reply) if not _acts.is_request(s)]
    stated = "\n".join(sentences)
    if len(items) < 2:
        return Decision("ERROR", 0.0, "a covers criterion needs a reference that lists items")
    want = need if need is not None else math.ceil(len(items) / 2)
    strong, weak, wrong = [], [], []
    for item in items:
        best, cosine = _best(vec, item, sentences)
        share = overlap(item, stated)
        # Only a sentence clearly about the item can contradict it: a summary's other
        # sentences mention other versions and names. Names are not compared (a sentence
        # naming other things is about another item).
        if cosine >= COVER_STRONG:
            wrong += [f"{item!r}: {c}" for c in pair_conflicts(item, best, names=False)]
        if cosine >= COVER_STRONG or share >= OVERLAP_STRONG:
            strong.append(item)
        elif cosine >= COVER_WEAK or share >= OVERLAP_WEAK:
            weak.append(item)
    tally = f"{len(strong)} of {len(items)} items covered, {len(weak)} possibly; need {want}"
    if wrong:
        return Decision("FAIL", 0.1, f"{tally}; contradicted: {'; '.join(wrong[:3])}")
    if len(strong) >= want:
        return Decision("PASS", min(1.0, 0.5 + len(strong) / (2 * len(items))), tally)
    if len(strong) + len(weak) < want:
        return Decision("FAIL", len(strong) / (2 * len(items)), tally)
    return Decision("UNDECIDED", 0.5, f"{tally}: too few clearly covered to decide")


# ---------------------------------------------------------------------------- consistent


def _unknown(claim: str) -> bool:
    """The claim says something is not known or not there, and states no value itself."""
    dates, numbers = mentions(claim)
    return bool(negation_cues(claim)) and not (dates or numbers)


def _close(claim: str, sentence: str) -> bool:
    """The sentence shares content with one of the claim's clauses (no model: Turkish too)."""
    return max(overlap(c, sentence) for c in split_clauses(claim) or [claim]) >= CLOSE_OVERLAP


def _no_answer(vec: Vec, claims: list[str], reply: str, tool_text: str) -> str | None:
    """Why the reply does not give the reference's answer at all, if it plainly does not:
    it only asks, it declines, it states what the reference says is unknown, or (English)
    nothing in it is about the reference."""
    # a lone word with no sentence end after a question ("...? okay") states nothing
    sentences = [s for s in split_sentences(reply) if len(s.split()) > 1 or s[-1] in ".!?"]
    if sentences and all(s.rstrip().endswith("?") for s in sentences):
        return "the reply only asks; it gives no answer"
    if only_operands(claims[0], reply):
        return "the reply only restates the computation's operands; it gives no result"
    unknown = _unknown(claims[0])
    declined = _acts.first_person_decline(reply)
    if declined and not unknown:
        return f"the reply declines to answer ({', '.join(declined)}); the reference answers"
    not_known = _acts.cues_found(reply, NOT_KNOWN_CUES)
    if not_known and not unknown and not values_agree(" ".join(claims), reply, tool_text):
        return f"the reply says it does not know ({', '.join(not_known)}); the reference answers"
    if unknown:
        for s in sentences:
            if negation_cues(s) or not _close(claims[0], s):
                continue
            dates, numbers = mentions(s)
            stated = [m.text for m in dates + numbers] + _names_new(claims[0], s)
            if stated:
                return (
                    f"the reference says this is not known; the reply states "
                    f"{', '.join(stated)}: {s!r}"
                )
    turkish = looks_turkish(reply), looks_turkish(claims[0])
    if all(turkish) and _shares_nothing(claims, reply, tool_text):
        return "off topic: the reply shares no word, name or figure with the reference"
    if any(turkish):
        return None
    cosine = max((_cos(vec, c, s) for c in claims for s in sentences), default=0.0)
    shared = max(overlap(c, reply) for c in claims)
    if (
        cosine < OFF_TOPIC_COSINE
        and shared < OFF_TOPIC_OVERLAP
        and not values_agree(" ".join(claims), reply, tool_text)
    ):
        return f"off topic: nothing in the reply is about the reference (cosine {cosine:.2f})"
    return None


def _shares_nothing(claims: list[str], reply: str, tool_text: str) -> bool:
    """No content word, name or figure of the reference in a reply of the same language
    (no model: the Turkish off-topic test). Both must say enough for silence to count."""
    reference = " ".join(claims)
    if min(len(content_stems(reference)), len(content_stems(reply))) < 3:
        return False
    return overlap(reference, reply) == 0.0 and not values_agree(reference, reply, tool_text)


def _names_new(claim: str, sentence: str) -> list[str]:
    key = match_key(claim)
    return [n for n in names_in(sentence) if match_key(n) not in key]


def _both_unknown(claim: str, sentences: list[str]) -> bool:
    """The reference says it is not known, and so does a reply sentence about it."""
    return _unknown(claim) and any(negation_cues(s) and _close(claim, s) for s in sentences)


def decide_consistent(vec: Vec, reference: str, reply: str, tool_text: str) -> Decision:
    claims = split_sentences(reference)
    sentences = split_sentences(reply)
    if not claims:
        return Decision("ERROR", 0.0, "a consistent criterion needs a reference answer")
    answer = yes_no_conflict(claims[0], reply.strip())
    if answer:
        return Decision("FAIL", 0.05, answer)
    missing = _no_answer(vec, claims, reply, tool_text)
    if missing:
        return Decision("FAIL", 0.1, missing)
    wrong: list[str] = []
    for claim in claims:  # tool results only vouch for values (they are data, not claims)
        for sentence in _aligned(vec, claim, sentences):
            wrong += pair_conflicts(claim, sentence, tool_text)
    if wrong:
        return Decision("FAIL", 0.1, "contradicts: " + "; ".join(dict.fromkeys(wrong)))
    _, cosine = _best(vec, claims[0], sentences)
    if _same_answer(claims[0], reply):
        return Decision("PASS", 0.85, "same yes/no answer; no contradiction in aligned claims")
    if values_agree(reference, reply, tool_text):
        return Decision("PASS", 0.8, "the reply's figures are the reference's; no contradiction")
    if _both_unknown(claims[0], sentences):
        return Decision("PASS", 0.75, "both say it is not known; no contradiction")
    if looks_turkish(reference) or looks_turkish(reply):  # the model is English
        return Decision(
            "UNDECIDED", 0.5, "no contradiction, no shared answer or figure (Turkish: no cosine)"
        )
    if cosine >= SUPPORT_COSINE or overlap(claims[0], reply) >= OVERLAP_STRONG:
        return Decision("PASS", 0.75, f"main claim aligned (cosine {cosine:.2f}); no contradiction")
    return Decision(
        "UNDECIDED",
        0.5,
        f"no contradiction, but the main claim is not matched (cosine {cosine:.2f})",
    )


def _same_answer(claim: str, reply: str) -> bool:
    from agenttest.judges._checks import _yes_no

    a, b = _yes_no(claim), _yes_no(reply)
    return a is not None and a == b
