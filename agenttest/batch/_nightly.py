"""Nightly batches: run a list of jobs one after another, report each, compare with its last run.

A batch file (YAML) names an output folder and jobs; each job is one ``agenttest run``
(batteries, agent, overlay, k, label). After a job's run file is written, its reports are
rendered next to it and it is compared with the previous run of the same job — the newest
older run file in the job's folder whose ``run_meta`` carries the same label. An exclusive
lock on one file keeps two batches from ever overlapping (the agent is single-user).

Exit status, in order of precedence: 130 interrupted; 3 a job's agent never became ready
or its run was aborted; 2 a job's input was refused (the batch file itself being invalid
stops everything before any job runs); 1 a job with ``gate: true`` regressed
significantly against its previous run; 0 otherwise. See docs/nightly.md.
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
from typing import Any

from agenttest.errors import (
    EXIT_AGENT,
    EXIT_GATE,
    EXIT_OK,
    EXIT_USAGE,
    AgentTestError,
    InputError,
    Interrupted,
    Problem,
    UsageError,
)
from agenttest.reporting import to_plain
from agenttest.results import iter_records, read_run_meta
from agenttest.results import parse_timestamp as timestamp

DEFAULT_FORMATS = ("md", "html", "json", "junit")
SUFFIX = {"md": ".md", "html": ".html", "json": ".json", "junit": ".junit.xml"}
LOCK_NAME = ".agenttest-batch.lock"


@dataclass(frozen=True)
class Job:
    label: str
    batteries: tuple[str, ...]
    agent: str
    out: Path
    overlay: str | None = None
    k: int | None = None
    only: tuple[str, ...] = ()
    tiers: tuple[str, ...] = ()
    formats: tuple[str, ...] = DEFAULT_FORMATS
    gate: bool = False
    allow_temp: bool = False


@dataclass(frozen=True)
class Batch:
    path: Path
    jobs: tuple[Job, ...]
    lock: Path
    out: Path
    alpha: float = 0.05


@dataclass
class JobOutcome:
    label: str
    status: str  # ok, regressed, aborted, refused
    run_file: Path | None = None
    previous: Path | None = None
    reports: list[Path] = field(default_factory=list)
    summary: str = ""
    exit_code: int = EXIT_OK
    baseline_skipped: list[str] = field(default_factory=list)  # newer runs not used, and why


#: Runs one job and returns its run file. Raising AgentTestError marks the job failed.
Executor = Callable[[Job], Path]


def run_job(job: Job) -> Path:
    """The real executor: one ``agenttest run`` through the runner's library function."""
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
        quiet=True,
    )
    return run(request)


# -- the batch file -------------------------------------------------------------------------

_JOB_KEYS = {"label", "batteries", "agent", "overlay", "k", "out", "formats", "gate", "only",
             "tiers", "allow_temp"}  # fmt: skip


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def load_batch(path: str | Path) -> Batch:
    """Parse and check a batch file; every problem is reported as ``FILE:LINE: message``."""
    from agenttest._util.located_yaml import load_located

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(
            [Problem(str(path), 0, f"cannot read batch file: {exc.strerror}")]
        ) from None
    node, problems = load_located(text, str(path))
    if node is None:
        raise InputError(problems)
    base = path.parent
    top = node.value if isinstance(node.value, dict) else {}
    if not isinstance(node.value, dict):
        problems.append(Problem(str(path), node.line, "a batch file is a mapping with `jobs:`"))

    def problem(line: int, message: str) -> None:
        problems.append(Problem(str(path), line, message))

    default_out = top["out"].value if "out" in top else "reports"
    if not isinstance(default_out, str):
        problem(top["out"].line, "`out` must be a folder path")
        default_out = "reports"
    alpha = top["alpha"].value if "alpha" in top else 0.05
    if not isinstance(alpha, float | int) or not 0 < alpha < 1:
        problem(top["alpha"].line if "alpha" in top else node.line, "`alpha` must lie in (0, 1)")
        alpha = 0.05
    jobs_node = top.get("jobs")
    jobs: list[Job] = []
    if jobs_node is None or not isinstance(jobs_node.value, list) or not jobs_node.value:
        problem(jobs_node.line if jobs_node else node.line, "`jobs` must be a non-empty list")
    else:
        seen: set[str] = set()
        for item in jobs_node.value:
            job = _job(item, base, default_out, problem, seen)
            if job is not None:
                jobs.append(job)
    for key in top:
        if key not in ("out", "alpha", "jobs", "lock"):
            problem(node.key_lines.get(key, node.line), f"unknown key `{key}`")
    if problems:
        raise InputError(problems)
    lock = top["lock"].value if "lock" in top else None
    lock_path = base / lock if isinstance(lock, str) else base / default_out / LOCK_NAME
    return Batch(path, tuple(jobs), lock_path, base / default_out, float(alpha))


def _job(
    item: Any, base: Path, default_out: str, problem: Callable[[int, str], None], seen: set[str]
) -> Job | None:
    fields = item.value if isinstance(item.value, dict) else None
    if fields is None:
        problem(item.line, "each job is a mapping (label, batteries, agent, ...)")
        return None
    values = {k: v.plain() for k, v in fields.items()}
    line = fields.get("label", item).line
    ok = True
    for key in fields:
        if key not in _JOB_KEYS:
            problem(item.key_lines.get(key, item.line), f"unknown job key `{key}`")
            ok = False
    label = values.get("label")
    if not isinstance(label, str) or not label.strip():
        problem(line, "every job needs a `label` (it finds the job's previous run)")
        ok = False
    elif label in seen:
        problem(line, f"two jobs share the label `{label}`")
        ok = False
    else:
        seen.add(label)
    batteries = _strings(values.get("batteries"))
    if not batteries:
        problem(fields.get("batteries", item).line, "`batteries` must be a path or a list of paths")
        ok = False
    agent = values.get("agent")
    if not isinstance(agent, str):
        problem(fields.get("agent", item).line, "`agent` must be `example` or an agent config file")
        ok = False
    k = values.get("k")
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
        problem(fields["k"].line, "`k` must be a whole number ≥ 1")
        ok = False
    formats = _strings(values.get("formats", list(DEFAULT_FORMATS)))
    if formats is None or any(f not in SUFFIX for f in formats):
        problem(fields.get("formats", item).line, f"`formats` may hold {', '.join(SUFFIX)}")
        ok = False
    overlay = values.get("overlay")
    if overlay is not None and not isinstance(overlay, str):
        problem(fields["overlay"].line, "`overlay` must be a file path")
        ok = False
    if not ok:
        return None
    assert isinstance(label, str) and isinstance(agent, str) and batteries and formats

    def resolve(p: str) -> str:
        return str(Path(p) if Path(p).is_absolute() else base / p)

    out = values.get("out", default_out)
    return Job(
        label=label,
        batteries=tuple(resolve(b) for b in batteries),
        agent=agent if agent == "example" else resolve(agent),
        out=Path(resolve(str(out))),
        overlay=resolve(overlay) if overlay else None,
        k=k,
        only=_strings(values.get("only")) or (),
        tiers=_strings(values.get("tiers")) or (),
        formats=formats,
        gate=bool(values.get("gate", False)),
        allow_temp=bool(values.get("allow_temp", False)),
    )


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
    end: dict[str, Any] | None = None
    try:
        for record in iter_records(path):
            if record.get("record_type") == "run_end":
                end = record
    except AgentTestError as exc:
        return f"unreadable ({exc})"
    if end is None:
        return "no run_end (killed or still running)"
    reason = str(end.get("reason") or "")
    if reason != "completed":
        return f"ended {reason.split(':', 1)[0] or 'without a reason'}"
    attempts = end.get("attempts") or {}
    planned, recorded = attempts.get("planned"), attempts.get("recorded")
    if isinstance(planned, int) and isinstance(recorded, int):
        skipped = attempts.get("skipped_as_decided") or 0
        if recorded + (skipped if isinstance(skipped, int) else 0) < planned:
            return f"{planned - recorded} of {planned} planned attempts missing"
    return None


def previous_run(job: Job, exclude: Path, skipped: list[str] | None = None) -> Path | None:
    """The newest older *complete* run file of this job (same label in its run_meta) in its
    folder; each newer run passed over is added to ``skipped`` with the reason."""
    found: list[tuple[float, Path]] = []
    if not job.out.is_dir():
        return None
    for candidate in job.out.glob("run_*.jsonl"):
        if candidate.resolve() == exclude.resolve():
            continue
        try:
            meta = read_run_meta(candidate)
        except AgentTestError:
            continue
        if meta.get("label") != job.label:
            continue
        when = timestamp(meta.get("started_at")) or candidate.stat().st_mtime
        found.append((when, candidate))
    for _when, candidate in sorted(found, key=lambda f: f[0], reverse=True):
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
            if read_run_meta(p).get("label") == job.label:
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
        if found and job.gate:
            outcome.status, outcome.exit_code = "regressed", EXIT_GATE


def run_batch(
    path: str | Path,
    *,
    executor: Executor = run_job,
    say: Callable[[str], None] = print,
) -> list[JobOutcome]:
    """Run every job of the batch file in order; return one outcome per job."""
    batch = load_batch(path)
    outcomes: list[JobOutcome] = []
    with batch_lock(batch.lock):
        for job in batch.jobs:
            outcome = JobOutcome(job.label, "ok")
            outcomes.append(outcome)
            started = time.time() - 1
            try:
                outcome.run_file = executor(job)
            except Interrupted:
                outcome.status, outcome.exit_code = "interrupted", 130
                _summary(batch, outcomes)
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
                outcome.previous = previous_run(job, outcome.run_file, outcome.baseline_skipped)
                if outcome.status == "aborted":
                    outcome.previous = None  # a partial run is reported, never compared
                for passed_over in outcome.baseline_skipped:
                    say(f"{job.label}: not a baseline: {passed_over}")
                if outcome.previous is not None:
                    say(f"{job.label}: baseline {outcome.previous.name} (newest complete run)")
                _write_reports(job, outcome.run_file, outcome.previous, batch.alpha, outcome)
            say(f"{job.label}: {outcome.status}: {outcome.run_file or '-'} — {outcome.summary}")
        _summary(batch, outcomes)
    return outcomes


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
            "reports": [str(p) for p in o.reports],
            "summary": o.summary,
        }
        for o in outcomes
    ]
    (folder / f"batch_{stamp}.json").write_text(
        json.dumps({"batch": str(batch.path), "jobs": rows}, indent=2) + "\n", encoding="utf-8"
    )


def batch_exit_code(outcomes: list[JobOutcome]) -> int:
    """130 > 3 > 2 > 1 > 0 over the jobs' outcomes."""
    codes = {o.exit_code for o in outcomes}
    for code in (130, EXIT_AGENT, EXIT_USAGE, EXIT_GATE):
        if code in codes:
            return code
    return EXIT_OK
