"""HostedTools: one MCP server at one loopback URL, serving the hosted tools for a replica.

(First landing: the API the runner and the agents code against; serving comes next.)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenttest.blocks import Fault
from agenttest.results import ToolCall

from ._limits import HostLimits


class HostedTools:
    """The hosted tools of one replica at ``url`` (``http://127.0.0.1:PORT/mcp``).

    ``start()`` serves in a background thread; between ``begin(world, faults)`` and
    ``end()`` every call belongs to that attempt and is recorded (``take_calls()``); a call
    at any other time is refused with an MCP error and counted in ``refused_outside``.
    """

    def __init__(self, url: str, limits: HostLimits | None = None) -> None:
        self.url = url
        self.limits = limits or HostLimits()
        self.refused_outside = 0

    def start(self) -> None:
        """Serve at the URL in a background thread; UsageError when the address is busy or
        not loopback."""
        raise NotImplementedError("hosted tools: serving lands in the next step (issue 28)")

    def close(self) -> None:
        """Stop serving and free the port (idempotent)."""

    def begin(self, world_root: Path, faults: Sequence[Fault] = ()) -> None:
        """Calls from now on belong to an attempt whose world is ``world_root``."""
        raise NotImplementedError

    def take_calls(self) -> list[ToolCall]:
        """The hosted calls recorded since the last take (``origin="harness"``)."""
        raise NotImplementedError

    def end(self) -> Any:  # results.HostedInfo once records 2.3 land (helper hosted-run)
        """End the attempt: calls are refused again; its url, refused and faults_fired."""
        raise NotImplementedError
