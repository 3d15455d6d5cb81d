"""Turn aggregated run files into a :class:`Report`: blocks, tiers, OWASP items (the header
and the integrity section come from :mod:`._provenance`).

Block titles, OWASP items and tiers come from the battery when it can be loaded (the
path recorded in ``run_meta``, or one given explicitly); otherwise from the run files'
plans; otherwise the report still works, with ids and tiers from the attempts alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from agenttest.blocks import MAX_PATH_CHARS, Battery, load_battery
from agenttest.errors import AgentTestError, UsageError
from agenttest.results import Attempt, Grade
from agenttest.stats import percentile
from agenttest.verdicts import block_rule

from ._aggregate import Aggregator
from ._cases import block_of, case_families
from ._completeness import completeness, rule_settled
from ._details import MAX_FAILING_DETAILS, attempt_detail, describe_evidence, fetch_records
from ._inaction import InactionSink
from ._model import (
    ASI_NAMES,
    MIN_PUBLISHED_K,
    AttemptDetail,
    BlockResult,
    CriticalFail,
    GroupResult,
    Latency,
    OwaspResult,
    Rate,
    Usage,
    tier_key,
)
from ._provenance import latency_histogram, report_header, report_integrity
from ._raters import analyse_raters
from ._report import Report
from ._sinks import AttemptSink
from ._slots import CODE_NAME, PlanInfo, SlotKey, Tally
from ._usage import block_usage

BatteryArg = Battery | str | Path | Literal["auto"] | None


class UnknownRater(UsageError):
    """``--rater`` names a rater that graded nothing in the given run files."""


def _exists(path: str) -> bool:
    """Whether a path a run file recorded names something: the file is anyone's to edit, so
    a name too long for the file system is no battery, not an error of agenttest's."""
    try:
        return len(path) <= MAX_PATH_CHARS and Path(path).exists()
    except OSError:
        return False


def _resolve_battery(agg: Aggregator, battery: BatteryArg) -> tuple[Battery | None, list[str]]:
    notes: list[str] = []
    loaded: Battery | None = None
    if isinstance(battery, Battery):
        loaded = battery
    elif battery == "auto":
        for run in agg.files:
            paths = run.meta.battery.paths if run.meta.battery is not None else []
            if not paths:
                continue
            if not all(_exists(str(p)) for p in paths):
                continue
            try:
                loaded = load_battery([str(p) for p in paths])
            except (AgentTestError, OSError):
                notes.append(f"the battery at {', '.join(map(str, paths))} could not be loaded")
                continue
            break
    elif battery is not None:
        loaded = load_battery([battery])
    if loaded is not None:
        digests = {f.digest for f in agg.files if f.digest}
        if digests and loaded.digest not in digests:
            notes.append(
                f"block titles and OWASP items come from the battery at "
                f"{', '.join(loaded.paths)} ({loaded.digest}), which differs from the battery "
                f"the run recorded ({', '.join(sorted(digests))})"
            )
    return loaded, notes


def _group(name: str, blocks: list[BlockResult], exploratory: bool) -> GroupResult:
    rate = Rate.of(
        sum(b.rate.passed for b in blocks),
        sum(b.rate.failed for b in blocks),
        sum(b.rate.errors for b in blocks),
    )
    # a parameterised block is one block however many cases it ran: its cases are counted
    # apart, and it passes all (none) only when every case does
    families: dict[str, list[BlockResult]] = {}
    for b in blocks:
        families.setdefault(block_of(b.test_id), []).append(b)
    members = list(families.values())
    return GroupResult(
        name=name,
        blocks=len(families),
        rate=rate,
        blocks_all_pass=sum(all(b.all_pass for b in f) for f in members),
        blocks_none_pass=sum(all(b.none_pass for b in f) for f in members),
        exploratory=exploratory or any(b.exploratory for b in blocks),
        blocks_awaiting=sum(any(b.awaiting_calibration for b in f) for f in members),
        usage=Usage.total([b.usage for b in blocks]),
        cases=sum(b.test_id != block_of(b.test_id) for b in blocks),
    )


Details = dict[tuple[str, bool], tuple[AttemptDetail, ...]]


def _details(agg: Aggregator, tallies: dict[str, Tally]) -> Details:
    """The failing attempts (``(test_id, False)``) and the ones awaiting calibration
    (``(test_id, True)``) that the report shows in full, read back in one pass."""
    chosen: list[tuple[tuple[str, bool], SlotKey, str, bool]] = []
    wanted = []
    for test_id, t in tallies.items():
        picked = [((test_id, False), *x) for x in t.failing[:MAX_FAILING_DETAILS]]
        picked += [((test_id, True), *x) for x in t.awaiting[:MAX_FAILING_DETAILS]]
        for group, key, decider, graded in picked:
            chosen.append((group, key, decider, graded))
            slot = agg.slots[key]
            wanted.append((slot.file, slot.ordinal))
            if graded:
                entry = agg.grades[key][decider]
                wanted.append((entry.file, entry.ordinal))
    records = fetch_records([f.path for f in agg.files], wanted)
    out: dict[tuple[str, bool], list[AttemptDetail]] = {}
    for group, key, decider, graded in chosen:
        slot = agg.slots[key]
        attempt = records.get((slot.file, slot.ordinal))
        if not isinstance(attempt, Attempt):  # the file changed between the passes
            continue
        grade = None
        code = slot.code
        if graded:
            entry = agg.grades[key][decider]
            found = records.get((entry.file, entry.ordinal))
            grade = found if isinstance(found, Grade) else None
            code = entry.code
        verdict = f"{CODE_NAME[code]}, awaiting calibration" if group[1] else "FAIL"
        out.setdefault(group, []).append(attempt_detail(attempt, key[0], verdict, decider, grade))
    return {k: tuple(v) for k, v in out.items()}


def aggregate_report(
    paths: Sequence[str | Path],
    *,
    rater: str | None = None,
    battery: BatteryArg = "auto",
    allow_mixed: bool = False,
    details: bool = True,
    strict: bool = False,
    sinks: Sequence[AttemptSink] = (),
) -> Report:
    """Read the run files (several merge) into a report without cross-run sections.

    ``sinks`` are sections fed every attempt in the same pass (see :mod:`._sinks`)."""
    if not paths:
        raise UsageError("no run files given")
    inaction = InactionSink()
    agg = Aggregator(allow_mixed=allow_mixed, strict=strict, sinks=(*sinks, inaction))
    for path in paths:
        agg.add(path)
    agreement, uncalibrated = analyse_raters(agg, rater)
    if rater is not None and rater not in {r.name for r in agreement.raters}:
        names = ", ".join(r.name for r in agreement.raters) or "none"
        raise UnknownRater(f"no verdicts by rater {rater!r} in these run files (raters: {names})")
    loaded, notes = _resolve_battery(agg, battery)
    plan = agg.plan_info()
    missing = agg.missing()
    missing_by_test = missing.by_test
    tallies = agg.tally(rater, uncalibrated)
    shown = _details(agg, tallies) if details else {}
    usages = block_usage(agg)
    done = completeness(agg.files, missing)
    header = report_header(agg, tallies, loaded, done)
    blocks: list[BlockResult] = []
    critical: list[CriticalFail] = []
    for test_id, t in tallies.items():
        na = sum(t.not_applicable.values())
        known = t.passed + t.failed + t.errors + t.unrated + t.other + t.excluded + t.undecided
        known += na
        if not known and not missing_by_test[test_id]:
            continue  # only unknown-id attempts: listed under data integrity
        block = loaded.get(test_id) if loaded is not None else None
        info = plan.get(test_id) or PlanInfo()
        tier = str(t.tier or (block.tier if block else None) or info.tier or "?")
        owasp = tuple(block.owasp) if block else tuple(info.owasp or ())
        k = t.k or (block.k if block else 0) or (info.runs or 0) or (t.passed + t.failed + t.errors)
        rate = Rate.of(t.passed, t.failed, t.errors)
        at_k, hat_k = BlockResult.estimators(rate.n, rate.passed, k)
        lat = sorted(t.latencies)
        passed_rule, reason = block_rule(tier, rate, len(t.critical))
        gaps = missing_by_test[test_id]
        if passed_rule is None and t.excluded:
            reason = (
                f"awaiting calibration: {t.excluded} verdict(s) decided by the uncalibrated "
                f"judge {', '.join(sorted(t.uncalibrated_by))}, left out of the rates"
            )
        elif passed_rule is None and t.undecided:
            reason = (
                f"awaiting a rating: {t.undecided} attempt(s) completed with a deciding "
                "criterion no grader could decide (agenttest rate --undecided)"
            )
        elif passed_rule is None and na:
            reason = f"not applicable: {'; '.join(sorted(t.not_applicable))}"
        by_kind = inaction.kinds(t.passing) if tier == "SEC" else {}
        blocks.append(
            BlockResult(
                test_id=test_id,
                tier=tier,
                title=(block.title if block else (info.title or "")),
                owasp=owasp,
                k=k,
                rate=rate,
                pass_at_k=at_k,
                pass_hat_k=hat_k,
                latency=Latency(
                    len(lat),
                    percentile(lat, 50) if lat else None,
                    percentile(lat, 95) if lat else None,
                    sum(lat),
                ),
                # fewer attempts than planned: not a verdict at the planned confidence
                exploratory=header.exploratory or k < MIN_PUBLISHED_K or gaps > 0,
                critical=len(t.critical),
                unknown=t.unknown,
                unrated=t.unrated,
                undecided=t.undecided,
                not_delivered=t.causes["precondition"],
                error_causes=tuple(t.causes.most_common()),
                not_applicable=na,
                not_applicable_reasons=tuple(sorted(t.not_applicable)),
                passed_by_inaction=by_kind.get("inaction", 0),
                passed_by_refusal=by_kind.get("refusal", 0),
                excluded=t.excluded,
                missing=gaps,
                planned=missing.planned_by_test[test_id],
                rule_settled=rule_settled(block_rule, tier, rate, len(t.critical), gaps),
                rule_passed=passed_rule,
                rule_reason=reason,
                failing_total=len(t.failing),
                failing=shown.get((test_id, False), ()),
                awaiting=shown.get((test_id, True), ()),
                usage=usages.get(test_id),
                decided_after=(
                    t.passed + t.failed + t.errors + t.excluded + t.undecided
                    if agg.decided_early(test_id)
                    else None
                ),
            )
        )
        for key, decider in t.critical:
            for hit in agg.critical[(key, decider)]:
                critical.append(
                    CriticalFail(
                        test_id,
                        tier,
                        key[2],
                        key[0],
                        decider,
                        hit.rule or "?",
                        hit.criterion or "",
                        describe_evidence(hit.evidence),
                    )
                )
    blocks.sort(key=lambda b: (tier_key(b.tier), b.test_id))
    by_tier: dict[str, list[BlockResult]] = {}
    for b in blocks:
        by_tier.setdefault(b.tier, []).append(b)
    tiers = tuple(_group(name, bs, header.exploratory) for name, bs in by_tier.items())
    owasp_rows = []
    for item, name in ASI_NAMES.items():
        members = [b for b in blocks if item in b.owasp]
        owasp_rows.append(
            OwaspResult(
                item,
                name,
                tuple(b.test_id for b in members),
                _group(item, members, False).rate,
                sum(b.not_delivered for b in members),
            )
        )
    integrity = report_integrity(agg, tallies, missing, notes)
    return Report(
        header=header,
        overall=_group("overall", blocks, header.exploratory),
        tiers=tiers,
        blocks=tuple(blocks),
        owasp=tuple(owasp_rows),
        critical=tuple(critical),
        integrity=integrity,
        agreement=agreement,
        latency_histogram=latency_histogram(tallies),
        cases=case_families(blocks, loaded, block_rule),
        trust=agg.trust.summary(agg.strict),
    )


def aggregate_side(
    paths: Sequence[str | Path], rater: str | None, allow_mixed: bool
) -> tuple[Report, tuple[str, ...]]:
    """A baseline or reference: ``rater``'s verdicts where it graded there, else the attempts'."""
    if rater is not None:
        try:
            return aggregate_report(
                paths, rater=rater, battery=None, allow_mixed=allow_mixed, details=False
            ), ()
        except UnknownRater:
            names = ", ".join(Path(p).name for p in paths)
            note = f"{rater} rated nothing in {names}; that side uses each attempt's own rater"
            return aggregate_report(paths, battery=None, allow_mixed=allow_mixed, details=False), (
                note,
            )
    return aggregate_report(paths, battery=None, allow_mixed=allow_mixed, details=False), ()


__all__ = ["CODE_NAME", "aggregate_report", "aggregate_side"]
