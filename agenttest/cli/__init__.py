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
        "Exit codes: 0 done · 1 a gate blocked on the agent's results · 2 bad input or usage "
        "(nothing written) · 3 agent never ready / run aborted (resumable) · 4 an internal "
        "error in agenttest (please report it) · 5 a gate blocked because attempts were lost · "
        "130 interrupted (resumable)."
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
        _baseline_cmds,
        _blocks_cmds,
        _grade_cmds,
        _hosted_cmds,
        _init_cmds,
        _judge_cmds,
        _plan_cmds,
        _rate_cmds,
        _reference_cmds,
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
    """Entry point: run the app, then let :func:`agenttest.errors.exit_code_for` decide.

    click ends a command in its own ways (a returned status, ``Exit``, ``Abort``, its usage
    errors; Typer turns Ctrl-C into a returned 130). Each is translated into the one
    exception tree here, so the exit code is decided in one place and never dropped.
    """
    from agenttest.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, InputError, exit_code_for

    exits, aborts, usage = _click_kinds()
    try:
        returned = app(args=argv, prog_name="agenttest", standalone_mode=False)
        outcome: BaseException | None = _returned(returned, EXIT_INTERRUPTED)
    except exits as exc:
        outcome = _returned(getattr(exc, "exit_code", 0), EXIT_INTERRUPTED)
    except aborts:
        outcome = KeyboardInterrupt()
    except usage as exc:
        exc.show()  # type: ignore[attr-defined]  # click-style exceptions render themselves
        outcome = SystemExit(getattr(exc, "exit_code", None))
    except BaseException as exc:  # every other ending is mapped by exit_code_for
        outcome = exc
    if outcome is None:
        return 0
    code = exit_code_for(outcome)
    if isinstance(outcome, InputError):
        for line in outcome.lines():
            print(_shown(line), file=sys.stderr)
    if isinstance(outcome, KeyboardInterrupt):
        print("agenttest: interrupted", file=sys.stderr)
    elif code == EXIT_INTERNAL:
        import traceback

        traceback.print_exception(outcome)
        print(
            "agenttest: internal error (a bug in agenttest, not in your input); "
            "please report it with the traceback above",
            file=sys.stderr,
        )
    elif isinstance(outcome, Exception) and not isinstance(outcome, BrokenPipeError):
        print(f"agenttest: {_shown(str(outcome))}", file=sys.stderr)
    return code


def _returned(status: object, interrupted: int) -> BaseException | None:
    """What a status click returned (or carried in ``Exit``) stands for in the tree."""
    if not isinstance(status, int) or status == 0:
        return None
    if status == interrupted:  # Typer >= 0.13 turns KeyboardInterrupt into a returned 130
        return KeyboardInterrupt()
    return SystemExit(status)


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
