"""OpenAI ``stream: true`` chat-completion chunks merged into one non-streamed completion.

``choices[0].delta`` carries ``content`` and ``tool_calls`` deltas (merged by ``index``);
the assembled completion has the shape of a non-streamed one, so the adapter reads both
the same way.
"""

from __future__ import annotations

from typing import Any

from ._stream_framing import StreamAgentError, StreamError


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

    def add(self, chunk: Any) -> list[str]:
        """Merge one chunk; return the kinds of event it carried (text, tool_call)."""
        if not isinstance(chunk, dict):
            raise StreamError(f"chat chunk is not a JSON object: {str(chunk)[:120]!r}")
        if "error" in chunk and "choices" not in chunk:
            raise StreamAgentError(str(chunk["error"])[:300])
        if chunk.get("usage") is not None:
            self.usage = chunk["usage"]
        kinds: list[str] = []
        choices = chunk.get("choices") or []
        if not isinstance(choices, list):
            raise StreamError("chat chunk `choices` is not a list")
        for choice in choices[:1]:  # the runner asks for one completion
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta, dict):
                content = delta.get("content")
                if isinstance(content, str) and content:
                    self._content.append(content)
                    kinds.append("text")
                for raw in delta.get("tool_calls") or []:
                    if isinstance(raw, dict) and self._call_delta(raw):
                        kinds.append("tool_call")
                for key, value in delta.items():
                    if key not in ("content", "tool_calls", "role") and value is not None:
                        self.extra[key] = value  # e.g. a server's own `choices` extension
                        if key == "choices":
                            kinds.append("choices")
            if isinstance(choice.get("finish_reason"), str):
                self.finish_reason = choice["finish_reason"]
        return kinds

    def _call_delta(self, raw: dict[str, Any]) -> bool:
        """Merge a tool-call delta; True when it starts a new call."""
        index = raw.get("index")
        if not isinstance(index, int):
            index = len(self._calls)
        new = index not in self._calls
        call = self._calls.setdefault(
            index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if isinstance(raw.get("id"), str):
            call["id"] = raw["id"]
        fn = raw.get("function") or {}
        if isinstance(fn, dict):
            if isinstance(fn.get("name"), str):
                call["function"]["name"] += fn["name"]
            if isinstance(fn.get("arguments"), str):
                call["function"]["arguments"] += fn["arguments"]
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
