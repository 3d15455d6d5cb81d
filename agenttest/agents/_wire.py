"""The JSON an agent sends, as types: the parts of each protocol the harness reads.

A reply arrives as untyped JSON; it is decoded and made storable first
(:func:`agenttest.sanitize.encodable`, which also refuses nesting beyond reason), then read
through these Structs with msgspec, so a part of the wrong shape is one error at one place
instead of a ``.get`` and an ``isinstance`` at every use. Extra fields are ignored, as
msgspec does by default: an agent may always say more than the harness reads.

The harness is tolerant of sloppy agents on purpose, and the types say how:

* **the shape of a turn** (a completion's first message and its tool calls): a part that
  does not fit means the reply cannot be read as a turn. The adapter says which part
  (:class:`~agenttest.agents.Garbage`, an ``ERROR`` attempt, never a ``FAIL``).
* **evidence beside it** (token counts, the parts of a stream chunk, an event's type):
  ``lenient`` (:mod:`agenttest._util.lenient`) leaves a field that does not fit at its
  default. A server's odd count is not worth losing the turn over.
* ``object`` fields take whatever came, because their readers accept anything: a tool call's
  name is shown as its JSON when it is not text, arguments are JSON text or an object, a
  message's content is text, null or a list of parts.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

Count = Annotated[int, msgspec.Meta(ge=0)]
"""A token count: a whole number, not negative (a bool or ``"12"`` is not a count)."""


def where(exc: msgspec.ValidationError) -> str:
    """The part msgspec's error names (``$.message.tool_calls[0]``); ``$`` for the whole."""
    _, found, path = str(exc).rpartition(" - at `")
    return path.removesuffix("`") if found else "$"


class Usage(msgspec.Struct):
    """A reply's ``usage``: the names of a chat completion's, also read in native and rest
    replies (the example agent's ``openai`` brain reports its model's). Read leniently."""

    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None
    total_tokens: Count | None = None


# -- a chat completion (OpenAI-compatible, ``stream: false``) ---------------------------------------


class ChatFunction(msgspec.Struct):
    """What a tool call asks to run: ``arguments`` are JSON text (OpenAI) or an object (some
    servers); a ``name`` that is not text is recorded as its JSON."""

    name: object = None
    arguments: object = None


class ChatToolCall(msgspec.Struct):
    """One of a message's ``tool_calls``. Its ``id`` and ``type`` are not read, so a call
    without an id is read as well; without ``function`` it is a call with no name."""

    function: ChatFunction = msgspec.field(default_factory=ChatFunction)


class ChatMessage(msgspec.Struct):
    """``choices[0].message``: the answer (``content``: text, null beside tool calls, or a
    list of parts, joined) and the tool calls the model asks for."""

    content: object = None
    tool_calls: list[ChatToolCall] | None = None


class ChatChoice(msgspec.Struct):
    """The first of a completion's ``choices`` (the harness asks for one); a
    ``finish_reason`` that is not text is left out of the trace."""

    message: ChatMessage
    finish_reason: object = None


class ChatCompletion(msgspec.Struct):
    """A chat completion's ``choices``; only the first is read, whatever the others hold."""

    choices: list[object]


# -- a stream of chat-completion chunks (``stream: true``) ------------------------------------------


class ChatChunk(msgspec.Struct):
    """One ``stream: true`` chunk. An ``error`` without ``choices`` is the server failing;
    ``usage`` (often in a last chunk of its own) is kept as it came and read at the end."""

    choices: object = msgspec.UNSET  # a list; only its first entry is read
    usage: object = None
    error: object = msgspec.UNSET


class ChunkFunction(msgspec.Struct):
    """Pieces of a tool call's name and arguments, appended in the order they come."""

    name: str | None = None
    arguments: str | None = None


class ChunkToolCall(msgspec.Struct):
    """A tool-call delta; ``index`` says which call it continues (none: a new one)."""

    index: int | None = None
    id: str | None = None
    function: ChunkFunction = msgspec.field(default_factory=ChunkFunction)


class ChunkDelta(msgspec.Struct):
    """The parts of ``choices[0].delta`` the harness merges; its other fields (a server's
    own ``choices``, ``reasoning``) are kept as they come."""

    content: str | None = None
    tool_calls: list[object] | None = None


class ChunkChoice(msgspec.Struct):
    """``choices[0]`` of a chunk: its ``delta`` (an object; its extensions pass through)."""

    delta: dict[str, object] | None = None
    finish_reason: str | None = None


# -- the native protocol's stream events (docs/agents.md, Streaming) --------------------------------


class NativeEvent(msgspec.Struct):
    """One event of a native stream, read leniently. Its ``type`` (a type that is not text
    is none: in SSE the event's name says it then) says which other field counts; unknown
    types are ignored."""

    type: str | None = None
    delta: object = msgspec.UNSET  # text: the next piece of the answer, text or an error
    text: object = ""  # text: the piece, from agents that name it so (when there is no delta)
    tool_call: object = msgspec.UNSET  # tool_call: one call; without it the event is the call
    choices: list[object] | None = None  # choices: [{label, value}]; not a list: none
    reply: object = None  # final: the whole reply, as the agent answers without streaming
    message: object = None  # error: what went wrong (else `error`, else the event itself)
    error: object = None


# -- a server's model list (``GET /models``) --------------------------------------------------------


class ModelList(msgspec.Struct):
    """An OpenAI-compatible ``/models`` reply; its first entry's ``id`` is the default model."""

    data: list[object] | None = None


class ModelEntry(msgspec.Struct):
    """One listed model, read leniently: an entry without a text ``id`` names no model."""

    id: str = ""
