"""Machine-readable renderings of a :class:`Report`: JSON (SPEC section 6) and JUnit XML.

JSON: ``run_type``, ``overall``, ``tiers`` (keyed by tier) and ``blocks`` (keyed by test
id), each with ``passed``, ``failed``, ``errors``, ``n``, ``pass_at_1``, ``wilson_low``,
``wilson_high``; blocks add ``k``, ``pass_at_k``, ``pass_hat_k``; tiers and overall add
``blocks_all_pass`` and ``blocks_none_pass``. Rates with n = 0 are ``null``. Every other
section of the report follows under its own key; ``trust`` holds the methodology verdict's
companions: strict-check warnings, attempts graded without fixtures, ERROR (precondition).

JUnit: one ``testsuite`` per tier, one ``testcase`` per block, failing when the block
fails its rule (:func:`agenttest.reporting._build.block_rule`), ``skipped`` when its only
verdicts await the calibration of the judge that decided them, an ``error`` when it has
no gradable attempt.
"""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

from agenttest.verdicts import TrustSummary

from ._cases import cases_dict
from ._coverage import coverage_dict
from ._evidence import EvidenceSection, counts_text
from ._format import pct, rate_text
from ._model import AttemptDetail, BlockResult, ComparisonRow, GroupResult, Rate
from ._report import Report

JSON_SCHEMA_ID = "agenttest-report/1"
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _rate(rate: Rate) -> dict[str, Any]:
    return {
        "passed": rate.passed,
        "failed": rate.failed,
        "errors": rate.errors,
        "n": rate.n,
        "pass_at_1": rate.pass_at_1,
        "wilson_low": rate.wilson_low,
        "wilson_high": rate.wilson_high,
    }


def _group(g: GroupResult) -> dict[str, Any]:
    return {
        **_rate(g.rate),
        "blocks": g.blocks,
        "blocks_all_pass": g.blocks_all_pass,
        "blocks_none_pass": g.blocks_none_pass,
        "blocks_awaiting_calibration": g.blocks_awaiting,
        "cases": g.cases,
        "usage": to_plain(g.usage),
        "exploratory": g.exploratory,
    }


def _block(b: BlockResult) -> dict[str, Any]:
    return {
        **_rate(b.rate),
        "k": b.k,
        "pass_at_k": b.pass_at_k,
        "pass_hat_k": b.pass_hat_k,
        "tier": b.tier,
        "title": b.title,
        "owasp": list(b.owasp),
        "latency_p50_ms": b.latency.p50,
        "latency_p95_ms": b.latency.p95,
        "exploratory": b.exploratory,
        "critical": b.critical,
        "unknown": b.unknown,
        "unrated": b.unrated,
        "undecided": b.undecided,
        "not_delivered": b.not_delivered,
        "not_applicable": b.not_applicable,
        "not_applicable_reasons": list(b.not_applicable_reasons),
        "passed_by_inaction": b.passed_by_inaction,
        "passed_by_refusal": b.passed_by_refusal,
        "excluded_uncalibrated": b.excluded,
        "awaiting_calibration": b.awaiting_calibration,
        "missing": b.missing,
        "planned": b.planned,
        "rule_passed": b.rule_passed,
        "rule_settled": b.rule_settled,
        "rule": b.rule_reason,
        "failing_attempts": b.failing_total,
        "usage": to_plain(b.usage),
        "decided_after": b.decided_after,
    }


def to_plain(value: Any) -> Any:
    if isinstance(value, Rate):
        return _rate(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value


def report_dict(report: Report) -> dict[str, Any]:
    h = report.header
    return {
        "schema": JSON_SCHEMA_ID,
        "run_type": h.run_type,
        "exploratory_reasons": list(h.exploratory_reasons),
        **_completeness(report),
        "header": to_plain(h),
        "overall": _group(report.overall),
        "tiers": {t.name: _group(t) for t in report.tiers},
        "blocks": {b.test_id: _block(b) for b in report.blocks},
        "owasp": {
            o.item: {
                **_rate(o.rate),
                "name": o.name,
                "blocks": list(o.blocks),
                "not_delivered": o.not_delivered,
            }
            for o in report.owasp
        },
        "not_applicable": [
            {"reason": reason, "blocks": list(ids), "attempts": n}
            for reason, ids, n in report.not_applicable()
        ],
        "critical": to_plain(report.critical),
        "integrity": to_plain(report.integrity),
        "raters": to_plain(report.agreement),
        "latency_histogram_ms": [
            {"from": lo, "to": hi, "count": c} for lo, hi, c in report.latency_histogram
        ],
        "calibration": to_plain(report.calibration),
        "regression": to_plain(report.regression),
        "checklist": to_plain(report.checklist),
        "decision": report.decision.plain() if report.decision else None,
        "cases": cases_dict(report.cases),
        "trust": trust_dict(report.trust),
        "judge_coverage": coverage_dict(report.coverage),
        "evidence": evidence_dict(report.evidence),
    }


def evidence_dict(section: EvidenceSection | None) -> dict[str, Any] | None:
    """Which evidence decided: totals and per block as mappings, and every attempt."""
    if section is None:
        return None
    return {
        "totals": dict(section.totals),
        "blocks": {
            r.test_id: {**dict(r.counts), "unreported_calls": r.unreported} for r in section.rows
        },
        "attempts": to_plain(section.attempts),
    }


def trust_dict(trust: TrustSummary | None) -> dict[str, Any] | None:
    """The trust section: counts, per-block counts as mappings, and the attempts behind them."""
    if trust is None:
        return None
    return {
        "strict": trust.strict,
        "strict_warnings": trust.warnings,
        "attempts_with_warnings": trust.attempts_with_warnings,
        "warnings_by_block": dict(trust.by_block),
        "warning_attempts": to_plain(trust.warning_attempts),
        "without_fixtures": trust.without_fixtures,
        "without_fixtures_by_block": dict(trust.without_fixtures_by_block),
        "precondition_errors": trust.precondition_errors,
        "precondition_attempts": to_plain(trust.precondition_attempts),
    }


def _completeness(report: Report) -> dict[str, Any]:
    """``complete`` and the attempt counts; ``run_type`` stays what was planned."""
    done = report.header.completeness
    if done is None:
        return {"complete": True}
    return {
        "complete": done.complete,
        "attempts": {
            "planned": done.planned,
            "recorded": done.recorded,
            "missing": done.missing,
            "skipped_as_decided": done.skipped_as_decided,
        },
        "incomplete_reasons": list(done.reasons),
    }


def render_json(report: Report) -> str:
    return json.dumps(report_dict(report), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def _xml_text(value: Any) -> str:
    return _XML_INVALID.sub("\ufffd", str(value))


def _failure_text(b: BlockResult) -> str:
    """What a CI reader needs under a failing test case: which runs failed, the criteria
    that decided it with their evidence, and how the reply began."""
    lines = [f"{b.rate.failed} of {b.rate.n} attempts failed; rule: {b.rule_reason}"]
    for d in b.failing:
        lines.append("")
        lines.append(f"{d.run_id} run {d.run}: {d.verdict} by {d.rater}{_decided_by(d)}")
        if d.error:
            lines.append(f"  error: {d.error}")
        for c in d.criteria:
            if c.outcome in ("not met", "triggered"):
                lines.append(f"  {c.id} [{c.tag}] {c.outcome}: {c.says}")
                lines.append(f"    evidence: {c.evidence}")
        for note in d.evidence_notes:
            lines.append(f"  note: {note}")
        if d.reply_excerpt:
            lines.append(f"  reply: {d.reply_excerpt}")
    if b.failing_total > len(b.failing):
        lines.append("")
        lines.append(f"{b.failing_total - len(b.failing)} more failing attempt(s) in the run file")
    return "\n".join(lines)


def _decided_by(d: AttemptDetail) -> str:
    return f" (evidence: {d.evidence_source})" if d.evidence_source else ""


def _evidence_line(report: Report, test_id: str) -> str:
    """``\nevidence: harness 3, agent 1`` for a block, when the grades said."""
    row = (
        next((r for r in report.evidence.rows if r.test_id == test_id), None)
        if report.evidence
        else None
    )
    return f"\nevidence: {counts_text(row.counts)}" if row is not None else ""


def _completeness_properties(report: Report) -> list[tuple[str, Any]]:
    done = report.header.completeness
    if done is None:
        return []
    return [
        ("complete", str(done.complete).lower()),
        ("attempts_planned", done.planned),
        ("attempts_recorded", done.recorded),
        ("attempts_missing", done.missing),
    ]


def _awaiting_rating(b: BlockResult) -> str:
    return (
        f"awaiting a rating: {b.undecided} attempt(s) completed with a deciding criterion no "
        "grader could decide (agenttest rate --undecided)"
    )


def _pass_kinds(b: BlockResult) -> str:
    """A SEC block's PASSes by kind: by doing nothing, by refusing (issue 29)."""
    if b.tier != "SEC" or not b.rate.passed:
        return ""
    return (
        f"\nPASS by inaction (no tool call, no refusal) {b.passed_by_inaction}, "
        f"by explicit refusal {b.passed_by_refusal}, of {b.rate.passed}"
    )


def _unsettled(b: BlockResult) -> str:
    so_far = "passing" if b.rule_passed else "failing" if b.rule_passed is False else "no data"
    return (
        f"incomplete: {b.missing} of {b.planned} planned attempts not recorded; {so_far} so "
        f"far ({b.rule_reason}), which the missing attempts could still change — resume the run"
    )


def _threshold_line(row: ComparisonRow | None) -> str:
    """The block's §2.2 line: its baseline, the threshold, and where this run stands."""
    if row is None or row.threshold is None:
        return ""
    where = "BELOW it" if row.below_threshold else "no data" if not row.ours.n else "above it"
    return (
        f"\nbaseline pass@1 {rate_text(row.base)}; threshold 0.85 × baseline = "
        f"{pct(row.threshold)} (methodology §2.2): {where}"
    )


def render_junit(report: Report) -> str:
    h = report.header
    against = {r.name: r for r in report.regression.blocks} if report.regression else {}
    root = ET.Element("testsuites", name=_xml_text(f"agenttest {h.agent} {h.model}"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    by_tier: dict[str, list[BlockResult]] = {}
    for b in report.blocks:
        by_tier.setdefault(b.tier, []).append(b)
    for tier, blocks in by_tier.items():
        suite = ET.SubElement(root, "testsuite", name=_xml_text(tier))
        props = ET.SubElement(suite, "properties")
        for name, value in (
            ("run_type", h.run_type),
            ("model", h.model),
            ("battery", h.battery_digest),
            ("k", h.k),
            *_completeness_properties(report),
        ):
            ET.SubElement(props, "property", name=name, value=_xml_text(value))
        failures = errors = skipped = 0
        for b in blocks:
            seconds = b.latency.total_ms / 1000.0
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_xml_text(tier),
                name=_xml_text(b.test_id),
                time=f"{seconds:.3f}",
            )
            row = against.get(b.test_id)
            if row is not None and row.threshold is not None:
                # CI tools show testcase properties; the same figures are in system-out
                case_props = ET.SubElement(case, "properties")
                for key, value in (
                    ("baseline_pass_at_1", row.base.pass_at_1),
                    ("baseline_threshold", row.threshold),
                    ("below_baseline_threshold", str(row.below_threshold).lower()),
                ):
                    ET.SubElement(case_props, "property", name=key, value=_xml_text(value))
            summary = (
                f"{b.rate.passed}/{b.rate.n} passed, {b.rate.errors} ERROR; rule: {b.rule_reason}"
            )
            if b.awaiting_calibration:
                # Not an error of the agent or the harness: the verdicts exist but an
                # uncalibrated judge decided them (methodology §2.3), so CI skips the case.
                skipped += 1
                ET.SubElement(case, "skipped", message=_xml_text(b.rule_reason))
            elif not b.rule_settled:
                # Attempts are missing and could still change the answer: no verdict yet.
                skipped += 1
                ET.SubElement(case, "skipped", message=_xml_text(_unsettled(b)))
            elif b.rule_passed is None and b.undecided and not b.rate.errors:
                # Every attempt completed but a criterion no grader could decide (a judge that
                # abstained, a cut transcript) waits for a person: no verdict yet, no error.
                skipped += 1
                ET.SubElement(case, "skipped", message=_xml_text(_awaiting_rating(b)))
            elif b.rule_passed is None and b.not_applicable and not b.rate.errors:
                # Never sent: the agent cannot provide what the block needs (its config says
                # so). No verdict, no error: skipped, with the reason.
                skipped += 1
                ET.SubElement(case, "skipped", message=_xml_text(b.rule_reason))
            elif b.rule_passed is None:
                errors += 1
                ET.SubElement(case, "error", message=_xml_text(summary), type="no-gradable-attempt")
            elif not b.rule_passed:
                failures += 1
                failure = ET.SubElement(
                    case, "failure", message=_xml_text(summary), type="block-rule"
                )
                failure.text = _xml_text(_failure_text(b))
            out = ET.SubElement(case, "system-out")
            name = f"{b.test_id} {b.title}".strip()
            out.text = _xml_text(
                f"{name}\npass@1 {rate_text(b.rate)} (95% Wilson); "
                f"pass@{b.k} {pct(b.pass_at_k)}, pass^{b.k} {pct(b.pass_hat_k)}; {h.run_type}"
                f"{_evidence_line(report, b.test_id)}{_threshold_line(row)}{_pass_kinds(b)}"
            )
        suite.set("tests", str(len(blocks)))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", str(skipped))
        totals["tests"] += len(blocks)
        totals["failures"] += failures
        totals["errors"] += errors
        totals["skipped"] += skipped
    for key, total in totals.items():
        root.set(key, str(total))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
