"""Library entry points behind `validate` and `list`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenttest.errors import InputError

from ._loader import Battery, load_battery


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


def block_summaries(battery: Battery, tiers: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One JSON-ready row per block, in battery order (the `list --json` contract)."""
    wanted = {t.upper() for t in tiers}
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
