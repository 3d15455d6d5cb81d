"""The agents of a run: one per replica, started side by side before the run file is
written, stopped on every way out, and the config ``run_meta`` records for them.

What kind each is, and how it is reached, is :mod:`agenttest.agents`' business: the run
only decides how many replicas there are (the config's ``replicas:``, or ``--replicas``
bundled agents) and hands each replica's config to :func:`agenttest.agents.connect`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agenttest.agents import Agent, AgentConfig, ExampleAgent, Launch, ReplicaEntry, connect

from ._replica import replica_log


@dataclass
class RunAgent:
    """One agent a run tests: its replicas (a pool of one or more), and its config file's
    config when it has one (None: the run launched the bundled agent)."""

    replicas: list[Agent]
    declared: AgentConfig | None

    @property
    def config(self) -> AgentConfig:
        """The agent as ``run_meta`` records it: its config file's, or the started agents'
        (several: the first's shared keys, each listed as a replica)."""
        if self.declared is not None:
            return self.declared
        configs = [agent.config for agent in self.replicas]
        if len(configs) == 1:
            return configs[0]
        entries = tuple(ReplicaEntry(c.base_url, c.workspace, c.log_file) for c in configs)
        return dataclasses.replace(configs[0], replicas=entries)

    def stop(self) -> None:
        for agent in self.replicas:
            agent.stop()


def run_agent(
    config: AgentConfig | None,
    launch: Launch | None,
    *,
    stream: bool,
    log: Callable[[str], None],
) -> RunAgent:
    """The replicas of one agent, not started yet: ``launch.replicas`` bundled agents (the
    config, if any, gives their shared keys), else one per entry of the config's pool."""
    if launch is not None:
        n = launch.replicas
        launched: list[Agent] = [
            ExampleAgent(
                launch.args,
                template=config,
                model=launch.tested,
                stream=stream,
                log=replica_log(log, i, n),
            )
            for i in range(n)
        ]
        return RunAgent(launched, None)
    assert config is not None
    if stream:  # --stream: asked for whatever the config says
        config = dataclasses.replace(config, stream=True)
    configs = config.pool()
    return RunAgent(
        [connect(c, log=replica_log(log, i, len(configs))) for i, c in enumerate(configs)],
        config,
    )


def start_all(agents: Sequence[Agent]) -> None:
    """Start the agents side by side (bundled agents take a while each); the first failure
    is raised once every one has tried. The caller stops them all either way."""
    errors: list[BaseException] = []

    def start(agent: Agent) -> None:
        try:
            agent.start()
        except BaseException as exc:  # handed to the caller's thread below
            errors.append(exc)

    if len(agents) == 1:
        agents[0].start()
        return
    threads = [threading.Thread(target=start, args=(a,), daemon=True) for a in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
