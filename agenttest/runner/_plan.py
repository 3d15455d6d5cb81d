"""What a run will do and what it has already done: the plan, and resuming it.

The plan is the selected blocks × k, in rounds: every block's run 1, then every block's
run 2, and so on. A run stopped half-way therefore has some attempts of every block rather
than all attempts of half the blocks, and slow drift of the agent (warming caches, a
filling disk) spreads evenly over the blocks.

Every attempt is keyed by ``(test_id, run)``. Readers take the last attempt record of a
key: a re-run (``--retry-errors``, or an attempt cut short by Ctrl-C) supersedes the
earlier record without rewriting it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttest._util.convert import suggest
from agenttest.blocks import TIERS, Battery, Block
from agenttest.errors import UsageError
from agenttest.results import Attempt, ReadNotes, RunMeta, iter_records

Key = tuple[str, int]


@dataclass(frozen=True)
class PlanItem:
    block: Block
    run: int
    k: int

    @property
    def key(self) -> Key:
        return (self.block.id, self.run)


def split_list(values: Iterable[str]) -> list[str]:
    """`--only A,B --only C` → [A, B, C]."""
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def select_blocks(battery: Battery, only: Sequence[str], tiers: Sequence[str]) -> list[Block]:
    """The blocks a run covers, in battery order; unknown ids or tiers are usage errors."""
    for tier in tiers:
        if tier not in TIERS:
            raise UsageError(
                f"--tier {tier}: not a tier ({', '.join(TIERS)}){suggest(tier, TIERS)}"
            )
    wanted: set[str] = set()
    for test_id in only:
        block = battery.get(test_id)
        # A parameterised block's own id selects all its cases (BLOCK#case-id).
        family = [b.id for b in battery if b.case is not None and b.case.parent == test_id]
        wanted.update(family)
        if block is None and family:
            continue
        if block is None:
            known = [b.id for b in battery]
            raise UsageError(f"--only {test_id}: no such block{suggest(test_id, known)}")
        wanted.add(block.id)
    blocks = [
        b for b in battery if (not wanted or b.id in wanted) and (not tiers or b.tier in tiers)
    ]
    if not blocks:
        raise UsageError("nothing to run: no block matches --only/--tier")
    return blocks


def make_plan(blocks: Sequence[Block], k: int | None) -> list[PlanItem]:
    ks = {b.id: k or b.k for b in blocks}
    rounds = max(ks.values(), default=0)
    return [
        PlanItem(b, run, ks[b.id])
        for run in range(1, rounds + 1)
        for b in blocks
        if run <= ks[b.id]
    ]


def nominal_k(blocks: Sequence[Block], k: int | None) -> int:
    """The k a run is labelled with: `--k`, else the smallest block k (so a run is only
    called published when every block got at least 5 attempts)."""
    return k if k is not None else min(b.k for b in blocks)


@dataclass
class RunState:
    """What a run file holds: its meta record and the latest attempt of every key."""

    meta: RunMeta
    latest: dict[Key, Attempt]
    attempts: int
    notes: ReadNotes


def read_state(path: Path) -> RunState:
    notes = ReadNotes(str(path))
    meta: RunMeta | None = None
    latest: dict[Key, Attempt] = {}
    attempts = 0
    for record in iter_records(path, notes):
        if isinstance(record, RunMeta) and meta is None:
            meta = record
        elif isinstance(record, Attempt):
            attempts += 1
            latest[(record.test_id, record.run)] = record
    if meta is None:
        raise UsageError(f"{path} holds no run_meta record; it cannot be resumed (start a new run)")
    return RunState(meta, latest, attempts, notes)


def needs_run(record: Attempt | None, retry_errors: bool) -> bool:
    """Whether a key still needs an attempt, given its latest record."""
    if record is None:
        return True
    if record.verdict == "NOT_APPLICABLE":
        return True  # decided from the agent config, not the agent: decided again each run
    if record.error_cause == "interrupted":
        return True  # cut short by Ctrl-C: never a real attempt, so always run again
    # Grading problems are fixed with `agenttest grade` (and an UNDECIDED attempt with a
    # rating), not by asking the agent again.
    return retry_errors and record.verdict == "ERROR" and record.error_cause != "grader"


def counts(plan: Sequence[PlanItem], latest: dict[Key, Attempt]) -> dict[str, dict[str, int]]:
    status: Counter[str] = Counter()
    verdict: Counter[str] = Counter()
    for item in plan:
        record = latest.get(item.key)
        if record is not None:
            status[record.status or "not sent"] += 1  # NOT_APPLICABLE: never sent
            verdict[str(record.verdict)] += 1
    return {"status": dict(status), "verdict": dict(verdict)}
