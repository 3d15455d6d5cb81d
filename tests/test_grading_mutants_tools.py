"""Tests written for the survivors of a mutation run of the tool, trace, state, world,
grounding, context and rules criteria of ``agenttest.grading`` (issue 13).

``tools/mutation.py grading`` selects every ``tests/test_grading_mutants*.py``; this file
exists from the start of the run so that adding tests to it does not change the selection
(mutmut forgets its results when the selection changes).
"""

from __future__ import annotations
