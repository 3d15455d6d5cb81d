"""Library entry points behind `validate` and `list`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenttest._util.convert import suggest
from agenttest.errors import InputError, UsageError

from ._loader import Battery, load_battery
from ._vocabulary import TIERS


def validate_paths(
    paths: Sequence[str | Path], overlay: str | Path | None = None, strict: bool = False
) -> Battery:
    """Load and check; with ``strict`` also lint. Raises InputError listing every problem."""
    battery = load_battery(paths, overlay=overlay)
    if strict:
        from ._lint import lint_battery

        problems = lint_battery(battery)
        if problems:
            raise InputError(problems, f"{len(problems)} lint problem(s) found")
    return battery


def check_tiers(tiers: Sequence[str]) -> set[str]:
    """The tiers asked for, upper-cased; one that does not exist is a usage error (exit 2)."""
    wanted = {t.upper() for t in tiers}
    for tier in sorted(wanted - set(TIERS)):
        raise UsageError(f"--tier {tier}: not a tier ({', '.join(TIERS)}){suggest(tier, TIERS)}")
    return wanted


def block_summaries(battery: Battery, tiers: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One JSON-ready row per block, in battery order (the `list --json` contract); a
    parameterised block has a row per case. A tier that does not exist is a usage error,
    as it is for `run --tier`."""
    wanted = check_tiers(tiers)
    rows = []
    for b in battery:
        if wanted and b.tier not in wanted:
            continue
        rows.append(
            {
                "id": b.id,
                "aliases": list(b.aliases),
                "tier": b.tier,
                "category": b.category,
                "title": b.title,
                "owasp": list(b.owasp),
                "k": b.k,
                "turns": len(b.turns),
                "file": b.source.file if b.source else None,
                # parameterised blocks: the block the case belongs to, and its category
                "case_of": b.case.parent if b.case is not None else None,
                "case_category": b.case.category if b.case is not None else None,
                # hosted tools (docs/hosted-tools.md): it runs on them; the tools it makes fail
                "hosted": b.hosted,
                "faults": sorted({f.tool for f in b.faults}),
            }
        )
    return rows


def count_line(rows: Sequence[dict[str, Any]]) -> str:
    """What `list` printed, counted as `validate` and the report count: a parameterised block
    is one block, its cases counted apart (``91 blocks, 66 cases (155 rows ...)``)."""
    families = {r["case_of"] or r["id"] for r in rows}
    cases = sum(r["case_of"] is not None for r in rows)
    if not cases:
        return f"{len(families)} blocks"
    return (
        f"{len(families)} blocks, {cases} cases ({len(rows)} rows: "
        "a parameterised block has a row per case)"
    )
