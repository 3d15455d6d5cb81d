"""The calibration gate: which kinds of JUDGE criterion the judge may decide unaided.

The rule (issue 17, docs/judges.md "Calibration"): a kind is decided by the judge only when
its Cohen's κ on the *held-out* part of blind-labelled calibration data, over the rows it
decided, is at least ``GATE_KAPPA``. Below the gate the judge still runs the kind's
procedure and writes what it found into the evidence (a hint for the human), but returns
``UNDECIDED``: the criterion stays ungraded and the attempt goes to ``agenttest rate``.

``HELDOUT_KAPPA`` holds the measured values, copied from
``python benchmarks/judge_typed_calibration.py`` (which scores the procedures ungated).
They change only when that benchmark is re-run on new data; never to let a kind through.
"""

from __future__ import annotations

GATE_KAPPA = 0.6

#: Held-out κ on decided rows per kind (agenttest/data/judge_typed/calibration.jsonl).
HELDOUT_KAPPA: dict[str, float] = {"act": 1.00, "covers": 0.70, "consistent": 0.43}


def gate_reason(kind: str) -> str | None:
    """Why the judge must not decide ``kind`` unaided, or None when it may."""
    kappa = HELDOUT_KAPPA.get(kind)
    if kappa is None:
        return "no held-out calibration for this kind"
    if kappa < GATE_KAPPA:
        return (
            f"left to a human, the judge's held-out κ {kappa:.2f} is below "
            f"the {GATE_KAPPA} calibration gate"
        )
    return None
