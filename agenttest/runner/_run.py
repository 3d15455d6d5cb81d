"""A run: plan it (or re-plan it from its file), start its agents, drive them, end the file.

``run_meta`` comes first, one ``attempt`` record per attempt (written whole and fsynced
before the next attempt starts), and a ``run_end`` when the session stops for any reason.
A resumed run appends to the same file and ends with its own ``run_end``; readers take the
last one. Planning is :mod:`._session` (new) and :mod:`._resume`; the attempts loop is
:mod:`._drive`; this module starts the agents, writes ``run_meta`` and ends every way out.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agenttest.agents import AgentConfig, Launch, launch_for, require_model
from agenttest.blocks import block_needs
from agenttest.errors import AgentUnavailable, Interrupted, UsageError
from agenttest.results import (
    Record,
    RunEnd,
    RunFileExists,
    RunWriter,
    check_not_temp,
    unused_path,
)

from ._agents import RunAgent, run_agent, start_all
from ._attempt import StopRequested, StopSignals, now_iso, resolve_judge
from ._drive import drive
from ._hosted import start_hosts
from ._parity import LabelledWriter, ParityEnd, labels
from ._plan import PlanItem, counts, needs_run
from ._progress import Progress
from ._resume import plan_resume
from ._session import RunRequest, Session, agent_config, agent_source, plan_new


def _parity_launch(config: AgentConfig | None, first: Launch | None) -> Launch | None:
    """A --parity agent's own launch: its config's ``example:``, or the first agent's flags
    for a second ``--agent example``."""
    if config is None:
        return first or launch_for(None)
    return launch_for(config.example) if config.example is not None else None


def run(
    req: RunRequest,
    *,
    announce: Callable[[Path], None] | None = None,
    progress: Progress | None = None,
) -> Path:
    """Run (or resume) and return the path of the JSONL file.

    Raises AgentUnavailable (exit 3) when the agent never becomes ready, Interrupted (130)
    on SIGINT/SIGTERM/SIGHUP; both after writing a `run_end` (once the file exists), both
    resumable.
    """
    if req.parity and req.resume is not None:
        raise UsageError("a --parity run cannot be resumed yet; start it again")
    if req.retry_errors and req.resume is None:
        raise UsageError("--retry-errors needs --resume RUN.jsonl (the run whose errors to retry)")
    progress = progress or Progress()  # the library is silent; the CLI hands in its own
    # An explicit judge is built before any file, so a bad choice writes nothing; `auto` only
    # loads the on-device model when a planned block has a JUDGE criterion (it never fails).
    check_calibration_files(req)
    judge = (
        None if req.judge == "auto" else resolve_judge(req.judge, progress.note, req.calibrate_from)
    )
    writer: RunWriter
    if req.resume is not None:
        path = req.resume
        if not path.is_file():
            raise UsageError(f"--resume {path}: no such run file")
        check_not_temp(path, req.allow_temp)
        writer = _EndingWriter(path, create=False)  # the lock first, then read what is there
        try:
            session = plan_resume(req, path)
        except BaseException:
            writer.close()
            raise
    else:
        session = plan_new(req)
    if req.judge == "auto" and _needs_judge(session.plan):
        judge = resolve_judge("auto", progress.note, req.calibrate_from)
    stop = StopSignals()
    stop.install()
    open_file: _EndingWriter | None = writer if req.resume is not None else None  # type: ignore[assignment]
    tested: list[RunAgent] = []
    try:
        agents = [(session.agent, session.config)]
        if req.parity:
            agents += [(a, agent_config(a)) for a in req.parity]
        # a dead model server is exit 3 before any attempt, not an ERROR in each (issue 30)
        work = any(needs_run(session.latest.get(i.key), session.retry_errors) for i in session.plan)
        for i, (_source, config) in enumerate(agents):
            launch = session.launch if i == 0 else _parity_launch(config, session.launch)
            if work and launch is not None and launch.model_url is not None:
                require_model(launch.model_url)
            hosted = session.hosted_tools and launch is not None  # the bundled agents
            tested.append(
                run_agent(config, launch, stream=req.stream, log=progress.note, hosted=hosted)
            )
            # the hosts first: an agent may list its tools as it comes up
            start_hosts(tested[-1].hosts, progress.note)
            start_all(tested[-1].replicas)
        started = [t.config for t in tested]
        config = started[0]
        names = labels([c.display_name for c in started])
        if session.meta is not None:
            session.meta.agent = {**config.redacted(), "source": agent_source(session.agent)}
            if req.parity:
                session.meta.parity = [
                    {"label": n, "agent": {**c.redacted(), "source": agent_source(a)}}
                    for n, c, (a, _) in zip(names, started, agents, strict=True)
                ]
            # A stop now must not leave a file without its run_meta, nor a file nobody was told
            # about: the path is announced the moment the file exists.
            with stop.shielded():
                open_file = _create(session)
                writer = open_file
                writer.append(session.meta)
                if announce is not None:
                    announce(session.path)
            stop.check()
        elif announce is not None:
            announce(session.path)
        # the writer stays open until the end: a stop may still have a run_end to write
        if not req.parity:
            drive(
                session,
                tested[0].replicas,
                writer,
                stop,
                progress,
                judge,
                strict=req.strict,
                hosts=tested[0].hosts,
            )
        ending = ParityEnd(len(tested))
        for i, (name, one_agent) in enumerate(
            zip(names, tested, strict=True) if req.parity else ()
        ):
            label = LabelledWriter(writer, name, ending, last=i == len(tested) - 1)
            one = session if i == 0 else dataclasses.replace(session, latest={})
            drive(
                one,
                one_agent.replicas,
                label,  # type: ignore[arg-type]
                stop,
                progress,
                judge,
                strict=req.strict,
                hosts=one_agent.hosts,
            )
    except StopRequested as exc:
        # Stopped before _drive could end the file (starting, or between two statements of
        # its set-up): the file still gets its run_end.
        if open_file is not None and not open_file.ended:
            with stop.shielded():
                open_file.append(_start_up_end(session))
        raise Interrupted(f"interrupted by {exc.name}; {_again(req, session)}") from None
    except AgentUnavailable as exc:
        if req.parity:  # not resumable: say what to do instead
            told = re.sub(
                r"(then )?continue with:? agenttest run --resume \S+( --retry-errors)?",
                "",
                str(exc),
            )
            raise AgentUnavailable(told.rstrip(" ;,.") + "; " + _again(req, session)) from None
        raise
    finally:
        if open_file is not None:
            open_file.close()
        stop.restore()
        progress.close()
        for one_agent in tested:
            one_agent.stop()
    return session.path


def _create(session: Session) -> _EndingWriter:
    """The new run file, under the next free ``_vN`` name when runs started at the same
    moment into one folder took the name first (each of them checked it was free)."""
    for _ in range(1000):
        try:
            return _EndingWriter(session.path, create=True)
        except RunFileExists:
            base = re.sub(r"_v\d+$", "", session.path.stem) + session.path.suffix
            session.path = unused_path(session.path.parent, base)
    return _EndingWriter(session.path, create=True)  # says which name it could not take


class _EndingWriter(RunWriter):
    """A run file's writer that knows whether this session has written a run_end."""

    ended = False

    def append(self, record: Record | dict[str, Any]) -> None:  # as RunWriter's
        super().append(record)
        if isinstance(record, RunEnd):
            self.ended = True


def _again(req: RunRequest, session: Session) -> str:
    """How to go on after a stop: resume, or (a --parity run) start again."""
    if req.parity:
        return "a --parity run cannot be resumed: start it again"
    return f"continue with: agenttest run --resume {session.path}"


def _start_up_end(session: Session) -> RunEnd:
    """The run_end of a session stopped before its first attempt."""
    latest = session.latest
    return RunEnd(
        completed_at=now_iso(),
        counts=counts(session.plan, latest),
        attempts={
            "planned": len(session.plan),
            "recorded": sum(1 for i in session.plan if i.key in latest),
            "written_this_session": 0,
        },
        reason="interrupted",
    )


def check_calibration_files(req: RunRequest) -> None:
    """``--calibrate-from`` names run files and calibrates the openvino judge only: say so
    before anything is written."""
    if not req.calibrate_from:
        return
    if req.judge not in ("auto", "openvino"):
        raise UsageError(
            f"--calibrate-from calibrates the openvino judge; --judge {req.judge} takes no "
            "calibration"
        )
    for path in req.calibrate_from:
        if not Path(path).is_file():
            raise UsageError(f"--calibrate-from {path}: no such run file")


def _needs_judge(plan: list[PlanItem]) -> bool:
    blocks = {item.block.id: item.block for item in plan}.values()
    return any(block_needs(b).judge for b in blocks)


def print_path(path: Path) -> None:
    print(path, flush=True)
    sys.stdout.flush()
