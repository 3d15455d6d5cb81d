"""Load-time checks of what a JUDGE criterion asks (`asks`, `act`, `min`)."""

from __future__ import annotations

from agenttest._util.convert import Converter
from agenttest._util.located_yaml import Located

from ._model import Criterion
from ._vocabulary import JUDGE_ACTS


def check_judge_kind(conv: Converter, c: Criterion, node: Located, where: str) -> None:
    """`asks: act` names the act; `min` counts covered items, so only `covers` takes it."""
    line = node.key_lines.get("asks", node.line)
    if c.asks == "act" and c.act is None:
        conv.problem(
            line,
            f"criterion `{c.id}` in {where} has `asks: act` but no `act`; "
            f"name one of {', '.join(JUDGE_ACTS)}",
        )
    if c.asks not in (None, "act") and c.act is not None:
        conv.problem(
            node.key_lines.get("act", line),
            f"`act` applies only to `asks: act`, not `asks: {c.asks}`, in {where}",
        )
    if c.min is not None and c.asks != "covers":
        conv.problem(
            node.key_lines.get("min", line),
            f"`min` of a judge criterion counts covered items: it needs `asks: covers` ({where})",
        )
