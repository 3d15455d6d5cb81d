"""`example-agent`: serve the bundled example agent (the reference implementation)."""

from __future__ import annotations

from pathlib import Path

import typer

from . import app


def _exit_with_parent(parent: int) -> None:
    """Stop when the process that started us is gone (a runner killed with SIGKILL)."""
    import os
    import signal
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


@app.command("example-agent")
def example_agent(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(0, "--port", help="Port; 0 picks a free one."),
    workspace: Path | None = typer.Option(
        None, "--workspace", help="The agent's workspace (default: a fresh temporary folder)."
    ),
    brain: str = typer.Option(
        "rules", "--brain", help="rules (offline, the default) or openai (a chat model)."
    ),
    loading_s: float | None = typer.Option(
        None, "--loading-s", help="Report `loading` this long first."
    ),
    busy_probability: float | None = typer.Option(
        None,
        "--busy-probability",
        help="Share of turns (0..1) answered as simulated busy: HTTP 503 with Retry-After: 1.",
    ),
    latency_s: float | None = typer.Option(
        None,
        "--turn-delay-s",
        "--latency-s",
        help="Extra seconds per turn: a fixed think time, e.g. for benchmarks/agent_hours.py.",
    ),
    hang_after: int | None = typer.Option(
        None, "--hang-after", help="Answer this many turns, then hang on the next."
    ),
    crash_after: int | None = typer.Option(
        None, "--crash-after", help="Exit abruptly after answering this many turns."
    ),
    garbage_probability: float | None = typer.Option(
        None, "--garbage-probability", help="Answer a turn with a broken body this often."
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="Seed for the fault dice (busy and garbage), for repeatable runs."
    ),
    late_choices: bool = typer.Option(
        False, "--late-choices", help="Streamed replies send their choices after the text."
    ),
    store_drift: bool = typer.Option(
        False,
        "--store-drift",
        help="The stored copy of a reply (GET /v1/sessions/{id}/messages) differs from the "
        "streamed one: a guard applied to one copy only.",
    ),
    access_log: bool = typer.Option(False, "--access-log", help="Log each request to stderr."),
    openai_base_url: str | None = typer.Option(
        None, "--openai-base-url", help="openai brain: the chat-completions server."
    ),
    openai_model: str | None = typer.Option(None, "--openai-model", help="openai brain: model."),
    openai_api_key_env: str | None = typer.Option(
        None, "--openai-api-key-env", help="openai brain: environment variable with the key."
    ),
    openai_seed: int | None = typer.Option(
        None, "--openai-seed", help="openai brain: seed sent with every request (default 0)."
    ),
    openai_max_steps: int | None = typer.Option(
        None, "--openai-max-steps", help="openai brain: model requests per turn (default 8)."
    ),
    openai_timeout_s: float | None = typer.Option(
        None, "--openai-timeout-s", help="openai brain: seconds per model request (default 600)."
    ),
    exit_with_parent: int | None = typer.Option(None, "--exit-with-parent", hidden=True),
) -> None:
    """Serve the bundled example agent; prints its base URL on the first line of output.

    Fault options make it misbehave on purpose; a simulated busy turn is answered 503
    (see docs/example-agent.md). Stops on Ctrl-C or SIGTERM.
    """
    import importlib

    from agenttest.errors import UsageError

    main = importlib.import_module("agenttest.example_agent").main
    if exit_with_parent is not None:
        _exit_with_parent(exit_with_parent)
    try:
        main(
            host,
            port,
            workspace,
            brain,
            loading_s=loading_s,
            busy_probability=busy_probability,
            latency_s=latency_s,
            hang_after=hang_after,
            crash_after=crash_after,
            garbage_probability=garbage_probability,
            seed=seed,
            late_choices=late_choices or None,
            store_drift=store_drift or None,
            access_log=access_log or None,
            openai_base_url=openai_base_url,
            openai_model=openai_model,
            openai_api_key_env=openai_api_key_env,
            openai_seed=openai_seed,
            openai_max_steps=openai_max_steps,
            openai_timeout_s=openai_timeout_s,
        )
    except (TypeError, ValueError) as exc:
        raise UsageError(f"example-agent: {exc}") from None
