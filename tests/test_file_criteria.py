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
from typing import Any, cast

from agenttest.grading import _world as world
from agenttest.grading import files_of_interest, grade_attempt
from agenttest.grading._context import Ctx
from agenttest.results import ToolCall

from .fixtures.grading import attempt, block, call, check, crit, turn

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


def test_the_live_workspace_decides_a_file_criterion(tmp_path: Any) -> None:
    b = block([crit("P1", "file_exists", path="a.txt")])
    (tmp_path / "a.txt").write_text("x", "utf-8")
    out = grade_attempt(b, attempt(turn("ok")), workspace=tmp_path)
    assert out.verdict == "PASS"
    assert out.criteria[0]["evidence"]["note"] == f"exists (live workspace {tmp_path})"


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


# -- what one call did to a path ------------------------------------------------------------------


def _effect(ctx: Ctx, c: dict[str, Any], rel: str) -> Any:
    return world.effect(ctx, cast(ToolCall, c), rel)


def _shell(command: str, ok: bool | None = True) -> Any:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    return _effect(ctx, call("bash", ok=ok, command=command), "notes/a.txt")


def test_a_shell_command_changes_a_file_only_by_what_it_runs() -> None:
    assert _shell("cat notes/b.txt") is None  # does not name it
    assert _shell("cat notes/a.txt") is None  # a read
    assert _shell("ls notes | grep a.txt") is None  # reads only, through a pipe
    assert _shell("ls a.txt;") is None  # an empty part after `;` is no program
    assert _shell("cat a.txt 2>&1") is None  # a descriptor copy writes no file
    assert _shell("cat a.txt > /dev/null") is None
    assert _shell("rm notes/a.txt", ok=False) == (
        world.NO_CHANGE,
        "a shell command naming it failed: changed nothing",
    )
    wrote = (world.Present(None), "a successful shell command wrote it (redirection)")
    assert _shell("echo hi > notes/a.txt") == wrote
    assert _shell("echo hi >> 'notes/a.txt'") == wrote
    for command in (
        "echo hi > notes/a.txt && rm notes/a.txt",  # the redirection and then a delete
        "echo hi > other.txt; cat a.txt",  # writes, but another file
        "ls a.txt || mv a.txt b.txt",
        "cp x notes/a.txt",
    ):
        unknown = world.Unknown(f"a shell command may have changed notes/a.txt: {command!r}")
        assert _shell(command) == (unknown, "shell"), command
    # outcome unknown: even a plain redirection may not have run
    assert _shell("echo hi > notes/a.txt", ok=None)[1] == "shell"
    # what reads only is a closed list: every one of its programs, and no more
    readers = "; ".join(f"{p} a.txt" for p in sorted(world.READ_ONLY_PROGRAMS))
    assert _shell(readers) is None
    assert _shell(readers + "; touch a.txt")[1] == "shell"
    # a redirection followed by a move or an unlink leaves it unknown, not written
    assert _shell("echo hi > notes/a.txt && mv notes/a.txt b")[1] == "shell"
    assert _shell("echo hi > notes/a.txt; unlink notes/a.txt")[1] == "shell"


def test_a_shell_command_is_read_from_command_cmd_or_script() -> None:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    wrote = (world.Present(None), "a successful shell command wrote it (redirection)")
    for key in ("command", "cmd", "script"):
        bash = {"name": "bash", "arguments": {key: "echo x > notes/a.txt"}, "ok": True}
        assert _effect(ctx, bash, "notes/a.txt") == wrote
    assert _effect(ctx, call("bash", program="echo x > notes/a.txt"), "notes/a.txt") is None


def test_a_shell_command_with_no_file_name_to_look_for_touches_nothing() -> None:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    assert _effect(ctx, call("bash", ok=False, command="rm -rf x"), "") is None


def test_a_move_into_a_folder_lands_under_the_source_name() -> None:
    ctx = Ctx(block(tools={"file_move": ["mv"]}), attempt(turn("ok")))
    into = call("mv", path="inbox/a.txt", destination="notes")
    assert _effect(ctx, into, "notes/a.txt") == (
        world.Present(None),
        "mv moved a file here",
    )
    assert _effect(ctx, into, "inbox/a.txt") == (world.Absent, "mv moved it away")
    # without a source there is no name to land under: the folder itself only
    nameless = call("mv", destination="notes")
    assert _effect(ctx, nameless, "notes/a.txt") is None
    assert _effect(ctx, nameless, "notes") == (world.Present(None), "mv moved a file here")


def test_a_state_is_described_in_words() -> None:
    assert world.describe(world.Unknown("the trace is partial")) == "the trace is partial"
    assert world.describe(world.Absent) == "absent"
    assert world.describe(world.Present(None)) == "exists"
    assert world.describe(world.Present("")) == "exists"


# -- the files a run snapshots --------------------------------------------------------------------


def test_files_of_interest_are_the_file_criteria_paths_filled_and_once_each() -> None:
    nested = crit(
        "P2",
        "any_of",
        of=[crit("A", "file_absent", path="out/{{name}}.txt"), crit("B", "status")],
    )
    b = block(
        [crit("P1", "file_exists", path=" out/{{name}}.txt "), nested],
        [
            crit("F1", "file_content", path="log.txt", value="x"),
            crit("F2", "response_contains", values=["log.txt"]),
            crit("F3", "status", value="completed", path="not/a/file/criterion.txt"),
        ],
        vars={"name": "report"},
    )
    assert files_of_interest(b) == ["out/report.txt", "log.txt"]
