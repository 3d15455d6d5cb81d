"""Testing a model rather than an agent: the bundled agent loop with the user's model.

``agenttest run … --agent example --model-url URL [--model NAME]`` starts the bundled
example agent with its ``openai`` brain pointed at an OpenAI-compatible chat-completions
server: the model chooses the tools, the example agent's sandboxed tools run them, and the
battery grades what happened — tool blocks can pass, unlike a bare chat-completions run
(``mode: openai``), where a tool call is only ever requested.

The choice becomes example-agent options (``--brain openai --openai-base-url …
--openai-model …``); ``run_meta.selection`` stores ``model_url`` and ``model``, so a
resumed run talks to the same model.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from agenttest.errors import UsageError

DEFAULT_MODEL = "example-agent"


def _models_url(url: str) -> str:
    base = url.rstrip("/").removesuffix("/chat/completions")
    return base + "/models"


def discover_model(url: str, timeout_s: float = 10.0) -> str:
    """The first model id the server lists at ``/models`` (what ``--model`` defaults to)."""
    import httpx

    where = _models_url(url)
    try:
        reply = httpx.get(where, timeout=timeout_s)
        reply.raise_for_status()
        data = reply.json().get("data") or []
        name = data[0].get("id") if data and isinstance(data[0], dict) else None
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        raise UsageError(
            f"--model-url {url}: could not list its models at {where} ({exc}); "
            "is the server running? Pass --model NAME to name the model yourself"
        ) from None
    if not isinstance(name, str) or not name:
        raise UsageError(f"--model-url {url}: {where} lists no model; pass --model NAME")
    return name


def model_args(url: str, model: str) -> tuple[str, ...]:
    """Example-agent options that make its brain the model ``model`` at ``url``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--model-url must be an http(s) URL, got {url!r}")
    return ("--brain", "openai", "--openai-base-url", url, "--openai-model", model)
