"""How the example agent streams a reply: SSE events in the agenttest shape, or
OpenAI-style chat-completion chunks, written as HTTP/1.1 chunked transfer.

The rules brain decides a whole turn at once, so the stream is a faithful replay in the
order a streaming agent produces it: the tool calls as they ran, the choices with their
question, the text word by word, then the final event carrying the whole reply (the same
JSON the agent sends without streaming). A model-driven brain streams live instead
(:func:`say`, :attr:`Turn.emit`): each call as it ends, the answer as the model sends it,
then the final event.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import msgspec

from ._agent import Turn, TurnResult, confirm_choices

_PIECE = re.compile(r"\S+\s*|\s+")


def _pieces(text: str, words: int = 3) -> list[str]:
    """The text in deltas of a few words (whitespace kept, so joining restores it)."""
    parts = _PIECE.findall(text)
    return ["".join(parts[i : i + words]) for i in range(0, len(parts), words)]


def say(turn: Turn, text: str) -> None:
    """On a live stream, the answer as it arrives: the choices first when the turn asks for
    a confirmation (a late offer is a regression the battery catches), then the text."""
    if turn.emit is None:
        return
    if turn.session.pending is not None and turn.choices is None:
        turn.choices = confirm_choices(turn.session.pending.turkish)
    if turn.choices:
        turn.emit({"type": "choices", "choices": turn.choices})
    for piece in _pieces(text):
        turn.emit({"type": "text", "delta": piece})


def live_events(result: TurnResult | str, said_choices: bool) -> Iterator[bytes]:
    """The end of a live stream: the choices if not yet offered, the final event; or the
    error event when the turn failed (``result`` is then why)."""
    if isinstance(result, str):
        yield _sse({"type": "error", "message": result})
        return
    if result.choices and not said_choices:
        yield _sse({"type": "choices", "choices": result.choices})
    yield _sse({"type": "final", "reply": result.as_json()})


def sse(data: Any) -> bytes:
    """One SSE event (a live stream's, as its turn emits it)."""
    return _sse(data)


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return (head + "data: " + json.dumps(data, ensure_ascii=False) + "\n\n").encode("utf-8")


def native_events(result: TurnResult, *, late_choices: bool = False) -> Iterator[bytes]:
    """``late_choices`` sends the choices after the text (a regression to catch)."""
    for call in result.tool_calls:
        yield _sse({"type": "tool_call", "tool_call": msgspec.to_builtins(call)})
    if result.choices and not late_choices:
        yield _sse({"type": "choices", "choices": result.choices})
    for piece in _pieces(result.response):
        yield _sse({"type": "text", "delta": piece})
    if result.choices and late_choices:
        yield _sse({"type": "choices", "choices": result.choices})
    yield _sse({"type": "final", "reply": result.as_json()})


def openai_events(result: TurnResult, model: str) -> Iterator[bytes]:
    """Chat-completion chunks: role, content deltas, tool-call deltas, finish, ``[DONE]``."""
    base = {"id": f"chatcmpl-{int(time.time() * 1000)}", "object": "chat.completion.chunk",
            "model": model}  # fmt: skip

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return _sse(body)

    yield chunk({"role": "assistant"})
    if result.choices:
        yield chunk({"choices": result.choices})  # the example agent's extension
    for piece in _pieces(result.response):
        yield chunk({"content": piece})
    for i, call in enumerate(result.tool_calls):
        args = json.dumps(call.arguments, ensure_ascii=False)
        yield chunk({"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function",
                                     "function": {"name": call.name, "arguments": ""}}]})  # fmt: skip
        for j in range(0, len(args), 16):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": args[j : j + 16]}}]})
    yield chunk({}, "stop")
    if result.usage is not None:
        yield _sse({**base, "choices": [], "usage": result.usage})
    yield b"data: [DONE]\n\n"


def completion(result: TurnResult, model: str) -> dict[str, Any]:
    """The same turn as one non-streamed chat completion (tool calls as already run)."""
    message: dict[str, Any] = {"role": "assistant", "content": result.response}
    if result.choices:
        message["choices"] = result.choices
    if result.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": c.name,
                          "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
            for i, c in enumerate(result.tool_calls)
        ]  # fmt: skip
    out: dict[str, Any] = {"object": "chat.completion", "model": model,
                           "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}  # fmt: skip
    if result.usage is not None:
        out["usage"] = result.usage
    return out
