"""A scripted OpenAI-compatible chat-completions model on 127.0.0.1 (deterministic).

The third-party agent (tests/thirdparty/shim.py) thinks with this model. A :class:`Plan`
says, for a user message that contains its ``when``, which tool calls the model asks for,
round by round, and the final text it writes once every round has its results: ``{0}``,
``{1}``, … in ``answer`` are the tool results in the order they came back. The model never
guesses, so what the agent does on a turn is known before the turn runs; a message no plan
matches gets ``NO_PLAN``.

Run it in a thread with ``with ScriptedModel([...]) as model: model.base_url``; each chat
request it answered is kept in ``model.requests`` (the tools the agent offered included).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._servers import RouteServer

NO_PLAN = "I have no plan for that message."
MODEL_NAME = "scripted-mcp-model"


@dataclass(frozen=True)
class Call:
    """One tool call the model asks for."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """What the model does when the latest user message contains ``when``."""

    when: str
    rounds: tuple[tuple[Call, ...], ...] = ()  # each round is one assistant message's calls
    answer: str = "done"


def _latest_user_turn(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The last user message and the messages after it (this turn's rounds so far)."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            content = messages[i].get("content")
            if isinstance(content, list):  # content parts: keep the text ones
                content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content), messages[i + 1 :]
    return "", messages


def _completion(message: dict[str, Any], n: int) -> dict[str, Any]:
    reason = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": f"chatcmpl-scripted-{n}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": MODEL_NAME,
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }


class ScriptedModel(RouteServer):
    """Answers ``POST /v1/chat/completions`` from its plans; ``GET /v1/models`` names it."""

    def __init__(self, plans: Sequence[Plan]) -> None:
        self.plans = list(plans)
        self.requests: list[dict[str, Any]] = []
        super().__init__(
            {
                "/v1/models": lambda _m, _b: (200, {"data": [{"id": MODEL_NAME}]}),
                "/v1/chat/completions": self._chat,
            }
        )

    def __enter__(self) -> ScriptedModel:
        self.start()
        return self

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def _chat(self, _method: str, body: Any) -> tuple[int, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 400, {"error": {"message": "messages is required"}}
        self.requests.append(body)
        prompt, since = _latest_user_turn(body["messages"])
        plan = next((p for p in self.plans if p.when in prompt), None)
        if plan is None:
            return 200, _completion({"role": "assistant", "content": NO_PLAN}, len(self.requests))
        done = sum(1 for m in since if m.get("role") == "assistant" and m.get("tool_calls"))
        if done < len(plan.rounds):
            calls = [
                {
                    "id": f"call_{done}_{i}",
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for i, c in enumerate(plan.rounds[done])
            ]
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
        else:
            results = [str(m.get("content")) for m in since if m.get("role") == "tool"]
            message = {"role": "assistant", "content": plan.answer.format(*results)}
        return 200, _completion(message, len(self.requests))
