"""A run: plan it (or re-plan it from its file), drive the agent serially, write every record.

``run_meta`` comes first, one ``attempt`` record per attempt (written whole and fsynced
before the next attempt starts), and a ``run_end`` when the session stops for any reason.
A resumed run appends to the same file and ends with its own ``run_end``; readers take the
last one.
"""

from __future__ import annotations

import dataclasses
import getpass
import os
import platform
import socket
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttest import __version__
from agenttest._util.limits import MAX_RUNS
from agenttest.blocks import Battery, Criterion, load_battery
from agenttest.errors import AgentTestError, AgentUnavailable, Interrupted, UsageError
from agenttest.results import (
    Record,
    RunEnd,
    RunMeta,
    RunWriter,
    check_not_temp,
    run_file_name,
    unused_path,
)
from agenttest.results import attempt as new_attempt
from agenttest.results import run_end as new_run_end
from agenttest.results import run_meta as new_run_meta

from ._attempt import AttemptRunner, Grader, StopRequested, StopSignals, now_iso, resolve_judge
from ._client import AgentClient
from ._config import AgentConfig, load_agent_config
from ._config_stop import ConfigErrorWatch
from ._decide import EarlyStop
from ._example import ExampleAgent, start_examples
from ._model_agent import Launch, launch_for, model_args
from ._parity import LabelledWriter, labels
from ._plan import (
    Key,
    PlanItem,
    counts,
    make_plan,
    needs_run,
    nominal_k,
    read_state,
    select_blocks,
)
from ._pool import Pool, SharedJudgeGrader, expected_order, expected_seconds, lost_on
from ._progress import Progress
from ._waiting import AgentNotReady
from ._workspace import LogTail

if TYPE_CHECKING:
    from agenttest.judges import Judge

EXAMPLE = "example"


@dataclass
class RunRequest:
    """Everything `agenttest run` was asked for."""

    paths: Sequence[str] = ()
    agent: str | None = None
    overlay: str | None = None
    k: int | None = None
    only: Sequence[str] = ()
    tiers: Sequence[str] = ()
    out: Path = Path("reports")
    label: str | None = None
    resume: Path | None = None
    retry_errors: bool = False
    allow_temp: bool = False
    quiet: bool = False  # kept for callers: the library prints only through a given Progress
    example_args: tuple[str, ...] = field(default=())
    judge: str | None = "auto"
    until_decided: bool = False
    replicas: int | None = None  # --agent example: start this many
    baseline: Path | None = None  # an earlier run: its latencies order a pool's attempts
    strict: bool = False  # agenttest-origin criteria count toward the verdict
    # test a model through the bundled agent loop (see ._model_agent)
    model_url: str | None = None
    model: str | None = None
    stream: bool = False  # ask the agent for streamed replies, whatever its config says
    parity: Sequence[str] = ()  # --parity: more agents that run the same plan, same file


@dataclass(kw_only=True)
class _Session:
    """One run's plan and state, new or resumed: built by keyword only, never by position."""

    path: Path
    battery: Battery
    plan: list[PlanItem]
    latest: dict[Key, dict[str, Any]]
    agent: str
    config: AgentConfig | None
    run_id: str
    meta: RunMeta | None  # to write first (a new run), None when resuming
    retry_errors: bool
    launch: Launch | None = None  # how to start the bundled agent (None: the config's agent)
    until_decided: bool = False
    baseline: Path | None = None
    model: str = "example-agent"  # what the run tests (the brain's model with --model-url)


def _abs(path: str | Path) -> str:
    return str(Path(path).expanduser().resolve())


def _agent_config(agent: str) -> AgentConfig | None:
    """The loaded config, or None for the example agent (configured once it has started)."""
    return None if agent == EXAMPLE else load_agent_config(agent)


def _plan_new(req: RunRequest) -> _Session:
    if not req.paths:
        raise UsageError("give the battery: agenttest run PATH... --agent example|FILE")
    if req.agent is None and req.model_url:
        req = dataclasses.replace(req, agent=EXAMPLE)
    if req.agent is None:
        raise UsageError("--agent is required: `example` or an agent config file")
    if req.k is not None and req.k < 1:
        raise UsageError(f"--k must be at least 1, got {req.k}")
    if req.k is not None and req.k > MAX_RUNS:
        raise UsageError(f"--k must be at most {MAX_RUNS:,}, got {req.k:,}")
    # the flags are checked first (nothing written, no battery read); a config that does not
    # load counts as not bundled here and reports its own problems after the battery's
    peek = _peek_config(req.agent)
    bundled = req.agent == EXAMPLE or (peek is not None and peek.example is not None)
    if req.model_url and not bundled:
        raise UsageError(
            "--model-url tests a model through the bundled agent loop: use it with "
            "--agent example or a config with `example:` (an agent config file brings its "
            "own model)"
        )
    if req.model and not req.model_url and (peek is None or not _config_url(peek)):
        raise UsageError("--model names the model at --model-url; give --model-url URL too")
    if req.replicas is not None and (req.replicas < 1 or not bundled):
        raise UsageError(
            "--replicas N starts N example agents (--agent example, N >= 1); "
            "for your own agent list its instances under `replicas:` in the agent config"
        )
    check_not_temp(req.out, req.allow_temp)
    battery = load_battery(list(req.paths), overlay=req.overlay)
    blocks = select_blocks(battery, req.only, req.tiers)
    plan = make_plan(blocks, req.k)
    config = _agent_config(req.agent)
    launch = None
    if bundled:
        spec = config.example if config is not None else None
        launch = launch_for(spec, req.model_url, req.model, tuple(req.example_args), req.replicas)
    model = launch.tested if launch is not None else _tested(config)
    k_nom = nominal_k(blocks, req.k)
    req.out.mkdir(parents=True, exist_ok=True)
    path = unused_path(req.out, run_file_name(model, k_nom, req.label))
    run_id = uuid.uuid4().hex
    meta = new_run_meta(
        run_id=run_id,
        model=model,
        agent={},  # filled once the agent's config is final
        tester=os.environ.get("AGENTTEST_TESTER") or _user(),
        run_type="exploratory" if k_nom < 5 else "published",
        k_nominal=k_nom,
        started_at=now_iso(),
        battery={
            "paths": [_abs(p) for p in req.paths],
            "digest": battery.digest,
            "overlay": _abs(req.overlay) if req.overlay else None,
            "blocks": len(blocks),
        },
        harness={"agenttest": __version__, "python": platform.python_version()},
        host={"hostname": socket.gethostname(), "platform": platform.platform()},
        plan=[{"test_id": b.id, "runs": req.k or b.k} for b in blocks],
        selection={
            "only": [b.id for b in blocks] if req.only else [],
            "tiers": list(req.tiers),
            "k": req.k,
            "order": "rounds",
            "example_args": list(req.example_args),
            "until_decided": req.until_decided,
            "replicas": req.replicas,
            "model_url": launch.model_url if launch else None,
            "model": launch.model if launch else None,
            "stream": req.stream,
        },
        label=req.label,
    )
    return _Session(
        path=path,
        battery=battery,
        plan=plan,
        latest={},
        agent=req.agent,
        config=config,
        run_id=run_id,
        meta=meta,
        retry_errors=False,
        launch=launch,
        until_decided=req.until_decided,
        baseline=req.baseline,
        model=model,
    )


def _peek_config(agent: str) -> AgentConfig | None:
    try:
        return _agent_config(agent)
    except AgentTestError:
        return None


def _config_url(config: AgentConfig) -> str | None:
    return config.example.model_url if config.example is not None else None


def _tested(config: AgentConfig | None) -> str:
    assert config is not None
    return config.model


def _check_resume_options(
    req: RunRequest, path: Path, meta: dict[str, Any], battery: Battery
) -> None:
    """Options repeated on the resuming command line must say what the run file stored.

    Pressing up-arrow and adding ``--resume FILE`` to the command that started the run is
    the natural way to resume; only a real conflict is refused, naming both values."""
    stored_battery = meta.get("battery") or {}
    selection = meta.get("selection") or {}
    given: list[tuple[str, Any, Any]] = []
    if req.paths:
        given.append(("PATH", [_abs(p) for p in req.paths], stored_battery.get("paths") or []))
    if req.overlay:
        given.append(("--overlay", _abs(req.overlay), stored_battery.get("overlay")))
    if req.k is not None:
        given.append(("--k", req.k, selection.get("k")))
    if req.only:
        ids = [b.id for b in select_blocks(battery, req.only, req.tiers)]
        given.append(("--only", sorted(ids), sorted(selection.get("only") or [])))
    if req.tiers:
        tiers = sorted(t.upper() for t in req.tiers)
        given.append(
            ("--tier", tiers, sorted(str(t).upper() for t in selection.get("tiers") or []))
        )
    if req.label:
        given.append(("--label", req.label, meta.get("label")))
    if req.until_decided:
        given.append(("--until-decided", "on", "on" if selection.get("until_decided") else "off"))
    if req.replicas:
        given.append(("--replicas", req.replicas, selection.get("replicas")))
    if req.model_url:
        given.append(("--model-url", req.model_url, selection.get("model_url")))
    if req.model:
        given.append(("--model", req.model, selection.get("model")))
    if req.example_args and selection.get("example_args") is not None:
        given.append(("--example-args", list(req.example_args), selection.get("example_args")))
    for option, ours, theirs in given:
        if ours != theirs:
            raise UsageError(
                f"--resume {path}: {option} {_shown(ours)} conflicts with the run file, which "
                f"was started with {option} {_shown(theirs)}; leave {option} out (the run "
                "file has it) or start a new run"
            )


def _shown(value: Any) -> str:
    if value is None or value == []:
        return "(not given)"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


def _plan_resume(req: RunRequest, path: Path) -> _Session:
    state = read_state(path)
    meta = state.meta
    battery_meta = meta.get("battery") or {}
    selection = meta.get("selection") or {}
    # checked first: a file edited to move the example agent is refused before anything runs
    # (options given again on the command line replace the stored ones: nothing to check)
    stored_args = (
        () if req.example_args else _stored_example_args(path, selection.get("example_args"))
    )
    paths = battery_meta.get("paths") or []
    battery = load_battery(paths, overlay=battery_meta.get("overlay"))
    if battery.digest != battery_meta.get("digest"):
        raise UsageError(
            f"the battery changed since {path} was started ({battery_meta.get('digest')} → "
            f"{battery.digest}); a run holds one battery version, so start a new run"
        )
    _check_resume_options(req, path, meta, battery)
    blocks = select_blocks(battery, selection.get("only") or [], selection.get("tiers") or [])
    plan = make_plan(blocks, selection.get("k"))
    agent = req.agent or (meta.get("agent") or {}).get("source")
    if not agent:
        raise UsageError(f"{path} does not say which agent config it used; pass --agent")
    config = _agent_config(agent)
    launch = _resumed_launch(req, path, config, selection, stored_args)
    model = launch.tested if launch is not None else _tested(config)
    if model != meta.get("model"):
        raise UsageError(
            f"{path} is a run of model {meta.get('model')!r}; the agent config says {model!r}. "
            "One run file holds one model."
        )
    return _Session(
        path=path,
        battery=battery,
        plan=plan,
        latest=state.latest,
        agent=agent,
        config=config,
        run_id=str(meta.get("run_id", "")),
        meta=None,
        retry_errors=req.retry_errors,
        launch=launch,
        until_decided=bool(selection.get("until_decided")),
        baseline=req.baseline,
        model=model,
    )


def _resumed_launch(
    req: RunRequest,
    path: Path,
    config: AgentConfig | None,
    selection: dict[str, Any],
    stored_args: tuple[str, ...],
) -> Launch | None:
    """The bundled agent as the run started it: ``--agent example`` from what the run file
    stored, an agent config's ``example:`` from the file again (flags still win)."""
    stored_url, stored_model = selection.get("model_url"), selection.get("model")
    replicas = int(req.replicas or selection.get("replicas") or 0) or None
    if config is None:
        args = tuple(req.example_args) or stored_args
        if stored_url:
            args = (*model_args(str(stored_url), str(stored_model)), *args)
        return Launch(args, replicas or 1, stored_url, stored_model if stored_url else None)
    spec = config.example
    if spec is None:
        return None
    url = req.model_url or spec.model_url
    model = req.model or spec.model or (str(stored_model) if url == stored_url else None)
    launch = launch_for(spec, url, model, tuple(req.example_args), replicas)
    if launch.model_url != stored_url:
        raise UsageError(
            f"--resume {path}: the agent config's model URL {_shown(launch.model_url)} "
            f"differs from the run file's {_shown(stored_url)}; one run file tests one model"
        )
    return launch


#: The example-agent options a run file may carry into a resumed run: only how it misbehaves.
#: Where it listens, which folder it may write and where its model lives are the runner's
#: and the user's to say; an edited run file must not move the sandbox or send prompts away.
RESUMABLE_EXAMPLE_OPTIONS = frozenset(
    {
        "--openai-max-steps",
        "--openai-timeout-s",
        "--openai-seed",
        "--loading-s",
        "--busy-probability",
        "--turn-delay-s",
        "--latency-s",
        "--hang-after",
        "--crash-after",
        "--garbage-probability",
        "--seed",
    }
)


def _stored_example_args(path: Path, stored: Any) -> tuple[str, ...]:
    if not stored:
        return ()
    args = [str(a) for a in stored] if isinstance(stored, list) else [str(stored)]
    refused = [
        a.split("=", 1)[0]
        for i, a in enumerate(args)
        if a.startswith("-") and a.split("=", 1)[0] not in RESUMABLE_EXAMPLE_OPTIONS
    ]
    values = [a for a in args if not a.startswith("-")]
    if refused or len(values) > len(args) - len(values):
        raise UsageError(
            f"{path}: run_meta.selection.example_args holds {', '.join(refused) or 'stray values'}"
            "; a resumed run takes only the example agent's fault options "
            f"({', '.join(sorted(RESUMABLE_EXAMPLE_OPTIONS))}) from the file. Start a new run, "
            "or pass the options again after --resume"
        )
    return tuple(args)


def _parity_launch(config: AgentConfig | None, first: Launch | None) -> Launch | None:
    """A --parity agent's own launch: its config's ``example:``, or the first agent's flags
    for a second ``--agent example``."""
    if config is None:
        return first or launch_for(None)
    return launch_for(config.example) if config.example is not None else None


def _bundled(template: AgentConfig | None, started: AgentConfig, model: str) -> AgentConfig:
    """The started agent's config: where it listens from ``started``, every shared key
    (timeouts, prices, name, ...) from the config file's ``example:`` agent, if any."""
    if template is None:
        return dataclasses.replace(started, model=model)
    return dataclasses.replace(
        template,
        base_url=started.base_url,
        workspace=started.workspace,
        log_file=started.log_file,
        replicas=started.replicas,
        store=template.store or started.store,
        model=model,
    )


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


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
    judge = None if req.judge == "auto" else resolve_judge(req.judge, progress.note)
    writer: RunWriter
    if req.resume is not None:
        path = req.resume
        if not path.is_file():
            raise UsageError(f"--resume {path}: no such run file")
        check_not_temp(path, req.allow_temp)
        writer = _EndingWriter(path, create=False)  # the lock first, then read what is there
        try:
            session = _plan_resume(req, path)
        except BaseException:
            writer.close()
            raise
    else:
        session = _plan_new(req)
    if req.judge == "auto" and _needs_judge(session.plan):
        judge = resolve_judge("auto", progress.note)
    examples: list[ExampleAgent] = []
    stop = StopSignals()
    stop.install()
    open_file: _EndingWriter | None = writer if req.resume is not None else None  # type: ignore[assignment]
    try:
        agents = [(session.agent, session.config)]
        if req.parity:
            agents += [(a, _agent_config(a)) for a in req.parity]
        started = []
        for i, (_source, config) in enumerate(agents):
            launch = session.launch if i == 0 else _parity_launch(config, session.launch)
            if launch is not None:
                mine = [ExampleAgent(launch.args) for _ in range(launch.replicas)]
                examples += mine
                config = _bundled(config, start_examples(mine), launch.tested)
            assert config is not None
            started.append(dataclasses.replace(config, stream=True) if req.stream else config)
        config = started[0]
        names = labels([c.display_name for c in started])
        if session.meta is not None:
            session.meta["agent"] = {**config.redacted(), "source": session.agent}
            if req.parity:
                session.meta["parity"] = [
                    {"label": n, "agent": {**c.redacted(), "source": a}}
                    for n, c, (a, _) in zip(names, started, agents, strict=True)
                ]
            # A stop now must not leave a file without its run_meta, nor a file nobody was told
            # about: the path is announced the moment the file exists.
            with stop.shielded():
                open_file = _EndingWriter(session.path, create=True)
                writer = open_file
                writer.append(session.meta)
                if announce is not None:
                    announce(session.path)
            stop.check()
        elif announce is not None:
            announce(session.path)
        # the writer stays open until the end: a stop may still have a run_end to write
        if not req.parity:
            _drive(session, config.pool(), writer, stop, progress, judge, strict=req.strict)
        for i, (name, cfg) in enumerate(zip(names, started, strict=True) if req.parity else ()):
            label = LabelledWriter(writer, name, last=i == len(started) - 1)
            one = session if i == 0 else dataclasses.replace(session, latest={})
            _drive(one, cfg.pool(), label, stop, progress, judge, strict=req.strict)  # type: ignore[arg-type]
    except StopRequested as exc:
        # Stopped before _drive could end the file (starting, or between two statements of
        # its set-up; a parity run's first agent): the file still gets its run_end.
        if open_file is not None and not open_file.ended:
            with stop.shielded():
                open_file.append(_start_up_end(session))
        raise Interrupted(
            f"interrupted by {exc.name}; continue with: agenttest run --resume {session.path}"
        ) from None
    finally:
        if open_file is not None:
            open_file.close()
        stop.restore()
        progress.close()
        for example in examples:
            example.stop()
    return session.path


class _EndingWriter(RunWriter):
    """A run file's writer that knows whether this session has written a run_end."""

    ended = False

    def append(self, record: Record) -> None:
        super().append(record)
        if record.get("record_type") == "run_end":
            self.ended = True


def _start_up_end(session: _Session) -> RunEnd:
    """The run_end of a session stopped before its first attempt."""
    latest = session.latest
    return new_run_end(
        completed_at=now_iso(),
        counts=counts(session.plan, latest),
        attempts={
            "planned": len(session.plan),
            "recorded": sum(1 for i in session.plan if i.key in latest),
            "written_this_session": 0,
        },
        reason="interrupted",
    )


def _needs_judge(plan: list[PlanItem]) -> bool:
    def judged(criteria: Sequence[Criterion]) -> bool:
        return any(c.type == "judge" or judged(c.of) for c in criteria)

    blocks = {item.block.id: item.block for item in plan}.values()
    return any(judged((*b.criteria.pass_, *b.criteria.fail)) for b in blocks)


def _drive(
    session: _Session,
    configs: list[AgentConfig],
    writer: RunWriter,
    stop: StopSignals,
    progress: Progress,
    judge: Judge | None = None,
    strict: bool = False,
) -> None:
    latest = session.latest
    todo = [item for item in session.plan if needs_run(latest.get(item.key), session.retry_errors)]
    early = EarlyStop(session.plan, latest, (i.key for i in todo), session.until_decided)
    written = 0
    if len(configs) > 1:
        todo = expected_order(todo, expected_seconds(session.baseline))

    def finish(reason: str) -> None:
        with stop.shielded():
            writer.append(
                new_run_end(
                    completed_at=now_iso(),
                    counts=counts(session.plan, latest),
                    attempts={
                        "planned": len(session.plan),
                        "skipped_as_decided": len(early.skipped),
                        "recorded": sum(1 for i in session.plan if i.key in latest),
                        "written_this_session": written,
                    },
                    reason=reason,
                )
            )

    if len(configs) > 1:
        pool = Pool(
            configs,
            todo,
            early,
            lambda: SharedJudgeGrader(
                session.battery.digest, judge=judge, strict=strict, timezone=configs[0].timezone
            ),
            run_id=session.run_id,
            log=progress.note,
            avoid=lost_on(latest, todo) if session.retry_errors else None,
        )
        progress.start(len(session.plan), len(session.plan) - len(todo), str(session.path))
        try:
            written = pool.drive(
                latest, lambda record: writer.append(new_attempt(**record)), stop, progress
            )
            finish("completed")
        except AgentNotReady as exc:
            written = pool.records_written
            finish(f"aborted: {exc}")
            raise AgentUnavailable(
                f"{exc}. What was recorded stays in {session.path}; "
                f"continue with: agenttest run --resume {session.path}"
            ) from None
        except StopRequested:
            written = pool.records_written
            finish("interrupted")
            raise
        finally:
            pool.close()
        return
    config = configs[0]
    client = AgentClient(config, log=progress.note)
    tail = LogTail(config.log_path, config.log_max_bytes) if config.log_path else None
    attempts = AttemptRunner(
        client,
        Grader(session.battery.digest, judge=judge, strict=strict, timezone=config.timezone),
        stop,
        run_id=session.run_id,
        workspace=config.workspace_path,
        log_tail=tail,
        log=progress.note,
    )
    progress.start(len(session.plan), len(session.plan) - len(todo), str(session.path))
    watch = ConfigErrorWatch()
    try:
        for item in todo:
            stop.check()
            if early.skip(item) is not None:
                progress.attempt_skipped(item.block.id, item.run, early.skipped[item.key])
                continue
            progress.attempt_started(item.block.id, item.run, item.k)
            try:
                record = attempts.run(item)
            except AgentNotReady as exc:
                finish(f"aborted: {exc}")
                raise AgentUnavailable(
                    f"{exc}. What was recorded stays in {session.path}; "
                    f"continue with: agenttest run --resume {session.path}"
                ) from None
            with stop.shielded():
                latest[item.key] = record
                note = early.recorded(item)
                if note is not None:
                    record["decided"] = note
                writer.append(new_attempt(**record))
                written += 1
            progress.attempt_done(record)
            if record.get("error_cause") == "interrupted":
                raise StopRequested(stop.signum or 2)
            config_error = watch.seen(record)
            if config_error is not None:
                finish(f"aborted: {config_error}")
                raise AgentUnavailable(
                    config_error.replace("--resume FILE", f"agenttest run --resume {session.path}")
                )
            stop.check()
            attempts.teardown(item, record["session_id"])
        finish("completed")
    except StopRequested:
        finish("interrupted")
        raise
    finally:
        client.close()


def print_path(path: Path) -> None:
    print(path, flush=True)
    sys.stdout.flush()
