"""Progress of a run: nothing by default, or timestamped lines (cron, log files).

The library is silent unless it is handed a :class:`Progress`; the CLI hands it a rich
bar on a terminal (``agenttest.cli._progress``) and :class:`LineProgress` elsewhere.
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import TextIO

from agenttest.results import Attempt
from agenttest.sanitize import redact, terminal_safe

from ._eta import Estimate, eta_text


def shown(text: str) -> str:
    """What reaches the terminal or the log: no secrets, no control sequences."""
    return terminal_safe(redact(text))


class Progress:
    """Silent progress (``--quiet``); the base of the other two."""

    def start(self, total: int, done: int, path: str) -> None:
        pass

    def attempt_started(self, test_id: str, run: int, k: int) -> None:
        pass

    def attempt_done(self, record: Attempt) -> None:
        pass

    def attempt_skipped(self, test_id: str, run: int, why: str) -> None:
        """``--until-decided`` will not run this attempt: its block is decided."""

    def pool(self, busy: int, down: int, eta: Estimate | None) -> None:
        """A pooled run's state after each attempt: replicas busy and down, the ETA."""

    def eta(self, estimate: Estimate | None) -> None:
        """What is left, estimated when the run starts and after each attempt (None: no
        attempt has ended yet)."""

    def note(self, message: str) -> None:
        pass

    def close(self) -> None:
        pass


def outcome_text(record: Attempt) -> str:
    verdict = record.verdict or "?"
    if verdict == "ERROR" and record.error_cause:
        return f"ERROR ({record.error_cause})"
    if verdict == "UNDECIDED":
        return "UNDECIDED (awaiting a rating)"
    if verdict == "NOT_APPLICABLE":
        return f"not applicable ({record.not_applicable}); nothing was sent"
    return verdict


def pool_line(
    done: int, total: int, skipped: int, busy: int, down: int, eta: Estimate | None
) -> str:
    """``pool: 12/40 done, 3 skipped as decided; 4 busy, 1 down; eta 0:05:10 (...)``."""
    return (
        f"pool: {done}/{total} done, {skipped} skipped as decided; {busy} busy, {down} down; "
        f"eta {eta_text(eta)}"
    )


class LineProgress(Progress):
    """One timestamped line per event: readable in a cron mail or a log file."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = 0
        self.done = 0
        self.skipped = 0
        self.pool_state = ""
        self.estimate: Estimate | None = None

    def _line(self, text: str) -> None:
        stamp = datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S")
        print(f"{stamp} {shown(text)}", file=self.stream, flush=True)

    def start(self, total: int, done: int, path: str) -> None:
        self.total, self.done = total, done
        self._line(
            f"run: {total - done} attempt(s) to go of {total}; writing {path}; "
            + (
                "eta -:--:-- until the first attempt ends"
                if self.estimate is None
                else f"eta {self.estimate.text()}"
            )
        )

    def attempt_started(self, test_id: str, run: int, k: int) -> None:
        self._line(f"[{self.done + 1}/{self.total}] {test_id} run {run}/{k} ...")

    def attempt_done(self, record: Attempt) -> None:
        self.done += 1
        latency = record.latency_ms
        took = f" in {latency / 1000:.1f}s" if latency is not None else ""
        where = f" on replica {record.replica}" if record.replica is not None else ""
        state, self.pool_state = self.pool_state, ""
        if not state and self.done < self.total:
            state = f"eta {eta_text(self.estimate)}"
        self._line(
            f"[{self.done}/{self.total}] {record.test_id} run {record.run}{where}: "
            f"{outcome_text(record)}{took}" + (f" | {state}" if state else "")
        )

    def attempt_skipped(self, test_id: str, run: int, why: str) -> None:
        self.done += 1
        self.skipped += 1
        self._line(f"[{self.done}/{self.total}] {test_id} run {run}: skipped, {why}")

    def pool(self, busy: int, down: int, eta: Estimate | None) -> None:
        # shown with the next finished attempt: one line per attempt, as for one agent
        self.pool_state = pool_line(self.done + 1, self.total, self.skipped, busy, down, eta)

    def eta(self, estimate: Estimate | None) -> None:
        self.estimate = estimate

    def note(self, message: str) -> None:
        self._line(message)
