"""What the runner needs of an agent under test: the :class:`Agent` protocol.

An agent is driven one request at a time by one caller: brought up (:meth:`Agent.start`),
waited for until ready before every attempt, given a fresh session (:meth:`Agent.reset`),
sent the turns of the attempt, streamed or not (:meth:`Agent.turn`), and stopped at the end
of the run. What it leaves besides its replies — a workspace of files, a log, replies it
stores — is its :class:`Evidence`, read by the runner.

A kind of agent (the HTTP protocols of :mod:`._client`, the bundled example agent of
:mod:`._example`) is one class that has these methods; :func:`agenttest.agents.connect`
picks it for a config. Everything here is *one* agent: a pool of replicas is the runner's,
which drives one such agent per replica.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agenttest.errors import AgentUnavailable, AttemptError

# Waits: time spent waiting on the agent per attempt, kept apart from the answer latency;
# the agent counts into the very record part the attempt stores.
from agenttest.results import ModelStep, ToolCall
from agenttest.results import Waits as Waits  # re-exported: the protocol's word

from ._config_types import AgentConfig

Log = Callable[[str], None]


class AgentNotReady(AgentUnavailable):
    """The agent did not report ready within ``readiness.timeout_s``."""


class NotWanted(Exception):
    """A wait for readiness given up because nobody needs the agent any more."""


@dataclass
class Reply:
    """A turn's answer as the runner keeps it: the text, the tool calls, the trace, and
    what else the agent said (tokens, choices, a stream's own text and timeline)."""

    response: str
    tool_calls: list[ToolCall]
    trace: str
    tokens: int | None = None
    notes: list[str] = field(default_factory=list)  # what was repaired to store it (evidence)
    # {"input_tokens", "output_tokens"} when the reply says (`usage` of chat completions
    # and of the native reply); what a price in the agent config turns into cost
    usage: dict[str, int] | None = None
    choices: list[dict[str, str]] | None = None  # offered answers: [{label, value}]
    stream_text: str | None = None  # streamed replies: the text as the deltas said it
    timeline: dict[str, Any] | None = None  # streamed replies: when each part arrived
    model_steps: list[ModelStep] | None = None  # a model-driven loop: the model's responses


class TurnLost(AttemptError):
    """The harness could not obtain an answer; the attempt becomes ``ERROR`` with this cause."""

    def __init__(
        self,
        cause: str,
        message: str,
        http_status: int | None = None,
        latency_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.cause = cause
        self.message = message
        self.http_status = http_status
        self.latency_ms = latency_ms


class PreconditionUnmet(AttemptError):
    """The agent cannot be put in the block's starting state (it cannot be seeded): the
    attempt is ``ERROR`` with cause ``precondition``, never a FAIL."""


@dataclass
class Exchange:
    """One turn's answer: the reply, and how it came (status, time to the whole answer)."""

    reply: Reply
    http_status: int
    latency_ms: int


@dataclass(frozen=True)
class Evidence:
    """What an agent leaves besides its replies, for the runner to read."""

    workspace: Path | None = None  # its files: fixtures go in, criteria read snapshots
    log_file: Path | None = None  # its log: the lines appended during each turn are kept
    log_max_bytes: int = 65536  # of the log read per turn
    stored_replies: bool = False  # it keeps its replies and lets them be read back

    @classmethod
    def of(cls, config: AgentConfig) -> Evidence:
        return cls(
            config.workspace_path, config.log_path, config.log_max_bytes, config.store is not None
        )


class Agent(Protocol):
    """One agent under test. Not thread-safe by design: one caller, one request at a time.

    Every method but :meth:`stop` may raise :class:`TurnLost` (the attempt is ``ERROR``
    with its cause); :meth:`wait_ready` raises :class:`~._waiting.AgentNotReady` after the
    config's readiness limit. Time spent waiting on the agent is added to :attr:`waits`.
    """

    #: how it is reached and its limits (readiness, timeouts, busy statuses, zone, prices)
    config: AgentConfig
    #: what the current attempt waited for readiness and busy replies (the runner resets it)
    waits: Waits

    @property
    def evidence(self) -> Evidence:
        """Where its workspace and log are, and whether it keeps its replies."""
        ...

    def start(self) -> None:
        """Bring it up (a launched agent); nothing for one that runs already."""
        ...

    def wait_ready(
        self, *, wanted: Callable[[str], bool] | None = None, quiet: bool = False
    ) -> float:
        """Wait until it is ready; the seconds waited. ``wanted`` sees every state that is
        not ready and may end the wait (:class:`~._waiting.NotWanted`); ``quiet`` waits
        without a word (one already known to be down)."""
        ...

    def reset(self, session_id: str, *, memory: bool = False) -> int | None:
        """Start a fresh session (``memory``: forget its persistent memory too); the status
        it answered, None when it needs no call for that."""
        ...

    def seed_memory(self, session_id: str, items: list[str]) -> None:
        """Put notes into its persistent memory; :class:`PreconditionUnmet` if it cannot."""
        ...

    def turn(self, session_id: str, prompt: str, number: int) -> Exchange:
        """Send turn ``number`` of the session and read the whole reply, streamed or not."""
        ...

    def stored(self, session_id: str, number: int) -> str:
        """Its stored copy of turn ``number``'s reply (``evidence.stored_replies``)."""
        ...

    def stop(self) -> None:
        """Let go of it: connections closed, a launched agent ended. Safe to call twice."""
        ...
