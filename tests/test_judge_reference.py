"""The `reference` judge against a loopback chat-completions server started by the test."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agenttest.errors import JudgeUnavailable, UsageError
from agenttest.judges import JudgeRequest, get_judge, score_pairs
from agenttest.judges._reference_judge import (
    ParsedVerdict,
    ReferenceJudge,
    build_messages,
    parse_verdict,
)

REQ = JudgeRequest(
    rubric="States the capital of France.",
    reference="Paris",
    candidate="The capital is Paris.",
    context="geography quiz",
)


@dataclass
class Reply:
    status: int = 200
    content: str | None = None  # the assistant message; None sends `body` as is
    body: str = ""
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ChatServer:
    """A scripted OpenAI-compatible endpoint on 127.0.0.1: replies are served in order."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.seen: list[Seen] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                server.seen.append(
                    Seen(
                        self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw)
                    )
                )
                reply = (
                    server.replies.pop(0) if server.replies else Reply(status=599, body="no script")
                )
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.content is not None:
                    payload = json.dumps(
                        {
                            "id": "chatcmpl-test",
                            "object": "chat.completion",
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": reply.content},
                                    "finish_reason": "stop",
                                }
                            ],
                        }
                    ).encode()
                else:
                    payload = reply.body.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENTTEST_TEST_KEY", "sk-loopback-123")
    srv = ChatServer()
    yield srv
    srv.close()


def make(server: ChatServer, **options: Any) -> ReferenceJudge:
    options.setdefault("retries", 0)
    return ReferenceJudge(
        base_url=server.base_url, model="judge-model", api_key_env="AGENTTEST_TEST_KEY", **options
    )


def verdict_json(verdict: str = "PASS", score: float = 0.92, reason: str = "Names Paris.") -> str:
    return json.dumps({"verdict": verdict, "score": score, "reason": reason})


# --- the request -------------------------------------------------------------------------


def test_request_is_deterministic_and_carries_the_case(server: ChatServer) -> None:
    server.replies.append(Reply(content=verdict_json()))
    with make(server, seed=7) as judge:
        result = judge.judge(REQ)
    assert result.verdict == "PASS"
    (seen,) = server.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-loopback-123"
    assert seen.body["model"] == "judge-model"
    assert seen.body["temperature"] == 0
    assert seen.body["seed"] == 7
    assert "response_format" not in seen.body
    system, user = seen.body["messages"]
    assert system["role"] == "system" and "JSON" in system["content"]
    assert user["role"] == "user"
    for text in (REQ.rubric, REQ.reference, REQ.candidate, REQ.context):
        assert text in user["content"]


def test_json_mode_and_no_key_for_local_servers(server: ChatServer) -> None:
    server.replies.append(Reply(content=verdict_json()))
    judge = ReferenceJudge(
        base_url=server.base_url, model="m", api_key_env="", json_mode="true", retries=0
    )
    assert judge.judge(REQ).verdict == "PASS"
    (seen,) = server.seen
    assert "authorization" not in seen.headers
    assert seen.body["response_format"] == {"type": "json_object"}


def test_messages_leave_out_empty_sections() -> None:
    user = build_messages(JudgeRequest(rubric="Be polite.", reference="", candidate="Hi"))[1]
    assert "REFERENCE ANSWER" not in user["content"]
    assert "CONTEXT" not in user["content"]
    assert "Be polite." in user["content"] and "Hi" in user["content"]


# --- good verdicts -----------------------------------------------------------------------


def test_good_pass_and_fail_verdicts(server: ChatServer) -> None:
    server.replies += [
        Reply(content=verdict_json("PASS", 0.92, "Names Paris.")),
        Reply(content=verdict_json("FAIL", 0.05, "Says Lyon instead of Paris.")),
    ]
    judge = make(server)
    passed = judge.judge(REQ)
    failed = judge.judge(JudgeRequest("States the capital.", "Paris", "It is Lyon."))
    assert (passed.verdict, passed.score, passed.judge) == ("PASS", 0.92, "reference")
    assert passed.evidence == "judge-model: Names Paris."
    assert (failed.verdict, failed.score) == ("FAIL", 0.05)
    assert "Lyon instead of Paris" in failed.evidence


def test_think_block_before_the_json_is_accepted(server: ChatServer) -> None:
    server.replies.append(Reply(content="<think>Paris is right.</think>\n" + verdict_json()))
    assert make(server).judge(REQ).verdict == "PASS"


# --- anything else is ERROR, never FAIL --------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "PASS",
        "The answer is fine. " + verdict_json(),
        "```json\n" + verdict_json() + "\n```",
        '{"verdict": "PASS", "score": 0.9',  # truncated
        verdict_json("pass"),
        verdict_json("FAIL", 1.5),
        '{"verdict": "FAIL", "score": true, "reason": "x"}',
        '{"verdict": "FAIL", "score": NaN, "reason": "x"}',
        '{"verdict": "FAIL", "score": 0.1}',
        '{"verdict": "FAIL", "score": 0.1, "reason": "x", "confidence": 1}',
        '{"verdict": "FAIL", "verdict": "PASS", "score": 0.1, "reason": "x"}',
        '["FAIL", 0.1, "x"]',
        "",
    ],
)
def test_malformed_reply_is_error(server: ChatServer, content: str) -> None:
    server.replies.append(Reply(content=content))
    result = make(server).judge(REQ)
    assert result.verdict == "ERROR", content
    assert result.score == 0.0
    assert "unusable verdict" in result.evidence


def test_http_500_is_error(server: ChatServer) -> None:
    server.replies.append(Reply(status=500, body='{"error": "model crashed"}'))
    result = make(server).judge(REQ)
    assert result.verdict == "ERROR"
    assert "HTTP 500" in result.evidence and "model crashed" in result.evidence
    assert len(server.seen) == 1


def test_http_401_is_error_without_retry(server: ChatServer) -> None:
    server.replies += [Reply(status=401, body="bad key"), Reply(content=verdict_json())]
    result = make(server, retries=3).judge(REQ)
    assert result.verdict == "ERROR" and "HTTP 401" in result.evidence
    assert len(server.seen) == 1


def test_transient_503_is_retried(server: ChatServer) -> None:
    server.replies += [
        Reply(status=503, body="busy", headers={"Retry-After": "0"}),
        Reply(content=verdict_json("FAIL", 0.2, "Wrong city.")),
    ]
    result = make(server, retries=1).judge(REQ)
    assert result.verdict == "FAIL"
    assert len(server.seen) == 2


def test_body_without_a_completion_is_error(server: ChatServer) -> None:
    server.replies += [Reply(body='{"choices": []}'), Reply(body="not json at all")]
    judge = make(server)
    assert judge.judge(REQ).verdict == "ERROR"
    second = judge.judge(REQ)
    assert second.verdict == "ERROR" and "no chat completion" in second.evidence


def test_timeout_is_error(server: ChatServer) -> None:
    server.replies.append(Reply(content=verdict_json(), delay_s=1.5))
    result = make(server, timeout_s=0.3).judge(REQ)
    assert result.verdict == "ERROR" and "Timeout" in result.evidence


def test_refused_connection_is_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    judge = ReferenceJudge(
        base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key_env="", retries=0
    )
    result = judge.judge(REQ)
    assert result.verdict == "ERROR" and "ConnectError" in result.evidence


def test_nothing_to_grade_against_is_error_without_a_request(server: ChatServer) -> None:
    result = make(server).judge(JudgeRequest(rubric=" ", reference="", candidate="Paris"))
    assert result.verdict == "ERROR"
    assert server.seen == []


# --- configuration -----------------------------------------------------------------------


def test_missing_key_model_and_bad_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTTEST_REFERENCE_MODEL", raising=False)
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(JudgeUnavailable, match=r"\$NO_SUCH_KEY_VAR, which is not set"):
        ReferenceJudge(model="m", api_key_env="NO_SUCH_KEY_VAR")
    with pytest.raises(JudgeUnavailable, match="needs a model name"):
        ReferenceJudge(api_key_env="")
    with pytest.raises(JudgeUnavailable, match="http"):
        ReferenceJudge(base_url="ftp://x", model="m", api_key_env="")
    with pytest.raises(UsageError, match="does not take these options"):
        get_judge("reference", model="m", api_key_env="", temperature=0.5)


def test_environment_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTTEST_REFERENCE_BASE_URL", "http://127.0.0.1:9/v1/")
    monkeypatch.setenv("AGENTTEST_REFERENCE_MODEL", "env-model")
    judge = ReferenceJudge(api_key_env="")
    assert judge.url == "http://127.0.0.1:9/v1/chat/completions"
    assert judge.model == "env-model"


def test_registry_and_score_pairs(server: ChatServer) -> None:
    server.replies += [
        Reply(content=verdict_json("PASS", 1.0, "ok")),
        Reply(content="garbage"),
        Reply(content=verdict_json("FAIL", 0.0, "no")),
    ]
    judge = get_judge(
        "reference",
        base_url=server.base_url,
        model="judge-model",
        api_key_env="AGENTTEST_TEST_KEY",
        retries="0",
    )
    pairs = [{"id": i, "reference": "Paris", "candidate": c} for i, c in enumerate("abc")]
    rows = list(score_pairs(judge, pairs))
    assert [(r["id"], r["verdict"]) for r in rows] == [(0, "PASS"), (1, "ERROR"), (2, "FAIL")]


# --- the parser on its own ---------------------------------------------------------------


def test_parse_verdict_values() -> None:
    assert parse_verdict('  {"verdict":"FAIL","score":0,"reason":" r "}\n') == ParsedVerdict(
        "FAIL", 0.0, "r"
    )
    assert parse_verdict('{"verdict":"PASS","score":1,"reason":""}') == ParsedVerdict(
        "PASS", 1.0, ""
    )
    assert "exactly verdict, score and reason" in str(parse_verdict('{"verdict": "PASS"}'))
    assert "duplicate" in str(parse_verdict('{"a": 1, "a": 2}'))
    assert parse_verdict("<think>x</think><think>y</think>" + verdict_json()) != ParsedVerdict(
        "PASS", 0.92, "Names Paris."
    )
