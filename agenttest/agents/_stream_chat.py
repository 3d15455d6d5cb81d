"""OpenAI ``stream: true`` chat-completion chunks merged into one non-streamed completion.

``choices[0].delta`` carries ``content`` and ``tool_calls`` deltas (merged by ``index``);
the assembled completion has the shape of a non-streamed one, so the adapter reads both
the same way.
"""

from __future__ import annotations

from typing import Any

import msgspec

from agenttest._util.lenient import lenient

from ._stream_framing import StreamAgentError, StreamError
from ._wire import ChatChunk, ChunkChoice, ChunkDelta, ChunkToolCall


class ChatAssembler:
    """Merges ``stream: true`` chat-completion chunks into one non-streamed completion."""

    def __init__(self) -> None:
        self._content: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.extra: dict[str, Any] = {}

    @property
    def content(self) -> str:
        return "".join(self._content)

    def add(self, raw: Any) -> list[str]:
        """Merge one chunk; return the kinds of event it carried (text, tool_call)."""
        if not isinstance(raw, dict):
            raise StreamError(f"chat chunk is not a JSON object: {str(raw)[:120]!r}")
        chunk = msgspec.convert(raw, ChatChunk)  # every field is `object`: cannot fail
        if chunk.error is not msgspec.UNSET and chunk.choices is msgspec.UNSET:
            raise StreamAgentError(str(chunk.error)[:300])
        if chunk.usage is not None:
            self.usage = chunk.usage
        choices = chunk.choices or []
        if not isinstance(choices, list):
            raise StreamError("chat chunk `choices` is not a list")
        if not choices or not isinstance(choices[0], dict):
            return []  # the runner asks for one completion: the first choice is all
        choice = lenient(ChunkChoice, choices[0])
        kinds = self._delta(choice.delta) if choice.delta is not None else []
        if choice.finish_reason is not None:
            self.finish_reason = choice.finish_reason
        return kinds

    def _delta(self, raw: dict[str, object]) -> list[str]:
        kinds: list[str] = []
        delta = lenient(ChunkDelta, raw)
        if delta.content:
            self._content.append(delta.content)
            kinds.append("text")
        for call in delta.tool_calls or []:
            if isinstance(call, dict) and self._call_delta(lenient(ChunkToolCall, call)):
                kinds.append("tool_call")
        for key, value in raw.items():
            if key not in ("content", "tool_calls", "role") and value is not None:
                self.extra[key] = value  # e.g. a server's own `choices` extension
                if key == "choices":
                    kinds.append("choices")
        return kinds

    def _call_delta(self, delta: ChunkToolCall) -> bool:
        """Merge a tool-call delta; True when it starts a new call."""
        index = len(self._calls) if delta.index is None else delta.index
        new = index not in self._calls
        call = self._calls.setdefault(
            index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if delta.id is not None:
            call["id"] = delta.id
        call["function"]["name"] += delta.function.name or ""
        call["function"]["arguments"] += delta.function.arguments or ""
        return new

    def completion(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.content, **self.extra}
        if self._calls:
            message["tool_calls"] = [self._calls[i] for i in sorted(self._calls)]
        out: dict[str, Any] = {
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}]
        }
        if self.usage is not None:
            out["usage"] = self.usage
        return out
