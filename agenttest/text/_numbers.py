"""Numbers in free text: what a written number can mean (methodology §3.2).

:func:`extract_numbers` reads the formats of methodology §3.2 and gives each token the
*set* of values it can mean (see :func:`readings`): decimal marks, Unicode minus,
thousands separators, ambiguity kept as a set of values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ._normalize import clean

_SPACES_THOUSANDS = "\u00a0\u202f\u2009"
_NUM_RE = re.compile(
    r"(?P<sign>[-−+](?=\d))?"
    r"(?P<num>\d{1,3}(?:[" + _SPACES_THOUSANDS + r"]\d{3})+(?:[.,]\d+)?(?!\d)"
    r"|\d+(?:[.,]\d+)*)"
)


@dataclass(frozen=True)
class NumberToken:
    """A number written in the text: where, as written, and every value it can mean."""

    start: int
    end: int
    text: str
    values: frozenset[Decimal]


def _dec(s: str) -> Decimal | None:
    try:
        return Decimal(s)
    except InvalidOperation:
        return None


def _thousands_ok(groups: list[str]) -> bool:
    first, rest = groups[0], groups[1:]
    if not 1 <= len(first) <= 3 or first.startswith("0"):
        return False
    return all(len(g) == 3 for g in rest)


def readings(num: str, convention: str | None = None) -> frozenset[Decimal]:
    """Every value a written number can mean; empty when it is no single number.

    * ``29988`` → {29988}; ``333,0`` / ``333.0`` → {333} (a group that is not three digits
      long is a decimal part).
    * ``29.988`` / ``541,171`` (one separator, three digits after it, one to three digits
      before, no leading zero) are ambiguous between a thousands group and a decimal part,
      so both readings are kept: {29988, 29.988}. ``convention`` (``"dot-decimal"`` or
      ``"comma-decimal"``, inferred from unambiguous numbers elsewhere in the same text by
      :func:`extract_numbers`) settles it when known.
    * ``1.234.567``, ``1,234,567``, ``1 234 567`` (no-break or thin spaces) → thousands;
      ``1.234,5`` / ``1,234.5`` → the last separator is the decimal mark.
    * ``13.07.2026``, ``15.1.2``, ``192.168.0.1``: dates, versions, addresses — no reading.
    """
    for sp in _SPACES_THOUSANDS:
        num = num.replace(sp, " ")
    if " " in num:
        head, _, frac = num.partition(",") if "," in num else num.partition(".")
        groups = head.split(" ")
        if not _thousands_ok(groups):
            return frozenset()
        value = _dec("".join(groups) + ("." + frac if frac else ""))
        return frozenset({value}) if value is not None else frozenset()
    seps = [c for c in num if c in ".,"]
    groups = re.split(r"[.,]", num)
    values: set[Decimal | None] = set()
    if not seps:
        values.add(_dec(num))
    elif len(set(seps)) == 2:
        decimal_mark = seps[-1]
        if seps.count(decimal_mark) != 1 or not _thousands_ok(groups[:-1]):
            return frozenset()
        values.add(_dec("".join(groups[:-1]) + "." + groups[-1]))
    elif len(seps) >= 2:
        if not _thousands_ok(groups):
            return frozenset()
        values.add(_dec("".join(groups)))
    else:
        a, b = groups
        sep = seps[0]
        decimal = _dec(f"{a}.{b}")
        if len(b) == 3 and _thousands_ok([a, b]):
            thousands = _dec(a + b)
            if convention == "comma-decimal":
                values.add(thousands if sep == "." else decimal)
            elif convention == "dot-decimal":
                values.add(decimal if sep == "." else thousands)
            else:
                values.update({thousands, decimal})
        else:
            values.add(decimal)
    return frozenset(v for v in values if v is not None)


def _convention_hint(num: str) -> str | None:
    """What an unambiguous written number says about the text's decimal mark."""
    if any(sp in num for sp in _SPACES_THOUSANDS):
        return None
    seps = [c for c in num if c in ".,"]
    groups = re.split(r"[.,]", num)
    if not seps:
        return None
    if len(set(seps)) == 2:
        return "comma-decimal" if seps[-1] == "," else "dot-decimal"
    if len(seps) >= 2 and _thousands_ok(groups):
        return "comma-decimal" if seps[0] == "." else "dot-decimal"
    if len(seps) == 1 and not (len(groups[1]) == 3 and _thousands_ok(groups)):
        return "dot-decimal" if seps[0] == "." else "comma-decimal"
    return None


def extract_numbers(text: str) -> list[NumberToken]:
    """Numbers stated in ``text`` (Markdown and literal escapes ignored), in order.

    Ambiguous tokens keep both readings unless the other numbers of the same text agree on
    one decimal mark; if they disagree or say nothing, both readings stay.
    """
    cleaned = clean(text, markdown=True, collapse=False)
    body = cleaned.text
    found: list[tuple[int, int, str, str]] = []
    for m in _NUM_RE.finditer(body):
        start = m.start()
        sign = m.group("sign") or ""
        if sign and start > 0 and body[start - 1].isalnum():
            # `3-4` is a range or a difference, not a negative four.
            sign = ""
            start = m.start("num")
        found.append((start, m.end(), sign, m.group("num")))
    hints = {h for _, _, _, num in found if (h := _convention_hint(num))}
    convention = next(iter(hints)) if len(hints) == 1 else None
    tokens = []
    for start, end, sign, num in found:
        vals = readings(num, convention)
        if not vals:
            continue
        if sign in ("-", "−"):
            vals = frozenset(-v for v in vals)
        span = cleaned.span(start, min(end, len(cleaned.pos)))
        tokens.append(NumberToken(span[0], span[1], text[span[0] : span[1]], vals))
    return tokens


def as_decimal(value: object) -> Decimal | None:
    """A criterion's number (int, float or a string in any accepted format)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _dec(repr(value)) if isinstance(value, float) else Decimal(value)
    if isinstance(value, str):
        tokens = extract_numbers(value)
        if len(tokens) == 1 and len(tokens[0].values) == 1:
            return next(iter(tokens[0].values))
    return None


def number_equal(values: frozenset[Decimal], target: Decimal, tolerance: float | None) -> bool:
    tol = Decimal(str(tolerance)) if tolerance else Decimal(0)
    return any(abs(v - target) <= tol for v in values)
