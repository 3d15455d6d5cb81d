"""How one turn is asked and read in each mode: request bodies, response paths, sessions.

The transport (timeouts, busy replies, readiness, one request at a time) lives in
:mod:`._client`; this module only turns a prompt into bytes and bytes into a reply (read
with :mod:`._reply`, which raises :class:`Garbage` when a reply cannot be read as one).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from agenttest.results import ToolCall

from ._agent import Reply
from ._config_types import (
    NATIVE_TURN_BODY,
    AgentConfig,
    OpenAI,
    Rest,
    RestRequest,
    RestReset,
    RestResponse,
    Store,
)
from ._reply import (
    MISSING,
    Garbage,
    arguments_of,
    body_excerpt,
    check_call_count,
    count_of,
    dig,
    parse_json,
    parse_json_noted,
    read_choices,
    read_steps,
    read_usage,
    streamed_final,
    text_of,
)
from ._stream import Dialect, Streamed
from ._templates import environment
from ._wire import ChatChoice, ChatCompletion, where

NATIVE = Rest(
    request=RestRequest(),
    response=RestResponse(),
    reset=RestReset(
        path="/v1/reset",
        body='{"session_id": {{ session_id | tojson }}, "memory": {{ memory | tojson }}}',
    ),
)

# Streaming in native mode is asked for in the body too (some agents cannot see headers).
NATIVE_STREAM = Rest(
    request=RestRequest(body=NATIVE_TURN_BODY.removesuffix("}") + ', "stream": true}'),
    response=RestResponse(),
    reset=NATIVE.reset,
)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    content: bytes
    content_type: str
    accept: str | None = None


STREAM_ACCEPT = "text/event-stream, application/x-ndjson;q=0.9, application/json;q=0.5"


class Adapter:
    """One mode's request building and reply reading. Sessions live here (openai history)."""

    dialect: Dialect = "native"

    def turn_request(self, session_id: str, prompt: str, turn: int) -> Request:
        raise NotImplementedError

    def parse(self, session_id: str, prompt: str, body: bytes) -> Reply:
        raise NotImplementedError

    def parse_stream(self, session_id: str, prompt: str, streamed: Streamed) -> Reply:
        raise NotImplementedError

    def reset_request(self, session_id: str, memory: bool) -> Request | None:
        return None

    def seed_request(self, session_id: str, items: list[str]) -> Request | None:
        """How to put notes into the agent's persistent memory; None: it cannot be seeded."""
        return None

    def store_request(self, store: Store, session_id: str, turn: int) -> Request:
        path = environment().from_string(store.path).render(session_id=session_id, turn=turn)
        return Request(store.method.upper(), path, b"", "")

    def stored_text(self, store: Store, body: bytes) -> str:
        text = dig(parse_json(body), store.text)
        if not isinstance(text, str):
            raise Garbage(f"the stored reply has no text at `{store.text}`: {body_excerpt(body)!r}")
        return text

    def forget(self, session_id: str) -> None:
        """Drop what the runner itself keeps for a session."""


class RestAdapter(Adapter):
    """Native and rest modes: a templated request, replies read through dotted paths."""

    def __init__(
        self, rest: Rest, model: str, stream: bool = False, *, native: bool = False
    ) -> None:
        self.rest = rest
        self.model = model
        self.stream = stream
        self.native = native  # the native protocol seeds memory at /v1/memory/seed
        env = environment()
        self._body = env.from_string(rest.request.body)
        self._path = env.from_string(rest.request.path)
        self._reset_body = env.from_string(rest.reset.body)
        self._reset_path = env.from_string(rest.reset.path) if rest.reset.path else None

    def turn_request(self, session_id: str, prompt: str, turn: int) -> Request:
        values = {
            "prompt": prompt,
            "session_id": session_id,
            "turn": turn,
            "model": self.model,
            "stream": self.stream,
        }
        req = self.rest.request
        return Request(
            req.method.upper(),
            self._path.render(values),
            self._body.render(values).encode("utf-8"),
            req.content_type,
            STREAM_ACCEPT if self.stream else None,
        )

    def reset_request(self, session_id: str, memory: bool) -> Request | None:
        if self._reset_path is None:
            return None
        values = {"session_id": session_id, "memory": memory, "model": self.model}
        reset = self.rest.reset
        return Request(
            reset.method.upper(),
            self._reset_path.render(values),
            self._reset_body.render(values).encode("utf-8"),
            reset.content_type,
        )

    def seed_request(self, session_id: str, items: list[str]) -> Request | None:
        if not self.native:
            return None
        body = json.dumps({"session_id": session_id, "items": items}).encode("utf-8")
        return Request("POST", "/v1/memory/seed", body, "application/json")

    def parse(self, session_id: str, prompt: str, body: bytes) -> Reply:
        data, notes = parse_json_noted(body)
        return self._read(data, notes, lambda: body_excerpt(body))

    def parse_stream(self, session_id: str, prompt: str, streamed: Streamed) -> Reply:
        calls = [self._tool_call(item) for item in streamed.tool_calls]
        if streamed.final is None:  # a final event without `reply`: the deltas are the reply
            reply = Reply(
                streamed.text,
                calls,
                "",
                choices=self._choices(streamed.choices),
                notes=list(streamed.notes),
            )
        else:
            data, notes = streamed_final(streamed)
            reply = self._read(data, notes, lambda: str(streamed.final)[:200])
            if not reply.tool_calls:
                reply.tool_calls = calls
            if reply.choices is None:
                reply.choices = self._choices(streamed.choices)
        reply.stream_text = streamed.text
        reply.timeline = streamed.timeline.as_dict()
        return reply

    def _choices(self, value: Any) -> list[dict[str, str]] | None:
        return read_choices(value, self.rest.response.choice)

    def _read(self, data: Any, notes: list[str], excerpt: Callable[[], str]) -> Reply:
        spec = self.rest.response
        text = dig(data, spec.text)
        if text is MISSING or not isinstance(text, str | type(None)):
            raise Garbage(f"reply has no text at `{spec.text}`: {excerpt()!r}")
        calls_raw = dig(data, spec.tool_calls) if spec.tool_calls else []
        if calls_raw is MISSING or calls_raw is None:
            calls_raw = []
        if not isinstance(calls_raw, list):
            raise Garbage(f"`{spec.tool_calls}` in the reply is not a list: {excerpt()!r}")
        check_call_count(calls_raw)
        total, usage = read_usage(data)
        tokens = count_of(dig(data, spec.tokens)) if spec.tokens else total
        return Reply(
            response=text or "",
            tool_calls=[self._tool_call(item) for item in calls_raw],
            trace=text_of(dig(data, spec.trace)) if spec.trace else "",
            tokens=tokens,
            notes=notes,
            usage=usage,
            choices=self._choices(dig(data, spec.choices)) if spec.choices else None,
            model_steps=read_steps(dig(data, "model_steps")) if self.native else None,
        )

    def _tool_call(self, item: Any) -> ToolCall:
        if not isinstance(item, Mapping):
            return ToolCall(name=text_of(item))
        f = self.rest.response.tool_call
        ok = dig(item, f.ok) if f.ok else None
        result = dig(item, f.result) if f.result else None
        return ToolCall(
            name=text_of(dig(item, f.name)),
            arguments=arguments_of(dig(item, f.arguments)),
            ok=ok if isinstance(ok, bool) else None,
            result=None if result is MISSING else result,
        )


class OpenAIAdapter(Adapter):
    """Chat completions: the runner keeps each session's messages and resends them."""

    dialect: Dialect = "openai"

    def __init__(self, spec: OpenAI, model: str, stream: bool = False) -> None:
        self.spec = spec
        self.model = spec.model or model
        self.stream = stream
        self.history: dict[str, list[dict[str, Any]]] = {}

    def turn_request(self, session_id: str, prompt: str, turn: int) -> Request:
        messages = list(self.history.get(session_id, []))
        if self.spec.system and not messages:
            messages.append({"role": "system", "content": self.spec.system})
        messages.append({"role": "user", "content": prompt})
        # `user` (the API's end-user id) carries the session to agents that keep their own
        body = {"user": session_id, **self.spec.params, "model": self.model, "messages": messages}
        if self.stream:
            body["stream"] = True
        return Request(
            "POST",
            self.spec.path,
            json.dumps(body).encode(),
            "application/json",
            "text/event-stream" if self.stream else None,
        )

    def parse(self, session_id: str, prompt: str, body: bytes) -> Reply:
        data, notes = parse_json_noted(body)
        return self._read(session_id, prompt, data, notes, lambda: body_excerpt(body))

    def parse_stream(self, session_id: str, prompt: str, streamed: Streamed) -> Reply:
        data, notes = streamed_final(streamed)
        reply = self._read(session_id, prompt, data, notes, lambda: str(streamed.final)[:200])
        reply.stream_text = streamed.text
        reply.timeline = streamed.timeline.as_dict()
        return reply

    def _read(
        self,
        session_id: str,
        prompt: str,
        data: Any,
        notes: list[str],
        excerpt: Callable[[], str],
    ) -> Reply:
        choice = first_choice(data, excerpt)
        content = text_of(choice.message.content)
        calls = []
        trace = []
        check_call_count(choice.message.tool_calls or [])
        for raw in choice.message.tool_calls or []:
            call = ToolCall(
                name=text_of(raw.function.name),
                arguments=arguments_of(raw.function.arguments),
                # chat completions only *ask* for a call; no tool runs behind this endpoint
                requested_only=True,
            )
            calls.append(call)
            trace.append(f"CALL {call.name} {json.dumps(call.arguments, ensure_ascii=False)}")
        if isinstance(choice.finish_reason, str):
            trace.append(f"FINISH {choice.finish_reason}")
        tokens, usage = read_usage(data)
        history = self.history.setdefault(session_id, [])
        if self.spec.system and not history:
            history.append({"role": "system", "content": self.spec.system})
        history.append({"role": "user", "content": prompt})
        history.append({"role": "assistant", "content": content})
        return Reply(
            response=content,
            tool_calls=calls,
            trace="\n".join(trace),
            tokens=tokens,
            notes=notes,
            usage=usage,
            choices=read_choices(dig(data, self.spec.choices), self.spec.choice)
            if self.spec.choices
            else None,
        )

    def forget(self, session_id: str) -> None:
        self.history.pop(session_id, None)


def first_choice(data: Any, excerpt: Callable[[], str]) -> ChatChoice:
    """``choices[0]`` of a chat completion, or :class:`Garbage` naming what it lacks."""
    try:
        first = msgspec.convert(data, ChatCompletion).choices[0]
        return msgspec.convert(first, ChatChoice)
    except (msgspec.ValidationError, IndexError) as exc:
        part = where(exc) if isinstance(exc, msgspec.ValidationError) else "$"
    if part == "$.message.tool_calls":  # a string would otherwise be one call per character
        raise Garbage(f"`tool_calls` in the reply is not a list: {excerpt()!r}")
    if part.startswith("$.message.tool_calls["):
        raise Garbage(f"a tool call in the reply has no `function` object: {excerpt()!r}")
    raise Garbage(f"reply has no choices[0].message: {excerpt()!r}")


def make_adapter(config: AgentConfig) -> Adapter:
    if config.mode == "openai":
        return OpenAIAdapter(config.openai or OpenAI(), config.model, config.stream)
    if config.mode == "rest":
        return RestAdapter(config.rest or Rest(), config.model, config.stream)
    native = NATIVE_STREAM if config.stream else NATIVE
    return RestAdapter(native, config.model, config.stream, native=True)
