"""Grading: criteria with evidence, always-FAIL rules and verdicts (SPEC §6).

The runner calls :func:`grade_attempt` after each attempt and :func:`files_of_interest`
before it (to snapshot the files that file criteria read). ``agenttest grade`` calls
:func:`regrade_run` to append new ``grade`` records to a stored run. docs/grading.md says
how each criterion type is decided, how text and numbers are normalised, and which
criteria a transcript alone cannot decide. Each grader registers itself with ``@grades``
for its type's entry in ``agenttest.blocks``; :func:`criterion_type` registers both for a
type brought by a test or a plug-in.
"""

from ._context import Check, Ctx, ev
from ._engine import GRADERS, GradeOutcome, evaluate, grade_attempt, rater_id
from ._registry import CriterionGrader, criterion_type, grades
from ._regrade import Regraded, regrade, regrade_battery, regrade_run
from ._state_criteria import files_of_interest
from ._stream_criteria import label_matches, ttft_ms

__all__ = [
    "GRADERS",
    "Check",
    "CriterionGrader",
    "Ctx",
    "GradeOutcome",
    "Regraded",
    "criterion_type",
    "ev",
    "evaluate",
    "files_of_interest",
    "grade_attempt",
    "grades",
    "label_matches",
    "rater_id",
    "regrade",
    "regrade_battery",
    "regrade_run",
    "ttft_ms",
]
