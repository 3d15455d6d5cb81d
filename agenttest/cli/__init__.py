"""The `agenttest` command line: a thin Typer layer over the library.

Each command lives in its own module, parses options, calls one library function and
prints the result. Errors travel as :class:`agenttest.errors.AgentTestError` and are
turned into messages and exit codes in :func:`main` only.
"""

from __future__ import annotations

import importlib
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
        _rate_cmds,
        _report_cmds,
        _run_cmds,
    )


_register()


_Kinds = tuple[type[BaseException], ...]


def _click_kinds() -> tuple[_Kinds, _Kinds, _Kinds]:
    """(exit, abort, usage) exception classes of Typer and of click, whichever are present:
    newer Typer vendors its own click, older Typer raises click's."""
    exits: list[type[BaseException]] = [typer.Exit]
    aborts: list[type[BaseException]] = [typer.Abort]
    usage: list[type[BaseException]] = []
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        exits += [c for c in (getattr(mod, "Exit", None),) if c]
        aborts += [c for c in (getattr(mod, "Abort", None),) if c]
        usage += [c for c in (getattr(mod, "ClickException", None),) if c]
    return tuple(exits), tuple(aborts), tuple(usage)


def _shown(text: str) -> str:
    """An error message as printed: no secrets, no terminal control sequences."""
    from agenttest.sanitize import redact, terminal_safe

    return terminal_safe(redact(text))


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app and map every outcome to an exit code in one place."""
    from agenttest.errors import (
        EXIT_INTERNAL,
        EXIT_INTERRUPTED,
        EXIT_USAGE,
        AgentTestError,
        InputError,
    )

    exits, aborts, usage = _click_kinds()
    interrupts: _Kinds = (KeyboardInterrupt, *aborts)
    try:
        app(args=argv, prog_name="agenttest", standalone_mode=False)
    except InputError as exc:
        for line in exc.lines():
            print(_shown(line), file=sys.stderr)
        print(f"agenttest: {_shown(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except AgentTestError as exc:
        print(f"agenttest: {_shown(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except interrupts:
        print("agenttest: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except exits as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    except usage as exc:
        exc.show()  # type: ignore[attr-defined]  # click-style exceptions render themselves
        return int(getattr(exc, "exit_code", EXIT_USAGE) or EXIT_USAGE)
    except BrokenPipeError:
        return 0
    except Exception:
        import traceback

        traceback.print_exc()
        print(
            "agenttest: internal error (a bug in agenttest, not in your input); "
            "please report it with the traceback above",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    return 0


def _stops_interrupt() -> None:
    """SIGTERM and SIGHUP end every command as Ctrl-C does (exit 130, the command's own
    clean-up runs); `run` installs its own handlers that also write the run_end."""
    import signal

    def interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, interrupt)


def entry() -> None:
    _stops_interrupt()
    sys.exit(main())
