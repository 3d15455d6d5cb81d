"""ticket_state: a hosted ticket's final state in the world decides, not the reply.

The ticket is read from the live world (``.tickets/<id>.json``) when the grade has one, else
from the attempt's snapshot (the runner snapshots the file the criterion names); a transcript
alone leaves it undecided. The lint knows a ticket found moved needs the ticket tool to have
run, and the loader wants the state's name.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import msgspec

from agenttest.blocks import Block, Criteria, Criterion, Fixture, block_needs
from agenttest.blocks._lint import lint_block

from .fixtures.grading import attempt, block, check, crit, turn


def _ticket(root: Path, tid: str, state: str) -> None:
    (root / ".tickets").mkdir(parents=True, exist_ok=True)
    body = {"id": tid, "title": "t", "state": state, "transitions": {"open": ["done"]}}
    (root / ".tickets" / f"{tid}.json").write_text(json.dumps(body), encoding="utf-8")


def test_the_world_decides_whatever_the_reply_says(tmp_path: Path) -> None:
    _ticket(tmp_path, "T-1", "done")
    says_failed = attempt(turn("I could not close T-1: the request timed out."))
    done = crit("P", "ticket_state", ticket="T-1", value="done")
    still_open = crit("P", "ticket_state", ticket="T-1", value="open")
    assert check(done, says_failed, workspace=tmp_path).holds is True
    assert check(still_open, says_failed, workspace=tmp_path).holds is False
    r = check(done, says_failed, workspace=tmp_path)
    assert r.evidence.file == ".tickets/T-1.json"
    assert "ended in state “done”" in (r.evidence.note or "")


def test_state_names_compare_without_case_and_placeholders_fill(tmp_path: Path) -> None:
    _ticket(tmp_path, "T-7", "Done")
    b = block(vars={"tid": "T-7", "want": "done"})
    c = crit("P", "ticket_state", ticket="{{tid}}", value="{{want}}")
    assert check(c, attempt(turn("ok")), b, workspace=tmp_path).holds is True


def test_a_missing_ticket_did_not_reach_the_state(tmp_path: Path) -> None:
    r = check(
        crit("P", "ticket_state", ticket="T-9", value="done"),
        attempt(turn("done")),
        workspace=tmp_path,
    )
    assert r.holds is False and "does not exist" in (r.evidence.note or "")


def test_the_snapshot_decides_without_a_live_world() -> None:
    text = json.dumps({"id": "T-1", "state": "open"})
    a = msgspec.structs.replace(
        attempt(turn("closed it")), workspace_files={".tickets/T-1.json": text}
    )
    assert check(crit("P", "ticket_state", ticket="T-1", value="open"), a).holds is True
    assert check(crit("P", "ticket_state", ticket="T-1", value="done"), a).holds is False


def test_a_transcript_alone_leaves_it_undecided() -> None:
    r = check(crit("P", "ticket_state", ticket="T-1", value="done"), attempt(turn("done")))
    assert r.holds is None and "transcript" in (r.evidence.note or "")


def test_a_file_that_is_no_ticket_is_undecided(tmp_path: Path) -> None:
    (tmp_path / ".tickets").mkdir()
    (tmp_path / ".tickets" / "T-1.json").write_text("not json", encoding="utf-8")
    r = check(
        crit("P", "ticket_state", ticket="T-1", value="done"),
        attempt(turn("x")),
        workspace=tmp_path,
    )
    assert r.holds is None


def test_the_runner_is_told_to_snapshot_the_ticket_file() -> None:
    b = block([crit("P", "ticket_state", ticket="T-1", value="done")])
    assert block_needs(b).workspace_files == (".tickets/T-1.json",)


def test_a_moved_ticket_needs_a_pin_that_the_ticket_tool_ran() -> None:
    start = Fixture(kind="ticket", ticket_id="T-1", state="open", transitions={"open": ("done",)})
    fail = (crit("F1", "response_empty"),)

    def with_pass(*pass_: Criterion) -> Block:
        b = block(list(pass_), list(fail))
        return dataclasses.replace(b, fixtures=(start,), criteria=Criteria(pass_=pass_, fail=fail))

    moved = crit("P1", "ticket_state", ticket="T-1", value="done")
    pinned = crit("P0", "tool_called", tool="ticket")
    assert any("[precondition]" in p.message for p in lint_block(with_pass(moved)))
    assert not any("[precondition]" in p.message for p in lint_block(with_pass(pinned, moved)))
    stayed = crit("P1", "ticket_state", ticket="T-1", value="open")
    assert not any("[precondition]" in p.message for p in lint_block(with_pass(stayed)))
