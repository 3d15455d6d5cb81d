"""Testing a model rather than an agent: the bundled agent loop with the user's model.

``agenttest run … --agent example --model-url URL [--model NAME]`` starts the bundled
example agent with its ``openai`` brain pointed at an OpenAI-compatible chat-completions
server: the model chooses the tools, the example agent's sandboxed tools run them, and the
battery grades what happened — tool blocks can pass, unlike a bare chat-completions run
(``mode: openai``), where a tool call is only ever requested.

The choice becomes example-agent options (``--brain openai --openai-base-url …
--openai-model …``); ``run_meta.selection`` stores ``model_url`` and ``model``, so a
resumed run talks to the same model. An agent config's ``example:`` says the same in a
file (:mod:`._config_example`); :func:`launch_for` merges the two, flags first. With
``--hosted-tools`` the loop's tools are the harness's MCP host's (issue 28): the model is
offered the host's tools and every call it asks for runs there.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import msgspec

from agenttest._util.lenient import lenient
from agenttest.errors import AgentUnavailable, UsageError

from ._config_example import ExampleSpec
from ._wire import ModelEntry, ModelList

DEFAULT_MODEL = "example-agent"


def _models_url(url: str) -> str:
    base = url.rstrip("/").removesuffix("/chat/completions")
    return base + "/models"


def discover_model(url: str, timeout_s: float = 10.0) -> str:
    """The first model id the server lists at ``/models`` (what ``--model`` defaults to)."""
    import httpx

    where = _models_url(url)
    require_model(url, timeout_s)
    try:
        reply = httpx.get(where, timeout=timeout_s)
        reply.raise_for_status()
        listed = msgspec.convert(reply.json(), ModelList).data or []
    except (httpx.HTTPError, ValueError) as exc:  # not JSON, or not an object with `data`
        raise UsageError(
            f"model URL {url}: could not list its models at {where} ({exc}); "
            "is the server running? Pass --model NAME (or `example.model` in the agent "
            "config) to name the model yourself"
        ) from None
    name = lenient(ModelEntry, listed[0]).id if listed else ""
    if not name:
        raise UsageError(
            f"model URL {url}: {where} lists no model; pass --model NAME (or `example.model`)"
        )
    return name


def require_model(url: str, timeout_s: float = 10.0) -> None:
    """:class:`AgentUnavailable` (exit 3), in one line naming the URL and the cause, when
    the model server at ``url`` does not answer: a dead model is found before the run, not
    as an ERROR in every attempt. A server that answers 503 (a model still loading) is
    left to the bundled agent's readiness, which waits for it."""
    from agenttest.example_agent import model_unready

    why = model_unready(url, timeout_s)
    if why is not None and "HTTP 503 " not in why:
        raise AgentUnavailable(f"{why}; start it, or check --model-url / `example.model_url`")


def model_args(url: str, model: str) -> tuple[str, ...]:
    """Example-agent options that make its brain the model ``model`` at ``url``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--model-url must be an http(s) URL, got {url!r}")
    return ("--brain", "openai", "--openai-base-url", url, "--openai-model", model)


@dataclass(frozen=True)
class Launch:
    """How to start the bundled agent: from ``--agent example`` and its flags, or from an
    agent config's ``example:`` with the flags winning over its keys."""

    args: tuple[str, ...]  # example-agent options, the brain's first
    replicas: int
    model_url: str | None
    model: str | None  # the brain's model, when a model drives the loop
    #: Its tools come from the harness's MCP host: the runner starts one host per replica
    #: on a free loopback port and gives each replica ``--hosted-tools URL``.
    hosted_tools: bool = False

    @property
    def tested(self) -> str:
        """The run's model: the brain's, else the bundled rules agent's name."""
        return self.model or DEFAULT_MODEL


def launch_for(
    spec: ExampleSpec | None,
    model_url: str | None = None,
    model: str | None = None,
    example_args: tuple[str, ...] = (),
    replicas: int | None = None,
    hosted_tools: bool = False,
) -> Launch:
    """Flags over keys: ``--model-url`` replaces ``example.model_url`` (and with it the
    model, which is then ``--model`` or the new server's first); ``--model`` replaces
    ``example.model``; ``--example-args`` replaces ``example.args``; ``--replicas`` replaces
    ``example.replicas``; ``--hosted-tools`` (or ``example.hosted_tools: true``) takes the
    tools from the harness's host."""
    spec = spec or ExampleSpec()
    url = model_url or spec.model_url
    name = model or (None if model_url else spec.model)
    if url and not name:
        name = discover_model(url)
    args = tuple(example_args) or spec.options
    if url:
        assert name is not None
        args = (*model_args(url, name), *args)
    hosted = hosted_tools or spec.hosted_tools
    return Launch(args, replicas or spec.replicas, url, name if url else None, hosted)
