"""`plan` (and `run --dry-run`): attempts, expected duration and the gate's power, before a run."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import typer

from . import app
from ._options import k_option, only_option, overlay_option, tier_option

_FALL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(pp|%)?\s*$", re.IGNORECASE)


def parse_fall(text: str) -> float:
    """``20pp``, ``20%`` or ``20`` → 0.20; ``0.2`` → 0.2 (a value below 1 is a share)."""
    from agenttest.errors import UsageError

    found = _FALL.match(text)
    value = float(found.group(1)) if found else -1.0
    share = value / 100 if found and (found.group(2) or value >= 1) else value
    if not 0 < share <= 1:
        raise UsageError(f"--detect {text}: give the fall in points, e.g. 20pp (1 to 100)")
    return share


def print_plan(
    paths: list[Path],
    *,
    k: int | None,
    only: list[str],
    tiers: list[str],
    overlay: Path | None,
    agent: str | None,
    replicas: int | None,
    baseline: Path | None,
    against: int | None = None,
    alpha: float = 0.05,
    detect: str | None = None,
    as_json: bool = False,
) -> None:
    """Load the selection, read the baseline, and print the plan (text or JSON)."""
    from agenttest.blocks import load_battery
    from agenttest.errors import UsageError
    from agenttest.reporting import (
        PlannedBlock,
        baseline_side,
        gate_plan,
        is_baseline_file,
        plan_text,
        read_baseline,
        to_plain,
        wall_durations,
    )
    from agenttest.runner import select_blocks, split_list

    if not paths:
        raise UsageError("name the block files or folders to plan, e.g. `agenttest plan batteries`")
    if k is not None and k < 1:
        raise UsageError(f"--k {k}: must be at least 1")
    if against is not None and against < 1:
        raise UsageError(f"--against {against}: must be at least 1")
    if not 0.0 < alpha < 1.0:
        raise UsageError(f"--alpha {alpha}: must lie strictly between 0 and 1")
    fall = parse_fall(detect) if detect is not None else None
    battery = load_battery([str(p) for p in paths], overlay=str(overlay) if overlay else None)
    chosen = select_blocks(battery, split_list(only), split_list(tiers))
    planned = [PlannedBlock(b.id, b.tier, k or b.k) for b in chosen]
    measured = read_baseline(baseline) if baseline and is_baseline_file(baseline) else None
    if measured is not None:
        # the night is compared with the §2.2 baseline's attempts, not with a night like it
        against = against or measured.attempts_required
    run_file = baseline if baseline is not None and measured is None else None
    side = measured if run_file is None else baseline_side([run_file], None, False)[0]
    durations = wall_durations(run_file) if run_file is not None else None
    count = replicas or _agent_replicas(agent)
    result = gate_plan(
        planned,
        baseline=side,
        durations=durations,
        timing_source=baseline.name if baseline else "",
        replicas=count,
        against=against,
        alpha=alpha,
        detect=fall,
    )
    if as_json:
        import json

        print(json.dumps(to_plain(result), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(plan_text(result))


def _agent_replicas(agent: str | None) -> int:
    """The replicas of an agent config file (1 for `example` or none given)."""
    if agent is None or agent == "example" or not Path(agent).is_file():
        return 1
    from agenttest.agents import load_agent_config

    return max(1, len(load_agent_config(agent).replicas))


@app.command()
def plan(
    paths: list[Path] = typer.Argument(None, help="Block files or folders, as for `run`."),
    k: int | None = k_option(),
    only: list[str] = only_option(),
    tier: list[str] = tier_option(),
    overlay: Path | None = overlay_option(),
    agent: str | None = typer.Option(
        None, "--agent", help="`example` or an agent config file: its replicas share the work."
    ),
    replicas: int | None = typer.Option(
        None, "--replicas", help="Replicas sharing the work (default: the agent config's, or 1)."
    ),
    baseline: Path | None = typer.Option(
        None,
        "--baseline",
        help="An earlier run file (its durations and pass rates) or a baseline file written "
        "by `agenttest baseline` (pass rates only).",
    ),
    against: int | None = typer.Option(
        None,
        "--against",
        help="Baseline attempts per block the night is compared with (default: the same k, "
        "the night before; with a baseline file from `agenttest baseline`, its 5).",
    ),
    alpha: float = typer.Option(0.05, "--alpha", help="The gate's family-wise error rate."),
    detect: str | None = typer.Option(
        None, "--detect", help="A fall in pass rate to catch, e.g. 20pp: the k that catches it."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Before a run: attempts per block and in total, the expected duration with its range,
    and the smallest fall in pass rate the gate would catch (80% power), per tier and overall.

    `run --dry-run` prints the same. The power is exact (binomial and hypergeometric sums);
    see docs/reports.md, "The plan".
    """
    print_plan(
        paths or [],
        k=k,
        only=only,
        tiers=tier,
        overlay=overlay,
        agent=agent,
        replicas=replicas,
        baseline=baseline,
        against=against,
        alpha=alpha,
        detect=detect,
        as_json=as_json,
    )
