"""What a run was asked for (:class:`RunRequest`) and the session it becomes, planned afresh.

A :class:`Session` holds one run's plan and state; a new run's comes from the request here,
a resumed run's from its file (:mod:`._resume`). Nothing is written yet: the options are
checked first, then the battery is read, so a bad flag leaves no file behind.
"""

from __future__ import annotations

import dataclasses
import getpass
import os
import platform
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agenttest import __version__
from agenttest._util.limits import MAX_RUNS
from agenttest.agents import AgentConfig, Launch, launch_for, load_agent_config
from agenttest.blocks import Battery, load_battery
from agenttest.errors import AgentTestError, UsageError
from agenttest.results import (
    Attempt,
    BatteryInfo,
    PlanEntry,
    RunMeta,
    Selection,
    check_not_temp,
    run_file_name,
    unused_path,
)

from ._attempt import now_iso
from ._plan import Key, PlanItem, make_plan, nominal_k, select_blocks

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
    hosted_tools: bool = False  # --agent example: host its tools over MCP (free ports)
    # run files whose human ratings decide which kinds of the openvino judge count here
    calibrate_from: Sequence[Path] = ()


@dataclass(kw_only=True)
class Session:
    """One run's plan and state, new or resumed: built by keyword only, never by position."""

    path: Path
    battery: Battery
    plan: list[PlanItem]
    latest: dict[Key, Attempt]
    agent: str
    config: AgentConfig | None
    run_id: str
    meta: RunMeta | None  # to write first (a new run), None when resuming
    retry_errors: bool
    launch: Launch | None = None  # how to start the bundled agent (None: the config's agent)
    until_decided: bool = False
    baseline: Path | None = None
    model: str = "example-agent"  # what the run tests (the brain's model with --model-url)
    hosted_tools: bool = False  # the bundled agent's tools are hosted (--hosted-tools)


def abs_path(path: str | Path) -> str:
    return str(Path(path).expanduser().resolve())


def agent_source(agent: str) -> str:
    """What ``run_meta.agent.source`` stores: ``example``, or the config file's absolute path.

    A path as typed is relative to the directory the run started in, and a resume from
    another directory could not find it. Files written before this still hold relative
    paths; a resume reads those against its own directory, as it always did.
    """
    return agent if agent == EXAMPLE else abs_path(agent)


def agent_config(agent: str) -> AgentConfig | None:
    """The loaded config, or None for the example agent (configured once it has started)."""
    return None if agent == EXAMPLE else load_agent_config(agent)


def plan_new(req: RunRequest) -> Session:
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
    if req.hosted_tools and not bundled:
        raise UsageError(
            "--hosted-tools hosts the bundled agent's tools (--agent example); for your own "
            "agent give `hosted_tools: {url: ...}` in its config (docs/agents.md)"
        )
    if req.replicas is not None and (req.replicas < 1 or not bundled):
        raise UsageError(
            "--replicas N starts N example agents (--agent example, N >= 1); "
            "for your own agent list its instances under `replicas:` in the agent config"
        )
    check_not_temp(req.out, req.allow_temp)
    battery = load_battery(list(req.paths), overlay=req.overlay)
    blocks = select_blocks(battery, req.only, req.tiers)
    plan = make_plan(blocks, req.k)
    config = agent_config(req.agent)
    launch = None
    if bundled:
        spec = config.example if config is not None else None
        launch = launch_for(spec, req.model_url, req.model, tuple(req.example_args),
                            req.replicas, req.hosted_tools)  # fmt: skip
    # the flag, or the agent config's `example.hosted_tools: true`
    hosted = launch.hosted_tools if launch is not None else False
    model = launch.tested if launch is not None else tested(config)
    k_nom = nominal_k(blocks, req.k)
    try:
        req.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a read-only parent, a file in the way: the user's to fix
        raise UsageError(
            f"{req.out}: cannot create the output folder ({exc.strerror or exc})"
        ) from None
    path = unused_path(req.out, run_file_name(model, k_nom, req.label))
    run_id = uuid.uuid4().hex
    meta = RunMeta(
        run_id=run_id,
        model=model,
        agent={},  # filled once the agent's config is final
        tester=os.environ.get("AGENTTEST_TESTER") or _user(),
        run_type="exploratory" if k_nom < 5 else "published",
        k_nominal=k_nom,
        started_at=now_iso(),
        battery=BatteryInfo(
            paths=[abs_path(p) for p in req.paths],
            digest=battery.digest,
            overlay=abs_path(req.overlay) if req.overlay else None,
            blocks=len(blocks),
        ),
        harness={"agenttest": __version__, "python": platform.python_version()},
        host={"hostname": socket.gethostname(), "platform": platform.platform()},
        plan=[PlanEntry(test_id=b.id, runs=req.k or b.k) for b in blocks],
        selection=Selection(
            only=[b.id for b in blocks] if req.only else [],
            tiers=list(req.tiers),
            k=req.k,
            order="rounds",
            example_args=list(req.example_args),
            until_decided=req.until_decided,
            replicas=req.replicas,
            model_url=launch.model_url if launch else None,
            model=launch.model if launch else None,
            stream=req.stream,
            hosted_tools=hosted,
        ),
        label=req.label,
    )
    return Session(
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
        hosted_tools=hosted,
    )


def _peek_config(agent: str) -> AgentConfig | None:
    try:
        return agent_config(agent)
    except AgentTestError:
        return None


def _config_url(config: AgentConfig) -> str | None:
    return config.example.model_url if config.example is not None else None


def tested(config: AgentConfig | None) -> str:
    assert config is not None
    return config.model


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
