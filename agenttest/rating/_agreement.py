"""Agreement between raters over the same attempts, and which judges are calibrated.

:func:`rater_agreement` reads run files (see :mod:`agenttest.rating._load` for which
rating counts) and returns an :class:`AgreementReport`:

* per pair of raters, over the attempts both rated PASS or FAIL: the number of shared
  attempts, percent agreement, Cohen's κ with a seeded percentile-bootstrap interval, and
  the 2×2 confusion matrix (rows: the first rater, columns: the second; PASS then FAIL);
* with more than two raters: Fleiss' κ over the attempts every rater rated, and
  Krippendorff's α (nominal) over every attempt at least two raters rated;
* per judge or rules rater, whether it is *calibrated* (methodology §2.3/§2.5): at least
  one human (``human:*``) shares ≥ 20 attempts with it, and against every human who does,
  κ ≥ 0.6. Pairs with fewer than 20 shared attempts are too small to judge either way and
  are not held against it. A κ from attempts that all got one and the same label is
  undefined (it says nothing about telling PASS from FAIL) and does not calibrate.

``ERROR`` verdicts are left out everywhere: an undecided rating agrees or disagrees with
nothing. The report generator calls this function too; its JSON form is ``to_dict()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from agenttest.results import KAPPA_THRESHOLD, MIN_CALIBRATION_SAMPLES, calibration, rater_kind
from agenttest.stats import (
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from agenttest.verdicts import BOOTSTRAP_REPLICATES, BOOTSTRAP_SEED, kappa_interval

from ._coverage import Coverage, judge_coverage
from ._load import collect

MIN_SAMPLES = MIN_CALIBRATION_SAMPLES
LABELS = ("PASS", "FAIL")


@dataclass(frozen=True)
class PairAgreement:
    rater_a: str
    rater_b: str
    n: int  # attempts both rated PASS or FAIL
    percent_agreement: float | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    confusion: tuple[tuple[int, int], tuple[int, int]]  # [a PASS, a FAIL] x [b PASS, b FAIL]
    one_label: bool  # every shared attempt got the same single label: κ is undefined

    def involves(self, rater: str) -> bool:
        return rater in (self.rater_a, self.rater_b)

    def other(self, rater: str) -> str:
        return self.rater_b if rater == self.rater_a else self.rater_a


@dataclass(frozen=True)
class RaterSummary:
    name: str
    kind: str  # human | rules | judge | harness
    passed: int
    failed: int
    errors: int
    calibrated: bool | None  # None for humans and the harness: not applicable
    note: str

    @property
    def rated(self) -> int:
        return self.passed + self.failed


@dataclass(frozen=True)
class AgreementReport:
    paths: tuple[str, ...]
    attempts: int  # attempts with at least one PASS/FAIL rating
    raters: tuple[RaterSummary, ...]
    pairs: tuple[PairAgreement, ...]
    fleiss_kappa: float | None
    fleiss_attempts: int
    krippendorff_alpha: float | None
    alpha_attempts: int
    notes: tuple[str, ...]
    seed: int
    confidence: float
    kappa_threshold: float = KAPPA_THRESHOLD
    min_samples: int = MIN_SAMPLES
    coverage: tuple[Coverage, ...] = ()  # per judge: JUDGE criteria decided / asked

    def uncalibrated(self) -> list[str]:
        """Judge and rules raters whose verdicts must not count toward published rates."""
        return [r.name for r in self.raters if r.calibrated is False]

    def pair(self, a: str, b: str) -> PairAgreement | None:
        for p in self.pairs:
            if {p.rater_a, p.rater_b} == {a, b}:
                return p
        return None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["paths"] = list(self.paths)
        data["notes"] = list(self.notes)
        data["raters"] = list(data["raters"])
        data["pairs"] = list(data["pairs"])
        for rater in data["raters"]:
            rater["rated"] = rater["passed"] + rater["failed"]
        for pair in data["pairs"]:
            pair["confusion"] = {
                "labels": list(LABELS),
                "matrix": [list(row) for row in pair["confusion"]],
            }
        data["uncalibrated"] = self.uncalibrated()
        data["coverage"] = [
            {"rater": c.rater, "asked": c.asked, "decided": c.decided, "by_kind": c.by_kind}
            for c in self.coverage
        ]
        return data


def _pair(
    a: str,
    b: str,
    keys: list[Any],
    left: list[str],
    right: list[str],
    seed: int,
    n_boot: int,
    confidence: float,
) -> PairAgreement:
    n = len(left)
    if n == 0:
        return PairAgreement(a, b, 0, None, None, None, None, ((0, 0), (0, 0)), False)
    table = confusion_matrix(left, right)
    where = {label: i for i, label in enumerate(table["labels"])}

    def cell(x: str, y: str) -> int:
        if x not in where or y not in where:
            return 0
        return int(table["matrix"][where[x]][where[y]])

    confusion = (
        (cell("PASS", "PASS"), cell("PASS", "FAIL")),
        (cell("FAIL", "PASS"), cell("FAIL", "FAIL")),
    )
    one_label = len(set(left) | set(right)) == 1
    # the one bootstrap rule shared with `report` (agenttest.verdicts)
    low, high = kappa_interval(keys, left, right, seed=seed, n_boot=n_boot, confidence=confidence)
    return PairAgreement(
        a,
        b,
        n,
        percent_agreement(left, right),
        cohen_kappa(left, right),
        low,
        high,
        confusion,
        one_label,
    )


def _calibration(name: str, pairs: list[PairAgreement], humans: list[str]) -> tuple[bool, str]:
    return calibration(
        [
            (p.other(name), p.n, None if p.one_label else p.kappa)
            for p in pairs
            if p.involves(name) and p.other(name) in humans
        ]
    )


def rater_agreement(
    paths: Iterable[str | Path],
    *,
    seed: int = BOOTSTRAP_SEED,
    n_boot: int = BOOTSTRAP_REPLICATES,
    confidence: float = 0.95,
) -> AgreementReport:
    """Agreement of every pair of raters over the same attempts in ``paths`` (see module doc)."""
    paths = list(paths)
    collection = collect(paths)
    labels: dict[str, dict[tuple[str, str, int], str]] = {}
    counts: dict[str, list[int]] = {}
    for unit in collection.units.values():
        for rater, verdict in unit.verdicts().items():
            row = counts.setdefault(rater, [0, 0, 0])
            # an UNDECIDED is no verdict: like an ERROR, in no agreement (third column)
            row[("PASS", "FAIL").index(verdict) if verdict in LABELS else 2] += 1
            if verdict in LABELS:
                labels.setdefault(rater, {})[unit.key] = verdict
    graders = sorted(labels)  # raters with at least one PASS/FAIL
    pairs: list[PairAgreement] = []
    for a, b in combinations(graders, 2):
        shared = [key for key in labels[a] if key in labels[b]]
        shared.sort()
        pairs.append(
            _pair(
                a,
                b,
                shared,
                [labels[a][k] for k in shared],
                [labels[b][k] for k in shared],
                seed,
                n_boot,
                confidence,
            )
        )
    humans = [r for r in graders if rater_kind(r) == "human"]
    raters = []
    for name in sorted(
        counts, key=lambda r: (("human", "judge", "rules", "harness").index(rater_kind(r)), r)
    ):
        kind = rater_kind(name)
        passed, failed, errors = counts[name]
        if kind in ("judge", "rules"):
            calibrated: bool | None
            calibrated, note = _calibration(name, pairs, humans)
        elif kind == "human":
            calibrated, note = None, "human rater"
        else:
            calibrated, note = None, "the harness recording attempts it could not obtain"
        raters.append(RaterSummary(name, kind, passed, failed, errors, calibrated, note))

    units = {key for per in labels.values() for key in per}
    notes = collection.messages()
    fleiss = alpha = None
    fleiss_n = alpha_n = 0
    if len(graders) > 2:
        everyone = sorted(k for k in units if all(k in labels[r] for r in graders))
        fleiss_n = len(everyone)
        if everyone:
            table = [
                [sum(labels[r][k] == lab for r in graders) for lab in LABELS] for k in everyone
            ]
            try:
                fleiss = fleiss_kappa(table)
            except (ValueError, ZeroDivisionError) as exc:
                notes.append(f"Fleiss' κ is undefined here ({exc})")
        else:
            notes.append("no attempt was rated by every rater, so Fleiss' κ is not computed")
        paired = sorted(k for k in units if sum(k in labels[r] for r in graders) >= 2)
        alpha_n = len(paired)
        if paired:
            try:
                alpha = krippendorff_alpha([[labels[r].get(k) for k in paired] for r in graders])
            except (ValueError, ZeroDivisionError) as exc:
                notes.append(f"Krippendorff's α is undefined here ({exc})")
    return AgreementReport(
        paths=tuple(collection.paths),
        attempts=len(units),
        raters=tuple(raters),
        pairs=tuple(pairs),
        fleiss_kappa=fleiss,
        fleiss_attempts=fleiss_n,
        krippendorff_alpha=alpha,
        alpha_attempts=alpha_n,
        notes=tuple(notes),
        seed=seed,
        confidence=confidence,
        coverage=tuple(judge_coverage(paths)),
    )


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def format_agreement(report: AgreementReport) -> str:
    """The human-readable table printed by ``agenttest agreement``."""
    files = len(report.paths)
    out = [
        f"Rater agreement over {report.attempts} attempt(s) in {files} run file(s) "
        "(ERROR verdicts left out)",
        "",
    ]
    width = max([len(r.name) for r in report.raters] + [5])
    out.append(
        f"  {'rater':<{width}}  {'kind':<7} {'rated':>5} {'pass':>5} {'fail':>5} {'error':>5}  calibration"
    )
    for r in report.raters:
        if r.calibrated is None:
            status = "—"
        else:
            status = ("calibrated: " if r.calibrated else "UNCALIBRATED: ") + r.note
        out.append(
            f"  {r.name:<{width}}  {r.kind:<7} {r.rated:>5} {r.passed:>5} {r.failed:>5} {r.errors:>5}  {status}"
        )
    out.append("")
    level = f"{report.confidence:.0%}"
    if report.pairs:
        pw = max(len(p.rater_a) for p in report.pairs)
        qw = max(len(p.rater_b) for p in report.pairs)
        out.append(
            f"  {'rater A':<{pw}}  {'rater B':<{qw}}  {'n':>4}  {'agree':>6}  {'κ':>5}  {level + ' interval':<16}  "
            "A×B: pass/pass pass/fail fail/pass fail/fail"
        )
        for p in report.pairs:
            if p.n == 0:
                out.append(f"  {p.rater_a:<{pw}}  {p.rater_b:<{qw}}  {0:>4}  no shared attempts")
                continue
            (pp, pf), (fp, ff) = p.confusion
            interval = f"[{_num(p.kappa_low)}, {_num(p.kappa_high)}]"
            kappa = _num(p.kappa) + ("*" if p.one_label else "")
            agree = f"{p.percent_agreement:.1%}" if p.percent_agreement is not None else "—"
            out.append(
                f"  {p.rater_a:<{pw}}  {p.rater_b:<{qw}}  {p.n:>4}  {agree:>6}  {kappa:>5}  {interval:<16}  "
                f"{pp:>9} {pf:>9} {fp:>9} {ff:>9}"
            )
        if any(p.one_label for p in report.pairs):
            out.append(
                "  * every shared attempt got the same label: κ is undefined (shown as 1 by convention)"
            )
    else:
        out.append("  fewer than two raters gave PASS/FAIL verdicts: nothing to compare")
    if report.fleiss_attempts or report.alpha_attempts:
        out.append("")
        out.append(
            f"  Fleiss' κ {_num(report.fleiss_kappa)} over the {report.fleiss_attempts} attempt(s) every rater rated; "
            f"Krippendorff's α {_num(report.krippendorff_alpha)} over {report.alpha_attempts} attempt(s) "
            "rated by at least two"
        )
    out.extend(_coverage_lines(report))
    uncalibrated = report.uncalibrated()
    out.append("")
    if uncalibrated:
        out.append(
            f"Uncalibrated (κ < {report.kappa_threshold} against a human, or fewer than "
            f"{report.min_samples} shared attempts): {', '.join(uncalibrated)}. "
            "Their verdicts do not count toward published rates."
        )
    elif any(r.calibrated for r in report.raters):
        out.append("Every judge and rules rater is calibrated against human ratings.")
    else:
        out.append("No judge or rules rater to calibrate.")
    for note in report.notes:
        out.append(f"note: {note}")
    return "\n".join(out)


def _coverage_lines(report: AgreementReport) -> list[str]:
    """Judge coverage next to κ: κ counts only the attempts a judge decided."""
    if not report.coverage:
        return []
    lines = ["", "Judge coverage (κ above is over the attempts each judge decided):"]
    lines += [f"  {c.line()}" for c in report.coverage]
    return lines
