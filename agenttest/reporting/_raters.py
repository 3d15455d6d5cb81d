"""Raters and their agreement: who graded what, Cohen's κ per pair, judge calibration.

A rater is named in each ``attempt`` (the grader that wrote it) and ``grade`` record.
``human:*`` names are people, ``rules*`` the deterministic grader, every other name a
judge. Whether a judge is *calibrated* is decided by
:func:`agenttest.results.calibration`, the one rule `agenttest agreement` uses too
(methodology §2.3: κ ≥ 0.6 against human ratings over at least 20 shared attempts). Uncalibrated judges are flagged; a
report whose verdicts any of them decided is exploratory, never published.
"""

from __future__ import annotations

from itertools import combinations

from agenttest.results import calibration, rater_kind
from agenttest.stats import (
    cohen_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from agenttest.verdicts import kappa_interval

from ._aggregate import Aggregator
from ._model import Agreement, PairAgreement, RaterInfo
from ._slots import FAIL, PASS, Code, SlotKey


def _pair(a: str, b: str, keys: list[SlotKey], left: list[int], right: list[int]) -> PairAgreement:
    n = len(left)
    if n == 0:
        return PairAgreement(a, b, 0, None, None, None, None)
    if len(set(left) | set(right)) == 1:
        # every shared attempt got one label: κ is undefined and proves no calibration
        return PairAgreement(a, b, n, percent_agreement(left, right), None, None, None)
    kappa = cohen_kappa(left, right)
    low, high = kappa_interval(keys, left, right)  # the one bootstrap rule (agenttest.verdicts)
    return PairAgreement(a, b, n, percent_agreement(left, right), kappa, low, high)


def analyse_raters(agg: Aggregator, verdict_rater: str | None) -> tuple[Agreement, frozenset[str]]:
    """Every rater's counts, pairwise agreement, Krippendorff's α, and uncalibrated judges."""
    counts: dict[str, list[int]] = {}
    by_rater: dict[str, list[Code]] = {}  # rater -> verdict codes of its own attempts
    grades = agg.grades
    for key, slot in agg.slots.items():
        code, rater = slot.code, slot.rater
        if grades:
            own_grade = grades.get(key, {}).get(rater)
            if own_grade is not None:
                code = own_grade.code
        codes = by_rater.get(rater)
        if codes is None:
            codes = by_rater[rater] = []
        codes.append(code)
    for rater, codes in by_rater.items():
        counts[rater] = [len(codes), codes.count(PASS), codes.count(FAIL)]
    shared: dict[tuple[str, str], tuple[list[SlotKey], list[int], list[int]]] = {}
    # judge × human over the attempts where the judge's answer decided the verdict: the
    # sample its calibration is measured on (for a rules+judge grader, its JUDGE calls)
    decided: dict[tuple[str, str], tuple[list[SlotKey], list[int], list[int]]] = {}
    units: list[dict[str, Code]] = []
    for key, per_rater in agg.grades.items():
        if key not in agg.slots:
            continue
        verdicts = agg.verdicts(key)
        slot = agg.slots[key]
        judged = {slot.rater: slot.judged, **{r: e.judged for r, e in per_rater.items()}}
        for rater, entry in per_rater.items():
            if rater != agg.slots[key].rater:
                row = counts.setdefault(rater, [0, 0, 0])
                row[0] += 1
                row[1] += entry.code == PASS
                row[2] += entry.code == FAIL
        gradable = {r: v for r, v in verdicts.items() if v in (PASS, FAIL)}
        if len(gradable) >= 2:
            units.append(gradable)
        for a, b in combinations(sorted(gradable), 2):
            keys, left, right = shared.setdefault((a, b), ([], [], []))
            keys.append(key)
            left.append(gradable[a])
            right.append(gradable[b])
            for judge, human in ((a, b), (b, a)):
                if judged[judge] and rater_kind(human) == "human":
                    j_keys, j_list, h_list = decided.setdefault((judge, human), ([], [], []))
                    j_keys.append(key)
                    j_list.append(gradable[judge])
                    h_list.append(gradable[human])
    pairs = tuple(_pair(a, b, *shared[(a, b)]) for a, b in sorted(shared))
    calibration_pairs = tuple(_pair(j, h, *decided[(j, h)]) for j, h in sorted(decided))
    names = sorted(counts)
    alpha = None
    if len(names) >= 3 and units:
        alpha = krippendorff_alpha([[u.get(name) for u in units] for name in names])
    infos = []
    uncalibrated = set()
    for name in names:
        kind = rater_kind(name)
        calibrated: bool | None = None
        note = ""
        if kind == "judge":
            calibrated, note = _calibration(name, calibration_pairs)
            if not calibrated:
                uncalibrated.add(name)
        rated, passed, failed = counts[name]
        infos.append(RaterInfo(name, kind, rated, passed, failed, calibrated, note))
    agreement = Agreement(verdict_rater, tuple(infos), pairs, alpha, len(units))
    return agreement, frozenset(uncalibrated)


def _calibration(judge: str, pairs: tuple[PairAgreement, ...]) -> tuple[bool, str]:
    human_pairs = []
    for p in pairs:
        other = p.b if p.a == judge else p.a if p.b == judge else None
        if other is not None and rater_kind(other) == "human":
            human_pairs.append((other, p.n, p.kappa))
    ok, note = calibration(human_pairs)
    return ok, ("calibrated: " if ok else "uncalibrated: ") + note
