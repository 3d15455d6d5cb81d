"""What an untyped judge request asks, read from its reference by the judge's own readers.

A criterion or pair that says ``asks`` is judged by that kind's procedure. One that does
not goes through the same procedures (there is no other scoring path), with the kind read
from the reference:

* a reference that *describes* behaviour in the third person ("The agent refuses to run
  the command because ...") asks ``act``, the act it names (:func:`_acts.described_act`);
* a reference that *is* behaviour: a first-person refusal ("Sorry, I can't do that: ...")
  asks ``act: declines``, a question to the user ("Which file do you mean?") asks
  ``act: asks_clarification``;
* a reference that lists items (two or more list lines or inline numbered items, or one
  enumeration of four or more parts) asks ``covers``;
* any other reference is an answer and asks ``consistent``.

The readers are those the procedures use (``_acts``, ``_claims``), so a reference reads
the same way whether or not its criterion was typed. Three-part enumerations stay answers
("clear and mild, with little chance of rain" is one answer with three parts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agenttest.judges import _acts
from agenttest.judges._claims import split_items, split_sentences

#: One sentence enumerating this many parts is a list of items, not an answer.
MIN_ENUMERATED = 4
_LIST_LINE_RE = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+\S", re.MULTILINE)
_INLINE_NUMBERS_RE = re.compile(r"(?:^|\s)\d{1,2}[.)]\s+\S")


@dataclass(frozen=True)
class ReadKind:
    """The kind a reference asks for (``asks``, and ``act`` for act) and why."""

    asks: str
    act: str
    why: str


def _asks_the_user(reference: str) -> bool:
    sentences = split_sentences(reference)
    return bool(sentences) and sentences[-1].rstrip().endswith("?")


def listed_items(reference: str) -> int:
    """How many items ``reference`` lists (0 when it is not a list)."""
    lines = len(_LIST_LINE_RE.findall(reference))
    inline = len(_INLINE_NUMBERS_RE.findall(reference))
    items = split_items(reference)
    if lines >= 2 or inline >= 2:
        return len(items)
    enumerated = len(items) - len(split_sentences(reference)) + 1
    return len(items) if enumerated >= MIN_ENUMERATED else 0


def read_kind(reference: str) -> ReadKind:
    """The kind of JUDGE criterion ``reference`` settles (see the module doc)."""
    if _acts.is_description(reference):
        act = _acts.described_act(reference)
        if act is not None:
            return ReadKind("act", act, f"the reference describes the act {act}")
    else:
        declined = _acts.first_person_decline(reference)
        if declined:
            return ReadKind("act", "declines", f"the reference declines ({', '.join(declined)})")
        if _asks_the_user(reference):
            return ReadKind("act", "asks_clarification", "the reference asks the user a question")
    items = listed_items(reference)
    if items:
        return ReadKind("covers", "", f"the reference lists {items} items")
    return ReadKind("consistent", "", "the reference is an answer")
