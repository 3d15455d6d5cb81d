"""What an agent's JSON may hold, as the harness reads it: the tolerances and the garbage.

agenttest is tolerant of sloppy agents on purpose: a tool call without an id, arguments as
a JSON string or an object, ``content: null``, extra fields, an odd token count or finish
reason are read (or left out), not fatal. What makes a reply unreadable as a turn is
``Garbage`` (an ``ERROR`` attempt, cause ``garbage``) with a message that says what was
missing. Each case goes through the adapter an agent config makes, or the stream decoder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenttest.agents import (
    Garbage,
    OpenAIAdapter,
    Reply,
    StreamAgentError,
    StreamDecoder,
    StreamError,
    launch_for,
    parse_agent_config,
)
from agenttest.errors import UsageError
from agenttest.results import ToolCall

from ._servers import RouteServer


def openai_adapter(tmp_path: Path, extra: str = "") -> OpenAIAdapter:
    text = f"model: m\nbase_url: http://127.0.0.1:9\nmode: openai\n{extra}"
    config = parse_agent_config(text, str(tmp_path / "a.yaml"), tmp_path)
    assert config.openai is not None
    return OpenAIAdapter(config.openai, config.model)


def completion(message: Any, **extra: Any) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": message, **extra}]}).encode()


def read(tmp_path: Path, body: bytes) -> Reply:
    return openai_adapter(tmp_path).parse("s1", "hi", body)


def garbage(tmp_path: Path, body: bytes) -> str:
    with pytest.raises(Garbage) as info:
        read(tmp_path, body)
    return str(info.value)


# -- a chat completion: choices[0].message ---------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name", "arguments"),
    [
        ({"function": {"name": "calc", "arguments": '{"x": 1}'}}, "calc", {"x": 1}),  # no id
        ({"id": "c", "function": {"name": "calc", "arguments": {"x": 1}}}, "calc", {"x": 1}),
        ({"function": {"name": "calc", "arguments": "2+2"}}, "calc", {"input": "2+2"}),
        ({"function": {"name": "calc", "arguments": "[1]"}}, "calc", {"input": [1]}),
        ({"function": {"name": "calc", "arguments": None}}, "calc", {}),
        ({"function": {"name": "calc"}}, "calc", {}),
        ({"function": {"name": 5}}, "5", {}),
        ({"function": {"name": None}}, "", {}),
        ({}, "", {}),  # no function at all: a call with no name
        ({"function": {"name": "c", "extra": 1}, "type": "x", "more": [1]}, "c", {}),
    ],
)
def test_a_tool_call_is_read_however_sloppy(
    tmp_path: Path, call: dict[str, Any], name: str, arguments: dict[str, Any]
) -> None:
    reply = read(tmp_path, completion({"content": "ok", "tool_calls": [call]}))
    assert reply.tool_calls == [
        ToolCall(name=name, arguments=arguments, ok=None, result=None, requested_only=True)
    ]
    assert reply.trace.splitlines()[0] == f"CALL {name} {json.dumps(arguments)}"


@pytest.mark.parametrize(
    ("content", "response"),
    [
        (None, ""),
        ("", ""),
        ("text", "text"),
        (["a", "b"], "a\nb"),
        ([{"type": "text", "text": "a"}], '{"type": "text", "text": "a"}'),
        (5, "5"),
        ({"k": 1}, '{"k": 1}'),
    ],
)
def test_content_is_text_null_or_made_text(tmp_path: Path, content: Any, response: str) -> None:
    reply = read(tmp_path, completion({"content": content}))
    assert reply.response == response
    assert reply.tool_calls == [] and reply.trace == ""


def test_no_content_and_null_tool_calls_are_an_empty_answer(tmp_path: Path) -> None:
    reply = read(tmp_path, completion({"role": "assistant", "tool_calls": None}))
    assert (reply.response, reply.tool_calls) == ("", [])


@pytest.mark.parametrize(
    ("finish", "trace"),
    [("stop", ["FINISH stop"]), (None, []), (5, []), (["stop"], [])],
)
def test_a_finish_reason_that_is_not_text_is_left_out(
    tmp_path: Path, finish: Any, trace: list[str]
) -> None:
    reply = read(tmp_path, completion({"content": "x"}, finish_reason=finish))
    assert reply.trace.splitlines() == trace


def test_only_the_first_choice_is_read(tmp_path: Path) -> None:
    body = {"choices": [{"message": {"content": "first"}}, "junk", 5], "extra": {"x": 1}}
    assert read(tmp_path, json.dumps(body).encode()).response == "first"


@pytest.mark.parametrize(
    ("usage", "tokens", "split"),
    [
        ({"prompt_tokens": 3, "completion_tokens": 4}, 7, (3, 4)),
        ({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 9}, 9, (3, 4)),
        ({"total_tokens": 9}, 9, None),
        ({"prompt_tokens": 3}, None, None),
        ({"prompt_tokens": -3, "completion_tokens": 4, "total_tokens": 2}, 2, None),
        ({"prompt_tokens": True, "completion_tokens": 4}, None, None),
        ({"prompt_tokens": "3", "completion_tokens": 4.0, "total_tokens": "9"}, None, None),
        ({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": "x"}, 7, (3, 4)),
        ({"prompt_tokens": 0, "completion_tokens": 0}, 0, (0, 0)),
        ([3, 4], None, None),
        ("7", None, None),
        (None, None, None),
    ],
)
def test_token_counts_are_read_where_they_are_counts(
    tmp_path: Path, usage: Any, tokens: int | None, split: tuple[int, int] | None
) -> None:
    body = {"choices": [{"message": {"content": "x"}}], "usage": usage}
    reply = read(tmp_path, json.dumps(body).encode())
    assert reply.tokens == tokens
    want = None if split is None else {"input_tokens": split[0], "output_tokens": split[1]}
    assert reply.usage == want


NO_MESSAGE = [
    {},
    {"choices": None},
    {"choices": []},
    {"choices": "abc"},
    {"choices": {"x": 1}},
    {"choices": [5]},
    {"choices": [None]},
    {"choices": [{}]},
    {"choices": [{"message": None}]},
    {"choices": [{"message": "hello"}]},
    {"choices": [{"message": ["content", "x"]}]},
    [1, 2],
    "text",
    None,
]


@pytest.mark.parametrize("body", NO_MESSAGE, ids=[json.dumps(b) for b in NO_MESSAGE])
def test_a_completion_without_a_first_message_is_garbage(tmp_path: Path, body: Any) -> None:
    raw = json.dumps(body).encode()
    assert garbage(tmp_path, raw) == f"reply has no choices[0].message: {raw.decode()!r}"


@pytest.mark.parametrize("calls", [5, "calc", {"function": {"name": "x"}}, True])
def test_tool_calls_that_are_not_a_list_are_garbage(tmp_path: Path, calls: Any) -> None:
    raw = completion({"content": "ok", "tool_calls": calls})
    assert garbage(tmp_path, raw) == f"`tool_calls` in the reply is not a list: {raw.decode()!r}"


@pytest.mark.parametrize(
    "call", [5, "calc", [5], None, {"function": "calc"}, {"function": None}, {"function": [1]}]
)
def test_a_tool_call_without_a_function_object_is_garbage(tmp_path: Path, call: Any) -> None:
    raw = completion({"content": "ok", "tool_calls": [{"function": {"name": "a"}}, call]})
    want = f"a tool call in the reply has no `function` object: {raw.decode()!r}"
    assert garbage(tmp_path, raw) == want


def test_the_excerpt_of_a_long_garbage_reply_is_cut(tmp_path: Path) -> None:
    raw = json.dumps({"choices": [], "pad": "x" * 400}).encode()
    message = garbage(tmp_path, raw)
    assert message == f"reply has no choices[0].message: {raw[:200].decode() + '…'!r}"


def test_a_garbage_reply_leaves_the_history_as_it_was(tmp_path: Path) -> None:
    adapter = openai_adapter(tmp_path, "openai: {system: be brief}\n")
    adapter.parse("s1", "one", completion({"content": "first"}))
    with pytest.raises(Garbage):
        adapter.parse("s1", "two", completion({"content": "x", "tool_calls": 5}))
    assert adapter.history["s1"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "first"},
    ]


def test_choices_offered_in_the_message_are_read(tmp_path: Path) -> None:
    offered = [{"label": "A", "value": "a"}, "B", {"label": "C"}]
    reply = read(tmp_path, completion({"content": "pick", "choices": offered}))
    assert reply.choices == [
        {"label": "A", "value": "a"},
        {"label": "B", "value": "B"},
        {"label": "C", "value": "C"},
    ]
    assert read(tmp_path, completion({"content": "none"})).choices is None
    with pytest.raises(Garbage, match="the reply's choices are not a list"):
        read(tmp_path, completion({"content": "pick", "choices": "A"}))


# -- a stream of chat-completion chunks ------------------------------------------------------------


def chat_stream(*chunks: Any, done: bool = True) -> bytes:
    parts = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    return ("".join(parts) + ("data: [DONE]\n\n" if done else "")).encode()


def chunk(delta: Any, finish: Any = None, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def decode(data: bytes, dialect: Any = "openai", framing: Any = "sse") -> Any:
    decoder = StreamDecoder(framing, dialect)
    decoder.feed(data, 1)
    return decoder.finish()


def test_chunks_merge_into_one_completion() -> None:
    streamed = decode(
        chat_stream(
            chunk({"role": "assistant"}),
            chunk({"content": "Hel"}),
            chunk(
                {
                    "content": "lo",
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "ca", "arguments": '{"x"'}}
                    ],
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"name": "lc", "arguments": ": 1}"}}]}),
            chunk({"tool_calls": [{"function": {"name": "clock"}}]}),  # no index: the next one
            chunk({"choices": [{"label": "A"}], "reasoning": None}, "tool_calls"),
            {"choices": [], "usage": {"total_tokens": 5}},
        )
    )
    assert streamed.text == "Hello"
    assert streamed.final == {
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Hello",
                    "choices": [{"label": "A"}],
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "calc", "arguments": '{"x": 1}'},
                        },
                        {
                            "id": "",
                            "type": "function",
                            "function": {"name": "clock", "arguments": ""},
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"total_tokens": 5},
    }
    assert streamed.timeline.order == ["text", "tool_call", "tool_call", "choices", "final"]


def test_odd_parts_of_a_chunk_are_left_out() -> None:
    streamed = decode(
        chat_stream(
            {"id": "x", "object": "chat.completion.chunk"},  # no choices at all
            {"choices": None},
            {"choices": []},
            {"choices": ["junk", chunk({"content": "not read"})["choices"][0]]},
            chunk(None),
            chunk("text"),
            chunk({"content": 5}),
            chunk({"content": ""}),
            chunk({"content": "a"}, finish=7),
            chunk({"tool_calls": None}),
            chunk({"tool_calls": ["x", 5, None]}),
            chunk({"tool_calls": [{"index": "0", "id": 5, "function": "f"}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"name": 5, "arguments": {"a": 1}}}]}),
            {"choices": [chunk({"content": "b"}, "stop")["choices"][0], "more"], "usage": None},
        )
    )
    message = streamed.final["choices"][0]["message"]
    assert message["content"] == "ab" and streamed.text == "ab"
    assert message["tool_calls"] == [
        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
    ]
    assert streamed.final["choices"][0]["finish_reason"] == "stop"
    assert "usage" not in streamed.final


@pytest.mark.parametrize(
    ("event", "error", "words"),
    [
        ("[1, 2]", StreamError, "chat chunk is not a JSON object: '[1, 2]'"),
        ('{"choices": "abc"}', StreamError, "chat chunk `choices` is not a list"),
        ('{"choices": {"0": {}}}', StreamError, "chat chunk `choices` is not a list"),
        ('{"error": {"message": "overloaded"}}', StreamAgentError, "{'message': 'overloaded'}"),
        ('{"error": "x" }', StreamAgentError, "x"),
    ],
)
def test_a_chunk_that_cannot_be_read_stops_the_stream(
    event: str, error: type[Exception], words: str
) -> None:
    decoder = StreamDecoder("sse", "openai")
    with pytest.raises(error) as info:
        decoder.feed(f"data: {event}\n\n".encode(), 1)
    assert type(info.value) is error and str(info.value) == words


def test_an_error_beside_choices_is_a_chunk() -> None:
    streamed = decode(chat_stream({**chunk({"content": "a"}), "error": None}))
    assert streamed.text == "a"


def test_usage_is_kept_as_it_came_and_read_later() -> None:
    streamed = decode(chat_stream(chunk({"content": "a"}), {"choices": [], "usage": "odd"}))
    assert streamed.final["usage"] == "odd"


# -- a native stream's events ----------------------------------------------------------------------


def native(*events: Any, framing: str = "ndjson") -> Any:
    if framing == "ndjson":
        data = "".join(json.dumps(e) + "\n" for e in events).encode()
    else:
        data = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()
    return decode(data, "native", framing)


def test_native_events_of_every_kind() -> None:
    streamed = native(
        {"type": "text", "delta": "a"},
        {"type": "text", "text": "b"},  # `text` when there is no `delta`
        {"type": "text", "delta": "c", "text": 5},  # `delta` wins; `text` is not read then
        {"type": "text"},  # an empty delta
        {"type": "tool_call", "tool_call": {"name": "calc"}},
        {"type": "tool_call", "name": "clock"},  # the event is the call
        {"type": "tool_call", "tool_call": "plain"},
        {"type": "choices", "choices": "not a list"},
        {"type": 5, "x": 1},  # a type that is not text: no type (ignored here)
        {"type": "something-new", "delta": 5},
        {"type": "final", "reply": {"response": "abc"}, "extra": 1},
    )
    assert streamed.text == "abc"
    assert streamed.tool_calls == [
        {"name": "calc"},
        {"type": "tool_call", "name": "clock"},
        "plain",
    ]
    assert streamed.choices == []
    assert streamed.final == {"response": "abc"}
    assert streamed.timeline.order == ["text", *["tool_call"] * 3, "choices", "final"]


def test_a_final_event_without_a_reply_ends_the_stream_with_none() -> None:
    streamed = native({"type": "text", "delta": "a"}, {"type": "final"})
    assert (streamed.text, streamed.final) == ("a", None)


def test_the_sse_event_name_is_the_type_when_the_data_has_none() -> None:
    data = (
        b'event: text\ndata: {"delta": "a"}\n\n'
        b'event: text\ndata: {"type": 5, "delta": "b"}\n\n'
        b'event: message\ndata: {"delta": "ignored"}\n\n'
        b'event: text\ndata: {"type": "choices", "choices": [1]}\n\n'
        b'event: final\ndata: {"reply": {"response": "ab"}}\n\n'
    )
    streamed = decode(data, "native", "sse")
    assert (streamed.text, streamed.choices, streamed.final) == ("ab", [1], {"response": "ab"})


@pytest.mark.parametrize(
    ("event", "error", "words"),
    [
        ([1], StreamError, "stream event is not a JSON object: '[1]'"),
        ("text", StreamError, "stream event is not a JSON object: 'text'"),
        (
            {"type": "text", "delta": 5},
            StreamError,
            "text event without a string delta: \"{'type': 'text', 'delta': 5}\"",
        ),
        (
            {"type": "text", "delta": None},
            StreamError,
            "text event without a string delta: \"{'type': 'text', 'delta': None}\"",
        ),
        (
            {"type": "text", "text": ["a"]},
            StreamError,
            "text event without a string delta: \"{'type': 'text', 'text': ['a']}\"",
        ),
        ({"type": "error", "message": "boom"}, StreamAgentError, "boom"),
        ({"type": "error", "message": "", "error": "bang"}, StreamAgentError, "bang"),
        ({"type": "error", "error": {"code": 1}}, StreamAgentError, "{'code': 1}"),
        ({"type": "error"}, StreamAgentError, "{'type': 'error'}"),
    ],
)
def test_a_native_event_that_cannot_be_read_stops_the_stream(
    event: Any, error: type[Exception], words: str
) -> None:
    decoder = StreamDecoder("ndjson", "native")
    with pytest.raises(error) as info:
        decoder.feed(json.dumps(event).encode() + b"\n", 1)
    assert type(info.value) is error and str(info.value) == words


# -- a server's model list: what --model defaults to -----------------------------------------------


@pytest.mark.parametrize(
    ("listed", "model"),
    [
        ({"object": "list", "data": [{"id": "m-1", "object": "model"}, {"id": "m-2"}]}, "m-1"),
        ({"data": [{"id": "m-1"}, 5]}, "m-1"),
        ({"data": []}, None),
        ({"data": None}, None),
        ({"object": "list"}, None),
        ({"data": [{"id": ""}]}, None),
        ({"data": [{"id": 5}, {"id": "m-2"}]}, None),
        ({"data": [{"name": "m-1"}]}, None),
        ({"data": ["m-1"]}, None),
    ],
)
def test_the_first_listed_model_is_the_default(listed: Any, model: str | None) -> None:
    routes = {"/v1/models": lambda _m, _b: (200, listed)}
    with RouteServer(routes) as server:
        if model is not None:
            assert launch_for(None, model_url=server.url + "/v1").model == model
            return
        with pytest.raises(UsageError) as info:
            launch_for(None, model_url=server.url + "/v1")
    assert str(info.value) == (
        f"model URL {server.url}/v1: {server.url}/v1/models lists no model; "
        "pass --model NAME (or `example.model`)"
    )


@pytest.mark.parametrize("listed", [[{"id": "m-1"}], "m-1", {"data": "m-1"}, {"data": {"0": 1}}])
def test_a_model_list_that_is_not_one_cannot_be_read(listed: Any) -> None:
    routes = {"/v1/models": lambda _m, _b: (200, listed)}
    with RouteServer(routes) as server, pytest.raises(UsageError) as info:
        launch_for(None, model_url=server.url + "/v1")
    assert str(info.value).startswith(
        f"model URL {server.url}/v1: could not list its models at {server.url}/v1/models ("
    )
