"""How numbers and agent text are written in reports: percentages with their intervals,
durations, p-values, and text made safe for a Markdown cell or code fence.

These are the Jinja filters of every template, and the Python renderers use them too, so a
figure reads the same in each format.
"""

from __future__ import annotations

import re
from typing import Any

from agenttest.sanitize import terminal_safe

from ._model import Rate

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#!~])")


def pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value * 100:.{digits}f}%"


def ci(rate: Rate) -> str:
    if rate.wilson_low is None or rate.wilson_high is None:
        return "[n/a]"
    return f"[{pct(rate.wilson_low)}, {pct(rate.wilson_high)}]"


def rate_text(rate: Rate) -> str:
    """``passed/n = pass@1 [low, high]``: every percentage with its n and interval."""
    if rate.n == 0:
        return "n/a (n = 0)"
    return f"{rate.passed}/{rate.n} = {pct(rate.pass_at_1)} {ci(rate)}"


def duration(ms: float | None) -> str:
    if ms is None:
        return "–"
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{ms / 60_000:.1f} min"


def signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


def ratio(value: float | None) -> str:
    """An odds ratio: two decimals, "n/a" when it is 0 or infinite (no finite estimate)."""
    return "n/a" if value is None else f"{value:.2f}"


def pvalue(value: float | None) -> str:
    if value is None:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def md_inline(value: Any) -> str:
    """Text safe inside a Markdown table cell or line: no markup, no HTML, one line."""
    text = terminal_safe("" if value is None else str(value))
    text = text.replace("&", "&amp;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return " ".join(text.split())


def md_fence(value: Any, info: str = "text") -> str:
    """A fenced code block that no backtick run inside the text can close early."""
    text = terminal_safe("" if value is None else str(value))
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"
