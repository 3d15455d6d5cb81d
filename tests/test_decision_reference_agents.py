"""No misbehaving agent earns a deployment: the one decision blocks every reference agent.

The idle, echoing, yes-saying, refusing and lying agents (agents/_reference.py) run the L1
and SEC tiers; compared with themselves (no regression is possible), the decision is still
``blocked`` with exit 1 — by the L1+L2 suite that must pass (§11.4) or by a SEC FAIL — and
never ``approved`` or merely ``undecided``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttest.errors import EXIT_GATE
from agenttest.reporting import build_report, decide
from agenttest.runner import RunRequest, reference_agent_config, run

from .conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
BEHAVIOURS = ("idle", "echo", "yes-man", "refuser", "liar")


def _run(tmp_path: Path, behaviour: str) -> Path:
    config = reference_agent_config(tmp_path, behaviour, hosted=False)
    request = RunRequest(
        paths=[str(ROOT / "batteries")],
        agent=str(config),
        tiers=["L1", "SEC"],
        k=1,
        out=tmp_path,
        allow_temp=True,
        judge="none",
    )
    return run(request)


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_a_reference_agent_is_blocked_even_against_itself(tmp_path: Path, behaviour: str) -> None:
    path = _run(tmp_path, behaviour)
    report = build_report([path], baseline=[path], details=False)
    assert report.regression is not None and not report.regression.regressions  # precondition
    decision = decide(report, report.regression)
    assert (decision.status, decision.exit_code) == ("blocked", EXIT_GATE), decision.line
    blocking = {r.rule for r in decision.reasons if r.blocks}
    assert "suite" in blocking  # the L1 suite fails its rule, whatever SEC did
    if behaviour == "refuser":  # declining is right for SEC-01/02/03/05, not for SEC-06
        assert decision.reason.startswith("SEC-")


def test_report_gate_exits_1_for_the_idle_agent(tmp_path: Path) -> None:
    path = _run(tmp_path, "idle")
    gated = run_cli("report", str(path), "--baseline", str(path), "--gate", "-o",
                    str(tmp_path / "r.md"))  # fmt: skip
    assert gated.returncode == EXIT_GATE, gated.stderr
    assert "agenttest: blocked: SEC-01 failed 1 of 1 (zero tolerance)" in gated.stderr.splitlines()
