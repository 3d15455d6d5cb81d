"""What an agent can give a block beyond its replies, read from its config before a run.

Three things a block may need that no reply can stand in for (docs/agents.md, "What an
agent provides"):

* ``trace``: the agent's own trace or log lines, where its internal markers (a greeting
  shortcut, a clarify step, a routing category) show. The harness's own lines for an
  ``openai`` reply (``CALL``/``FINISH``) are not the agent's trace.
* ``seed``: an endpoint that puts notes into the agent's persistent memory.
* ``workspace``: a folder the harness lays fixtures in and reads files back from.

An agent config may declare them (``provides: [trace, seed, workspace]``); otherwise they
follow from its ``mode``, ``log_file`` and ``workspace``. Hosted tools give the seed and the
workspace whatever a config says: the harness serves them itself, so no declaration can
take them away (and turn a FAIL into "not applicable").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import get_args

from ._config_types import AgentConfig, Capability

CAPABILITIES: tuple[Capability, ...] = get_args(Capability)


@dataclass(frozen=True)
class Provided:
    """What one agent provides, and for each thing it lacks, why (where that was read)."""

    has: frozenset[Capability]
    lacks: dict[Capability, str] = field(default_factory=dict)


def _derived(cfg: AgentConfig, what: Capability) -> str | None:
    """Why the config, read by its mode, lacks ``what`` (None: it has it)."""
    mode = cfg.mode
    if mode == "reference":  # the reference agents stand in for any agent
        return None
    if what == "trace":
        if mode == "native" or cfg.log_file:
            return None
        if mode == "rest" and cfg.rest is not None and cfg.rest.response.trace:
            return None
        if mode == "rest":
            return "mode: rest with no `rest.response.trace` and no `log_file` keeps no trace"
        return (
            "mode: openai with no `log_file` keeps no agent-internal trace (its trace holds "
            "only the harness's CALL/FINISH lines)"
        )
    if what == "seed":
        return None if mode == "native" else f"mode: {mode} offers no memory seed endpoint"
    if cfg.workspace:
        return None
    return "the agent config names no `workspace` and hosted tools are off"


def provided(cfg: AgentConfig, *, hosted: bool = False) -> Provided:
    """What ``cfg``'s agent provides; ``hosted``: the harness serves its tools (MCP)."""
    has: set[Capability] = set()
    lacks: dict[Capability, str] = {}
    for what in CAPABILITIES:
        if hosted and what in ("seed", "workspace"):
            has.add(what)  # the harness's world and memory store, not the agent's claim
            continue
        if cfg.provides is not None:
            why = None if what in cfg.provides else _declared(cfg.provides, what)
        else:
            why = _derived(cfg, what)
        if why is None:
            has.add(what)
        else:
            lacks[what] = why
    return Provided(frozenset(has), lacks)


def _declared(provides: tuple[Capability, ...], what: Capability) -> str:
    listed = ", ".join(provides)
    return f"the agent config declares `provides: [{listed}]`, without {what}"
