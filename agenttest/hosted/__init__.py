"""Hosted tools over MCP (issue 28): the harness serves the battery's tool roles to the agent,
works them on a world directory it owns, and records every call itself.

Nothing here imports the MCP SDK at module level: the server imports it when it starts, so a
run without hosted tools pays nothing for it.
"""

from ._faults import FaultState
from ._limits import HostLimits
from ._registry import call_tool, tool_specs
from ._server import HostedTools
from ._spec import ToolOutcome, ToolSpec
from ._stdio import serve_stdio

__all__ = [
    "FaultState",
    "HostLimits",
    "HostedTools",
    "ToolOutcome",
    "ToolSpec",
    "call_tool",
    "serve_stdio",
    "tool_specs",
]
