"""`python -m agenttest` is the same as the `agenttest` command."""

from agenttest.cli import entry

entry()
