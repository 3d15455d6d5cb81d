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

from agenttest.agents import (
    Agent,
    AgentConfig,
    ExampleAgent,
    HostedToolsAt,
    Launch,
    ReplicaEntry,
    connect,
)
from agenttest.errors import UsageError

from ._hosted import ReplicaHost, free_loopback_url
from ._replica import replica_log


@dataclass
class RunAgent:
    """One agent a run tests: its replicas (a pool of one or more), and its config file's
    config when it has one (None: the run launched the bundled agent)."""

    replicas: list[Agent]
    declared: AgentConfig | None
    #: each replica's hosted tools (None: it brings its own), side by side with replicas
    hosts: list[ReplicaHost | None] = dataclasses.field(default_factory=list)

    @property
    def config(self) -> AgentConfig:
        """The agent as ``run_meta`` records it: its config file's, or the started agents'
        (several: the first's shared keys, each listed as a replica)."""
        if self.declared is not None:
            return self.declared
        configs = [agent.config for agent in self.replicas]
        at = [HostedToolsAt(h.url) if h is not None else None for h in self.hosts]
        if len(configs) == 1:
            return dataclasses.replace(configs[0], hosted_tools=at[0] if at else None)
        entries = tuple(
            ReplicaEntry(c.base_url, c.workspace, c.log_file, at[i] if at else None)
            for i, c in enumerate(configs)
        )
        return dataclasses.replace(configs[0], replicas=entries)

    def stop(self) -> None:
        for agent in self.replicas:
            agent.stop()
        for host in self.hosts:
            if host is not None:
                host.close()


def run_agent(
    config: AgentConfig | None,
    launch: Launch | None,
    *,
    stream: bool,
    log: Callable[[str], None],
    hosted: bool = False,
) -> RunAgent:
    """The replicas of one agent, not started yet: ``launch.replicas`` bundled agents (the
    config, if any, gives their shared keys), else one per entry of the config's pool.
    Each replica with hosted tools gets its host (``hosted``: a free loopback URL each for
    bundled agents, passed to them as ``--hosted-tools URL``)."""
    if launch is not None:
        n = launch.replicas
        urls = _bundled_urls(config, n, hosted)
        launched: list[Agent] = [
            ExampleAgent(
                (*launch.args, *(("--hosted-tools", url) if url else ())),
                template=config,
                model=launch.tested,
                stream=stream,
                log=replica_log(log, i, n),
            )
            for i, url in enumerate(urls)
        ]
        return RunAgent(launched, None, _hosts(urls))
    assert config is not None
    if stream:  # --stream: asked for whatever the config says
        config = dataclasses.replace(config, stream=True)
    configs = config.pool()
    return RunAgent(
        [connect(c, log=replica_log(log, i, len(configs))) for i, c in enumerate(configs)],
        config,
        _hosts([c.hosted_tools.url if c.hosted_tools else None for c in configs]),
    )


def _bundled_urls(config: AgentConfig | None, n: int, hosted: bool) -> list[str | None]:
    """Where each bundled replica's tools are hosted: a free port each (``--hosted-tools``),
    else the config's one URL (a single replica), else nowhere."""
    if hosted:
        return [free_loopback_url() for _ in range(n)]
    given = config.hosted_tools.url if config is not None and config.hosted_tools else None
    if given is not None and n > 1:
        raise UsageError(
            f"{n} bundled replicas cannot share the config's hosted_tools url {given}: "
            "leave it out and give --hosted-tools (a free port each)"
        )
    return [given] * n


def _hosts(urls: list[str | None]) -> list[ReplicaHost | None]:
    if not any(urls):
        return []
    return [ReplicaHost(url, i) if url else None for i, url in enumerate(urls)]


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
