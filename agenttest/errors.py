"""One exception tree for the whole tool, and the one place that maps it to exit codes.

Exit codes (SPEC section 2): 0 done; 1 a gate blocked on the agent's results; 2 bad input
or usage (nothing written); 3 the agent never became ready or the run was aborted
(resumable); 5 a gate blocked because its data cannot support a decision (attempts lost);
130 interrupted (resumable); 4 a bug in agenttest. :func:`exit_code_for` is the mapping;
``agenttest.cli.main`` only translates click's own outcomes into this tree and calls it.

Every exception a user can meet derives from :class:`AgentTestError`::

    AgentTestError                      exit 2 unless a subclass says otherwise
    ├── UsageError                      2  bad command line or input; nothing written
    │   ├── InputError                  2  located problems, printed as FILE:LINE: message
    │   ├── JudgeUnavailable            2  a judge cannot run here; says how to fix it
    │   └── reporting.UnknownRater      2  --rater names nobody who graded the run
    ├── GateFailed                   1, 5  a gate's decision is blocked (reporting.decide)
    ├── AgentUnavailable                3  the agent never became ready (resumable)
    │   └── agents.AgentNotReady        3  readiness.timeout_s ran out
    ├── RunAborted                      3  the run stopped before its plan was done
    ├── Interrupted                   130  Ctrl-C / SIGTERM; the current record was finished
    ├── ExitStatus                    any  a command's summed-up status (`batch`)
    ├── AttemptError                    3  one attempt could not be carried out; the runner
    │   │                                  records it as the attempt's ERROR cause, so it
    │   │                                  never reaches the command line
    │   ├── agents.TurnLost                no answer (timeout, busy, lost, http_error, ...)
    │   ├── agents.Garbage                 an answer that cannot be read as a turn
    │   │   └── agents.ReplyTooLarge       a body beyond the 32 MiB cap
    │   ├── agents.PreconditionUnmet       the agent cannot be put in the block's start
    │   └── runner.FixtureError            a fixture could not be prepared
    └── InternalError                   4  a bug in agenttest: shown with its traceback
        └── agents.OverlapError         4  a second request while one was in flight

Control-flow signals (the runner's ``StopRequested``, a ``BaseException`` so that no
``except Exception`` swallows it) are private to their package and never leave it.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2
EXIT_AGENT = 3
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 4  # a bug in agenttest itself; kept apart from 1 so gates stay scriptable
EXIT_DATA = 5  # a gate's data cannot support a decision (attempts lost); apart from 1: rerun


@dataclass(frozen=True)
class Problem:
    """One located problem in an input file: rendered as ``FILE:LINE: message``."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class AgentTestError(Exception):
    """Base of every error agenttest raises on purpose. Never shown as a traceback."""

    exit_code = EXIT_USAGE


class UsageError(AgentTestError):
    """Bad command line or bad input file; nothing was written."""

    exit_code = EXIT_USAGE


class InputError(UsageError):
    """One or more located problems in input files (blocks, overlays, configs, runs)."""

    def __init__(self, problems: list[Problem], summary: str | None = None) -> None:
        self.problems = list(problems)
        text = summary or f"{len(self.problems)} problem(s) found"
        super().__init__(text)

    def lines(self) -> list[str]:
        return [str(p) for p in self.problems]


class GateFailed(AgentTestError):
    """A gate's decision is ``blocked``: 1 for the agent's results, 5 for lost data."""

    exit_code = EXIT_GATE

    def __init__(self, message: str, exit_code: int = EXIT_GATE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class AgentUnavailable(AgentTestError):
    """The agent never became reachable or ready; what was written stays and can be resumed."""

    exit_code = EXIT_AGENT


class RunAborted(AgentTestError):
    """The run stopped before its plan was done (disk full, lock lost, ...); resumable."""

    exit_code = EXIT_AGENT


class Interrupted(AgentTestError):
    """Ctrl-C: the current record was finished; resumable."""

    exit_code = EXIT_INTERRUPTED


class JudgeUnavailable(UsageError):
    """A judge cannot run here (model missing, endpoint not configured); says how to fix it."""


class ExitStatus(AgentTestError):
    """A command's summed-up outcome that is not one error (a batch of several runs)."""

    def __init__(self, exit_code: int, message: str) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class AttemptError(AgentTestError):
    """One attempt could not be carried out (no usable answer, a fixture failed). The runner
    records it as the attempt's ERROR cause and goes on; it never ends a command."""

    exit_code = EXIT_AGENT


class InternalError(AgentTestError):
    """A broken invariant of agenttest itself, never the user's input."""

    exit_code = EXIT_INTERNAL


def exit_code_for(exc: BaseException) -> int:
    """The single mapping from how a command ended to the process exit code."""
    if isinstance(exc, AgentTestError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):
        return EXIT_OK  # the reader (`| head`) has all it wanted
    if isinstance(exc, SystemExit):
        code = exc.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_USAGE)
    return EXIT_INTERNAL
