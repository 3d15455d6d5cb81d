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
    brain: str = typer.Option("rules", "--brain", help="rules (offline) or openai."),
    loading_s: float = typer.Option(0.0, "--loading-s", help="Report `loading` this long first."),
    busy_probability: float = typer.Option(
        0.0, "--busy-probability", help="Answer a turn with 409 busy this often (0..1)."
    ),
    latency_s: float = typer.Option(0.0, "--latency-s", help="Extra seconds per turn."),
    hang_after: int | None = typer.Option(
        None, "--hang-after", help="Hang on every turn after this many."
    ),
    crash_after: int | None = typer.Option(
        None, "--crash-after", help="Exit abruptly after this many turns."
    ),
    garbage_probability: float = typer.Option(
        0.0, "--garbage-probability", help="Answer a turn with a non-JSON body this often."
    ),
    exit_with_parent: int | None = typer.Option(None, "--exit-with-parent", hidden=True),
) -> None:
    """Serve the bundled example agent; prints its base URL on the first line of output."""
    import importlib
    import tempfile

    main = importlib.import_module("agenttest.example_agent").main

    if exit_with_parent is not None:
        _exit_with_parent(exit_with_parent)
    if workspace is None:
        workspace = Path(tempfile.mkdtemp(prefix="agenttest-workspace-"))
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
    )
