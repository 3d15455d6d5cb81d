"""Human rating and rater agreement.

* :func:`rate_run` — blind human rating of a run's attempts (``agenttest rate``): appends
  ``grade`` records with rater ``human:NAME``; resumable; seeded sampling.
* :func:`rater_agreement` — agreement between every pair of raters over the same
  attempts (percent agreement, Cohen's κ with a bootstrap interval, confusion matrix;
  Fleiss' κ and Krippendorff's α for more than two raters) and which judges are
  calibrated against humans (κ ≥ 0.6 on ≥ 20 shared attempts). Returns an
  :class:`AgreementReport`; ``format_agreement`` renders it, ``to_dict()`` is its JSON.
* :func:`judge_calibration` — a judge's calibration per kind of JUDGE criterion from the
  people's ratings (what ``get_judge(..., calibration=)`` counts its verdicts on), and
  ``rate_run(..., for_calibration=True)`` shows the attempts that calibrate fastest.
"""

from agenttest.results import KAPPA_THRESHOLD, rater_kind

from ._agreement import (
    MIN_SAMPLES,
    AgreementReport,
    PairAgreement,
    RaterSummary,
    format_agreement,
    rater_agreement,
)
from ._calibration import judge_calibration
from ._coverage import Coverage, judge_coverage, judged
from ._rate import RateSummary, human_rater, rate_run, render_attempt, stdin_answers

__all__ = [
    "KAPPA_THRESHOLD",
    "MIN_SAMPLES",
    "AgreementReport",
    "Coverage",
    "PairAgreement",
    "RateSummary",
    "RaterSummary",
    "format_agreement",
    "human_rater",
    "judge_calibration",
    "judge_coverage",
    "judged",
    "rate_run",
    "rater_agreement",
    "rater_kind",
    "render_attempt",
    "stdin_answers",
]
