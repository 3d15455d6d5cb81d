"""The request bodies the example agent reads, as types (SPEC section 5, and its chat face).

Each body is first a JSON object (:mod:`._server` says so when it is not), then one of these
Structs, decoded with msgspec; a field that does not fit is one ``400`` that names the rule
(:func:`read`). Extra fields are read past: a client may always say more. The session is
checked before anything else a native request carries, so a body wrong in two places gets
the same answer it always did.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

import msgspec

S = TypeVar("S", bound=msgspec.Struct)

Text = Annotated[str, msgspec.Meta(min_length=1)]
"""A string that is not empty."""


class BadRequest(ValueError):
    """A body that does not fit its request: a ``400`` with these words."""


def read(body: object, cls: type[S], rule: str) -> S:
    """``body`` as a ``cls``, or :class:`BadRequest` saying ``rule``."""
    try:
        return msgspec.convert(body, cls)
    except msgspec.ValidationError:
        raise BadRequest(rule) from None


class Addressed(msgspec.Struct):
    """What every native request names first: its session."""

    session_id: Text


SESSION_RULE = "session_id must be a non-empty string"


class TurnRequest(msgspec.Struct):
    """``POST /v1/turn``: a message in a session; ``"stream": true`` asks for SSE (any other
    value does not, and is not an error)."""

    session_id: Text
    message: str
    stream: object = None

    @property
    def streamed(self) -> bool:
        return self.stream is True


class ResetRequest(msgspec.Struct):
    """``POST /v1/reset``: forget a session, and with ``memory`` the persistent notes too."""

    session_id: Text
    memory: bool = False


class SeedRequest(msgspec.Struct):
    """``POST /v1/memory/seed``: notes saved as if an earlier session had (EV blocks)."""

    session_id: Text
    items: list[Text]


class ChatRequest(msgspec.Struct):
    """``POST /v1/chat/completions``: the agent keeps its own sessions, so only the newest
    message is the turn; the session is ``user`` (the runner sends its session id there),
    and ``model`` is named back in the reply."""

    messages: Annotated[list[object], msgspec.Meta(min_length=1)]
    user: object = None
    model: object = None
    stream: object = None


class Speaker(msgspec.Struct):
    """The newest message of a chat request must be the user's ..."""

    role: Literal["user"]


class UserMessage(msgspec.Struct):
    """... and its content text (a list of parts is not read)."""

    content: str


def chat_turn(body: dict[str, object]) -> tuple[TurnRequest, str]:
    """The turn a chat-completions request asks for, and the model to name in the reply;
    :class:`BadRequest` when it asks for none."""
    chat = read(body, ChatRequest, "messages must be a non-empty list")
    last = chat.messages[-1]
    read(last, Speaker, "the last message must be the user's")
    content = read(last, UserMessage, "the user message's content must be a string").content
    session = chat.user if isinstance(chat.user, str) and chat.user else "openai-default"
    model = str(chat.model or "example-agent")
    return TurnRequest(session, content, chat.stream), model
