"""The §2.2 baseline file: every L1 and L2 block × 5 attempts, pass@1, 0.85 × pass@1.

``agenttest baseline RUN.jsonl -o baseline.json`` writes it from a run (run the baseline
with ``agenttest run batteries --agent AGENT --tier L1 --tier L2 --k 5``); ``compare`` and
``report --baseline`` read it in place of a baseline run, and the decision reads its
thresholds. A threshold is written only over a measurement: a block with fewer than five
gradable attempts (PASS or FAIL) keeps its counts but no threshold, and says why.

The file is JSON, one block per line so that a diff between two baselines reads block by
block, and a bad block is reported at its own line.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path

import msgspec

from agenttest.errors import InputError, Problem, UsageError

from ._compare import BASELINE_ATTEMPTS, BASELINE_MARGIN, Side, threshold_of
from ._model import Rate, tier_key
from ._report import Report

SCHEMA = "agenttest-baseline/1"
#: Methodology §2.2: the baseline covers these tiers.
BASELINE_TIERS = ("L1", "L2")


class BaselineBlock(msgspec.Struct, forbid_unknown_fields=True):
    test_id: str
    tier: str
    passed: int
    failed: int
    errors: int  # ERROR attempts: in no rate
    pass_at_1: float | None  # over passed + failed; None: nothing gradable
    threshold: float | None  # 0.85 × pass_at_1, only over BASELINE_ATTEMPTS gradable attempts
    why: str = ""  # why there is no threshold ("" when there is one)

    @property
    def rate(self) -> Rate:
        return Rate.of(self.passed, self.failed, self.errors)


class BaselineGroup(msgspec.Struct, frozen=True):
    """A tier or the whole baseline, attempts pooled: what a comparison reads of a side."""

    name: str
    rate: Rate


class BaselineHeader(msgspec.Struct, frozen=True):
    files: tuple[str, ...]
    model: str
    battery_digest: str
    exploratory: bool = False


class Baseline(msgspec.Struct, forbid_unknown_fields=True):
    schema: str
    created_at: str
    agent: str
    model: str
    battery_digest: str
    runs: list[str]  # the run files it was measured from
    attempts_required: int
    margin: float
    blocks: list[BaselineBlock]
    notes: list[str] = []
    source: str = ""  # the file it was read from (not written: a file does not name itself)

    @property
    def pass_at_1(self) -> dict[str, float]:
        """Block id → baseline pass@1, for the blocks with a threshold (the decision's input)."""
        return {
            b.test_id: b.pass_at_1
            for b in self.blocks
            if b.threshold is not None and b.pass_at_1 is not None
        }

    # What a comparison reads of a side (agenttest.reporting._compare.Side).
    @property
    def header(self) -> BaselineHeader:
        runs = ", ".join(self.runs)
        files = (f"{self.source} (from {runs})",) if self.source else tuple(self.runs)
        return BaselineHeader(files, self.model, self.battery_digest)

    @property
    def tiers(self) -> tuple[BaselineGroup, ...]:
        names = sorted({b.tier for b in self.blocks}, key=tier_key)
        return tuple(
            BaselineGroup(t, _pooled([b for b in self.blocks if b.tier == t])) for t in names
        )

    @property
    def overall(self) -> BaselineGroup:
        return BaselineGroup("overall", _pooled(self.blocks))


def _pooled(blocks: Sequence[BaselineBlock]) -> Rate:
    return Rate.of(
        sum(b.passed for b in blocks), sum(b.failed for b in blocks), sum(b.errors for b in blocks)
    )


def _why_not(rate: Rate, undecided: int, missing: int) -> str:
    if rate.n >= BASELINE_ATTEMPTS:
        return ""
    lost = [
        f"{count} {what}"
        for count, what in (
            (rate.errors, "ERROR"),
            (undecided, "awaiting a rating"),
            (missing, "never recorded"),
        )
        if count
    ]
    return (
        f"{rate.n} gradable attempt(s), §2.2 needs {BASELINE_ATTEMPTS}"
        + (f" ({', '.join(lost)})" if lost else "")
        + ": no threshold"
    )


def make_baseline(report: Report) -> Baseline:
    """The §2.2 baseline of ``report``: its L1 and L2 blocks, thresholds where measured."""
    blocks = []
    for b in report.blocks:
        if b.tier not in BASELINE_TIERS:
            continue
        why = _why_not(b.rate, b.undecided + b.excluded, b.missing)
        measured = not why and b.rate.pass_at_1 is not None
        blocks.append(
            BaselineBlock(
                b.test_id,
                b.tier,
                b.rate.passed,
                b.rate.failed,
                b.rate.errors,
                b.rate.pass_at_1,
                threshold_of(b.rate.pass_at_1)
                if measured and b.rate.pass_at_1 is not None
                else None,
                why,
            )
        )
    notes = [
        f"the run holds no {tier} block: the baseline has none of that tier"
        for tier in BASELINE_TIERS
        if not any(b.tier == tier for b in blocks)
    ]
    h = report.header
    return Baseline(
        schema=SCHEMA,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        agent=h.agent,
        model=h.model,
        battery_digest=h.battery_digest,
        runs=[Path(f).name for f in h.files],
        attempts_required=BASELINE_ATTEMPTS,
        margin=BASELINE_MARGIN,
        blocks=blocks,
        notes=notes,
    )


def baseline_from_runs(
    paths: Sequence[str | Path], *, rater: str | None = None, allow_mixed: bool = False
) -> Baseline:
    """:func:`make_baseline` of the report of these run files."""
    from ._build import aggregate_report

    report = aggregate_report(
        paths, rater=rater, battery=None, allow_mixed=allow_mixed, details=False
    )
    return make_baseline(report)


def baseline_json(baseline: Baseline) -> str:
    """The file's text: the header fields, then one block per line."""
    head = msgspec.to_builtins(baseline)
    blocks = head.pop("blocks")
    head.pop("source", None)
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    rows = [f"    {json.dumps(b, ensure_ascii=False)}" for b in blocks]
    body = ",\n".join(rows)
    return "{\n" + "\n".join(lines) + '\n  "blocks": [\n' + body + "\n  ]\n}\n"


def is_baseline_file(path: str | Path) -> bool:
    """Whether ``path`` is a baseline file (JSON naming :data:`SCHEMA`), not a run file."""
    try:
        with Path(path).open("rb") as handle:
            start = handle.read(256)
    except OSError:
        return False
    return start.lstrip().startswith(b"{") and SCHEMA.encode() in start


def _line_of(text: str, path: str) -> int:
    """The line a msgspec error path such as ``$.blocks[3].n`` points at (1 if unknown)."""
    if not path.startswith("$.blocks["):
        return 1
    index = int(path[len("$.blocks[") :].split("]", 1)[0])
    seen = -1
    for number, line in enumerate(text.splitlines(), start=1):
        seen += line.count('"test_id"')
        if seen >= index:
            return number
    return 1


def read_baseline(path: str | Path) -> Baseline:
    """Read a baseline file; a bad one is an :class:`InputError` naming file and line."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{name}: cannot read the baseline file: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError([Problem(name, exc.lineno, f"not JSON: {exc.msg}")]) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise InputError(
            [Problem(name, 1, f"not a baseline file (schema {found!r}, want {SCHEMA!r})")]
        )
    try:
        baseline = msgspec.convert(data, Baseline)
    except msgspec.ValidationError as exc:
        message = str(exc)
        where = message.rsplit(" - at `", 1)[-1].rstrip("`") if " - at `" in message else ""
        raise InputError([Problem(name, _line_of(text, where), message)]) from None
    for i, b in enumerate(baseline.blocks):
        problem = _inconsistent(b, baseline.attempts_required, baseline.margin)
        if problem:
            raise InputError([Problem(name, _line_of(text, f"$.blocks[{i}]"), problem)])
    baseline.source = name
    return baseline


def _inconsistent(b: BaselineBlock, required: int, margin: float) -> str:
    """What is wrong with a block whose figures do not follow from its counts ("" if none)."""
    gradable = b.passed + b.failed
    if min(b.passed, b.failed, b.errors) < 0:
        return f"{b.test_id}: negative counts"
    rate = b.passed / gradable if gradable else None
    if (rate is None) != (b.pass_at_1 is None) or (
        rate is not None and b.pass_at_1 is not None and abs(rate - b.pass_at_1) > 1e-9
    ):
        return f"{b.test_id}: pass_at_1 {b.pass_at_1} is not {b.passed}/{gradable}"
    if b.threshold is None:
        return ""
    if gradable < required:
        return (
            f"{b.test_id}: a threshold over {gradable} gradable attempt(s); §2.2 needs {required}"
        )
    assert rate is not None
    if abs(b.threshold - margin * rate) > 1e-9:
        return f"{b.test_id}: threshold {b.threshold} is not {margin} × pass@1 {rate:.4g}"
    return ""


def baseline_side(
    paths: Sequence[str | Path], rater: str | None, allow_mixed: bool
) -> tuple[Side, tuple[str, ...]]:
    """What ``compare`` and ``--baseline`` compare against: one baseline file, or run files."""
    from ._build import aggregate_side

    files = [p for p in paths if is_baseline_file(p)]
    if not files:
        return aggregate_side(paths, rater, allow_mixed)
    if len(paths) > 1:
        raise UsageError(
            f"{files[0]} is a baseline file: give it alone, not with other baseline files or runs"
        )
    notes: tuple[str, ...] = ()
    if rater is not None:
        notes = (f"{files[0]} holds counts, not verdicts: --rater {rater} does not apply to it",)
    return read_baseline(files[0]), notes


def baseline_summary(baseline: Baseline) -> list[str]:
    """What ``agenttest baseline`` prints: the count with a threshold, and every block without."""
    with_threshold = [b for b in baseline.blocks if b.threshold is not None]
    lines = [
        f"{len(baseline.blocks)} L1/L2 block(s), {len(with_threshold)} with a threshold "
        f"({baseline.margin} × pass@1 over ≥ {baseline.attempts_required} gradable attempts)"
    ]
    lines += [f"{b.test_id}: {b.why}" for b in baseline.blocks if b.threshold is None]
    lines += [f"note: {note}" for note in baseline.notes]
    return lines
