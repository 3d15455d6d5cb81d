"""Load-time checks of `choose:` turns and of the stream criteria (exit 2, FILE:LINE)."""

from __future__ import annotations

from agenttest._util.convert import Converter
from agenttest._util.located_yaml import Located

from ._model import Block, Criterion, Turn
from ._stream_types import STREAM_PARTS


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
    if not any(c.type == "choice_offered" for c in block.criteria.pass_):
        conv.problem(
            line,
            f"turn {i + 1} taps a choice, so `criteria.pass` needs a `choice_offered` "
            "criterion (an attempt whose choice was not offered must fail, with the labels)",
        )


def check_stream_criterion(conv: Converter, c: Criterion, node: Located, where: str) -> None:
    if c.type != "arrives_with":
        return
    for part in c.values:
        if part not in STREAM_PARTS:
            conv.problem(
                node.key_lines.get("values", node.line),
                f"`{part}` in {where}.values is not a stream part; use " + ", ".join(STREAM_PARTS),
            )
