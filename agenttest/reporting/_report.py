"""The report: the model's parts (:mod:`._model`) and the sections fed in the same pass.

Every renderer reads one :class:`Report`. A section that is not about blocks (time to
first text, parity, judge coverage, case categories, the attempt viewer) keeps its own
types in its own module; its field here names that type, so a renderer knows what it
reads. docs/development.md, "Add a report section", lists the files a new one touches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agenttest.verdicts import TrustSummary

from ._cases import CaseFamily
from ._evidence import EvidenceSection
from ._model import (
    Agreement,
    BlockResult,
    Calibration,
    Checklist,
    Comparison,
    CriticalFail,
    GroupResult,
    Header,
    Integrity,
    OwaspResult,
)
from ._parity import Parity
from ._ttft import TtftSection
from ._viewer import ViewerData

if TYPE_CHECKING:  # rating loads only when a judge rater is in the run files (._coverage)
    from agenttest.rating import Coverage

    from ._decision import Decision  # decides about a Report: imported the other way


@dataclass(frozen=True)
class Report:
    header: Header
    overall: GroupResult
    tiers: tuple[GroupResult, ...]
    blocks: tuple[BlockResult, ...]
    owasp: tuple[OwaspResult, ...]
    critical: tuple[CriticalFail, ...]
    integrity: Integrity
    agreement: Agreement
    latency_histogram: tuple[tuple[int, int | None, int], ...]
    calibration: Calibration | None = None
    regression: Comparison | None = None
    checklist: Checklist | None = None
    cases: tuple[CaseFamily, ...] = ()  # parameterised blocks by case category
    trust: TrustSummary | None = None  # strict-check warnings, attempts without fixtures
    viewer: ViewerData | None = None  # every attempt, for the HTML report's viewer
    ttft: TtftSection | None = None  # when any turn streamed
    parity: Parity | None = None  # of a `run --parity` file
    coverage: tuple[Coverage, ...] = ()  # per judge rater: decided / asked
    evidence: EvidenceSection | None = None  # which evidence decided each attempt
    decision: Decision | None = None  # reporting.decide: what the checklist and gates read

    def not_applicable(self) -> list[tuple[str, tuple[str, ...], int]]:
        """(reason, blocks, attempts) of every NOT_APPLICABLE reason, most attempts first."""
        by: dict[str, tuple[list[str], list[int]]] = {}
        for b in self.blocks:
            for reason in b.not_applicable_reasons:
                ids, n = by.setdefault(reason, ([], [0]))
                ids.append(b.test_id)
                n[0] += b.not_applicable  # a block gives one reason for all its attempts
        rows = [(reason, tuple(ids), n[0]) for reason, (ids, n) in by.items()]
        return sorted(rows, key=lambda row: (-row[2], row[0]))

    def block(self, test_id: str) -> BlockResult | None:
        return next((b for b in self.blocks if b.test_id == test_id), None)

    def tier(self, name: str) -> GroupResult | None:
        return next((t for t in self.tiers if t.name == name), None)
