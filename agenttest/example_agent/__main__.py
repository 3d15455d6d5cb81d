"""``python -m agenttest.example_agent``: the example agent without the agenttest CLI."""

from __future__ import annotations

import sys

from agenttest.errors import AgentTestError, exit_code_for

from ._command import command

try:
    command()
except AgentTestError as exc:
    print(f"example-agent: {exc}", file=sys.stderr)
    sys.exit(exit_code_for(exc))
