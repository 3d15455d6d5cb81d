"""The agent config file (SPEC section 5): how to reach an agent and how to read its replies.

Three modes map an agent's own HTTP API onto the runner's view of a turn:

* ``native``: the agenttest protocol (``GET /health``, ``POST /v1/turn``, ``POST /v1/reset``);
* ``rest``: any JSON-over-HTTP agent, through a Jinja request template and dotted response
  paths for the text, the tool calls and the trace;
* ``openai``: an OpenAI-compatible chat-completions endpoint; the runner keeps each
  session's history and reads tool calls from the reply.

This module reads a config file into the typed :class:`~._config_types.AgentConfig`. It
reuses the block loader's located YAML and typed converter, so an unknown key or a wrong
type is reported as ``FILE:LINE: message`` (exit 2). Secrets are written as
``${ENV_NAME}`` (or ``${ENV_NAME:-default}``) and substituted at load time;
:meth:`AgentConfig.redacted` is the only form that ever reaches a run file.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agenttest._util.convert import MISSING, Converter
from agenttest._util.located_yaml import Located, load_located
from agenttest.errors import InputError, Problem

from . import _config_example
from ._config_tools import tools_of
from ._config_types import AgentConfig, OpenAI, Rest, Store

# ``${NAME}`` (required) or ``${NAME:-default}`` (the default when unset or empty, as in sh)
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


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
    for key in ("base_url", "workspace"):
        if key in top:
            _substitute(conv, top[key], key)
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
    if cfg.openai is not None and cfg.openai.tools is not None:
        params, bad = tools_of(cfg.openai.tools, params, openai_node, base, filename)
        if bad:
            raise InputError(bad)
    given = top["readiness"].value if "readiness" in top else {}
    given = {"ready_field" if k == "field" else k for k in given}
    defaults = {k: v for k, v in _MODE_READINESS.get(cfg.mode, {}).items() if k not in given}
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


def _same_url(url: str) -> str:
    """A base URL as the agent it reaches: ``http://h:p`` and ``http://h:p/`` are one
    agent (two replicas there would put two requests in flight on it)."""
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    try:
        port = parts.port or default
    except ValueError:
        return url
    host = (parts.hostname or "").lower()
    return f"{parts.scheme.lower()}://{host}:{port}{parts.path.rstrip('/')}?{parts.query}"


def _numbers(value: Any, name: str = "") -> list[tuple[str, float]]:
    """(dotted name, value) of every float in the config, nested ones included."""
    if isinstance(value, float):
        return [(name, value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: list[tuple[str, float]] = []
        for f in dataclasses.fields(value):
            out += _numbers(getattr(value, f.name), f"{name}.{f.name}" if name else f.name)
        return out
    if isinstance(value, tuple | list):
        return [pair for item in value for pair in _numbers(item, name)]
    return []


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
    seen = [_same_url(r.base_url) for r in cfg.replicas]
    if len(set(seen)) != len(seen):
        problems.append(Problem(filename, line_of("replicas"), "two replicas share one base_url"))
    problems += _hosted_problems(cfg, line_of, filename)
    # NaN passes every `<= 0` test and infinity every bound: one check for every number
    for dotted, number in _numbers(cfg):
        if not math.isfinite(number):
            top = dotted.split(".", 1)[0]
            problems.append(Problem(filename, line_of(top), f"`{dotted}` must be a finite number"))
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


def hosted_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a hosted-tools endpoint, or None: the harness serves plain
    HTTP on 127.0.0.1 only (it never listens where another machine can reach it),
    at a port of its own and a path (the MCP endpoint)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return f"`hosted_tools.url` is not a URL: `{url}`"
    host = parts.hostname or ""
    if parts.scheme != "http":
        return f"`hosted_tools.url` must be an http:// URL (served on loopback), got `{url}`"
    if host not in ("127.0.0.1", "localhost"):
        return f"`hosted_tools.url` must be on loopback (127.0.0.1 or localhost), got `{url}`"
    if port is None or port == 0:
        return f"`hosted_tools.url` needs a port, e.g. http://127.0.0.1:8931/mcp, got `{url}`"
    if parts.path in ("", "/") or parts.query or parts.fragment:
        return f"`hosted_tools.url` needs a path (and no query), e.g. /mcp, got `{url}`"
    return None


def _hosted_problems(cfg: AgentConfig, line_of: Any, filename: str) -> list[Problem]:
    """Each replica's endpoint is a loopback URL of its own: calls are told apart by the
    endpoint they arrive at, so two replicas at one URL would mix their attempts' calls."""
    out: list[Problem] = []
    given = [("hosted_tools", cfg.hosted_tools)]
    given += [("replicas", r.hosted_tools) for r in cfg.replicas]
    for key, spec in given:
        problem = hosted_url_problem(spec.url) if spec is not None else None
        if problem is not None:
            out.append(Problem(filename, line_of(key), problem))
    urls = [c.hosted_tools.url for c in cfg.pool() if c.hosted_tools is not None]
    if len(set(urls)) != len(urls):
        out.append(
            Problem(
                filename,
                line_of("replicas"),
                "two replicas share one hosted_tools url: give each replica its own "
                "`hosted_tools: {url: ...}`",
            )
        )
    elif urls and len(urls) != len(cfg.pool()):
        out.append(
            Problem(
                filename,
                line_of("replicas"),
                "some replicas have hosted_tools and some not: give each its own url",
            )
        )
    return out


def agent_config_json_schema() -> dict[str, Any]:
    """The JSON Schema of agent config files (``agenttest schema --agent-config``), made
    from :class:`AgentConfig` like the block schema is from the block model."""
    from agenttest.blocks import file_json_schema

    schema = file_json_schema(
        AgentConfig,
        title="agenttest agent config",
        schema_id="https://agenttest.dev/schema/agent-config-1.json",
    )
    top = schema["$defs"]["AgentConfig"]
    # `base_url` and `model` may come from `replicas:` and `example:` (checked on load)
    top.pop("required", None)
    top["description"] = (
        "How to reach an agent and read its replies (docs/agents.md). `model` and "
        "`base_url` are required, except that a pool's first replica stands in for "
        "`base_url` and `example:` sets both."
    )
    return schema


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
