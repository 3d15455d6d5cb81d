"""Which kind of agent a config describes: one entry per kind, the runner asks no more.

A new kind of agent (a command-line agent, a WebSocket one, an MCP client) is one module
beside the others with a class that has the :class:`~._agent.Agent` methods, its ``mode``
in the config (:mod:`._config_types`) and one entry here. The runner only ever calls
:func:`connect` (or launches the bundled example agent, :class:`~._example.ExampleAgent`).
"""

from __future__ import annotations

from collections.abc import Callable

from ._agent import Agent, Log
from ._client import AgentClient
from ._config_types import AgentConfig
from ._reference import ReferenceAgent

#: How to make an agent of each ``mode``: the HTTP protocols share one client, whose
#: adapter (:mod:`._adapters`) asks and reads a turn the mode's way.
KINDS: dict[str, Callable[[AgentConfig, Log | None], Agent]] = {
    "native": lambda config, log: AgentClient(config, log=log),
    "rest": lambda config, log: AgentClient(config, log=log),
    "openai": lambda config, log: AgentClient(config, log=log),
    # the misbehaving agents blocks are checked against (``model`` names the behaviour)
    "reference": lambda config, log: ReferenceAgent(config, log),
}


def connect(config: AgentConfig, *, log: Log | None = None) -> Agent:
    """The agent ``config`` describes: one agent (a pool's replica has a config of its
    own), not started yet. ``log`` hears what it has to say (waits, retries)."""
    return KINDS[config.mode](config, log)
