"""The runner: drive one agent serially over HTTP and write every attempt to durable JSONL.

Importable without the CLI::

    from agenttest.runner import RunRequest, run
    path = run(RunRequest(paths=["batteries"], agent="agent.yaml"))
"""

from ._client import AgentClient, TurnLost
from ._config import example_config, load_agent_config, parse_agent_config
from ._config_types import AgentConfig
from ._example import ExampleAgent
from ._plan import PlanItem, make_plan, read_state, select_blocks, split_list
from ._progress import LineProgress, Progress, outcome_text, shown
from ._reply import Garbage
from ._run import print_path, run
from ._sender import OverlapError, ReplyTooLarge
from ._session import EXAMPLE, RunRequest
from ._waiting import AgentNotReady, retry_after_s
from ._workspace import FixtureError

__all__ = [
    "EXAMPLE",
    "AgentClient",
    "AgentConfig",
    "AgentNotReady",
    "ExampleAgent",
    "FixtureError",
    "Garbage",
    "LineProgress",
    "OverlapError",
    "PlanItem",
    "Progress",
    "ReplyTooLarge",
    "RunRequest",
    "TurnLost",
    "example_config",
    "load_agent_config",
    "make_plan",
    "outcome_text",
    "parse_agent_config",
    "print_path",
    "read_state",
    "retry_after_s",
    "run",
    "select_blocks",
    "shown",
    "split_list",
]
