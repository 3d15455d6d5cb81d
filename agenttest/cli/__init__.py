"""The `agenttest` command line: a thin Typer layer over the library.

Each command lives in its own module, parses options, calls one library function and
prints the result. Errors travel as :class:`agenttest.errors.AgentTestError` and are
turned into messages and exit codes in :func:`main` only.
"""

from __future__ import annotations

import sys

import typer

from agenttest import __version__

app = typer.Typer(
    name="agenttest",
    help=(
        "Run test batteries against AI agents and report numbers you can defend.\n\n"
        "Typical flow: `agenttest validate batteries` → `agenttest run batteries --agent example` "
        "→ `agenttest report reports/run_*.jsonl`.\n\n"
        "Exit codes: 0 done · 1 a --gate failed · 2 bad input or usage (nothing written) · "
        "3 agent never ready / run aborted (resumable) · 130 interrupted (resumable)."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"agenttest {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Run test batteries against AI agents."""


def _register() -> None:
    # Importing a command module only registers it; heavy work is imported inside commands.
    from . import (  # noqa: F401
        _agent_cmds,
        _blocks_cmds,
        _grade_cmds,
        _judge_cmds,
        _report_cmds,
        _run_cmds,
    )


_register()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app and map every outcome to an exit code in one place."""
    import click

    from agenttest.errors import EXIT_INTERRUPTED, AgentTestError, InputError, exit_code_for

    try:
        app(args=argv, prog_name="agenttest", standalone_mode=False)
    except InputError as exc:
        for line in exc.lines():
            print(line, file=sys.stderr)
        print(f"agenttest: {exc}", file=sys.stderr)
        return exc.exit_code
    except AgentTestError as exc:
        print(f"agenttest: {exc}", file=sys.stderr)
        return exit_code_for(exc)
    except click.exceptions.Abort:
        print("agenttest: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("agenttest: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return 2
    except BrokenPipeError:
        return 0
    return 0


def entry() -> None:
    sys.exit(main())
