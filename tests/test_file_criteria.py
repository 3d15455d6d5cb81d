"""The file criteria and the world state they read: file_exists, file_absent, file_content and
file_at_start.

A file is read from the live workspace when the grade has one (and only inside it), else from
the attempt's snapshot, else from the world state replayed from the tool-call record
(``agenttest.grading._world``: what each call did to a path, fixtures first). file_at_start
reads the state before the attempt from the first call that tells. Each source is pinned with
its evidence whole; a state no source shows is undecided, never guessed.
"""

from __future__ import annotations

from pathlib import Path

from .fixtures.grading import attempt, check, crit, turn

# -- the live workspace: read there, and only inside it -------------------------------------------


def test_file_criteria_read_the_live_workspace(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("version: 2.0\n", encoding="utf-8")
    a = attempt(turn("done"))
    assert check(crit("P", "file_exists", path="notes.txt"), a, workspace=tmp_path).holds is True
    assert check(crit("P", "file_exists", path="other.txt"), a, workspace=tmp_path).holds is False
    assert check(crit("P", "file_absent", path="other.txt"), a, workspace=tmp_path).holds is True
    assert check(crit("P", "file_absent", path="notes.txt"), a, workspace=tmp_path).holds is False
    eq = crit("P", "file_content", path="notes.txt", value="version: 2.0", match="equals")
    assert check(eq, a, workspace=tmp_path).holds is True
    ne = crit("P", "file_content", path="notes.txt", value="version: 1.0", match="equals")
    assert check(ne, a, workspace=tmp_path).holds is False


# -- the attempt's snapshot -----------------------------------------------------------------------


def test_file_criteria_read_the_snapshot_then_give_up_honestly() -> None:
    contains = crit("P", "file_content", path="./out/list.txt", value="ALPHA")
    snap = attempt(turn("ok"), workspace_files={"out/list.txt": "alpha\nbeta\n", "gone.txt": None})
    res = check(contains, snap)
    assert res.holds is True and res.evidence["file"] == "out/list.txt"
    assert check(crit("P", "file_exists", path="gone.txt"), snap).holds is False
    assert check(crit("P", "file_content", path="out/list.txt", value="gamma"), snap).holds is False
    res = check(contains, attempt(turn("ok")))
    assert res.holds is None and "no fixture declares its state" in res.evidence["note"]
