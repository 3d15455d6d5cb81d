"""Case categories: a parameterised block's attempts pooled by the category of their case.

A block with ``cases:`` runs as one block per case (``BLOCK#case-id``). This section
groups those per-case results back under their block and by each case's ``category``,
with counts, the pass rate and the fail rate, each with its 95% Wilson interval, and the
block rule applied to every category as if it were a block (docs/evidence.md). The fail
rate is what an experiment such as memory contamination reports: the share of attempts
in which the agent adopted a false fact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from agenttest.blocks import Battery

from ._model import BlockResult, Rate

UNCATEGORISED = "(none)"


@dataclass(frozen=True)
class CaseCategory:
    name: str
    cases: int
    rate: Rate
    fail_low: float | None
    fail_high: float | None
    critical: int
    rule_passed: bool | None
    rule_reason: str

    @property
    def fail_rate(self) -> float | None:
        return None if self.rate.pass_at_1 is None else 1 - self.rate.pass_at_1


@dataclass(frozen=True)
class CaseFamily:
    block: str
    tier: str
    categories: tuple[CaseCategory, ...]
    rate: Rate


def block_of(test_id: str) -> str:
    """The block a result row belongs to: a case row (``BLOCK#case``) to its block."""
    return test_id.split("#", 1)[0]


def _family_of(test_id: str, battery: Battery | None) -> tuple[str, str] | None:
    """(block id, category) of a case attempt id, or None for a plain block."""
    if "#" not in test_id:
        return None
    parent = test_id.split("#", 1)[0]
    block = battery.get(test_id) if battery is not None else None
    case = block.case if block is not None else None
    if case is not None:
        return case.parent or parent, case.category or UNCATEGORISED
    return parent, UNCATEGORISED


Rule = Callable[[str, Rate, int], tuple[bool | None, str]]


def case_families(
    blocks: Iterable[BlockResult], battery: Battery | None, block_rule: Rule
) -> tuple[CaseFamily, ...]:
    """Case blocks grouped under their block and category; ``block_rule`` is the report's."""

    grouped: dict[str, dict[str, list[BlockResult]]] = {}
    tiers: dict[str, str] = {}
    for b in blocks:
        fam = _family_of(b.test_id, battery)
        if fam is None:
            continue
        parent, category = fam
        grouped.setdefault(parent, {}).setdefault(category, []).append(b)
        tiers[parent] = b.tier
    out = []
    for parent in sorted(grouped):
        cats = []
        for name in sorted(grouped[parent]):
            members = grouped[parent][name]
            rate = Rate.of(
                sum(m.rate.passed for m in members),
                sum(m.rate.failed for m in members),
                sum(m.rate.errors for m in members),
            )
            critical = sum(m.critical for m in members)
            passed, reason = block_rule(tiers[parent], rate, critical)
            low = None if rate.wilson_high is None else 1 - rate.wilson_high
            high = None if rate.wilson_low is None else 1 - rate.wilson_low
            cats.append(CaseCategory(name, len(members), rate, low, high, critical, passed, reason))
        every = [m for ms in grouped[parent].values() for m in ms]
        total = Rate.of(
            sum(m.rate.passed for m in every),
            sum(m.rate.failed for m in every),
            sum(m.rate.errors for m in every),
        )
        out.append(CaseFamily(parent, tiers[parent], tuple(cats), total))
    return tuple(out)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def cases_markdown(families: tuple[CaseFamily, ...]) -> str:
    """The Markdown section (empty when the run has no parameterised block)."""
    if not families:
        return ""
    lines = [
        "## Case categories",
        "",
        "Parameterised blocks, their attempts pooled by case category. Fail rate = FAIL / n "
        "(for a contamination block: the share of attempts that adopted the seeded fact). "
        "The block rule applies to each category.",
        "",
        "| Block | Category | Cases | Passed / n | pass@1 [95% CI] | fail rate [95% CI] | ERROR | Rule |",
        "|---|---|---:|---:|---|---|---:|---|",
    ]
    for fam in families:
        for c in fam.categories:
            r = c.rate
            ci = f"[{_pct(r.wilson_low)}, {_pct(r.wilson_high)}]"
            fci = f"[{_pct(c.fail_low)}, {_pct(c.fail_high)}]"
            rule = "no data" if c.rule_passed is None else ("pass" if c.rule_passed else "**FAIL**")
            lines.append(
                f"| {fam.block} | {c.name} | {c.cases} | {r.passed}/{r.n} | "
                f"{_pct(r.pass_at_1)} {ci} | {_pct(c.fail_rate)} {fci} | {r.errors} | {rule} |"
            )
    return "\n".join(lines) + "\n"


def cases_dict(families: tuple[CaseFamily, ...]) -> dict[str, object]:
    return {
        fam.block: {
            "tier": fam.tier,
            "passed": fam.rate.passed,
            "failed": fam.rate.failed,
            "errors": fam.rate.errors,
            "n": fam.rate.n,
            "categories": {
                c.name: {
                    "cases": c.cases,
                    "passed": c.rate.passed,
                    "failed": c.rate.failed,
                    "errors": c.rate.errors,
                    "n": c.rate.n,
                    "pass_at_1": c.rate.pass_at_1,
                    "wilson_low": c.rate.wilson_low,
                    "wilson_high": c.rate.wilson_high,
                    "fail_rate": c.fail_rate,
                    "fail_wilson_low": c.fail_low,
                    "fail_wilson_high": c.fail_high,
                    "rule_passed": c.rule_passed,
                    "rule_reason": c.rule_reason,
                }
                for c in fam.categories
            },
        }
        for fam in families
    }
