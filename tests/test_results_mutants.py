"""Tests that kill mutants of ``agenttest/results`` no other test noticed (issue 13).

Found by ``python tools/mutation.py results``.
"""

from __future__ import annotations
