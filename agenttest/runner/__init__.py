"""The runner: drive an agent (or a pool of its replicas) through a battery and write every
attempt to durable JSONL. How to reach and talk to the agent is :mod:`agenttest.agents`.

Importable without the CLI::

    from agenttest.runner import RunRequest, run
    path = run(RunRequest(paths=["batteries"], agent="agent.yaml"))
"""

from ._eta import (
    UNKNOWN,
    Durations,
    Estimate,
    attempt_seconds,
    clock,
    estimate_time,
    eta_text,
)
from ._plan import PlanItem, make_plan, read_state, select_blocks, split_list
from ._progress import LineProgress, Progress, outcome_text, shown
from ._reference_check import (
    Cell,
    ReferenceCheck,
    check_reference_agents,
    reference_agent_config,
)
from ._run import print_path, run
from ._session import EXAMPLE, RunRequest
from ._workspace import FixtureError

__all__ = [
    "EXAMPLE",
    "UNKNOWN",
    "Cell",
    "Durations",
    "Estimate",
    "FixtureError",
    "LineProgress",
    "PlanItem",
    "Progress",
    "ReferenceCheck",
    "RunRequest",
    "attempt_seconds",
    "check_reference_agents",
    "clock",
    "estimate_time",
    "eta_text",
    "make_plan",
    "outcome_text",
    "print_path",
    "read_state",
    "reference_agent_config",
    "run",
    "select_blocks",
    "shown",
    "split_list",
]
