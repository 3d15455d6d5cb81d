"""Whether a judge's verdicts on one kind of JUDGE criterion count: calibration per kind.

Methodology §2.3: a judge counts only after it agrees with **human** scoring of at least 20
samples (κ ≥ 0.6). Nothing is shipped as a constant: the numbers come from the user's own
ratings (``agenttest rate``), counted per kind by ``agenttest.rating.judge_calibration``
and handed to the judge (``get_judge("openvino", calibration=...)``). A kind is
calibrated when, over the attempts whose verdict rests on this judge's decision of that
kind, a person rated at least ``MIN_RATED``, at least ``MIN_EACH`` of them PASS and
``MIN_EACH`` FAIL (a κ over one label says nothing), and κ ≥ ``KAPPA_THRESHOLD``.

A kind that is not calibrated is still judged: the procedure's verdict is written into the
evidence ("the procedure said PASS: ...") for the person and for calibration, but the
result is ``UNDECIDED`` and the criterion stays ungraded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agenttest.results import KAPPA_THRESHOLD, MIN_CALIBRATION_SAMPLES

MIN_RATED = MIN_CALIBRATION_SAMPLES  # 20, the methodology's sample
MIN_EACH = 5  # of each human verdict
RATE_HINT = "agenttest rate --for-calibration"


@dataclass(frozen=True)
class KindCalibration:
    """A judge's agreement with people on one kind: the evidence its verdicts count on."""

    kind: str
    rated: int = 0  # attempts resting on this kind's verdict that a person rated
    human_pass: int = 0
    human_fail: int = 0
    kappa: float | None = None
    low: float | None = None
    high: float | None = None
    sources: tuple[str, ...] = ()  # the run files the ratings are in

    @property
    def calibrated(self) -> bool:
        return (
            self.rated >= MIN_RATED
            and min(self.human_pass, self.human_fail) >= MIN_EACH
            and self.kappa is not None
            and self.kappa >= KAPPA_THRESHOLD
        )

    def _kappa_text(self) -> str:
        if self.kappa is None:
            return "κ undefined"
        interval = (
            f" [{self.low:.2f}, {self.high:.2f}]"
            if self.low is not None and self.high is not None
            else ""
        )
        return f"κ {self.kappa:.2f}{interval}"

    def evidence(self) -> str:
        """What the judge's verdicts of this kind count on (or why they do not)."""
        tally = (
            f"{self.rated} attempt(s) rated by a person ({self.human_pass} PASS, "
            f"{self.human_fail} FAIL), {self._kappa_text()}"
        )
        if self.calibrated:
            names = ", ".join(Path(source).name for source in self.sources)
            where = f" in {names}" if names else ""
            return f"judge calibrated for `{self.kind}` on {tally}{where}"
        if self.rated < MIN_RATED:
            return (
                f"judge not calibrated for `{self.kind}`: rate {MIN_RATED - self.rated} "
                f"attempt(s) ({RATE_HINT}); so far {tally}"
            )
        if min(self.human_pass, self.human_fail) < MIN_EACH:
            return (
                f"judge not calibrated for `{self.kind}`: needs at least {MIN_EACH} PASS and "
                f"{MIN_EACH} FAIL ratings ({RATE_HINT}); so far {tally}"
            )
        return (
            f"judge not calibrated for `{self.kind}`: {self._kappa_text()} is below "
            f"{KAPPA_THRESHOLD} over {self.rated} rated attempt(s); its verdicts do not count"
        )


def uncalibrated(kind: str) -> str:
    """The message for a kind nobody has rated: what to do about it."""
    return f"judge not calibrated for `{kind}`: rate {MIN_RATED} attempts ({RATE_HINT})"


def held_back(kind: str, calibration: Mapping[str, KindCalibration] | None) -> tuple[bool, str]:
    """(counts, why): whether the judge's verdict on ``kind`` counts, and on what evidence."""
    found = (calibration or {}).get(kind)
    if found is None:
        return False, uncalibrated(kind)
    return found.calibrated, found.evidence()
