"""agenttest: run test batteries against AI agents and report numbers you can defend.

The library imports without Typer or rich; the CLI in :mod:`agenttest.cli` is a thin layer.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
