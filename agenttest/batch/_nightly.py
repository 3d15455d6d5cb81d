"""Nightly batches: run a list of jobs one after another, report each, compare with its last run.

A batch file (YAML) names an output folder and jobs; each job is one ``agenttest run``
(batteries, agent, overlay, k, label). After a job's run file is written, its reports are
rendered next to it and it is compared with the previous run of the same job — the newest
older run file in the job's folder whose ``run_meta`` carries the same label. An exclusive
lock on one file keeps two batches from ever overlapping (the agent is single-user).

Each job's report carries the deployment decision (:func:`agenttest.reporting.decide`,
against its previous run); its status line shows it, and a job with ``gate: true`` takes
the decision's exit code when it is blocked.

Exit status, in order of precedence: 130 interrupted; 3 a job's agent never became ready
or its run was aborted; 2 a job's input was refused (the batch file itself being invalid
stops everything before any job runs); 1 a gated job's decision is blocked by the agent's
results (a SEC FAIL, a significant regression, ...); 5 a gated job's decision is blocked
because its data cannot support one (attempts lost); 0 otherwise. See docs/nightly.md.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from agenttest.errors import (
    EXIT_AGENT,
    EXIT_DATA,
    EXIT_GATE,
    EXIT_OK,
    EXIT_USAGE,
    AgentTestError,
    InputError,
    Interrupted,
    UsageError,
)
from agenttest.reporting import to_plain
from agenttest.results import RunEnd, iter_records, read_run_meta
from agenttest.results import parse_timestamp as timestamp
from agenttest.runner import Progress, clock

from ._batch_file import SUFFIX, Batch, Job, load_batch
from ._watch import JobWatch, report_commands, stamped


@dataclass
class JobOutcome:
    label: str
    status: str  # ok, blocked, aborted, refused, interrupted
    run_file: Path | None = None
    previous: Path | None = None
    reports: list[Path] = field(default_factory=list)
    summary: str = ""
    exit_code: int = EXIT_OK
    baseline_skipped: list[str] = field(default_factory=list)  # newer runs not used, and why
    warnings: list[str] = field(default_factory=list)  # runs dated in the future, ...
    decision: str = ""  # the report's decision line: "blocked: SEC-01 failed 3 of 3 (...)"


#: Runs one job and returns its run file. Raising AgentTestError marks the job failed.
Executor = Callable[[Job], Path]


def run_job(job: Job, progress: Progress | None = None) -> Path:
    """The real executor: one ``agenttest run`` through the runner's library function,
    silent unless handed a progress."""
    from agenttest.runner import RunRequest, run

    request = RunRequest(
        paths=list(job.batteries),
        agent=job.agent,
        overlay=job.overlay,
        k=job.k,
        only=list(job.only),
        tiers=list(job.tiers),
        out=job.out,
        label=job.label,
        allow_temp=job.allow_temp,
        quiet=progress is None,
    )
    return run(request, progress=progress)


# -- running --------------------------------------------------------------------------------


@contextmanager
def batch_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive, non-blocking lock for the whole batch; refuse if another has it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown"
            raise UsageError(
                f"another batch is running (lock {path} held by {holder}); "
                "two batches never overlap — this one did nothing"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} since {datetime.now(UTC).isoformat()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def incomplete_because(path: Path) -> str | None:
    """Why a run file cannot be a baseline (None: it is a complete run).

    Complete means its last ``run_end`` says ``completed`` and no planned attempt is
    missing: a night killed at attempt 1 must not become the next night's baseline, where a
    drop from 100% to 0% would read as "0 regressions".
    """
    end: RunEnd | None = None
    try:
        for record in iter_records(path):
            if isinstance(record, RunEnd):
                end = record
    except AgentTestError as exc:
        return f"unreadable ({exc})"
    if end is None:
        return "no run_end (killed or still running)"
    reason = end.reason or ""
    if reason != "completed":
        return f"ended {reason.split(':', 1)[0] or 'without a reason'}"
    # run_end.attempts is typed dict[str, int]: its counts need no checks of their own
    planned, recorded = end.attempts.get("planned"), end.attempts.get("recorded")
    skipped = end.attempts.get("skipped_as_decided", 0)
    if planned is not None and recorded is not None and recorded + skipped < planned:
        return f"{planned - recorded} of {planned} planned attempts missing"
    return None


#: A run that started this much later than now was dated by a clock that was ahead.
FUTURE_SLACK_S = 300.0


def previous_run(
    job: Job, exclude: Path, skipped: list[str] | None = None, warnings: list[str] | None = None
) -> Path | None:
    """The newest older *complete* run file of this job (same label in its run_meta) in its
    folder; each newer run passed over is added to ``skipped`` with the reason.

    Runs are ordered by when they started (the file's time when that is not recorded). A
    run dated later than now was dated by a clock that was ahead (a jump forward one night):
    ordered by its date it would be the newest run, the baseline of every night for weeks.
    It is ordered as the oldest instead, and ``warnings`` says so."""
    found: list[tuple[bool, float, Path]] = []
    if not job.out.is_dir():
        return None
    now = time.time()
    for candidate in job.out.glob("run_*.jsonl"):
        if candidate.resolve() == exclude.resolve():
            continue
        try:
            meta = read_run_meta(candidate)
        except AgentTestError:
            continue
        if meta.label != job.label:
            continue
        when = timestamp(meta.started_at) or candidate.stat().st_mtime
        sane = when <= now + FUTURE_SLACK_S
        if not sane and warnings is not None:
            dated = datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")
            warnings.append(
                f"{candidate.name} is dated {dated}, later than now: the clock was ahead "
                "when it ran; it is taken as the oldest run, not the newest"
            )
        found.append((sane, when, candidate))
    for _sane, _when, candidate in sorted(found, key=lambda f: (f[0], f[1]), reverse=True):
        why = incomplete_because(candidate)
        if why is None:
            return candidate
        if skipped is not None:
            skipped.append(f"{candidate.name}: {why}")
    return None


def _newest_of(job: Job, since: float) -> Path | None:
    files = [p for p in job.out.glob("run_*.jsonl") if p.stat().st_mtime >= since]
    labelled = []
    for p in files:
        try:
            if read_run_meta(p).label == job.label:
                labelled.append(p)
        except AgentTestError:
            continue
    return max(labelled, key=lambda p: p.stat().st_mtime) if labelled else None


def _write_reports(
    job: Job, run_file: Path, previous: Path | None, alpha: float, outcome: JobOutcome
) -> None:
    from agenttest.reporting import build_report, render

    report = build_report(
        [run_file],
        baseline=[previous] if previous else None,
        alpha=alpha,
        viewer="html" in job.formats,  # the HTML report's attempt viewer reads every attempt
    )
    stem = run_file.with_suffix("")
    for fmt in job.formats:
        target = Path(f"{stem}{SUFFIX[fmt]}")
        tmp = target.with_name(target.name + ".part")
        tmp.write_text(render(report, fmt), encoding="utf-8")
        tmp.replace(target)
        outcome.reports.append(target)
    rate = report.overall.rate
    outcome.summary = (
        f"{rate.passed}/{rate.n} passed"
        + (f" = {rate.pass_at_1:.1%}" if rate.pass_at_1 is not None else "")
        + f", {rate.errors} ERROR, {report.header.run_type}"
    )
    if report.regression is not None:
        comparison = report.regression
        target = Path(f"{stem}.compare.json")
        target.write_text(json.dumps(to_plain(comparison), indent=2) + "\n", encoding="utf-8")
        outcome.reports.append(target)
        found = comparison.regressions
        outcome.summary += (
            f"; vs {previous.name if previous else '?'}: {len(found)} regression(s), "
            f"{len(comparison.improvements)} improvement(s)"
        )
    decision = report.decision
    if decision is not None:
        outcome.decision = decision.line
        outcome.summary += f"; decision: {decision.line}"
        # an aborted job keeps its 3: the decision about a partial run is shown, not obeyed
        if job.gate and decision.status == "blocked" and outcome.status == "ok":
            outcome.status, outcome.exit_code = "blocked", decision.exit_code


def run_batch(
    path: str | Path,
    *,
    executor: Executor | None = None,
    say: Callable[[str], None] = stamped,
    progress: Callable[[], Progress] | None = None,
) -> list[JobOutcome]:
    """Run every job of the batch file in order; return one outcome per job.

    ``say`` gets the batch's own lines (a job's start and result, its baseline, an
    interrupt's way on); ``progress`` makes each job's run progress (none: silent runs).
    Both are for the real executor; another ``executor`` runs as it likes.
    """
    batch = load_batch(path)
    outcomes: list[JobOutcome] = []

    def real(job: Job) -> Path:
        prior = previous_run(job, Path(os.devnull))  # the start line's ETA: last night's pace
        return run_job(job, JobWatch(job, progress() if progress else Progress(), say, prior))

    run_one = executor or real
    with batch_lock(batch.lock):
        for job in batch.jobs:
            outcome = JobOutcome(job.label, "ok")
            outcomes.append(outcome)
            started = time.time() - 1
            try:
                outcome.run_file = run_one(job)
            except (Interrupted, KeyboardInterrupt) as exc:
                # a Ctrl-C outside the runner's own handling (while it ends the file or
                # stops the agent) is a KeyboardInterrupt: the run file may be complete
                outcome.status, outcome.exit_code = "interrupted", 130
                _interrupted(job, _newest_of(job, started), say, str(exc) or "interrupted")
                _summary(batch, outcomes)
                if isinstance(exc, KeyboardInterrupt):
                    raise Interrupted(f"interrupted during job {job.label}") from None
                raise
            except UsageError as exc:
                # A refused job names what to fix, FILE:LINE by FILE:LINE, not only a count.
                lines = exc.lines() if isinstance(exc, InputError) else []
                outcome.status, outcome.exit_code = "refused", EXIT_USAGE
                outcome.summary = "; ".join(lines) if lines else str(exc)
                say(f"{job.label}: refused: {exc}")
                for line in lines:
                    say(f"  {line}")
                continue
            except AgentTestError as exc:
                outcome.status, outcome.exit_code, outcome.summary = "aborted", EXIT_AGENT, str(exc)
                outcome.run_file = _newest_of(job, started)
            if outcome.run_file is not None:
                outcome.previous = previous_run(
                    job, outcome.run_file, outcome.baseline_skipped, outcome.warnings
                )
                for warning in outcome.warnings:
                    say(f"{job.label}: warning: {warning}")
                if outcome.status == "aborted":
                    outcome.previous = None  # a partial run is reported, never compared
                for passed_over in outcome.baseline_skipped:
                    say(f"{job.label}: not a baseline: {passed_over}")
                if outcome.previous is not None:
                    say(f"{job.label}: baseline {outcome.previous.name} (newest complete run)")
                try:
                    _write_reports(job, outcome.run_file, outcome.previous, batch.alpha, outcome)
                except (KeyboardInterrupt, Interrupted):
                    outcome.status, outcome.exit_code = "interrupted", 130
                    _interrupted(job, outcome.run_file, say, "interrupted", outcome.previous)
                    _summary(batch, outcomes)
                    raise Interrupted(f"interrupted while writing {job.label}'s reports") from None
            took = clock(time.time() - 1 - started)
            say(
                f"{job.label}: {outcome.status}: {outcome.run_file or '-'} — {outcome.summary}"
                f" (took {took})"
            )
        _summary(batch, outcomes)
    return outcomes


def _interrupted(
    job: Job,
    run_file: Path | None,
    say: Callable[[str], None],
    why: str,
    previous: Path | None = None,
) -> None:
    """What a stop leaves to do: a complete run file needs only its reports (the commands
    that write them), an incomplete one its resume (the runner's message says how)."""
    if run_file is None or incomplete_because(run_file) is not None:
        say(f"{job.label}: {why}")
        return
    if previous is None:
        previous = previous_run(job, run_file)
    say(f"{job.label}: interrupted; its run file is complete but has no reports. Write them with:")
    for command in report_commands(job, run_file, previous):
        say(f"  {command}")


def _summary(batch: Batch, outcomes: list[JobOutcome]) -> None:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = batch.out
    folder.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "label": o.label,
            "status": o.status,
            "exit_code": o.exit_code,
            "run_file": str(o.run_file) if o.run_file else None,
            "previous": str(o.previous) if o.previous else None,
            "baseline_skipped": list(o.baseline_skipped),
            "warnings": list(o.warnings),
            "reports": [str(p) for p in o.reports],
            "summary": o.summary,
            "decision": o.decision,
        }
        for o in outcomes
    ]
    (folder / f"batch_{stamp}.json").write_text(
        json.dumps({"batch": str(batch.path), "jobs": rows}, indent=2) + "\n", encoding="utf-8"
    )


#: Which job's exit code the batch takes when several failed: the first of these.
PRECEDENCE = (130, EXIT_AGENT, EXIT_USAGE, EXIT_GATE, EXIT_DATA)


def batch_exit_code(outcomes: list[JobOutcome]) -> int:
    """130 > 3 > 2 > 1 > 5 > 0 over the jobs' outcomes."""
    codes = {o.exit_code for o in outcomes}
    for code in PRECEDENCE:
        if code in codes:
            return code
    return EXIT_OK


def batch_reason(outcomes: list[JobOutcome]) -> str:
    """One line for the batch's exit: the job whose code the batch takes, and why."""
    code = batch_exit_code(outcomes)
    job = next((o for o in outcomes if o.exit_code == code), None)
    if job is None or code == EXIT_OK:
        return "every job done"
    why = job.decision if job.status == "blocked" else job.summary or job.status
    return f"{job.label}: {why}"
