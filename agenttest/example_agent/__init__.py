"""The bundled example agent: a small but real agent speaking the native protocol.

Library use::

    from agenttest.example_agent import Faults, serve

    with serve(workspace=path, faults=Faults(latency_s=0.5)).start() as server:
        ...  # talk to server.url

Command-line use (``python -m agenttest.example_agent``, or ``agenttest example-agent``)
goes through :func:`command` and :func:`main`, which prints the
base URL as the first line of stdout and serves until SIGTERM or SIGINT. The brains, the
tools and their guards are described in ``docs/example-agent.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ._agent import Agent, Brain, BrainError, Session, Turn, TurnResult
from ._calc import CalcError, calculate, evaluate
from ._command import build_parser, command, watch_parent
from ._faults import CRASH_EXIT_CODE, Faults
from ._hosted import HostClient, HostedResult, HostedTool, HostUnreachable
from ._openai import model_unready
from ._server import AgentServer
from ._serving import make_brain, run_forever, serve
from ._tools import TOOLS, openai_tools

__all__ = [
    "CRASH_EXIT_CODE",
    "TOOLS",
    "Agent",
    "AgentServer",
    "Brain",
    "BrainError",
    "CalcError",
    "Faults",
    "HostClient",
    "HostUnreachable",
    "HostedResult",
    "HostedTool",
    "Session",
    "Turn",
    "TurnResult",
    "build_parser",
    "calculate",
    "command",
    "evaluate",
    "main",
    "make_brain",
    "model_unready",
    "openai_tools",
    "run_forever",
    "serve",
    "split_options",
    "watch_parent",
]


def split_options(options: dict[str, Any]) -> tuple[Faults, dict[str, Any], bool]:
    """``(faults, brain options, access_log)`` from flat keyword options.

    Fault knobs are the :class:`Faults` fields; ``openai_*`` keys go to the openai brain;
    ``None`` values mean "not given". Anything else is a :class:`TypeError`.
    """
    given = {k: v for k, v in options.items() if v is not None}
    access_log = bool(given.pop("access_log", False))
    fault_values = {k: given.pop(k) for k in list(given) if k in Faults.names()}
    unknown = [k for k in given if not k.startswith("openai_")]
    if unknown:
        allowed = sorted(Faults.names() | {"access_log", "openai_*"})
        raise TypeError(f"unknown example-agent options {unknown}; allowed: {allowed}")
    return Faults(**fault_values), given, access_log


def main(
    host: str,
    port: int,
    workspace: Path | None,
    brain: str,
    hosted_tools: str | None = None,
    **fault_options: Any,
) -> None:
    """Serve the example agent: print ``http://HOST:PORT`` first, then serve until a signal.

    ``workspace=None`` serves a fresh temporary folder, removed again on exit;
    ``hosted_tools`` is the harness's MCP URL to take every tool from. Keyword options: the
    :class:`Faults` knobs (``loading_s``, ``busy_probability``, ``seed``, ``latency_s``,
    ``hang_after``, ``crash_after``, ``garbage_probability``), the openai brain's
    ``openai_base_url``, ``openai_model``, ``openai_api_key_env``, ``openai_seed``,
    ``openai_max_steps``, ``openai_timeout_s``, and ``access_log``.
    """
    faults, brain_options, access_log = split_options(fault_options)
    server = serve(host, port, workspace, brain, faults, brain_options=brain_options,
                   access_log=access_log, hosted_tools=hosted_tools)  # fmt: skip
    print(server.url, flush=True)
    tools = f"hosted at {hosted_tools}" if hosted_tools else "local"
    print(f"example agent: brain={brain} workspace={server.workspace} tools={tools}",
          file=sys.stderr, flush=True)  # fmt: skip
    run_forever(server)
