"""The hosted calculator: exact arithmetic over a parsed expression (never ``eval``).

Numbers are exact fractions, so ``0.1 + 0.2`` is ``0.3``; ``^`` and ``**`` are powers;
``N%`` (a percent sign not followed by a number) is N/100, ``a % b`` the remainder. A few
functions (sqrt, abs, round, min, max, floor, ceil) and the constants pi and e. Results too
large to be worth printing, and powers that would take long, are refused.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ._world import ToolFailure, World, str_arg

Number = Fraction | float
MAX_BITS = 4096  # a result beyond this many bits is not arithmetic anyone asked for
MAX_EXPONENT = 1000
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%(?!\s*[\d.(])")


def _sqrt(x: Number) -> Number:
    if x < 0:
        raise ToolFailure("square root of a negative number")
    if isinstance(x, Fraction):
        n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
        if n * n == x.numerator and d * d == x.denominator:
            return Fraction(n, d)
    return math.sqrt(x)


def _round(x: Number, digits: Number = Fraction(0)) -> Number:
    return Fraction(round(Fraction(x), int(digits)))


_FUNCS: dict[str, Callable[..., Number]] = {
    "sqrt": _sqrt,
    "abs": abs,
    "round": _round,
    "min": min,
    "max": max,
    "floor": lambda x: Fraction(math.floor(x)),
    "ceil": lambda x: Fraction(math.ceil(x)),
}
_CONSTS: dict[str, Number] = {"pi": math.pi, "e": math.e}


def _power(a: Number, b: Number) -> Number:
    if isinstance(b, Fraction) and b.denominator == 1:
        if abs(b) > MAX_EXPONENT:
            raise ToolFailure(f"exponent {b} is too large (at most {MAX_EXPONENT})")
        if a == 0 and b < 0:
            raise ToolFailure("division by zero")
        if isinstance(a, Fraction):
            return a ** int(b)
        return math.pow(a, int(b))
    if a < 0:
        raise ToolFailure("a negative number to a fractional power")
    return math.pow(a, b)


def _binary(op: ast.operator, a: Number, b: Number) -> Number:
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, ast.Pow):
        return _power(a, b)
    if b == 0:
        raise ToolFailure("division by zero")
    if isinstance(op, ast.Div):
        return a / b
    if isinstance(op, ast.FloorDiv):
        return Fraction(math.floor(a / b))
    if isinstance(op, ast.Mod):
        return a % b
    raise ToolFailure(f"operator {type(op).__name__} is not supported")


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            raise ToolFailure("not a number: a truth value")
        return Fraction(str(node.value))
    if isinstance(node, ast.Name) and node.id in _CONSTS:
        return _CONSTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        value = _binary(node.op, _eval(node.left), _eval(node.right))
        if isinstance(value, Fraction) and (
            value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS
        ):
            raise ToolFailure("the result is too large to print")
        return value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        func = _FUNCS.get(node.func.id)
        if func is None:
            raise ToolFailure(f"unknown function {node.func.id!r} (known: {', '.join(_FUNCS)})")
        try:
            result: Number = func(*(_eval(a) for a in node.args))
        except TypeError:
            raise ToolFailure(f"{node.func.id}() was given the wrong number of values") from None
        return result
    raise ToolFailure(f"not arithmetic: {ast.unparse(node)!r}")


def _format(value: Number) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolFailure("the result is not a finite number")
        value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.12g}"
    return text if "e" in text else text.rstrip("0").rstrip(".")


def calculator(world: World, args: dict[str, Any]) -> str:
    expression = str_arg(args, "expression").strip()
    source = _PERCENT.sub(r"(\1/100)", expression.replace("^", "**").replace("×", "*"))
    try:
        tree = ast.parse(source.replace("÷", "/"), mode="eval")
    except SyntaxError:
        raise ToolFailure(f"cannot read {expression!r} as arithmetic") from None
    try:
        value = _eval(tree)
    except (OverflowError, ValueError, ZeroDivisionError, RecursionError) as exc:
        raise ToolFailure(f"cannot compute {expression!r}: {exc}") from None
    return f"{expression} = {_format(value)}"
