"""What an agent config holds (SPEC section 5), typed: one frozen dataclass per section.

The field defaults and ``metadata["doc"]`` are the config's documentation (``agenttest
schema``); :mod:`._config` reads a file into these. :meth:`AgentConfig.redacted` is the only
form that ever reaches a run file: every header value, URL password and secret-looking key
is ``***`` there.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agenttest.sanitize import redact

from ._config_example import ExampleSpec

Mode = Literal["native", "rest", "openai", "reference"]
#: What an agent can give a block beyond its replies (docs/agents.md, "What an agent
#: provides"): agent-internal trace markers (its own log or trace, not the harness's), a
#: memory seed endpoint, a workspace the harness can lay fixtures in.
Capability = Literal["trace", "seed", "workspace"]
REDACTED = "***"
_SECRET_KEY_RE = re.compile(r"(?i)(secret|token|password|passwd|api[_-]?key|auth|cookie)")

NATIVE_TURN_BODY = '{"session_id": {{ session_id | tojson }}, "message": {{ prompt | tojson }}}'
NATIVE_RESET_BODY = '{"session_id": {{ session_id | tojson }}}'


@dataclass(frozen=True)
class Timeouts:
    connect_s: float = field(default=10.0, metadata={"doc": "to open a connection"})
    answer_s: float = field(default=1200.0, metadata={"doc": "for one turn's answer"})
    busy_s: float = field(
        default=900.0, metadata={"doc": "longest wait for a busy agent to accept one request"}
    )
    retry_after_cap_s: float = field(
        default=60.0, metadata={"doc": "a Retry-After longer than this is shortened to it"}
    )
    idle_s: float | None = field(
        default=None,
        metadata={"doc": "streamed replies: longest gap between chunks; null: answer_s"},
    )


@dataclass(frozen=True)
class Readiness:
    timeout_s: float = 900.0
    path: str | None = field(
        default="/health", metadata={"doc": "null: only check that the port accepts"}
    )
    ready_field: str | None = field(
        default="status",
        metadata={"yaml": "field", "doc": "dotted path in the JSON reply; null: any 2xx"},
    )
    ready: tuple[str, ...] = ("ready",)
    poll_s: float = field(default=0.25, metadata={"doc": "first pause between polls"})
    max_poll_s: float = field(default=5.0, metadata={"doc": "the back-off stops growing here"})
    probe_timeout_s: float = 10.0


@dataclass(frozen=True)
class RestRequest:
    method: str = "POST"
    path: str = "/v1/turn"
    body: str = field(
        default=NATIVE_TURN_BODY,
        metadata={"doc": "Jinja template over prompt, session_id, turn, model"},
    )
    content_type: str = "application/json"


@dataclass(frozen=True)
class ToolCallFields:
    """Where the fields of one tool call sit inside one item of the tool-call list."""

    name: str = "name"
    arguments: str = "arguments"
    ok: str | None = "ok"
    result: str | None = "result"


@dataclass(frozen=True)
class ChoiceFields:
    """Where label and value sit inside one offered choice (a plain string is both)."""

    label: str = "label"
    value: str = "value"


@dataclass(frozen=True)
class RestResponse:
    text: str = "response"
    tool_calls: str | None = "tool_calls"
    trace: str | None = "trace"
    tool_call: ToolCallFields = field(default_factory=ToolCallFields)
    tokens: str | None = field(default=None, metadata={"doc": "dotted path to tokens used"})
    choices: str | None = field(
        default="choices", metadata={"doc": "dotted path to offered choices [{label, value}]"}
    )
    choice: ChoiceFields = field(default_factory=ChoiceFields)


@dataclass(frozen=True)
class RestReset:
    method: str = "POST"
    path: str | None = field(default=None, metadata={"doc": "null: no reset call"})
    body: str = NATIVE_RESET_BODY
    content_type: str = "application/json"


@dataclass(frozen=True)
class Rest:
    request: RestRequest = field(default_factory=RestRequest)
    response: RestResponse = field(default_factory=RestResponse)
    reset: RestReset = field(default_factory=RestReset)


@dataclass(frozen=True)
class Store:
    """Where the agent lets a client read a reply back (stream/store parity)."""

    path: str = field(
        default="/v1/sessions/{{ session_id }}/messages",
        metadata={"doc": "Jinja template over session_id, turn"},
    )
    method: str = "GET"
    text: str = field(
        default="messages.-1.content", metadata={"doc": "dotted path to the stored reply text"}
    )


@dataclass(frozen=True)
class OpenAI:
    path: str = "/v1/chat/completions"
    model: str | None = field(default=None, metadata={"doc": "model name sent; default `model`"})
    system: str | None = None
    params: Mapping[str, Any] = field(
        default_factory=dict, metadata={"doc": "extra request fields (temperature, tools, ...)"}
    )
    tools: str | None = field(
        default=None,
        metadata={"doc": "a JSON/YAML file of tool definitions to offer (as GET /v1/tools)"},
    )
    choices: str | None = field(
        default="choices.0.message.choices",
        metadata={"doc": "dotted path in the completion to offered choices"},
    )
    choice: ChoiceFields = field(default_factory=ChoiceFields)


@dataclass(frozen=True)
class HostedToolsAt:
    """Where the harness serves the agent's tools over MCP (docs/hosted-tools.md)."""

    url: str = field(
        metadata={"doc": "http://127.0.0.1:PORT/PATH: the MCP endpoint (streamable HTTP)"}
    )


@dataclass(frozen=True)
class ReplicaEntry:
    """One instance of the agent in a pool: its own URL, optionally its own files."""

    base_url: str
    workspace: str | None = field(default=None, metadata={"doc": "default: the shared one"})
    log_file: str | None = field(default=None, metadata={"doc": "default: the shared one"})
    hosted_tools: HostedToolsAt | None = field(
        default=None, metadata={"doc": "this replica's own MCP endpoint (one per replica)"}
    )


@dataclass(frozen=True)
class Prices:
    """What the agent's tokens cost, for the report's cost figures (optional)."""

    input_per_mtok: float = field(default=0.0, metadata={"doc": "per million input tokens"})
    output_per_mtok: float = field(default=0.0, metadata={"doc": "per million output tokens"})
    currency: str = "USD"


@dataclass(frozen=True)
class AgentConfig:
    base_url: str
    model: str
    name: str | None = None
    mode: Mode = "native"
    stream: bool = field(
        default=False, metadata={"doc": "ask for a streamed reply (SSE/NDJSON; openai: stream)"}
    )
    timeouts: Timeouts = field(default_factory=Timeouts)
    readiness: Readiness = field(default_factory=Readiness)
    workspace: str | None = None
    timezone: str | None = None  # IANA zone the agent host states times in (clock checks)
    log_file: str | None = None
    log_max_bytes: int = 65536
    headers: Mapping[str, str] = field(default_factory=dict)
    busy_statuses: tuple[int, ...] = (409, 503, 429)
    rest: Rest | None = None
    openai: OpenAI | None = None
    replicas: tuple[ReplicaEntry, ...] = field(
        default=(), metadata={"doc": "a pool: each its own base_url (+ workspace, log_file)"}
    )
    prices: Prices | None = field(
        default=None, metadata={"doc": "token prices: the report shows cost per block"}
    )
    store: Store | None = field(
        default=None, metadata={"doc": "read stored replies back (native: the protocol's path)"}
    )
    example: ExampleSpec | None = field(
        default=None,
        metadata={"doc": "start the bundled agent (loop) instead: see docs/agents.md"},
    )
    hosted_tools: HostedToolsAt | None = field(
        default=None,
        metadata={"doc": "the harness serves the tools over MCP at this URL (a pool: per replica)"},
    )
    provides: tuple[Capability, ...] | None = field(
        default=None,
        metadata={
            "doc": "what the agent gives beyond replies: trace, seed, workspace (default: "
            "from mode, log_file and workspace); a block needing more is not applicable"
        },
    )
    source: str | None = field(default=None, metadata={"internal": True})

    @property
    def display_name(self) -> str:
        return self.name or self.model

    @property
    def workspace_path(self) -> Path | None:
        return Path(self.workspace) if self.workspace else None

    @property
    def log_path(self) -> Path | None:
        return Path(self.log_file) if self.log_file else None

    def redacted(self) -> dict[str, Any]:
        """The config as written to ``run_meta``: every header and secret-looking value ``***``."""
        data = _plain(self)
        data["headers"] = {k: REDACTED for k in self.headers}
        # URLs get the messages' redaction: a header value in a URL (a token as its user
        # part, or in its path) is hidden too, not only passwords and query values
        secrets = tuple(v for v in self.headers.values() if v)
        data["base_url"] = redact(self.base_url, secrets)
        for entry in data["replicas"]:
            entry["base_url"] = redact(entry["base_url"], secrets)
        if self.example is not None and self.example.model_url:
            data["example"]["model_url"] = redact(self.example.model_url, secrets)
        redacted: dict[str, Any] = _redact_secrets(data)
        return redacted

    def pool(self) -> list[AgentConfig]:
        """One config per replica (the shared keys with the replica's own URL and files);
        a config without ``replicas`` is a pool of one."""
        if not self.replicas:
            return [self]
        return [
            dataclasses.replace(
                self,
                base_url=r.base_url,
                workspace=r.workspace or self.workspace,
                log_file=r.log_file or self.log_file,
                hosted_tools=r.hosted_tools or self.hosted_tools,
                replicas=(),
            )
            for r in self.replicas
        ]


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _redact_secrets(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _redact_secrets(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_secrets(v, key) for v in value]
    if isinstance(value, str) and key and key != "headers" and _SECRET_KEY_RE.search(key):
        return REDACTED
    return value
