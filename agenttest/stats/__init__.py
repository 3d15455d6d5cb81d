"""Statistics for agent test results, importable without the CLI and without numpy/scipy.

Pass rates (:func:`wilson_interval`, :func:`pass_at_k`, :func:`pass_hat_k`), comparing runs
(:func:`newcombe_diff_interval`, :func:`fisher_exact`, :func:`holm_correction`), agreement
between raters (:func:`percent_agreement`, :func:`confusion_matrix`, :func:`cohen_kappa`,
:func:`bootstrap_kappa_interval`, :func:`fleiss_kappa`, :func:`krippendorff_alpha`) and
latency summaries (:func:`percentile`). See SPEC section 6. A run against its baseline over
all blocks at once, stratified by block: :func:`cmh_test` (exact Cochran–Mantel–Haenszel with
Mantel–Haenszel effect sizes). The gate's power before a night: :func:`regression_power`,
:func:`minimum_detectable_drop`, :func:`attempts_to_detect` (these import numpy when called).

Why not scipy.stats (measured 2026-12-01 on the 2-core build machine, under load): a
fresh process importing ``scipy.stats`` took 11.7 s against 0.5 s for this package, and
2 000 calls of ``scipy.stats.fisher_exact`` took 16.0 s against 0.68 s for
:func:`fisher_exact` here, with p-values equal to 1e-16 on every table tried. A report
compares every block, so both costs would land on each `report` and `compare`. The kappa
bootstrap resamples with Python's seeded RNG, so its interval is the same on every
platform without numpy. scipy stays a test dependency: ``tests/test_stats.py`` and
``tests/test_report_compare.py`` check these functions against it.
"""

from ._agreement import (
    bootstrap_kappa_interval,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from ._common import percentile
from ._power import attempts_to_detect, minimum_detectable_drop, regression_power
from ._proportions import (
    fisher_exact,
    holm_correction,
    newcombe_diff_interval,
    pass_at_k,
    pass_hat_k,
    wilson_interval,
)
from ._stratified import StratifiedTest, cmh_test

__all__ = [
    "StratifiedTest",
    "attempts_to_detect",
    "bootstrap_kappa_interval",
    "cmh_test",
    "cohen_kappa",
    "confusion_matrix",
    "fisher_exact",
    "fleiss_kappa",
    "holm_correction",
    "krippendorff_alpha",
    "minimum_detectable_drop",
    "newcombe_diff_interval",
    "pass_at_k",
    "pass_hat_k",
    "percent_agreement",
    "percentile",
    "regression_power",
    "wilson_interval",
]
