"""Load-time checks of `choose:` turns (exit 2, FILE:LINE)."""

from __future__ import annotations

from agenttest._util.convert import Converter

from ._kinds import CRITERION_TYPES, kind_of
from ._model import Block, Turn


def check_choose_turn(conv: Converter, line: int, i: int, turn: Turn, block: Block) -> None:
    assert turn.choose is not None
    if turn.prompt.strip():
        conv.problem(
            line, f"turn {i + 1} has both `prompt` and `choose`; a turn is one or the other"
        )
    if i == 0:
        conv.problem(line, "turn 1 is a `choose:` turn, but no earlier reply offered choices")
    if not turn.choose.label_matches.strip():
        conv.problem(line, f"turn {i + 1}: `choose.label_matches` is empty")
    if not any(kind_of(c).checks_choices for c in block.criteria.pass_):
        names = " or ".join(f"`{k.name}`" for k in CRITERION_TYPES.values() if k.checks_choices)
        conv.problem(
            line,
            f"turn {i + 1} taps a choice, so `criteria.pass` needs a {names} "
            "criterion (an attempt whose choice was not offered must fail, with the labels)",
        )
