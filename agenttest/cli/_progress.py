"""The CLI's progress: a rich bar on a terminal, timestamped lines elsewhere, or nothing.

rich is imported only when a terminal is there to draw on; the library itself never
prints progress unless it is handed one of these.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from agenttest.results import Attempt
from agenttest.runner import Estimate, LineProgress, Progress, eta_text, outcome_text, shown


class RichProgress(Progress):
    """A live bar with ETA and the current block, drawn on a terminal."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as Bar
        from rich.text import Text

        self.console = Console(stderr=True)
        self.estimate: Estimate | None = None
        self.estimated_at = time.monotonic()

        def eta(_task: Any) -> Text:
            # the runner's estimate (observed attempt times, with a range), counted down
            # between attempts; rich's own guesses from the last few seconds' speed
            return Text(f"eta {eta_text(self.estimate_now())}", style="progress.remaining")

        self.bar = Bar(
            TextColumn("[bold]{task.fields[current]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            _column(eta),
            console=self.console,
            transient=False,
        )
        self.task: Any = None
        self.skipped = 0

    def start(self, total: int, done: int, path: str) -> None:
        self.bar.start()
        self.console.print(f"writing {path}", markup=False, highlight=False)
        self.task = self.bar.add_task("run", total=total, completed=done, current="starting")

    def attempt_started(self, test_id: str, run: int, k: int) -> None:
        self.bar.update(self.task, current=f"{test_id} {run}/{k}")

    def attempt_done(self, record: Attempt) -> None:
        outcome = outcome_text(record)
        if outcome != "PASS":
            self.console.print(
                shown(f"{record.test_id} run {record.run}: {outcome}"),
                markup=False,
                highlight=False,
            )
        self.bar.advance(self.task)

    def attempt_skipped(self, test_id: str, run: int, why: str) -> None:
        self.skipped += 1
        self.bar.advance(self.task)

    def pool(self, busy: int, down: int, eta: Estimate | None) -> None:
        self.bar.update(
            self.task, current=f"{busy} busy, {down} down, {self.skipped} skipped as decided"
        )

    def eta(self, estimate: Estimate | None) -> None:
        self.estimate, self.estimated_at = estimate, time.monotonic()

    def estimate_now(self) -> Estimate | None:
        if self.estimate is None:
            return None
        return self.estimate.later(time.monotonic() - self.estimated_at)

    def note(self, message: str) -> None:
        from rich.text import Text

        self.console.print(Text(shown(message), style="dim"))

    def close(self) -> None:
        self.bar.stop()


def _column(render: Any) -> Any:
    """A rich column drawn by ``render(task)`` (rich imported only here, lazily)."""
    from rich.progress import ProgressColumn

    class Column(ProgressColumn):
        def render(self, task: Any) -> Any:
            return render(task)

    return Column()


def make_progress(quiet: bool, stream: TextIO | None = None) -> Progress:
    if quiet:
        return Progress()
    stream = stream or sys.stderr
    if stream.isatty():
        return RichProgress()
    return LineProgress(stream)
