"""The agents under test, as the runner sees them: how to reach one and how to talk to it.

Below the runner (the runner imports this package, never the reverse). What the runner
needs of an agent is the :class:`Agent` protocol (start, ready, a fresh session, a turn —
streamed or not —, stop, and its :class:`Evidence`); :func:`connect` makes the one an
agent config (:class:`AgentConfig`, read by :func:`load_agent_config`) describes. The kinds:
:class:`AgentClient` speaks the native, REST and OpenAI-compatible HTTP protocols, streamed
or not; :class:`ExampleAgent` launches the bundled example agent and then talks to it.
Replica pools are the runner's: everything here is one agent.
"""

from ._adapters import OpenAIAdapter, RestAdapter
from ._agent import (
    Agent,
    AgentNotReady,
    Evidence,
    Exchange,
    NotWanted,
    PreconditionUnmet,
    Reply,
    TurnLost,
    Waits,
)
from ._client import AgentClient
from ._config import (
    agent_config_json_schema,
    example_config,
    load_agent_config,
    parse_agent_config,
)
from ._config_example import ExampleSpec
from ._config_types import AgentConfig, HostedToolsAt, ReplicaEntry
from ._example import ExampleAgent
from ._kinds import KINDS, connect
from ._model_agent import Launch, launch_for, model_args, require_model
from ._provides import CAPABILITIES, Provided, provided
from ._reference import REFERENCE_AGENTS, ReferenceAgent
from ._reply import Garbage
from ._sender import MAX_REPLY_BYTES, OverlapError, ReplyTooLarge, StreamIdle
from ._stream import (
    NDJSONParser,
    SSEParser,
    StreamAgentError,
    StreamDecoder,
    StreamError,
    StreamTruncated,
    framing_of,
)
from ._waiting import retry_after_s

__all__ = [
    "CAPABILITIES",
    "KINDS",
    "MAX_REPLY_BYTES",
    "REFERENCE_AGENTS",
    "Agent",
    "AgentClient",
    "AgentConfig",
    "AgentNotReady",
    "Evidence",
    "ExampleAgent",
    "ExampleSpec",
    "Exchange",
    "Garbage",
    "HostedToolsAt",
    "Launch",
    "NDJSONParser",
    "NotWanted",
    "OpenAIAdapter",
    "OverlapError",
    "PreconditionUnmet",
    "Provided",
    "ReferenceAgent",
    "ReplicaEntry",
    "Reply",
    "ReplyTooLarge",
    "RestAdapter",
    "SSEParser",
    "StreamAgentError",
    "StreamDecoder",
    "StreamError",
    "StreamIdle",
    "StreamTruncated",
    "TurnLost",
    "Waits",
    "agent_config_json_schema",
    "connect",
    "example_config",
    "framing_of",
    "launch_for",
    "load_agent_config",
    "model_args",
    "parse_agent_config",
    "provided",
    "require_model",
    "retry_after_s",
]
