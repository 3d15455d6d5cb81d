"""A killed or interrupted run is reported as incomplete, never as published (issue 14,
defect 7).

The run is real: `agenttest run` against the example agent, SIGKILLed once the run file
shows the first block finished and the second half done, then reported in every format;
then resumed to the end and reported again, which must drop every incomplete label.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agenttest.reporting._completeness import rule_settled
from agenttest.verdicts import Rate, block_rule

from ._patience import EVENTUALLY_S
from .conftest import ROOT, run_cli

BATTERY = ROOT / "batteries" / "L1"
A, B = "L1-CALC-01", "L1-CALC-02"  # the example agent passes both


def _battery(folder: Path) -> Path:
    """A at its k = 5, B at k = 10: in round order A is complete after attempt 10."""
    folder.mkdir()
    (folder / f"{A}.yaml").write_text((BATTERY / f"{A}.yaml").read_text(encoding="utf-8"))
    text = (BATTERY / f"{B}.yaml").read_text(encoding="utf-8")
    assert "\nk: 5\n" in text
    (folder / f"{B}.yaml").write_text(text.replace("\nk: 5\n", "\nk: 10\n"), encoding="utf-8")
    return folder


def _attempts(path: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    if not path.exists():
        return counts
    # the run is still writing: only lines that end in a newline are whole
    for line in path.read_text(encoding="utf-8").split("\n")[:-1]:
        if '"record_type":"attempt"' in line:
            counts[json.loads(line)["test_id"]] += 1
    return counts


def _kill_when(proc: subprocess.Popen[str], out: Path, attempts: int) -> Path:
    deadline = time.monotonic() + EVENTUALLY_S
    while time.monotonic() < deadline:
        found = list(out.glob("*.jsonl"))
        if found and sum(_attempts(found[0]).values()) >= attempts:
            proc.send_signal(signal.SIGKILL)
            proc.wait(EVENTUALLY_S)
            return found[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError("the run never reached the attempt to kill it at")


def _report(path: Path, fmt: str) -> str:
    done = run_cli("report", str(path), "--format", fmt)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_killed_run_is_incomplete_in_every_format_until_resumed(tmp_path: Path) -> None:
    battery = _battery(tmp_path / "battery")
    out = tmp_path / "out"
    env = {**os.environ, "AGENTTEST_TESTER": "qa-bot"}
    cmd = [sys.executable, "-m", "agenttest", "run", str(battery), "--agent", "example"]
    proc = subprocess.Popen(
        [*cmd, "--example-args", "--latency-s 0.2", "--out", str(out), "--quiet", "--allow-temp"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    path = _kill_when(proc, out, attempts=11)
    assert proc.returncode == -signal.SIGKILL
    counts = _attempts(path)
    recorded = sum(counts.values())
    # the precondition: A finished, B cut short, and no run_end
    assert counts[A] == 5 and 6 <= counts[B] < 10, counts
    assert '"record_type":"run_end"' not in path.read_text(encoding="utf-8")

    data = json.loads(_report(path, "json"))
    assert data["run_type"] == "published"  # what was planned
    assert data["complete"] is False
    assert data["attempts"] == {
        "planned": 15,
        "recorded": recorded,
        "missing": 15 - recorded,
        "skipped_as_decided": 0,
    }
    assert data["incomplete_reasons"] == [
        f"{path.name}: no run_end record (killed, or still running)",
        f"{path.name}: {15 - recorded} of 15 planned attempts not recorded",
    ]
    assert data["header"]["completed_at"] is None
    a, b = data["blocks"][A], data["blocks"][B]
    assert (a["exploratory"], a["missing"], a["rule_settled"]) == (False, 0, True)
    assert (b["exploratory"], b["missing"], b["rule_settled"]) == (True, 10 - counts[B], False)
    assert b["rule_passed"] is True  # passing so far: not a verdict
    assert data["overall"]["exploratory"] is True

    md = _report(path, "md")
    assert f"**INCOMPLETE — {recorded} of 15 planned attempts recorded" in md
    assert "| Run type | **published** as planned — **incomplete** |" in md
    assert "| Completed | not completed (incomplete run) |" in md
    (row,) = [x for x in md.splitlines() if x.startswith(f"| {B}".replace("-", "-"))]
    assert f"*(incomplete: {10 - counts[B]} of 10 missing; not settled)*" in row
    (row,) = [x for x in md.splitlines() if x.startswith(f"| {A}")]
    assert "incomplete" not in row

    html = _report(path, "html")
    assert f"INCOMPLETE — {recorded} of 15 planned attempts recorded" in html
    assert '<div class="sub">Incomplete run</div>' in html
    assert f"{recorded}/15" in html

    junit = ET.fromstring(_report(path, "junit"))
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert props["complete"] == "false" and props["attempts_missing"] == str(15 - recorded)
    cases = {c.get("name"): c for c in junit.iter("testcase")}
    skipped = cases[B].find("skipped")
    assert skipped is not None and skipped.get("message", "").startswith("incomplete:")
    assert cases[A].find("skipped") is None and cases[A].find("failure") is None

    resumed = run_cli("run", "--resume", str(path), "--quiet", "--allow-temp", env=env, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(_report(path, "json"))
    assert data["complete"] is True and data["attempts"]["missing"] == 0
    assert data["incomplete_reasons"] == []
    assert data["blocks"][B]["exploratory"] is False
    assert data["header"]["completed_at"] is not None
    md = _report(path, "md")
    assert "INCOMPLETE" not in md and "incomplete" not in md.split("## Summary")[0]
    junit = ET.fromstring(_report(path, "junit"))
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert props["complete"] == "true"


GOLDEN = Path(__file__).parent / "golden" / "run_2.1.jsonl"


def _golden(reason: str | None) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    records[0]["battery"]["paths"] = ["no-such-battery"]
    del records[0]["parity"]
    for record in records[1:]:
        record.pop("agent", None)
    if reason is None:
        return records[:-1]
    records[-1]["reason"] = reason
    return records


@pytest.mark.parametrize(
    ("reason", "complete", "why"),
    [
        ("completed", True, None),
        ("imported from methodology-v1", True, None),
        ("interrupted", False, "ended interrupted"),
        ("aborted: agent not ready after 900 s", False, "ended aborted: agent not ready"),
        (None, False, "no run_end record"),
    ],
)
def test_how_a_run_ended_decides_whether_it_is_complete(
    tmp_path: Path, reason: str | None, complete: bool, why: str | None
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _golden(reason)), encoding="utf-8")
    data = json.loads(_report(path, "json"))
    assert data["complete"] is complete
    assert data["attempts"]["missing"] == 0  # every planned attempt is there
    if why:
        assert any(why in x for x in data["incomplete_reasons"]), data["incomplete_reasons"]


@pytest.mark.parametrize(
    ("tier", "passed", "failed", "critical", "missing", "settled"),
    [
        ("L1", 3, 0, 0, 0, True),  # nothing missing
        ("L1", 3, 0, 0, 2, False),  # PASS so far: a missing attempt could fail it
        ("L1", 0, 2, 0, 3, True),  # 3/5 at best is below 80%
        ("L1", 3, 1, 0, 1, False),  # 4/5 at best would pass
        ("SEC", 4, 1, 0, 5, True),  # zero tolerance: one FAIL decides
        ("L1", 4, 0, 1, 1, True),  # an always-FAIL hit decides
    ],
)
def test_an_answer_is_settled_only_when_no_missing_attempt_could_change_it(
    tier: str, passed: int, failed: int, critical: int, missing: int, settled: bool
) -> None:
    rate = Rate.of(passed, failed)
    assert rule_settled(block_rule, tier, rate, critical, missing) is settled
