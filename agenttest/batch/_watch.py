"""What a batch says while it runs: a start line per job, its run's progress, a result line.

Each line the batch itself says carries a timestamp, on a terminal and in a cron log alike;
a job's attempts show as `run` shows them (a bar on a terminal, timestamped lines
elsewhere: the progress the caller hands in). A job's start line names its run file, the
attempts planned and an ETA with its range: from the job's previous complete run when there
is one (the same battery against the same agent, last night), else ``-:--:--`` until the
first attempt ends. Last night's pace is counted as `agenttest plan` counts it (each
attempt's wall time on its replica, harness included: ``reporting.wall_durations``).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from agenttest.results import Attempt
from agenttest.runner import Estimate, Progress, estimate_time, shown

from ._batch_file import SUFFIX, Job


def stamped(text: str) -> None:
    """Print one line to stdout with the local time in front (the batch's own voice)."""
    stamp = datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S")
    print(f"{stamp} {shown(text)}", flush=True)
    sys.stdout.flush()


class JobWatch(Progress):
    """Says a job's start line when its run file exists, then passes everything to ``inner``."""

    def __init__(
        self, job: Job, inner: Progress, say: Callable[[str], None], prior: Path | None
    ) -> None:
        self.job, self.inner, self.say, self.prior = job, inner, say, prior
        self.estimate: Estimate | None = None

    def start(self, total: int, done: int, path: str) -> None:
        todo = total - done
        planned = f"{todo} attempt(s) planned" + (f" ({done} of {total} recorded)" if done else "")
        eta, source = self.estimate, ""
        if eta is None and self.prior is not None:  # none of its own yet: last night's pace
            from agenttest.reporting import wall_durations  # as `agenttest plan` counts it

            eta = estimate_time(wall_durations(self.prior), ["(any block)"] * todo)
            source = f" from {self.prior.name}" if eta is not None else ""
        shown_eta = "-:--:-- until the first attempt ends" if eta is None else eta.text() + source
        self.say(f"{self.job.label}: started: {planned}; run file {path}; eta {shown_eta}")
        self.inner.eta(eta)
        self.inner.start(total, done, path)

    def attempt_started(self, test_id: str, run: int, k: int) -> None:
        self.inner.attempt_started(test_id, run, k)

    def attempt_done(self, record: Attempt) -> None:
        self.inner.attempt_done(record)

    def attempt_skipped(self, test_id: str, run: int, why: str) -> None:
        self.inner.attempt_skipped(test_id, run, why)

    def pool(self, busy: int, down: int, eta: Estimate | None) -> None:
        self.inner.pool(busy, down, eta)

    def eta(self, estimate: Estimate | None) -> None:
        self.estimate = estimate
        self.inner.eta(estimate)

    def note(self, message: str) -> None:
        self.inner.note(message)

    def close(self) -> None:
        self.inner.close()


def report_commands(job: Job, run_file: Path, previous: Path | None) -> list[str]:
    """The `agenttest report` commands that write the job's reports as the batch would."""
    stem = run_file.with_suffix("")
    baseline = ["--baseline", str(previous)] if previous is not None else []
    head = ["agenttest", "report", str(run_file), *baseline]
    return [
        shlex.join([*head, "--format", fmt, "--output", f"{stem}{SUFFIX[fmt]}"])
        for fmt in job.formats
    ]
