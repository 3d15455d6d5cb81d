"""A safe arithmetic evaluator: a hand-written tokenizer and recursive-descent parser.

Nothing here calls ``eval`` or compiles Python: the input is tokenized into numbers,
operators, parentheses and a handful of function and constant names, parsed by the grammar
below and evaluated with :class:`decimal.Decimal`, so ``1850 * 0.18`` is exactly ``333``.

Grammar (``^`` and ``**`` both mean power, right-associative, binding tighter than a unary
sign, so ``-2^2 == -4``; a ``%`` directly after a number and not followed by another
operand is a percentage, otherwise it is the remainder)::

    expr    := term (("+" | "-") term)*
    term    := unary (("*" | "/" | "%") unary)*
    unary   := ("+" | "-") unary | power
    power   := postfix (("^" | "**") unary)?
    postfix := atom "%"?
    atom    := NUMBER | CONST | FUNC "(" expr ("," expr)* ")" | "(" expr ")"
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

MAX_LENGTH = 500
MAX_DEPTH = 60
MAX_INT_EXPONENT = 10_000

_PI = Decimal("3.14159265358979323846264338327950288")
_E = Decimal("2.71828182845904523536028747135266250")
CONSTANTS: dict[str, Decimal] = {"pi": _PI, "e": _E}

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?|\.\d+)|(?P<name>[A-Za-z_]+)|(?P<op>\*\*|[-+*/^%(),]))"
)
_SYMBOLS = str.maketrans({"×": "*", "÷": "/", "−": "-", "–": "-", "·": "*"})


class CalcError(ValueError):
    """The expression is not valid arithmetic or cannot be evaluated."""


@dataclass(frozen=True)
class _Tok:
    kind: str  # "num", "name", "op", "end"
    text: str
    pos: int


def _sqrt(args: list[Decimal]) -> Decimal:
    (x,) = args
    if x < 0:
        raise CalcError("square root of a negative number")
    return x.sqrt()


def _abs(args: list[Decimal]) -> Decimal:
    (x,) = args
    return abs(x)


def _round(args: list[Decimal]) -> Decimal:
    if len(args) == 1:
        return args[0].quantize(Decimal(1), rounding=decimal.ROUND_HALF_UP)
    x, digits = args
    if digits != digits.to_integral_value() or not 0 <= digits <= 20:
        raise CalcError("round() takes a whole number of digits between 0 and 20")
    return x.quantize(Decimal(1).scaleb(-int(digits)), rounding=decimal.ROUND_HALF_UP)


FUNCTIONS: dict[str, tuple[Callable[[list[Decimal]], Decimal], tuple[int, ...]]] = {
    "sqrt": (_sqrt, (1,)),
    "abs": (_abs, (1,)),
    "round": (_round, (1, 2)),
}


def tokenize(text: str) -> list[_Tok]:
    """Split ``text`` into tokens; anything outside the small alphabet is an error."""
    text = text.translate(_SYMBOLS)
    tokens: list[_Tok] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            bad = text[pos:].lstrip()[:1]
            raise CalcError(f"unexpected character {bad!r}")
        kind = m.lastgroup or "op"
        tokens.append(_Tok(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    tokens.append(_Tok("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, tokens: list[_Tok]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def peek(self, ahead: int = 0) -> _Tok:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> _Tok:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if tok.text != text:
            found = tok.text or "end of expression"
            raise CalcError(f"expected {text!r} but found {found!r}")

    def parse(self) -> Decimal:
        value = self.expr()
        if self.peek().kind != "end":
            raise CalcError(f"unexpected {self.peek().text!r}")
        return value

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CalcError("expression nested too deeply")

    def expr(self) -> Decimal:
        value = self.term()
        while self.peek().text in ("+", "-"):
            op = self.take().text
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self) -> Decimal:
        value = self.unary()
        while self.peek().text in ("*", "/", "%"):
            op = self.take().text
            rhs = self.unary()
            if op == "*":
                value = value * rhs
            elif rhs == 0:
                raise CalcError("division by zero")
            elif op == "/":
                value = value / rhs
            else:
                value = value % rhs
        return value

    def unary(self) -> Decimal:
        self._enter()
        try:
            if self.peek().text in ("+", "-"):
                sign = self.take().text
                value = self.unary()
                return -value if sign == "-" else value
            return self.power()
        finally:
            self.depth -= 1

    def power(self) -> Decimal:
        base = self.postfix()
        if self.peek().text in ("^", "**"):
            self.take()
            exponent = self.unary()
            return _power(base, exponent)
        return base

    def postfix(self) -> Decimal:
        value = self.atom()
        if self.peek().text == "%" and self._percent_ends_operand():
            self.take()
            value = value / 100
        return value

    def _percent_ends_operand(self) -> bool:
        after = self.peek(1)
        return not (after.kind in ("num", "name") or after.text in ("(", "+", "-"))

    def atom(self) -> Decimal:
        tok = self.take()
        if tok.kind == "num":
            return Decimal(tok.text)
        if tok.kind == "name":
            name = tok.text.lower()
            if name in CONSTANTS:
                return CONSTANTS[name]
            if name in FUNCTIONS:
                return self.call(name)
            raise CalcError(f"unknown name {tok.text!r} (allowed: sqrt, abs, round, pi, e)")
        if tok.text == "(":
            self._enter()
            try:
                value = self.expr()
            finally:
                self.depth -= 1
            self.expect(")")
            return value
        found = tok.text or "end of expression"
        raise CalcError(f"expected a number but found {found!r}")

    def call(self, name: str) -> Decimal:
        self.expect("(")
        args = [self.expr()]
        while self.peek().text == ",":
            self.take()
            args.append(self.expr())
        self.expect(")")
        func, arities = FUNCTIONS[name]
        if len(args) not in arities:
            raise CalcError(f"{name}() takes {' or '.join(map(str, arities))} argument(s)")
        return func(args)


def _power(base: Decimal, exponent: Decimal) -> Decimal:
    if exponent == exponent.to_integral_value():
        if abs(exponent) > MAX_INT_EXPONENT:
            raise CalcError("exponent too large")
        if base == 0 and exponent < 0:
            raise CalcError("division by zero")
        return base ** int(exponent)
    if base < 0:
        raise CalcError("fractional power of a negative number")
    return base**exponent


def evaluate(expression: str) -> Decimal:
    """Evaluate ``expression`` exactly where possible; raise :class:`CalcError` otherwise."""
    if len(expression) > MAX_LENGTH:
        raise CalcError(f"expression longer than {MAX_LENGTH} characters")
    if not expression.strip():
        raise CalcError("empty expression")
    ctx = decimal.Context(prec=34, Emax=999_999, Emin=-999_999)
    ctx.traps[decimal.Overflow] = True
    ctx.traps[decimal.InvalidOperation] = True
    ctx.traps[decimal.DivisionByZero] = True
    with decimal.localcontext(ctx):
        try:
            value = _Parser(tokenize(expression)).parse()
            return +value
        except decimal.Overflow as exc:
            raise CalcError("result too large") from exc
        except (decimal.InvalidOperation, decimal.DivisionByZero) as exc:
            raise CalcError("the expression has no numeric value") from exc


def format_number(value: Decimal) -> str:
    """Plain decimal text: integers without ``.0``, at most 10 decimals, no exponent."""
    if value.is_zero():
        return "0"
    if abs(value.adjusted()) > 30:
        return f"{value:.10E}".replace("0000000000E", "E")
    if value == value.to_integral_value():
        return f"{value.quantize(Decimal(1)):f}"
    rounded = value.quantize(Decimal("1e-10"), rounding=decimal.ROUND_HALF_EVEN)
    if rounded.is_zero():
        return f"{value:.6E}"
    text = f"{rounded:f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def calculate(expression: str) -> str:
    """Evaluate and format in one step."""
    return format_number(evaluate(expression))
