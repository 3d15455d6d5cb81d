"""`example-agent`: serve the bundled example agent (the reference implementation).

The options are the example agent's own (:mod:`agenttest.example_agent._command`, also
``python -m agenttest.example_agent``): this command hands its arguments over unparsed, so
the two spellings can never accept different options.
"""

from __future__ import annotations

import typer

from . import app


@app.command(
    "example-agent",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def example_agent(ctx: typer.Context) -> None:
    """Serve the bundled example agent; prints its base URL on the first line of output.

    Fault options make it misbehave on purpose; a simulated busy turn is answered 503
    (see docs/example-agent.md). Stops on Ctrl-C or SIGTERM. `--help` lists the options.
    """
    from agenttest.example_agent import command

    command(list(ctx.args), prog="agenttest example-agent")
