"""Running the example agent: bind it with a brain and a workspace, serve until a signal.

:func:`serve` makes the :class:`~._server.AgentServer` (a temporary workspace unless one is
given; a busy port is a usage error); :func:`run_forever` serves it until SIGTERM, SIGINT or
SIGHUP and stops it cleanly.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._agent import Agent, Brain
from ._faults import Faults
from ._hosted import HostClient
from ._server import AgentServer


def make_brain(brain: str | Brain, options: dict[str, Any] | None = None) -> Brain:
    """``rules`` or ``openai`` (with ``openai_*`` options), or a ready brain object."""
    options = dict(options or {})
    if not isinstance(brain, str):
        return brain
    if brain == "rules":
        if options:
            raise TypeError(f"the rules brain takes no options: {sorted(options)}")
        from ._rules import RulesBrain

        return RulesBrain()
    if brain == "openai":
        from ._openai import OpenAIBrain

        return OpenAIBrain.from_options(options)
    raise ValueError(f"unknown brain {brain!r} (rules, openai)")


def serve(host: str = "127.0.0.1", port: int = 0, workspace: Path | str | None = None,
          brain: str | Brain = "rules", faults: Faults | None = None, *,
          brain_options: dict[str, Any] | None = None, access_log: bool = False,
          hosted_tools: str | None = None) -> AgentServer:  # fmt: skip
    """Bind the example agent (not yet serving: call ``start()`` or :func:`run_forever`).

    ``workspace=None`` makes a fresh temporary folder that :meth:`AgentServer.stop` removes.
    ``hosted_tools`` (an MCP URL) makes every tool call a call of the harness's host there;
    nothing connects until the first health check or tool call.
    """
    host_client = HostClient(hosted_url(hosted_tools)) if hosted_tools is not None else None
    temp = workspace is None
    folder = Path(tempfile.mkdtemp(prefix="agenttest-agent-")) if temp else Path(str(workspace))
    try:
        agent = Agent(folder, make_brain(brain, brain_options), host_client)
        return AgentServer((host, port), agent, faults or Faults(), access_log=access_log,
                           temp_workspace=temp)  # fmt: skip
    except BaseException as exc:
        if host_client is not None:
            host_client.close()
        if temp:  # nothing serves it: do not leave it behind
            shutil.rmtree(folder, ignore_errors=True)
        if not isinstance(exc, OSError):
            raise
        from agenttest.errors import UsageError  # a busy port, an address not on this machine

        raise UsageError(
            f"example-agent cannot listen on {host}:{port}: {exc.strerror or exc}; "
            "pick another --port (0 picks a free one)"
        ) from None


def hosted_url(url: str) -> str:
    """``--hosted-tools``: an http(s) URL with a host, or ValueError (exit 2 on the CLI)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"--hosted-tools must be the http(s) URL of the harness's MCP host "
            f"(e.g. http://127.0.0.1:8765/mcp), got {url!r}"
        )
    return url


def run_forever(server: AgentServer) -> None:
    """Serve until SIGTERM, SIGINT or SIGHUP (or KeyboardInterrupt), then stop cleanly."""
    done = threading.Event()
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # HUP: the terminal closed
            previous[sig] = signal.signal(sig, lambda *_: done.set())
    server.start()
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
