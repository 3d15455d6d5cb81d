"""The example agent's own command line: ``python -m agenttest.example_agent``.

No Typer, rich or click: the runner starts the agent through this entry point, so a
library run (``agenttest.runner.run(..., agent="example")``) needs none of the CLI's
packages. ``agenttest example-agent`` hands its arguments to the same parser, so both
spellings accept exactly the same options.
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path

DESCRIPTION = """\
Serve the bundled example agent; prints its base URL on the first line of output.

Fault options make it misbehave on purpose; a simulated busy turn is answered 503
(see docs/example-agent.md). Stops on Ctrl-C or SIGTERM.
"""

#: (options, type, help) of every optional knob; ``None`` (not given) means "the default".
_KNOBS: tuple[tuple[str | tuple[str, ...], type, str], ...] = (
    ("--loading-s", float, "Report `loading` this long first."),
    (
        "--busy-probability",
        float,
        "Share of turns (0..1) answered as simulated busy: HTTP 503 with Retry-After: 1.",
    ),
    (
        ("--turn-delay-s", "--latency-s"),
        float,
        "Extra seconds per turn: a fixed think time, e.g. for benchmarks/agent_hours.py.",
    ),
    ("--hang-after", int, "Answer this many turns, then hang on the next."),
    ("--crash-after", int, "Exit abruptly after answering this many turns."),
    ("--garbage-probability", float, "Answer a turn with a broken body this often."),
    ("--seed", int, "Seed for the fault dice (busy and garbage), for repeatable runs."),
    ("--openai-base-url", str, "openai brain: the chat-completions server."),
    ("--openai-model", str, "openai brain: model."),
    ("--openai-api-key-env", str, "openai brain: environment variable with the key."),
    ("--openai-seed", int, "openai brain: seed sent with every request (default 0)."),
    ("--openai-max-steps", int, "openai brain: model requests per turn (default 8)."),
    ("--openai-timeout-s", float, "openai brain: seconds per model request (default 600)."),
)


def build_parser(prog: str = "python -m agenttest.example_agent") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        usage="%(prog)s [options]",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # an option is spelled out, as in every agenttest command
    )
    parser.add_argument("--host", default="127.0.0.1", help="Address to listen on.")
    parser.add_argument("--port", type=int, default=0, help="Port; 0 picks a free one.")
    parser.add_argument(
        "--workspace",
        type=Path,
        default=None,
        help="The agent's workspace (default: a fresh temporary folder).",
    )
    parser.add_argument(
        "--brain", default="rules", help="rules (offline, the default) or openai (a chat model)."
    )
    for options, kind, text in _KNOBS:
        names = (options,) if isinstance(options, str) else options
        dest = names[-1].removeprefix("--").replace("-", "_")  # the Faults field it sets
        parser.add_argument(*names, dest=dest, type=kind, default=None, help=text)
    parser.add_argument(
        "--access-log", action="store_true", default=None, help="Log each request to stderr."
    )
    parser.add_argument(
        "--late-choices",
        action="store_true",
        default=None,
        help="Streamed replies send their choices after the text.",
    )
    parser.add_argument(
        "--store-drift",
        action="store_true",
        default=None,
        help="The stored copy of a reply (GET /v1/sessions/{id}/messages) differs from the "
        "streamed one: a guard applied to one copy only.",
    )
    parser.add_argument(
        "--hosted-tools",
        metavar="URL",
        default=None,
        help="Take every tool from the harness's MCP host at URL (agenttest run "
        "--hosted-tools sets it): nothing runs locally, and /health is ready only once the "
        "host lists its tools.",
    )
    parser.add_argument("--exit-with-parent", type=int, default=None, help=argparse.SUPPRESS)
    return parser


def watch_parent(parent: int, poll_s: float = 0.5) -> threading.Thread:
    """Stop (SIGTERM to ourselves) once the process that started us is gone: a runner
    killed with SIGKILL must not leave its agent behind."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=watch, name="exit-with-parent", daemon=True)
    thread.start()
    return thread


def command(argv: Sequence[str] | None = None, prog: str | None = None) -> None:
    """Parse ``argv`` and serve until a signal. Bad options exit 2 (argparse's usage line);
    option values the agent refuses raise ``UsageError`` (exit 2 through the CLI)."""
    import agenttest.example_agent as package  # looked up late: tests replace `main`
    from agenttest.errors import UsageError

    args = vars(build_parser(prog or "python -m agenttest.example_agent").parse_args(argv))
    parent = args.pop("exit_with_parent")
    if parent is not None:
        watch_parent(parent)
    host, port, workspace, brain = (args.pop(k) for k in ("host", "port", "workspace", "brain"))
    try:
        package.main(host, port, workspace, brain, **args)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"example-agent: {exc}") from None
