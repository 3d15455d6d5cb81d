"""A turn's reply as the runner keeps it, and the reading of agent JSON into one.

Dotted paths (``a.b.0.c``) find the text, the tool calls, the usage and the offered
choices in whatever shape an agent answers; a reply that arrived but cannot be read as a
turn is :class:`Garbage` (an ``ERROR`` attempt, not a harness failure).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agenttest._util.lenient import lenient
from agenttest.errors import AttemptError
from agenttest.results import ModelStep, ToolCall
from agenttest.sanitize import TooDeep, encodable

from ._config_types import ChoiceFields
from ._stream import Streamed
from ._wire import Usage


class Garbage(AttemptError):
    """A reply that arrived but cannot be read as a turn (not JSON, missing the text, ...)."""


#: The most tool calls one reply may report. Each call becomes a record part many times its
#: wire size (16 MiB of ``{}`` made a 285 MB line, past what readers read back): more than
#: this in one turn is no agent's work, it is garbage.
MAX_TOOL_CALLS = 1_000


def check_call_count(calls: list[Any]) -> None:
    """:class:`Garbage` when a reply reports more than :data:`MAX_TOOL_CALLS` tool calls."""
    if len(calls) > MAX_TOOL_CALLS:
        raise Garbage(
            f"the reply reports {len(calls):,} tool calls in one turn, more than the "
            f"{MAX_TOOL_CALLS:,} a turn may hold"
        )


def count_of(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def read_usage(data: Any) -> tuple[int | None, dict[str, int] | None]:
    """(total tokens, input/output split) from a reply's ``usage`` object, if it has one."""
    usage = lenient(Usage, dig(data, "usage"))
    inp, out = usage.prompt_tokens, usage.completion_tokens
    split = (
        {"input_tokens": inp, "output_tokens": out} if inp is not None and out is not None else None
    )
    total = usage.total_tokens
    if total is None and split is not None:
        total = split["input_tokens"] + split["output_tokens"]
    return total, split


MISSING = object()


def dig(data: Any, path: str) -> Any:
    """Follow a dotted path (`a.b.0.c`) through dicts and lists; `MISSING` when absent."""
    current = data
    for part in path.split(".") if path else ():
        if isinstance(current, Mapping):
            if part not in current:
                return MISSING
            current = current[part]
        elif isinstance(current, list) and part.lstrip("-").isdigit():
            index = int(part)
            if not -len(current) <= index < len(current):
                return MISSING
            current = current[index]
        else:
            return MISSING
    return current


def body_excerpt(body: bytes, limit: int = 200) -> str:
    text = body[:limit].decode("utf-8", "replace")
    return text + ("…" if len(body) > limit else "")


def parse_json_noted(body: bytes) -> tuple[Any, list[str]]:
    """The reply decoded and made storable (see :func:`agenttest.sanitize.encodable`), with
    notes on what was repaired. Nesting beyond reason is garbage, not a harness failure."""
    try:
        data = json.loads(body)
    except RecursionError:
        raise Garbage("reply is nested too deeply to be a reply") from None
    except (ValueError, UnicodeDecodeError):
        raise Garbage(f"reply is not JSON: {body_excerpt(body)!r}") from None
    try:
        return encodable(data)
    except TooDeep as exc:
        raise Garbage(f"reply is {exc}") from None


def parse_json(body: bytes) -> Any:
    return parse_json_noted(body)[0]


def text_of(value: Any) -> str:
    if value is None or value is MISSING:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(v) for v in value)
    return json.dumps(value, ensure_ascii=False)


def arguments_of(value: Any) -> dict[str, Any]:
    if value is MISSING or value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"input": value}
    return value if isinstance(value, dict) else {"input": value}


#: The most choices one reply may offer, and the longest label or value: a person taps a
#: button, not a page (an 8 MiB label took 1.57 GB and made a 50 MB record).
MAX_CHOICES = 100
MAX_CHOICE_CHARS = 4_096


def _choice_text(value: Any, what: str) -> str:
    """A label or value as a person would see it: text, or a number's digits. Anything else
    (an object, a list, true) is no button text; its JSON must not be tappable."""
    if value is None or value is MISSING:
        return ""
    if isinstance(value, str):
        text = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        text = json.dumps(value)
    else:
        raise Garbage(f"a choice's {what} is not text: {str(value)[:120]!r}")
    if len(text) > MAX_CHOICE_CHARS:
        raise Garbage(
            f"a choice's {what} is {len(text):,} characters, more than the "
            f"{MAX_CHOICE_CHARS:,} a choice may hold"
        )
    return text


def read_choices(value: Any, fields: ChoiceFields) -> list[dict[str, str]] | None:
    """Offered choices as ``[{label, value}]`` (a plain string is both); None when absent."""
    if value is MISSING or value is None:
        return None
    if not isinstance(value, list):
        raise Garbage(f"the reply's choices are not a list: {str(value)[:120]!r}")
    if len(value) > MAX_CHOICES:
        raise Garbage(f"the reply offers {len(value):,} choices, more than {MAX_CHOICES}")
    out = []
    for item in value:
        if isinstance(item, Mapping):
            label = _choice_text(dig(item, fields.label), "label")
            raw = dig(item, fields.value)
            chosen = label if raw is MISSING or raw is None else _choice_text(raw, "value")
        else:
            label = chosen = _choice_text(item, "label")
        out.append({"label": label, "value": chosen})
    return out


def streamed_final(streamed: Streamed) -> tuple[Any, list[str]]:
    """The final event's reply, made storable like a whole body."""
    try:
        data, notes = encodable(streamed.final)
    except TooDeep as exc:
        raise Garbage(f"the final event's reply is {exc}") from None
    return data, streamed.notes + notes  # the events' repairs too (the final's are in them)


def read_steps(value: Any) -> list[ModelStep] | None:
    """A native reply's ``model_steps``: what a model-driven loop's model returned at each
    request (``[{text, tool_calls: [{name, arguments}], finish_reason}]``), read leniently:
    evidence for a person, never graded, so an odd entry is shown as well as it can be."""
    if not isinstance(value, list):
        return None
    check_call_count(value)
    steps = []
    for item in value:
        item = item if isinstance(item, Mapping) else {"text": text_of(item)}
        text, finish = item.get("text"), item.get("finish_reason")
        calls = item.get("tool_calls")
        calls = calls if isinstance(calls, list) else []
        check_call_count(calls)
        steps.append(
            ModelStep(
                text=text if isinstance(text, str) else None,
                tool_calls=[
                    ToolCall(
                        name=text_of(dig(c, "name")), arguments=arguments_of(dig(c, "arguments"))
                    )
                    for c in calls
                ],
                finish_reason=finish if isinstance(finish, str) else None,
            )
        )
    return steps
