"""One exception tree for the whole tool, and the one place that maps it to exit codes.

Exit codes (SPEC section 2): 0 done; 1 a gate failed; 2 bad input or usage (nothing
written); 3 the agent never became ready or the run was aborted (resumable);
130 interrupted (resumable).
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2
EXIT_AGENT = 3
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 4  # a bug in agenttest itself; kept apart from 1 so gates stay scriptable


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
    """A ``--gate`` found a significant regression."""

    exit_code = EXIT_GATE


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


def exit_code_for(exc: BaseException) -> int:
    """The single mapping from an exception to the process exit code."""
    if isinstance(exc, AgentTestError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_INTERNAL
