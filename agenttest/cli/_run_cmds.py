"""`run`: drive an agent through a battery and write one JSONL run file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from . import app
from ._options import (
    allow_temp_option,
    k_option,
    only_option,
    overlay_option,
    strict_option,
    tier_option,
)

if TYPE_CHECKING:
    from agenttest.errors import AgentTestError
    from agenttest.reporting import Report


@app.command()
def run(
    paths: list[Path] = typer.Argument(
        None, help="Block files or folders (not with --resume: the run file names them)."
    ),
    agent: list[str] = typer.Option(
        [],
        "--agent",
        help="`example` (the bundled agent, started and stopped here) or an agent config file "
        "(see docs/agents.md). With --resume, defaults to the one the run used. Twice, with "
        "--parity: both agents run the same plan into one run file.",
    ),
    parity: bool = typer.Option(
        False,
        "--parity",
        help="With two --agent: run the same plan against both (attempts labelled by agent) "
        "and print the blocks whose decision differs.",
    ),
    overlay: Path | None = overlay_option(),
    k: int | None = k_option(),
    only: list[str] = only_option(),
    tier: list[str] = tier_option(),
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for the run file."),
    label: str | None = typer.Option(None, "--label", help="Appended to the file name."),
    resume: Path | None = typer.Option(
        None, "--resume", help="Continue this run file: skip recorded attempts, append the rest."
    ),
    retry_errors: bool = typer.Option(
        False, "--retry-errors", help="With --resume: run again the attempts that ended in ERROR."
    ),
    allow_temp: bool = allow_temp_option(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
    judge: str = typer.Option(
        "auto",
        "--judge",
        help="Judge for JUDGE criteria: `auto` (the on-device `openvino` judge when its model "
        "is installed), a judge name, or `none` (JUDGE criteria stay ungraded until "
        "`agenttest grade --judge`).",
    ),
    calibrate_from: list[Path] = typer.Option(
        [],
        "--calibrate-from",
        help="Run files whose human ratings (`agenttest rate`) calibrate the openvino judge "
        "for this run, as `agenttest grade --calibrate-from`: a kind of JUDGE criterion "
        "counts only when people rated enough of it there (docs/judges.md).",
    ),
    until_decided: bool = typer.Option(
        False,
        "--until-decided",
        help="Stop repeating a block once its report decision cannot change within its k "
        "(exact: the decision equals the fixed-k one; see docs/agents.md).",
    ),
    replicas: int | None = typer.Option(
        None,
        "--replicas",
        help="With --agent example: start N example agents (own port and workspace each) and "
        "spread the attempts over them. Your own agent's pool: `replicas:` in its config.",
    ),
    baseline: Path | None = typer.Option(
        None,
        "--baseline",
        help="An earlier run file of this battery: a pool starts the attempts that took "
        "longest there first (default: most turns first).",
    ),
    strict: bool = strict_option(),
    model_url: str | None = typer.Option(
        None,
        "--model-url",
        help="Test a model rather than an agent: the bundled agent loop (--agent example) "
        "with this OpenAI-compatible server's model choosing the tools, e.g. "
        "http://127.0.0.1:8080/v1 (see docs/agents.md).",
    ),
    model: str | None = typer.Option(
        None, "--model", help="With --model-url: the model name (default: the server's first)."
    ),
    stream: bool = typer.Option(
        False,
        "--stream",
        help="Ask the agent for streamed replies (as `stream: true` in its config); each "
        "streamed turn records its timeline (time to first text, ...).",
    ),
    hosted_tools: bool = typer.Option(
        False,
        "--hosted-tools",
        help="With --agent example: the harness serves the agent's tools over MCP (a free "
        "loopback port per replica, passed to it as --hosted-tools URL), lays each attempt's "
        "world itself and records every call (docs/hosted-tools.md). Your own agent: "
        "`hosted_tools: {url: ...}` in its config.",
    ),
    example_args: str = typer.Option(
        "",
        "--example-args",
        help="With --agent example: extra example-agent options, e.g. fault injection "
        '"--busy-probability 0.3 --latency-s 2".',
    ),
    gate: bool = typer.Option(
        False,
        "--gate",
        help="After the run, exit with its deployment decision (against --baseline when "
        "given): 1 blocked by the agent's results (a SEC FAIL, ...), 5 blocked because "
        "attempts were lost, 0 otherwise; the reason in one line on stderr.",
    ),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Run nothing: print the plan (attempts, expected duration, the gate's power), "
        "as `agenttest plan` does.",
    ),
) -> None:
    """Run blocks k times each, one request at a time, appending every attempt to JSONL.

    Prints the path of the run file. Exits 0 even when the agent fails tests (with --gate:
    1 or 5 when the run's decision is blocked); 3 when the agent never became ready
    (resumable); 130 on Ctrl-C (resumable).
    """
    import shlex

    if dry_run:
        from agenttest.errors import UsageError

        from ._plan_cmds import print_plan

        if resume is not None:
            raise UsageError("--dry-run plans a new run; a resumed run's plan is its file's")
        print_plan(
            paths or [],
            k=k,
            only=only,
            tiers=tier,
            overlay=overlay,
            agent=agent[0] if agent else None,
            replicas=replicas,
            baseline=baseline,
        )
        return
    if paths and not quiet and resume is None:
        from ._blocks_cmds import say_what_is_loaded

        say_what_is_loaded(paths, always=True)  # before the runner's imports: within a second

    from agenttest.errors import UsageError
    from agenttest.runner import RunRequest, print_path, split_list
    from agenttest.runner import run as run_battery

    if len(agent) > 1 and not parity:
        raise UsageError("--agent given twice: add --parity to run the plan against both")
    if parity and len(agent) != 2:
        raise UsageError("--parity needs exactly two --agent")
    if gate and parity:
        raise UsageError("--gate decides about one agent's run; a --parity run holds two")

    from ._progress import make_progress

    request = RunRequest(
        paths=[str(p) for p in paths or []],
        agent=agent[0] if agent else None,
        parity=tuple(agent[1:]),
        overlay=str(overlay) if overlay else None,
        k=k,
        only=split_list(only),
        tiers=split_list(tier),
        out=out,
        label=label,
        resume=resume,
        retry_errors=retry_errors,
        allow_temp=allow_temp,
        quiet=quiet,
        example_args=tuple(shlex.split(example_args)),
        judge=judge,
        calibrate_from=tuple(calibrate_from),
        until_decided=until_decided,
        replicas=replicas,
        baseline=baseline,
        strict=strict,
        model_url=model_url,
        model=model,
        stream=stream,
        hosted_tools=hosted_tools,
    )
    path = run_battery(request, announce=print_path, progress=make_progress(quiet))
    wanted = gate or not (quiet or parity)  # a quiet run without a gate reads nothing back
    report, unread = _report(path, baseline if gate else None) if wanted else (None, None)
    if not quiet and not parity:
        _summary(path, report, unread)
    if gate:
        from ._report_cmds import gate_exit

        if report is None:
            raise unread or AssertionError("a report or why not")
        gate_exit(report.decision)
    if parity:
        import sys

        from agenttest.reporting import parity_markdown

        sys.stderr.write(parity_markdown([path]))


def _report(path: Path, baseline: Path | None) -> tuple[Report | None, AgentTestError | None]:
    """The run's report for its summary and its gate, read once (or why it could not be)."""
    from agenttest.errors import AgentTestError
    from agenttest.reporting import build_report

    try:
        report = build_report([path], baseline=[baseline] if baseline else None, details=False)
    except AgentTestError as exc:  # the run is written; only its report could not be read
        return None, exc
    return report, None


def _summary(path: Path, report: Report | None, unread: AgentTestError | None) -> None:
    """The run's few closing lines on stderr (stdout carries only the run file's path)."""
    import sys

    from agenttest.reporting import run_summary
    from agenttest.runner import shown

    if report is not None:
        lines = run_summary(report, path)
    else:
        lines = [f"summary: not available ({unread}); agenttest report {path}"]
    print(file=sys.stderr)
    for line in lines:
        print(shown(line), file=sys.stderr, flush=True)
