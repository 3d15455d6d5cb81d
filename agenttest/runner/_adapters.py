"""How one turn is asked and read in each mode: request bodies, response paths, sessions.

The transport (timeouts, busy replies, readiness, one request at a time) lives in
:mod:`._client`; this module only turns a prompt into bytes and bytes into a reply, and
raises :class:`Garbage` when a reply cannot be read as one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agenttest.errors import AttemptError
from agenttest.sanitize import TooDeep, encodable

from ._config_types import (
    NATIVE_TURN_BODY,
    AgentConfig,
    ChoiceFields,
    OpenAI,
    Rest,
    RestRequest,
    RestReset,
    RestResponse,
    Store,
)
from ._stream import Dialect, Streamed
from ._templates import environment

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


class Garbage(AttemptError):
    """A reply that arrived but cannot be read as a turn (not JSON, missing the text, ...)."""


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    content: bytes
    content_type: str
    accept: str | None = None


STREAM_ACCEPT = "text/event-stream, application/x-ndjson;q=0.9, application/json;q=0.5"


@dataclass
class Reply:
    response: str
    tool_calls: list[dict[str, Any]]
    trace: str
    tokens: int | None = None
    notes: list[str] = field(default_factory=list)  # what was repaired to store it (evidence)
    # {"input_tokens", "output_tokens"} when the reply says (`usage` of chat completions
    # and of the native reply); what a price in the agent config turns into cost
    usage: dict[str, int] | None = None
    choices: list[dict[str, str]] | None = None  # offered answers: [{label, value}]
    stream_text: str | None = None  # streamed replies: the text as the deltas said it
    timeline: dict[str, Any] | None = None  # streamed replies: when each part arrived


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def read_usage(data: Any) -> tuple[int | None, dict[str, int] | None]:
    """(total tokens, input/output split) from a reply's ``usage`` object, if it has one."""
    usage = data.get("usage") if isinstance(data, Mapping) else None
    if not isinstance(usage, Mapping):
        return None, None
    inp, out = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    total = _count(usage.get("total_tokens"))
    split = (
        {"input_tokens": inp, "output_tokens": out} if inp is not None and out is not None else None
    )
    if total is None and split is not None:
        total = split["input_tokens"] + split["output_tokens"]
    return total, split


_MISSING = object()


def dig(data: Any, path: str) -> Any:
    """Follow a dotted path (`a.b.0.c`) through dicts and lists; `_MISSING` when absent."""
    current = data
    for part in path.split(".") if path else ():
        if isinstance(current, Mapping):
            if part not in current:
                return _MISSING
            current = current[part]
        elif isinstance(current, list) and part.lstrip("-").isdigit():
            index = int(part)
            if not -len(current) <= index < len(current):
                return _MISSING
            current = current[index]
        else:
            return _MISSING
    return current


def _excerpt(body: bytes, limit: int = 200) -> str:
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
        raise Garbage(f"reply is not JSON: {_excerpt(body)!r}") from None
    try:
        return encodable(data)
    except TooDeep as exc:
        raise Garbage(f"reply is {exc}") from None


def parse_json(body: bytes) -> Any:
    return parse_json_noted(body)[0]


def _text(value: Any) -> str:
    if value is None or value is _MISSING:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value)
    return json.dumps(value, ensure_ascii=False)


def _arguments(value: Any) -> dict[str, Any]:
    if value is _MISSING or value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"input": value}
    return value if isinstance(value, dict) else {"input": value}


def read_choices(value: Any, fields: ChoiceFields) -> list[dict[str, str]] | None:
    """Offered choices as ``[{label, value}]`` (a plain string is both); None when absent."""
    if value is _MISSING or value is None:
        return None
    if not isinstance(value, list):
        raise Garbage(f"the reply's choices are not a list: {str(value)[:120]!r}")
    out = []
    for item in value:
        if isinstance(item, Mapping):
            label = _text(dig(item, fields.label))
            raw = dig(item, fields.value)
            chosen = label if raw is _MISSING or raw is None else _text(raw)
        else:
            label = chosen = _text(item)
        out.append({"label": label, "value": chosen})
    return out


def streamed_final(streamed: Streamed) -> tuple[Any, list[str]]:
    """The final event's reply, made storable like a whole body."""
    try:
        return encodable(streamed.final)
    except TooDeep as exc:
        raise Garbage(f"the final event's reply is {exc}") from None


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
            raise Garbage(f"the stored reply has no text at `{store.text}`: {_excerpt(body)!r}")
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
        return self._read(data, notes, lambda: _excerpt(body))

    def parse_stream(self, session_id: str, prompt: str, streamed: Streamed) -> Reply:
        calls = [self._tool_call(item) for item in streamed.tool_calls]
        if streamed.final is None:  # a final event without `reply`: the deltas are the reply
            reply = Reply(streamed.text, calls, "", choices=self._choices(streamed.choices))
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
        if text is _MISSING or not isinstance(text, str | type(None)):
            raise Garbage(f"reply has no text at `{spec.text}`: {excerpt()!r}")
        calls_raw = dig(data, spec.tool_calls) if spec.tool_calls else []
        if calls_raw is _MISSING or calls_raw is None:
            calls_raw = []
        if not isinstance(calls_raw, list):
            raise Garbage(f"`{spec.tool_calls}` in the reply is not a list: {excerpt()!r}")
        total, usage = read_usage(data)
        tokens = _count(dig(data, spec.tokens)) if spec.tokens else total
        return Reply(
            response=text or "",
            tool_calls=[self._tool_call(item) for item in calls_raw],
            trace=_text(dig(data, spec.trace)) if spec.trace else "",
            tokens=tokens,
            notes=notes,
            usage=usage,
            choices=self._choices(dig(data, spec.choices)) if spec.choices else None,
        )

    def _tool_call(self, item: Any) -> dict[str, Any]:
        if not isinstance(item, Mapping):
            return {"name": _text(item), "arguments": {}, "ok": None, "result": None}
        f = self.rest.response.tool_call
        ok = dig(item, f.ok) if f.ok else None
        result = dig(item, f.result) if f.result else None
        return {
            "name": _text(dig(item, f.name)),
            "arguments": _arguments(dig(item, f.arguments)),
            "ok": ok if isinstance(ok, bool) else None,
            "result": None if result is _MISSING else result,
        }


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
        return self._read(session_id, prompt, data, notes, lambda: _excerpt(body))

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
        message = dig(data, "choices.0.message")
        if not isinstance(message, Mapping):
            raise Garbage(f"reply has no choices[0].message: {excerpt()!r}")
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            content = _text(content)
        calls = []
        trace = []
        raw_calls = message.get("tool_calls")
        if raw_calls is not None and not isinstance(raw_calls, list):
            # a string would otherwise become one call per character
            raise Garbage(f"`tool_calls` in the reply is not a list: {excerpt()!r}")
        for raw in raw_calls or []:
            fn = raw.get("function", {}) if isinstance(raw, Mapping) else None
            if not isinstance(fn, Mapping):
                raise Garbage(f"a tool call in the reply has no `function` object: {excerpt()!r}")
            call = {
                "name": _text(fn.get("name")),
                "arguments": _arguments(fn.get("arguments")),
                "ok": None,
                "result": None,
                # chat completions only *ask* for a call; no tool runs behind this endpoint
                "requested_only": True,
            }
            calls.append(call)
            trace.append(f"CALL {call['name']} {json.dumps(call['arguments'], ensure_ascii=False)}")
        finish = dig(data, "choices.0.finish_reason")
        if isinstance(finish, str):
            trace.append(f"FINISH {finish}")
        tokens, usage = read_usage(data)
        history = self.history.setdefault(session_id, [])
        if self.spec.system and not history:
            history.append({"role": "system", "content": self.spec.system})
        history.append({"role": "user", "content": prompt})
        history.append({"role": "assistant", "content": content or ""})
        return Reply(
            response=content or "",
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


def make_adapter(config: AgentConfig) -> Adapter:
    if config.mode == "openai":
        return OpenAIAdapter(config.openai or OpenAI(), config.model, config.stream)
    if config.mode == "rest":
        return RestAdapter(config.rest or Rest(), config.model, config.stream)
    native = NATIVE_STREAM if config.stream else NATIVE
    return RestAdapter(native, config.model, config.stream, native=True)
