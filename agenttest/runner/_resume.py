"""A resumed run: re-planned from its file, the command line held against what it stored.

The battery, the selection and the agent come from ``run_meta``; options repeated on the
command line must agree with it, and an edited file cannot move the example agent (only
its fault options carry over).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agenttest.agents import AgentConfig, Launch, launch_for, model_args
from agenttest.blocks import Battery, load_battery
from agenttest.errors import UsageError
from agenttest.results import BatteryInfo, RunMeta, Selection

from ._parity import refuse_resume
from ._plan import make_plan, read_state, select_blocks
from ._session import RunRequest, Session, abs_path, agent_config, tested


def _check_resume_options(req: RunRequest, path: Path, meta: RunMeta, battery: Battery) -> None:
    """Options repeated on the resuming command line must say what the run file stored.

    Pressing up-arrow and adding ``--resume FILE`` to the command that started the run is
    the natural way to resume; only a real conflict is refused, naming both values."""
    stored_battery = meta.battery or BatteryInfo()
    selection = meta.selection or Selection()
    given: list[tuple[str, Any, Any]] = []
    if req.paths:
        given.append(("PATH", [abs_path(p) for p in req.paths], stored_battery.paths))
    if req.overlay:
        given.append(("--overlay", abs_path(req.overlay), stored_battery.overlay))
    if req.k is not None:
        given.append(("--k", req.k, selection.k))
    if req.only:
        ids = [b.id for b in select_blocks(battery, req.only, req.tiers)]
        given.append(("--only", sorted(ids), sorted(selection.only)))
    if req.tiers:
        tiers = sorted(t.upper() for t in req.tiers)
        given.append(("--tier", tiers, sorted(str(t).upper() for t in selection.tiers)))
    if req.label:
        given.append(("--label", req.label, meta.label))
    if req.until_decided:
        given.append(("--until-decided", "on", "on" if selection.until_decided else "off"))
    if req.replicas:
        given.append(("--replicas", req.replicas, selection.replicas))
    if req.model_url:
        given.append(("--model-url", req.model_url, selection.model_url))
    if req.model:
        given.append(("--model", req.model, selection.model))
    if req.example_args and meta.selection is not None:
        given.append(("--example-args", list(req.example_args), selection.example_args))
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


def plan_resume(req: RunRequest, path: Path) -> Session:
    state = read_state(path)
    meta = state.meta
    refused = refuse_resume(meta, path)
    if refused is not None:
        raise UsageError(refused)
    battery_meta = meta.battery or BatteryInfo()
    selection = meta.selection or Selection()
    # checked first: a file edited to move the example agent is refused before anything runs
    # (options given again on the command line replace the stored ones: nothing to check)
    stored_args = () if req.example_args else _stored_example_args(path, selection.example_args)
    battery = load_battery(list(battery_meta.paths), overlay=battery_meta.overlay)
    if battery.digest != battery_meta.digest:
        raise UsageError(
            f"the battery changed since {path} was started ({battery_meta.digest} → "
            f"{battery.digest}); a run holds one battery version, so start a new run"
        )
    _check_resume_options(req, path, meta, battery)
    blocks = select_blocks(battery, selection.only, selection.tiers)
    plan = make_plan(blocks, selection.k)
    agent = req.agent or meta.agent.get("source")
    if not agent:
        raise UsageError(f"{path} does not say which agent config it used; pass --agent")
    config = agent_config(agent)
    launch = _resumed_launch(req, path, config, selection, stored_args)
    model = launch.tested if launch is not None else tested(config)
    if model != meta.model:
        raise UsageError(
            f"{path} is a run of model {meta.model!r}; the agent config says {model!r}. "
            "One run file holds one model."
        )
    return Session(
        path=path,
        battery=battery,
        plan=plan,
        latest=state.latest,
        agent=agent,
        config=config,
        run_id=meta.run_id or "",
        meta=None,
        retry_errors=req.retry_errors,
        launch=launch,
        until_decided=selection.until_decided,
        baseline=req.baseline,
        model=model,
        # the bundled agent's tools stay hosted as the run started (new free ports)
        hosted_tools=launch is not None and (req.hosted_tools or selection.hosted_tools),
    )


def _resumed_launch(
    req: RunRequest,
    path: Path,
    config: AgentConfig | None,
    selection: Selection,
    stored_args: tuple[str, ...],
) -> Launch | None:
    """The bundled agent as the run started it: ``--agent example`` from what the run file
    stored, an agent config's ``example:`` from the file again (flags still win)."""
    stored_url, stored_model = selection.model_url, selection.model
    replicas = req.replicas or selection.replicas or None
    if config is None:
        args = tuple(req.example_args) or stored_args
        if stored_url and not req.model_url:
            # the prompts (and OPENAI_API_KEY) go where the user says, never where an
            # edited file says; a given --model-url was held against the file already
            raise UsageError(
                f"--resume {path}: the run tested a model over HTTP; a run file does not "
                "say where prompts are sent, so give --model-url again (the URL the run "
                "started with)"
            )
        if req.model_url:
            name = req.model or str(stored_model)
            args = (*model_args(req.model_url, name), *args)
            return Launch(args, replicas or 1, req.model_url, name)
        return Launch(args, replicas or 1, None, None)
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
