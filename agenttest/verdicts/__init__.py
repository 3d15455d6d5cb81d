"""Which verdict counts: the rules reporting, rating and the runner share (issue 12, class 10).

This package sits on the records' floor (it needs only :mod:`agenttest.stats`), so the
runner, ``report`` and ``rate``/``agreement`` all import it downwards:

* :func:`block_rule` and :class:`Rate` — a block's pass rate and the rule that decides the
  block from it. ``report`` (blocks, JUnit, reference calibration, parameterised cases) and
  the runner's ``--until-decided`` (``runner/_decide.py``) call the same function.
* :func:`is_retry` — a later attempt record for the same (run id, test id, run number)
  supersedes the earlier one only when it is another attempt (another ``started_at``); the
  same attempt again (a copy of the file merged with its original) supersedes nothing and
  keeps its grades.
* :func:`is_stale` — a grade whose ``attempt_started_at`` names another attempt than the
  current one is stale and left out.
* :func:`kappa_interval` — the one bootstrap rule for agreement intervals: the shared items
  in key order, ``random.Random(BOOTSTRAP_SEED)``, ``max(200, min(n_boot, 20 000 000 // n))``
  percentile-bootstrap replicates of Cohen's κ, no interval above 20 000 shared items (κ's
  sampling error is negligible there and the resampling would dominate the report).
* :func:`counted_verdict` — the verdict a reader counts, with or without ``--strict``: a
  record carries the methodology verdict in ``verdict`` and, beside it, the agenttest-origin
  criteria that failed without counting (``strict_warnings``, docs/grading.md "Which
  criteria count"). :class:`TrustCounts` gathers what the report shows about them.

Library only (no CLI imports).
"""

from __future__ import annotations

from ._block import BLOCK_PASS_THRESHOLD, ZERO_TOLERANCE_TIERS, Rate, block_rule
from ._counted import counted_verdict, is_retry, is_stale, strict_failures
from ._kappa import BOOTSTRAP_REPLICATES, BOOTSTRAP_SEED, kappa_interval
from ._trust import TrustAttempt, TrustCounts, TrustSummary

__all__ = [
    "BLOCK_PASS_THRESHOLD",
    "BOOTSTRAP_REPLICATES",
    "BOOTSTRAP_SEED",
    "ZERO_TOLERANCE_TIERS",
    "Rate",
    "TrustAttempt",
    "TrustCounts",
    "TrustSummary",
    "block_rule",
    "counted_verdict",
    "is_retry",
    "is_stale",
    "kappa_interval",
    "strict_failures",
]
