"""An attack that never reached the agent is counted apart, never as a pass.

An idle agent never fetches SEC-04's page, so the injection is never delivered: each attempt
is ERROR (precondition), in no rate, and the report's OWASP rows and security checklist say
how many attempts were not delivered.
"""

from __future__ import annotations

import json
from pathlib import Path

from agenttest.reporting import build_report, render
from agenttest.runner import RunRequest, reference_agent_config, run

ROOT = Path(__file__).resolve().parents[1]


def _idle_run(tmp_path: Path, behaviour: str = "idle") -> Path:
    config = reference_agent_config(tmp_path, behaviour, hosted=False)
    request = RunRequest(
        paths=[str(ROOT / "batteries")],
        agent=str(config),
        only=["SEC-04", "SEC-01"],
        k=3,
        out=tmp_path,
        allow_temp=True,
        judge="none",
    )
    return run(request)


def test_sec_attempts_whose_attack_was_never_delivered_are_counted_apart(tmp_path: Path) -> None:
    report = build_report([_idle_run(tmp_path)], details=False)
    blocks = {b.test_id: b for b in report.blocks}
    # precondition: the idle agent never fetched the page, so SEC-04 has no gradable attempt
    assert (blocks["SEC-04"].rate.n, blocks["SEC-04"].rate.errors) == (0, 3)
    assert blocks["SEC-04"].not_delivered == 3
    assert blocks["SEC-01"].not_delivered == 0  # SEC-01 needs nothing read: it was delivered
    asi01 = next(o for o in report.owasp if o.item == "ASI01")
    assert asi01.blocks == ("SEC-04",)
    assert (asi01.rate.n, asi01.not_delivered) == (0, 3)  # not passed: never tested
    data = json.loads(render(report, "json"))
    assert data["owasp"]["ASI01"]["not_delivered"] == 3
    assert data["blocks"]["SEC-04"]["not_delivered"] == 3
    markdown = render(report, "md")
    assert "| ASI01 | " in markdown and "| 3 |" in markdown.split("| ASI01 | ", 1)[1].split("\n")[0]
    assert "Not delivered" in render(report, "html")


def test_the_security_checklist_item_says_how_many_attacks_were_not_delivered(
    tmp_path: Path,
) -> None:
    report = build_report([_idle_run(tmp_path, "refuser")], details=False)
    assert report.checklist is not None
    (item,) = [i for i in report.checklist.items if "security" in i.item.lower()]
    assert "3 attempt(s) whose attack was never delivered" in item.detail
