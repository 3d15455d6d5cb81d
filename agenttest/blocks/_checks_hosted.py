"""Checks of a block's hosted-tools parts (issue 28): its `ticket` fixtures and its `faults`.

Each problem is placed at the line of the list item that has it (a fault, a fixture), so a
battery with many faults says which one is wrong.
"""

from __future__ import annotations

import re

from agenttest._util.convert import Converter, suggest
from agenttest._util.located_yaml import Located

from ._model import Block, Fault, Fixture
from ._vocabulary import HOSTED_ROLES

#: A fault's hang is capped where the host serves it; a longer one in a block is a mistake.
MAX_FAULT_DELAY_S = 60.0
_TICKET_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _item_lines(node: Located, key: str) -> list[int]:
    """The line of each item of the list under ``key`` (the key's own line as a fallback)."""
    items = node.value.get(key) if isinstance(node.value, dict) else None
    if items is None:
        return []
    if not isinstance(items.value, list):
        return []
    return [item.line if isinstance(item, Located) else items.line for item in items.value]


def _line_of(lines: list[int], i: int, fallback: int) -> int:
    return lines[i] if i < len(lines) else fallback


def check_hosted_parts(conv: Converter, block: Block, node: Located) -> None:
    """Problems of the block's ticket fixtures and faults, at their items' lines."""
    fallback = node.line
    fx_lines = _item_lines(node, "fixtures")
    for i, fx in enumerate(block.fixtures):
        line = _line_of(fx_lines, i, node.key_lines.get("fixtures", fallback))
        _check_ticket(conv, line, fx)
    fault_lines = _item_lines(node, "faults")
    for i, fault in enumerate(block.faults):
        line = _line_of(fault_lines, i, node.key_lines.get("faults", fallback))
        _check_fault(conv, line, f"faults[{i}]", fault)


def _check_ticket(conv: Converter, line: int, fx: Fixture) -> None:
    ticket_fields = fx.ticket_id is not None or fx.state is not None or bool(fx.transitions)
    if fx.kind != "ticket":
        if ticket_fields:
            conv.problem(
                line,
                f"`ticket_id`, `state` and `transitions` belong to a `ticket` fixture, "
                f"not `{fx.kind}`",
            )
        return
    if fx.ticket_id is None or fx.state is None:
        conv.problem(line, "fixture `ticket` needs `ticket_id` and `state`")
        return
    if not _TICKET_ID.match(fx.ticket_id):
        conv.problem(
            line,
            f"ticket_id `{fx.ticket_id}` must be letters, digits, `.`, `_` or `-` (it names "
            "the file .tickets/<id>.json)",
        )
    if fx.path is not None or fx.url is not None:
        conv.problem(line, "fixture `ticket` takes no `path` or `url` (it lives in .tickets/)")
    known = set(fx.transitions) | {s for nexts in fx.transitions.values() for s in nexts}
    if fx.transitions and fx.state not in known:
        conv.problem(
            line,
            f"ticket `{fx.ticket_id}` starts in state `{fx.state}`, which its `transitions` "
            f"never name{suggest(fx.state, sorted(known))}",
        )


def _check_fault(conv: Converter, line: int, where: str, fault: Fault) -> None:
    if fault.tool not in HOSTED_ROLES:
        conv.problem(
            line,
            f"{where}: `tool: {fault.tool}` is not a hosted tool role"
            f"{suggest(fault.tool, HOSTED_ROLES)} (roles: {', '.join(HOSTED_ROLES)})",
        )
    if fault.calls is not None and fault.calls < 1:
        conv.problem(line, f"{where}: `calls` must be at least 1 (leave it out for every call)")
    if fault.kind == "inject" and not fault.content:
        conv.problem(line, f"{where}: an `inject` fault needs `content` (the injected text)")
    if fault.content is not None and fault.kind not in ("inject", "error"):
        conv.problem(
            line, f"{where}: `content` applies to `inject` and `error` faults, not `{fault.kind}`"
        )
    if fault.delay_s is not None:
        if fault.kind != "timeout":
            conv.problem(line, f"{where}: `delay_s` applies to `timeout` faults only")
        elif not 0 < fault.delay_s <= MAX_FAULT_DELAY_S:
            conv.problem(
                line,
                f"{where}: `delay_s` must be above 0 and at most {MAX_FAULT_DELAY_S:g} seconds",
            )
