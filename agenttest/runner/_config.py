"""The agent config file (SPEC section 5): how to reach an agent and how to read its replies.

Three modes map an agent's own HTTP API onto the runner's view of a turn:

* ``native``: the agenttest protocol (``GET /health``, ``POST /v1/turn``, ``POST /v1/reset``);
* ``rest``: any JSON-over-HTTP agent, through a Jinja request template and dotted response
  paths for the text, the tool calls and the trace;
* ``openai``: an OpenAI-compatible chat-completions endpoint; the runner keeps each
  session's history and reads tool calls from the reply.

Loading reuses the block loader's located YAML and typed converter, so an unknown key or a
wrong type is reported as ``FILE:LINE: message`` (exit 2). Secrets are written as
``${ENV_NAME}`` (or ``${ENV_NAME:-default}``) and substituted at load time; :meth:`AgentConfig.redacted` is the only form
that ever reaches a run file.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from agenttest._util.convert import MISSING, Converter
from agenttest._util.located_yaml import Located, load_located
from agenttest.errors import InputError, Problem
from agenttest.sanitize import redact_url

from . import _config_example
from ._config_example import ExampleSpec

Mode = Literal["native", "rest", "openai"]
REDACTED = "***"
# ``${NAME}`` (required) or ``${NAME:-default}`` (the default when unset or empty, as in sh)
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
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
    choices: str | None = field(
        default="choices.0.message.choices",
        metadata={"doc": "dotted path in the completion to offered choices"},
    )
    choice: ChoiceFields = field(default_factory=ChoiceFields)


@dataclass(frozen=True)
class ReplicaEntry:
    """One instance of the agent in a pool: its own URL, optionally its own files."""

    base_url: str
    workspace: str | None = field(default=None, metadata={"doc": "default: the shared one"})
    log_file: str | None = field(default=None, metadata={"doc": "default: the shared one"})


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
        data["base_url"] = redact_url(self.base_url)
        for entry in data["replicas"]:
            entry["base_url"] = redact_url(entry["base_url"])
        if data.get("example") and data["example"].get("model_url"):
            data["example"]["model_url"] = redact_url(data["example"]["model_url"])
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


def _substitute(conv: Converter, node: Located, where: str) -> bool:
    """Replace ``${NAME}`` / ``${NAME:-default}`` in a string node, in place.

    Returns True when the value held references and every one of them came out empty
    (``${OPENAI_API_KEY:-}`` with no key set): a header like that is left out entirely,
    so a local server gets no ``Authorization: Bearer`` with nothing after it."""
    if not isinstance(node.value, str):
        return False
    values: list[str] = []

    def repl(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        value = os.environ.get(name)
        if default is not None and not value:
            value = default
        if value is None:
            conv.problem(
                node.line,
                f"`{where}` needs the environment variable {name}, not set "
                f"(write ${{{name}:-}} to make it optional)",
            )
            value = ""
        values.append(value)
        return value

    node.value = _ENV_RE.sub(repl, node.value)
    return bool(values) and not any(values)


def _resolve_path(text: str | None, base: Path) -> str | None:
    if text is None:
        return None
    path = Path(os.path.expandvars(text)).expanduser()
    return str(path if path.is_absolute() else (base / path).resolve())


_MODE_READINESS: dict[str, dict[str, Any]] = {
    "native": {},
    "rest": {"ready_field": None},
    "openai": {"path": "/v1/models", "ready_field": None},
}


def parse_agent_config(text: str, filename: str, base_dir: Path | None = None) -> AgentConfig:
    """Parse and check one agent config; raise :class:`InputError` with every problem."""
    located, problems = load_located(text, filename)
    if located is None:
        raise InputError(problems)
    conv = Converter(filename)
    if not isinstance(located.value, dict):
        raise InputError([*problems, Problem(filename, located.line, "expected a mapping")])
    top = located.value
    params: dict[str, Any] = {}
    openai_node = top.get("openai")
    if openai_node is not None and isinstance(openai_node.value, dict):
        raw = openai_node.value.pop("params", None)
        if raw is not None:
            if not isinstance(raw.value, dict):
                conv.problem(raw.line, "`openai.params` must be a mapping")
            else:
                params = raw.plain()
    headers = top.get("headers")
    if headers is not None and isinstance(headers.value, dict):
        for key, child in list(headers.value.items()):
            if _substitute(conv, child, f"headers.{key}"):
                del headers.value[key]
    if "base_url" in top:
        _substitute(conv, top["base_url"], "base_url")
    _replica_urls(conv, top)
    example = top.get("example")
    if example is not None and isinstance(example.value, dict) and "model_url" in example.value:
        _substitute(conv, example.value["model_url"], "example.model_url")
    problems += _config_example.prepare(located, filename)
    cfg = conv.record(AgentConfig, located, "agent config")
    problems += conv.problems
    if isinstance(cfg, AgentConfig) and cfg.example is not None:
        problems += _config_example.check(cfg.example, top.get("example"), filename)
    if cfg is MISSING or problems:
        raise InputError(problems or [Problem(filename, located.line, "invalid agent config")])
    assert isinstance(cfg, AgentConfig)
    base = base_dir if base_dir is not None else Path(filename).resolve().parent
    given = top["readiness"].value if "readiness" in top else {}
    given = {"ready_field" if k == "field" else k for k in given}
    defaults = {k: v for k, v in _MODE_READINESS[cfg.mode].items() if k not in given}
    cfg = dataclasses.replace(
        cfg,
        readiness=dataclasses.replace(cfg.readiness, **defaults),
        workspace=_resolve_path(cfg.workspace, base),
        log_file=_resolve_path(cfg.log_file, base),
        rest=cfg.rest or (Rest() if cfg.mode == "rest" else None),
        store=cfg.store or (Store() if cfg.mode == "native" else None),
        openai=(
            dataclasses.replace(cfg.openai or OpenAI(), params=params)
            if cfg.mode == "openai"
            else cfg.openai
        ),
        replicas=tuple(
            dataclasses.replace(
                r,
                workspace=_resolve_path(r.workspace, base),
                log_file=_resolve_path(r.log_file, base),
            )
            for r in cfg.replicas
        ),
        source=str(Path(filename).resolve()) if base_dir is None else filename,
    )
    _check(cfg, located, filename)
    return cfg


def _replica_urls(conv: Converter, top: dict[str, Located]) -> None:
    """``${VAR}`` in each replica's URL; a pool may leave the top-level ``base_url`` out
    (the first replica's stands in, so the shared keys still describe one agent)."""
    node = top.get("replicas")
    if node is None or not isinstance(node.value, list):
        return
    for entry in node.value:
        if isinstance(entry.value, dict) and "base_url" in entry.value:
            _substitute(conv, entry.value["base_url"], "replicas.base_url")
    first = node.value[0] if node.value else None
    if "base_url" not in top and first is not None and isinstance(first.value, dict):
        url = first.value.get("base_url")
        if url is not None:
            top["base_url"] = url


def _check(cfg: AgentConfig, node: Located, filename: str) -> None:
    problems: list[Problem] = []

    def line_of(key: str) -> int:
        return node.key_lines.get(key, node.line)

    if cfg.timezone is not None:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(cfg.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            problems.append(
                Problem(
                    filename,
                    line_of("timezone"),
                    f"`timezone: {cfg.timezone}` is not an IANA time zone (e.g. Europe/Istanbul)",
                )
            )
    urls = [("replicas", r.base_url) for r in cfg.replicas]
    if not cfg.replicas or cfg.base_url != cfg.replicas[0].base_url:  # not the stand-in
        urls.insert(0, ("base_url", cfg.base_url))
    for key, value in urls:
        url = urlsplit(value)
        if url.scheme not in ("http", "https") or not url.hostname:
            problems.append(
                Problem(filename, line_of(key), f"`base_url` must be an http(s) URL, got `{value}`")
            )
    seen = [r.base_url for r in cfg.replicas]
    if len(set(seen)) != len(seen):
        problems.append(Problem(filename, line_of("replicas"), "two replicas share one base_url"))
    t = cfg.timeouts
    for name in ("connect_s", "answer_s", "busy_s", "retry_after_cap_s", "idle_s"):
        if getattr(t, name) is not None and getattr(t, name) <= 0:
            problems.append(
                Problem(filename, line_of("timeouts"), f"`timeouts.{name}` must be > 0")
            )
    r = cfg.readiness
    if r.timeout_s < 0 or r.poll_s <= 0 or r.max_poll_s < r.poll_s:
        problems.append(
            Problem(
                filename,
                line_of("readiness"),
                "`readiness` needs timeout_s >= 0 and 0 < poll_s <= max_poll_s",
            )
        )
    for status in cfg.busy_statuses:
        if not 400 <= status <= 599:
            problems.append(
                Problem(filename, line_of("busy_statuses"), f"busy status {status} is not 4xx/5xx")
            )
    if cfg.rest is not None and cfg.mode != "rest":
        problems.append(Problem(filename, line_of("rest"), "`rest` needs `mode: rest`"))
    if cfg.openai is not None and cfg.mode != "openai":
        problems.append(Problem(filename, line_of("openai"), "`openai` needs `mode: openai`"))
    if cfg.rest is not None:
        from ._templates import check_templates

        rest = cfg.rest
        templates = (
            ("rest.request.body", rest.request.body),
            ("rest.request.path", rest.request.path),
            ("rest.reset.body", rest.reset.body),
            ("rest.reset.path", rest.reset.path or ""),
        )
        for message in check_templates(templates):
            problems.append(Problem(filename, line_of("rest"), message))
    if cfg.prices is not None and min(cfg.prices.input_per_mtok, cfg.prices.output_per_mtok) < 0:
        problems.append(Problem(filename, line_of("prices"), "`prices` must not be negative"))
    if cfg.log_max_bytes < 0:
        problems.append(Problem(filename, line_of("log_max_bytes"), "`log_max_bytes` must be >= 0"))
    if problems:
        raise InputError(problems)


def load_agent_config(path: str | Path) -> AgentConfig:
    """Read an agent config file; raise :class:`InputError` (exit 2) on any problem."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError([Problem(str(p), 0, f"cannot read agent config: {exc}")]) from None
    return parse_agent_config(text, str(p))


def example_config(base_url: str, workspace: Path | None, **overrides: Any) -> AgentConfig:
    """The config of the bundled example agent started by ``--agent example``."""
    cfg = AgentConfig(
        base_url=base_url,
        model="example-agent",
        name="example",
        workspace=str(workspace) if workspace else None,
        store=Store(),
        source="example",
    )
    return dataclasses.replace(cfg, **overrides) if overrides else cfg
