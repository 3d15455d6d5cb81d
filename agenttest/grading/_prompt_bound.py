"""Values a criterion takes from the block's own prompt, on attempts sent another prompt.

A criterion such as "the recipient is Ahmet" checks a name the block's prompt gave. An
attempt that was sent another prompt (a legacy transcript ran an older wording: "send a
test message to +90544…") was never asked for Ahmet, so the check does not apply to it:
the attempt's recorded prompt decides what was asked (issue 29). Only imported attempts
(``legacy_id``) are read so: a run of ours sends the block's prompt in one of its
languages, or a choice's value, and nothing changes for it.
"""

from __future__ import annotations

import re

from agenttest import text as nz
from agenttest.blocks import Criterion

from ._context import Ctx

_WORD = re.compile(r"[^\W\d_]{3,}")


def _folded(text: str) -> str:
    return nz.normalize(text).text


def _variants(ctx: Ctx) -> list[str]:
    """Every wording of the block's prompts: each turn's prompt and translations."""
    out: list[str] = []
    for turn in ctx.block.turns:
        out += [ctx.block.fill(p) for p in (turn.prompt, *turn.translations.values()) if p]
    return out


def _values(ctx: Ctx, c: Criterion) -> list[str]:
    raw = [c.value, c.pattern, *c.values]
    return [ctx.subst(v) or "" for v in raw if isinstance(v, str) and v]


def unasked(ctx: Ctx, c: Criterion) -> str | None:
    """The word of ``c``'s values that the block's prompt names and the attempt's recorded
    prompts (another wording) do not, or None when the criterion applies."""
    if ctx.attempt.legacy_id is None:
        return None  # a run of ours sent the block's prompt (live prompts are not rewritten)
    sent = [t.prompt for t in ctx.attempt.turns if t.prompt]
    if not sent:
        return None
    variants = _variants(ctx)
    folded_variants = {_folded(v) for v in variants}
    if all(_folded(p) in folded_variants for p in sent):
        return None  # the block's own prompt (in some language) was sent
    block_text = _folded(" ".join(variants))
    sent_text = _folded(" ".join(sent))
    for value in _values(ctx, c):
        for m in _WORD.finditer(value):
            word = m.group(0)
            w = _folded(word)
            if w and re.search(rf"\b{re.escape(w)}", block_text) and w not in sent_text:
                return word
    return None
