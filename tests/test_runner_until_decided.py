"""`--until-decided` in whole runs against a loopback agent: decided blocks stop early, the
run file says what was skipped and why, the report labels curtailed rates, resume agrees."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from agenttest.reporting import build_report, render
from agenttest.results import Attempt, iter_records
from agenttest.runner import RunRequest, run

from ._run_file import end_of, meta_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, run_config

BLOCK = """\
id: {id}
tier: {tier}
category: TEST
title: a test block
capability: answers
turns: ["{id} hello"]
k: 5
criteria:
  pass:
    - {{id: P1, tag: KEYWORD, type: response_contains, values: [{word}], says: it says {word}}}
"""


def battery(folder: Path) -> Path:
    """The loopback agent echoes: `echo` always passes, `nope` always fails."""
    folder.mkdir(parents=True, exist_ok=True)
    for block_id, tier, word in (
        ("L1-PASS-01", "L1", "echo"),
        ("L1-FAIL-01", "L1", "nope"),
        ("SEC-FAIL-01", "SEC", "nope"),
    ):
        text = BLOCK.format(id=block_id, tier=tier, word=word)
        (folder / f"{block_id}.yaml").write_text(text, encoding="utf-8")
    return folder


def start(tmp_path: Path, url: str, *, until_decided: bool) -> Path:
    agent = tmp_path / "agent.yaml"
    agent.write_text(agent_yaml(url), encoding="utf-8")
    folder = battery(tmp_path / "battery")
    out = tmp_path / f"out-{until_decided}"
    return Path(
        run_config(tmp_path, folder, agent, out=out, judge="none", until_decided=until_decided)
    )


def attempts(path: Path) -> list[Attempt]:
    return [r for r in iter_records(path) if isinstance(r, Attempt)]


def test_decided_blocks_stop_and_the_decisions_match_fixed_k(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour()) as agent:
        fixed = start(tmp_path, agent.url, until_decided=False)
        early = start(tmp_path, agent.url, until_decided=True)
    per_block = Counter(a.test_id for a in attempts(early))
    assert Counter(a.test_id for a in attempts(fixed)) == {
        "L1-PASS-01": 5, "L1-FAIL-01": 5, "SEC-FAIL-01": 5
    }  # fmt: skip
    # SEC: the first FAIL decides; >= 80%: the second; PASS only after all 5
    assert per_block == {"L1-PASS-01": 5, "L1-FAIL-01": 2, "SEC-FAIL-01": 1}
    notes = {a.test_id: a.decided for a in attempts(early) if a.decided is not None}
    assert set(notes) == {"L1-FAIL-01", "SEC-FAIL-01"}
    assert notes["SEC-FAIL-01"] is not None
    assert notes["SEC-FAIL-01"].skipped == [2, 3, 4, 5]
    assert notes["L1-FAIL-01"] is not None
    assert notes["L1-FAIL-01"].after == 2 and notes["L1-FAIL-01"].skipped == [3, 4, 5]
    assert notes["L1-FAIL-01"].passed is False and "FAIL" in (notes["L1-FAIL-01"].reason or "")
    records = list(iter_records(early))
    selection = meta_of(records).selection
    assert selection is not None and selection.until_decided is True
    assert end_of(records).attempts["skipped_as_decided"] == 7
    # the report decides every block as the fixed-k run did, and says which were curtailed
    a, b = build_report([fixed]), build_report([early])
    assert {x.test_id: x.rule_passed for x in a.blocks} == {
        x.test_id: x.rule_passed for x in b.blocks
    }
    assert b.integrity.missing == 0 and a.integrity.missing == 0
    curtailed = {x.test_id: (x.decided_after, x.k) for x in b.blocks if x.decided_after}
    assert curtailed == {"L1-FAIL-01": (2, 5), "SEC-FAIL-01": (1, 5)}
    assert all(x.decided_after is None for x in a.blocks)
    md = render(b, "md")
    assert "decided after 2 of 5" in md and "early stopping biases" in md
    assert "decided after" not in render(a, "md")
    assert render(b, "json").count('"decided_after": 2') == 1


def test_resume_keeps_until_decided_and_runs_nothing_decided(tmp_path: Path) -> None:
    with LoopbackAgent(Behaviour()) as agent:
        early = start(tmp_path, agent.url, until_decided=True)
        before = len(attempts(early))
        # drop the run_end and the last records as a kill would: SEC decided, rest open
        lines = early.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [ln for ln in lines if '"run_end"' not in ln][:4]  # meta + 3 attempts (round 1)
        early.write_text("".join(kept), encoding="utf-8")
        assert len(attempts(early)) == 3
        run(RunRequest(resume=early, allow_temp=True, quiet=True, judge="none"))
    per_block = Counter(a.test_id for a in attempts(early))
    assert per_block == {"L1-PASS-01": 5, "L1-FAIL-01": 2, "SEC-FAIL-01": 1}
    assert len(attempts(early)) == before


def test_a_pool_of_two_decides_every_block_as_one_agent_does(tmp_path: Path) -> None:
    # Which attempts a pool still has in flight when a block is decided depends on the
    # replicas' pace, so only what cannot depend on it is asserted: the decisions, a note
    # on the attempt that decided each curtailed block, nothing run past k.
    with LoopbackAgent(Behaviour()) as one, LoopbackAgent(Behaviour()) as two:
        config = json.loads(agent_yaml(one.url))
        config["replicas"] = [{"base_url": one.url}, {"base_url": two.url}]
        agent = tmp_path / "pool.yaml"
        agent.write_text(json.dumps(config), encoding="utf-8")
        folder = battery(tmp_path / "battery")
        path = Path(run_config(tmp_path, folder, agent, judge="none", until_decided=True))
    done = attempts(path)
    per_block = Counter(a.test_id for a in done)
    assert per_block["L1-PASS-01"] == 5  # PASS is never decided early
    assert per_block["L1-FAIL-01"] < 5 and per_block["SEC-FAIL-01"] < 5
    notes = {a.test_id for a in done if a.decided is not None}
    assert notes == {"L1-FAIL-01", "SEC-FAIL-01"}
    end = end_of(list(iter_records(path)))
    assert end.reason == "completed"
    assert end.attempts["skipped_as_decided"] + len(done) == 15
    decided = {x.test_id: x.rule_passed for x in build_report([path]).blocks}
    assert decided == {"L1-PASS-01": True, "L1-FAIL-01": False, "SEC-FAIL-01": False}
