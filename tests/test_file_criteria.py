"""The file criteria and the world state they read: file_exists, file_absent, file_content and
file_at_start.

A file is read from the live workspace when the grade has one (and only inside it), else from
the attempt's snapshot, else from the world state replayed from the tool-call record
(``agenttest.grading._world``: what each call did to a path, fixtures first). file_at_start
reads the state before the attempt from the first call that tells. Each source is pinned with
its evidence whole; a state no source shows is undecided, never guessed.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agenttest.blocks import Criterion, Fixture
from agenttest.grading import Ctx, files_of_interest, grade_attempt
from agenttest.grading import _world as world
from agenttest.results import Attempt, ToolCall, TurnRecord

from .fixtures.grading import Seen, attempt, block, call, check, crit, got, turn

FILE_TOOLS = {
    "file_write": ["write_file"],
    "file_delete": ["delete_file"],
    "file_move": ["mv"],
    "file_patch": ["patch"],
    "shell": ["bash"],
    "file_read": ["read_file"],
}


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
    assert out.criteria[0].evidence is not None
    assert out.criteria[0].evidence.note == f"exists (live workspace {tmp_path})"


def evaluate_in(c: Criterion, a: Attempt, workspace: Path) -> Seen:
    r = check(c, a, workspace=workspace)
    return r.holds, msgspec.to_builtins(r.evidence)


def test_file_criteria_read_the_live_workspace_and_only_inside_it(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "f.txt").write_text("héllo\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"a\xffb")
    live = f"live workspace {tmp_path.resolve()}"
    ok = attempt(turn("ok"), workspace_files={"f.txt": "not this"})  # the live one wins

    def both(path: str) -> tuple[Seen, Seen]:
        return (
            evaluate_in(crit("P", "file_exists", path=path), ok, tmp_path),
            evaluate_in(crit("P", "file_content", path=path, value="b"), ok, tmp_path),
        )

    assert both("f.txt") == (
        (True, {"file": "f.txt", "note": f"exists ({live})"}),
        (False, {"file": "f.txt", "text": "héllo", "note": f"contains “b” ({live})"}),
    )
    assert both("sub") == (
        (True, {"file": "sub", "note": f"exists (directory in the {live})"}),
        (False, {"file": "sub", "text": "", "note": f"contains “b” (directory in the {live})"}),
    )
    assert both("nope.txt") == (
        (False, {"file": "nope.txt", "note": f"absent ({live})"}),
        (
            False,
            {"file": "nope.txt", "note": f"precondition unmet: the file does not exist ({live})"},
        ),
    )
    outside = {"file": "../x", "note": "../x lies outside the workspace; not read"}
    assert both("../x") == ((None, outside), (None, outside))
    # bytes that are not UTF-8 are read, replaced
    assert both("bad.txt")[1] == (
        True,
        {"file": "bad.txt", "text": "a\ufffdb", "note": f"contains “b” ({live})"},
    )


_READ_UNDER_ASCII = """
import sys
from pathlib import Path
from agenttest.grading._context import Ctx
from agenttest.grading._state_criteria import file_content
from tests.fixtures.grading import attempt, block, crit, turn
c = crit("P", "file_content", path="f.txt", value="x")
print(ascii(file_content(Ctx(block(), attempt(turn("ok")), workspace=Path(sys.argv[1])), c)
            .evidence.text))
"""


def test_a_live_file_is_read_as_utf8_under_any_locale(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("héllo", encoding="utf-8")
    # the C locale without Python's UTF-8 mode: the locale's encoding is ASCII
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    shown = subprocess.run(
        [sys.executable, "-c", _READ_UNDER_ASCII, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert shown == ascii("héllo")


# -- the attempt's snapshot -----------------------------------------------------------------------


def test_file_criteria_read_the_snapshot_then_give_up_honestly() -> None:
    contains = crit("P", "file_content", path="./out/list.txt", value="ALPHA")
    snap = attempt(turn("ok"), workspace_files={"out/list.txt": "alpha\nbeta\n", "gone.txt": None})
    res = check(contains, snap)
    assert res.holds is True and res.evidence.file == "out/list.txt"
    assert check(crit("P", "file_exists", path="gone.txt"), snap).holds is False
    assert check(crit("P", "file_content", path="out/list.txt", value="gamma"), snap).holds is False
    res = check(contains, attempt(turn("ok")))
    assert res.holds is None and "no fixture declares its state" in (res.evidence.note or "")


SNAPSHOT = attempt(
    turn("ok"),
    workspace_files={
        " ./out/list.txt": "Alpha\r\nBeta 1.234,5\r\n",
        "gone.txt": None,
        "x": "İSTANBUL",
    },
)
IN_SNAPSHOT = "(workspace snapshot in the attempt record)"


@pytest.mark.parametrize(
    ("kw", "holds"),
    [
        ({"value": "Alpha\nBeta 1.234,5", "match": "equals"}, True),  # line ends, outer blanks
        ({"value": "Alpha", "match": "equals"}, False),
        ({"value": "^Beta", "match": "regex"}, True),  # a line start, not only the text's
        ({"value": "^eta", "match": "regex"}, False),
        ({"value": "1234.5", "match": "number"}, True),
        ({"value": 1234, "match": "number", "tolerance": 0.5}, True),
        ({"value": 1234, "match": "number", "tolerance": 0.4}, False),
        ({"value": "abc", "match": "number"}, False),
        ({"value": "beta 1"}, True),
        ({"value": "gamma"}, False),
    ],
)
def test_file_content_matches_a_snapshot_each_way(kw: dict[str, Any], holds: bool) -> None:
    c = crit("P", "file_content", path="out/list.txt", **kw)
    match = kw.get("match", "contains")
    assert got(c, SNAPSHOT) == (
        holds,
        {
            "file": "out/list.txt",
            "text": "Alpha\nBeta 1.234,5",  # its line ends as a live read gives them
            "note": f"{match} “{kw['value']}” {IN_SNAPSHOT}",
        },
    )


def test_file_content_fills_a_number_before_it_reads_it() -> None:
    # the placeholder was read as the number itself (none) before the fix, so it never held
    c = crit("P", "file_content", path="out/list.txt", value="{{n}}", match="number")
    assert got(c, SNAPSHOT, block(vars={"n": "1234.5"})) == (
        True,
        {
            "file": "out/list.txt",
            "text": "Alpha\nBeta 1.234,5",
            "note": f"number “1234.5” {IN_SNAPSHOT}",
        },
    )
    # a float is read as itself, not through its text (1e-05 is no number in any format)
    dose = attempt(turn("ok"), workspace_files={"d.txt": "dose 0.00001"})
    c = crit("P", "file_content", path="d.txt", value=0.00001, match="number")
    assert got(c, dose) == (
        True,
        {"file": "d.txt", "text": "dose 0.00001", "note": f"number “1e-05” {IN_SNAPSHOT}"},
    )


def test_a_snapshot_tells_absent_from_not_snapshotted() -> None:
    assert got(crit("P", "file_content", path="x", value="istanbul"), SNAPSHOT) == (
        True,
        {"file": "x", "text": "İSTANBUL", "note": f"contains “istanbul” {IN_SNAPSHOT}"},
    )
    assert got(crit("P", "file_exists", path="gone.txt"), SNAPSHOT) == (
        False,
        {"file": "gone.txt", "note": f"absent {IN_SNAPSHOT}"},
    )
    assert got(crit("P", "file_content", path="gone.txt", value="a"), SNAPSHOT) == (
        False,
        {"file": "gone.txt", "note": f"precondition unmet: the file does not exist {IN_SNAPSHOT}"},
    )
    outside = "nope.txt is not in the attempt's workspace snapshot (snapshot holds 3 file(s))"
    for ctype in ("file_exists", "file_content"):
        assert got(crit("P", ctype, path="nope.txt", value="a"), SNAPSHOT) == (
            None,
            {"file": "nope.txt", "note": outside},
        )


def test_a_file_criterion_without_a_path_reads_the_workspace_folder() -> None:
    snap = attempt(turn("ok"), workspace_files={})
    missing = "0 file(s)"
    for ctype in ("file_exists", "file_content"):
        assert got(crit("P", ctype, value="x"), snap) == (
            None,
            {
                "file": ".",
                "note": f". is not in the attempt's workspace snapshot (snapshot holds {missing})",
            },
        )


#: one file with Windows and old Mac line ends, as an agent on another system writes it
MIXED_ENDS = "Alpha\r\nBeta\rGamma\r\n"


def _mixed_ends(source: str, tmp_path: Path) -> tuple[Attempt, dict[str, Any]]:
    """The attempt and the check's context that hold MIXED_ENDS at f.txt, read from source."""
    if source == "live":
        (tmp_path / "f.txt").write_bytes(MIXED_ENDS.encode())
        return attempt(turn("ok")), {"workspace": tmp_path}
    if source == "snapshot":
        return attempt(turn("ok"), workspace_files={"f.txt": MIXED_ENDS}), {}
    write = call("write_file", path="f.txt", content=MIXED_ENDS)
    return attempt(turn("ok", [write])), {"b": block(tools=FILE_TOOLS)}


@pytest.mark.parametrize("source", ["live", "snapshot", "replayed write"])
@pytest.mark.parametrize(
    ("kw", "holds"),
    [
        ({"value": "^Alpha$", "match": "regex"}, True),
        ({"value": "^Beta$", "match": "regex"}, True),  # a lone `\r` ends a line too
        ({"value": "Beta.Gamma", "match": "regex"}, False),  # `.` is no line end
        ({"value": "Alpha\nBeta\nGamma", "match": "equals"}, True),
        ({"value": "Alpha\r\nBeta\r\nGamma", "match": "equals"}, True),  # the value's too
        ({"value": "Alpha\r\nBeta\r\nGamma\r\nDelta", "match": "equals"}, False),
    ],
)
def test_file_content_reads_line_ends_alike_wherever_the_file_is_read_from(
    source: str, kw: dict[str, Any], holds: bool, tmp_path: Path
) -> None:
    # the live read gives `\n` for `\r\n` and `\r` (text mode); a snapshot or a replayed
    # write of the same bytes once kept them, so `^Alpha$` failed there and held live
    a, ctx = _mixed_ends(source, tmp_path)
    b = ctx.pop("b", None)
    r = check(crit("P", "file_content", path="f.txt", **kw), a, b, **ctx)
    assert (r.holds, r.evidence.text) == (holds, "Alpha\nBeta\nGamma")


# -- the world state replayed from the tool calls -------------------------------------------------


FIXED = dataclasses.replace(
    block(tools=FILE_TOOLS, vars={"n": "a"}, paths={"notes/a.txt": "/host/notes/a.txt"}),
    fixtures=(
        Fixture(kind="file", path="notes/a.txt", content="old\ntext"),
        Fixture(kind="absent", path="b.txt"),
        Fixture(kind="dir", path="d"),
    ),
)
WORLD = "world state from the tool-call record"


def replayed(path: str, how: str) -> str:
    return f"world state of {path} from the tool-call record ({how})"


UNTOUCHED = "no call touched it: unchanged"
WROTE = attempt(
    turn(
        "ok",
        [call("write_file", path="b.txt", content="Hello World"), call("read_file", path="b.txt")],
    ),
    turn("x", [call("delete_file", path="notes/a.txt", ok=False)]),
)
UNSURE_WRITE = attempt(turn("ok", [call("write_file", path="b.txt", ok=None)]))
UNSURE_NOTE = replayed("b.txt", "turn 1 call 0: outcome unknown") + (
    ": undecided, write_file acted on b.txt, outcome unknown"
)
DELETED = attempt(turn("ok", [call("delete_file", path="notes/a.txt")]))
_WORLD_FILES = [
    (
        crit("P", "file_exists", path="notes/{{n}}.txt"),
        attempt(turn("ok")),
        (True, f"exists ({replayed('notes/a.txt', UNTOUCHED)})"),
    ),
    (
        crit("P", "file_absent", path="b.txt"),
        attempt(turn("ok")),
        (True, f"absent ({replayed('b.txt', UNTOUCHED)})"),
    ),
    (
        crit("P", "file_exists", path="b.txt"),
        attempt(turn("ok")),
        (False, f"absent ({replayed('b.txt', UNTOUCHED)})"),
    ),
    (
        crit("P", "file_exists", path="c.txt"),
        attempt(turn("ok")),
        (
            None,
            replayed("c.txt", UNTOUCHED)
            + ": undecided, no fixture declares its state before the attempt",
        ),
    ),
    (
        crit("P", "file_exists", path="./b.txt"),
        WROTE,
        (True, f"exists ({replayed('b.txt', 'turn 1 call 0: write_file wrote it')})"),
    ),
    # a failed delete changed nothing: the fixture's file is still there
    (
        crit("P", "file_exists", path="notes/a.txt"),
        WROTE,
        (
            True,
            "exists ("
            + replayed(
                "notes/a.txt", "turn 2 call 0: delete_file failed on notes/a.txt: changed nothing"
            )
            + ")",
        ),
    ),
    (crit("P", "file_exists", path="b.txt"), UNSURE_WRITE, (None, UNSURE_NOTE)),
    (crit("P", "file_content", path="b.txt", value="x"), UNSURE_WRITE, (None, UNSURE_NOTE)),
    (
        crit("P", "file_exists", path="b.txt"),
        attempt(turn("ok", trace_partial=True)),
        (
            None,
            replayed("b.txt", "partial trace")
            + ": undecided, the trace is partial, so calls may be missing",
        ),
    ),
    (
        crit("P", "file_exists", path="b.txt"),
        attempt(turn("ok"), status="timeout"),
        (
            None,
            replayed("b.txt", "incomplete attempt") + ": undecided, the attempt did not complete",
        ),
    ),
    # run without the fixtures: the overlay's host path stands in for the fixture's
    (
        crit("P", "file_absent", path="notes/a.txt"),
        attempt(
            turn("ok", [call("delete_file", path="/host/notes/a.txt")]), fixtures_applied=False
        ),
        (
            True,
            f"absent ({replayed('/host/notes/a.txt', 'turn 1 call 0: delete_file deleted it')})",
        ),
    ),
    (
        crit("P", "file_absent", path="b.txt"),
        attempt(turn("ok"), fixtures_applied=False),
        (
            None,
            replayed("b.txt", UNTOUCHED) + ": undecided, the attempt ran without the block's "
            "fixtures, so its state before is unknown",
        ),
    ),
    (
        crit("P", "file_content", path="notes/a.txt", value="x"),
        DELETED,
        (
            False,
            "precondition unmet: the file does not exist ("
            + replayed("notes/a.txt", "turn 1 call 0: delete_file deleted it")
            + ")",
        ),
    ),
    (
        crit("P", "file_content", path="b.txt", value="x"),
        attempt(turn("ok", [call("patch", path="b.txt")])),
        (
            None,
            "the file exists, its content is not known ("
            + replayed("b.txt", "turn 1 call 0: patch patched it")
            + ")",
        ),
    ),
]


@pytest.mark.parametrize(("c", "a", "want"), _WORLD_FILES)
def test_file_criteria_replay_the_tool_calls_without_a_snapshot(
    c: Criterion, a: Attempt, want: tuple[bool | None, str]
) -> None:
    holds, note = want
    path = str(c.path).replace("{{n}}", "a").removeprefix("./")
    assert got(c, a, FIXED) == (holds, {"file": path, "note": note, "decided_by": WORLD})


@pytest.mark.parametrize(
    ("path", "value", "a", "text", "how"),
    [
        ("b.txt", "hello", WROTE, "Hello World", "turn 1 call 0: write_file wrote it"),
        ("notes/a.txt", "OLD", attempt(turn("ok")), "old\ntext", UNTOUCHED),
        ("d/", "", attempt(turn("ok")), "", UNTOUCHED),  # a folder fixture: no text
    ],
)
def test_file_content_of_a_replayed_write_or_fixture_is_its_text(
    path: str, value: str, a: Attempt, text: str, how: str
) -> None:
    file = path.rstrip("/")
    assert got(crit("P", "file_content", path=path, value=value), a, FIXED) == (
        True,
        {
            "file": file,
            "text": text,
            "note": f"contains “{value}” ({replayed(file, how)})",
            "decided_by": WORLD,
        },
    )


def test_the_fixtures_set_the_state_before_and_the_last_one_for_a_path_wins() -> None:
    fixed = dataclasses.replace(
        block(paths={"p": "/h/p"}),
        fixtures=(
            Fixture(kind="file", path="a.txt", content="first"),
            Fixture(kind="git_repo", path="r/"),
            Fixture(kind="file", path=" a.txt ", content="second"),
            Fixture(kind="absent", path="gone"),
            Fixture(kind="memory_seed", path="m", content="x"),
            Fixture(kind="dir", path="d", content=None),
        ),
    )
    ctx = Ctx(fixed, attempt(turn("ok")))
    unknown = world.Unknown("no fixture declares its state before the attempt")
    without = world.Unknown(
        "the attempt ran without the block's fixtures, so its state before is unknown"
    )
    assert world.initial_state(ctx, "a.txt", True) == world.Present("second")
    assert world.initial_state(ctx, "r", True) == world.Present("")
    assert world.initial_state(ctx, "d", True) == world.Present("")
    assert world.initial_state(ctx, "gone", True) is world.Absent
    assert world.initial_state(ctx, "m", True) == unknown  # not a file fixture
    assert world.initial_state(ctx, "other", True) == unknown
    assert world.initial_state(ctx, "a.txt", False) == without
    assert world.initial_state(ctx, "p", False) == unknown  # mapped: no fixture of its own


def test_the_world_state_replays_each_call_and_stops_at_the_first_unknown() -> None:
    b = block(tools=FILE_TOOLS)
    asked = ToolCall(name="write_file", arguments={"path": "a.txt"}, requested_only=True, ok=True)
    calls = attempt(
        turn(
            "ok", [call("write_file", path="a.txt", content="1"), call("read_file", path="a.txt")]
        ),
        turn(
            "x",
            [
                call("delete_file", path="a.txt", ok=False),
                call("write_file", path="a.txt", content="2"),
                asked,
            ],
        ),
    )
    assert world.world_state(Ctx(b, calls), "a.txt", world.Absent) == (
        world.Present("2"),
        "turn 1 call 0: write_file wrote it; turn 2 call 0: delete_file failed on a.txt: "
        "changed nothing; turn 2 call 1: write_file wrote it",
    )
    stops = attempt(
        turn(
            "ok",
            [
                call("write_file", path="a.txt", content="1"),
                call("write_file", path="a.txt", ok=None),
                call("delete_file", path="a.txt"),
            ],
        )
    )
    assert world.world_state(Ctx(b, stops), "a.txt", world.Absent) == (
        world.Unknown("write_file acted on a.txt, outcome unknown"),
        "turn 1 call 0: write_file wrote it; turn 1 call 1: outcome unknown",
    )
    kept = world.Present("q")
    for a in (
        msgspec.structs.replace(attempt(turn("ok")), status=None),
        Attempt(test_id="", run=1, turns=[TurnRecord(response="x")]),
    ):
        assert world.world_state(Ctx(b, a), "a.txt", kept) == (
            kept,
            "no call touched it: unchanged",
        )
    late = attempt(turn("ok"), turn("x", trace_partial=True))
    assert world.world_state(Ctx(b, late), "a.txt", kept) == (
        world.Unknown("the trace is partial, so calls may be missing"),
        "partial trace",
    )


# -- what one call did to a path ------------------------------------------------------------------


_EFFECT_CTX = Ctx(block(tools=FILE_TOOLS), attempt(turn("ok")))
HERE = world.Present(None)


@pytest.mark.parametrize(
    ("c", "want"),
    [
        # an action argument says what a multi-purpose tool did, in any case
        (call("fs", action="Delete", path="notes/a.txt"), (world.Absent, "fs deleted it")),
        (call("fs", action="rm", destination="notes/a.txt"), (world.Absent, "fs deleted it")),
        (call("fs", action="unlink", target="notes/a.txt"), (world.Absent, "fs deleted it")),
        (
            call("fs", action="rename", src="x.txt", to="notes/a.txt"),
            (HERE, "fs moved a file here"),
        ),
        (
            call("fs", action="mv", file="notes/a.txt", dest="b.txt"),
            (world.Absent, "fs moved it away"),
        ),
        (call("fs", action="cp", source="y/a.txt", dst="notes/"), (HERE, "fs copied a file here")),
        (
            call("fs", action="duplicate", source="y/b.txt", dst="notes/a.txt"),
            (HERE, "fs copied a file here"),
        ),
        (call("fs", action="copy", path="notes/a.txt", new_path="b"), None),  # the source stays
        (call("fs", action="touch", filepath="notes/a.txt"), (HERE, "fs wrote it")),
        (call("fs", action="mkdir", path="notes/a.txt"), (HERE, "fs wrote it")),
        (
            call("fs", action="create", path="notes/a.txt", data="D"),
            (world.Present("D"), "fs wrote it"),
        ),
        # the first content key that holds text
        (
            call("fs", action="write", file_path="notes/a.txt", content="  ", text="T", data="D"),
            (world.Present("T"), "fs wrote it"),
        ),
        (call("fs", action="read", path="notes/a.txt"), None),
        (call("fs", path="notes/a.txt"), None),
        # or the tool's role, without an action
        (
            call("write_file", target="notes/a.txt", body="B"),
            (world.Present("B"), "write_file wrote it"),
        ),
        (call("write_file", path="notes/a.txt"), (HERE, "write_file wrote it")),
        (call("delete_file", path="./notes/a.txt"), (world.Absent, "delete_file deleted it")),
        (call("delete_file", destination="notes/a.txt"), None),  # deletes its source only
        (call("mv", path="notes/a.txt", target_path="z"), (world.Absent, "mv moved it away")),
        (call("mv", path="z/a.txt", target_path="notes"), (HERE, "mv moved a file here")),
        (call("patch", path="notes/a.txt"), (HERE, "patch patched it")),
        (call("read_file", path="notes/a.txt"), None),
        (call("write_file", path="notes/b.txt"), None),
        (
            call("write_file", ok=None, path="notes/a.txt"),
            (world.Unknown("write_file acted on notes/a.txt, outcome unknown"), "outcome unknown"),
        ),
        (
            call("write_file", ok=False, path="notes/a.txt"),
            (world.NO_CHANGE, "write_file failed on notes/a.txt: changed nothing"),
        ),
        # a blank or non-text path is no path: the next key names it
        (call("write_file", path="  ", file="notes/a.txt"), (HERE, "write_file wrote it")),
        (call("write_file", path=3, file="notes/a.txt"), (HERE, "write_file wrote it")),
        (ToolCall(name="write_file", ok=True), None),
        (ToolCall(name="", arguments={"path": "notes/a.txt"}, ok=True), None),  # no name: no role
        (call("write_file", path="/home/u/notes/a.txt"), (HERE, "write_file wrote it")),
        (call("write_file", path="~/notes/a.txt"), (HERE, "write_file wrote it")),
        (call("write_file", path="notes/a.txt/"), (HERE, "write_file wrote it")),
        (call("write_file", path="xnotes/a.txt"), None),  # a longer name is another file
    ],
)
def test_what_one_call_did_to_a_path(c: ToolCall, want: Any) -> None:
    assert world.effect(_EFFECT_CTX, c, "notes/a.txt") == want


def test_paths_are_the_same_when_one_ends_in_the_other() -> None:
    same = world.same_path
    assert same("notes/a.txt", "~/notes/a.txt") and same("/a", "~/a") and same("x/~/a", "~/a")
    assert same(" notes/a.txt/ ", "notes/a.txt") and same("notes/a.txt", "./notes/a.txt")
    assert not same("a", "~/") and not same("", "") and not same("a", " ")
    assert not same("ba", "a") and not same("b/a", "c/a")
    assert world.effect(_EFFECT_CTX, call("write_file", path="a"), "  ") is None


def test_a_path_keeps_its_leading_slash_and_its_last_letters() -> None:
    same = world.same_path
    # a relative path is not the absolute one it spells without its `/`
    assert not same("host/a.txt", "/host/a.txt") and same("/host/a.txt", "/host/a.txt")
    # only slashes are stripped from the end, not a name's last letters
    assert not same("boX", "bo") and not same("bo", "boX")
    # `/` alone is the root a sandboxed file tool shows: it names the workspace `.`
    assert same("/", ".") and same("//", ".")
    # a move into a folder without a source names no file in it, whatever its name
    move = call("mv", target_path="d")
    assert world.effect(_EFFECT_CTX, move, "d/XXXX") is None
    # a call without a name says so by naming nothing
    nameless = ToolCall(name="", arguments={"path": "a", "action": "delete"}, ok=True)
    assert world.effect(_EFFECT_CTX, nameless, "a") == (world.Absent, " deleted it")


def _effect(ctx: Ctx, c: ToolCall, rel: str) -> Any:
    return world.effect(ctx, c, rel)


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
        bash = ToolCall(name="bash", arguments={key: "echo x > notes/a.txt"}, ok=True)
        assert _effect(ctx, bash, "notes/a.txt") == wrote
    assert _effect(ctx, call("bash", program="echo x > notes/a.txt"), "notes/a.txt") is None


def test_a_shell_command_with_no_file_name_to_look_for_touches_nothing() -> None:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    assert _effect(ctx, call("bash", ok=False, command="rm -rf x"), "") is None


def test_a_shell_call_without_a_command_touches_no_file_of_any_name() -> None:
    ctx = Ctx(block(tools={"shell": ["bash"]}), attempt(turn("ok")))
    for name in ("X", "XX", "x.txt"):
        assert world.effect(ctx, call("bash", program="p"), name) is None


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


# -- file_at_start: the state before the attempt, from the first call that tells ------------------


BEFORE = "state before the attempt from the tool-call record"
READ_TOOLS = block(
    tools={"file_write": ["write_file"], "file_read": ["read_file"]},
    vars={"n": "a"},
    paths={"a.txt": "/host/old.txt"},
)


def at_start(a: Attempt, **kw: Any) -> Seen:
    return got(crit("P", "file_at_start", path=" {{n}}.txt", **kw), a, READ_TOOLS)


def before(note: str, holds: bool | None, text: str | None = None) -> Seen:
    evidence = {"file": "a.txt", "note": note, "decided_by": BEFORE}
    return holds, evidence if text is None else {"file": "a.txt", "text": text, **evidence}


def test_file_at_start_is_the_first_read_that_tells() -> None:
    read = attempt(
        turn(
            "ok", [call("list", path="x"), call("read_file", path="a.txt", result="v: 1\nname: x")]
        )
    )
    said = "it existed before the attempt (turn 1 call 1 (read_file): read)"
    assert at_start(read, value="exists") == before(said, True)
    assert at_start(read, value="absent") == before(said, False)
    # a line of the content then, at a line start
    matched = "it existed (turn 1 call 1 (read_file): read); content matches “^name: x”"
    assert at_start(read, value="exists", pattern="^name: x") == before(
        matched, True, "v: 1\nname: x"
    )
    unmatched = "it existed (turn 1 call 1 (read_file): read); content does not match “^v: 2”"
    assert at_start(read, value="exists", pattern="^v: 2") == before(
        unmatched, False, "v: 1\nname: x"
    )
    # a result that is not text: it existed, its content is unknown
    data = attempt(turn("ok", [call("read_file", path="a.txt", result={"k": 1})]))
    assert at_start(data, value="exists", pattern="x") == before(
        "it existed (turn 1 call 0 (read_file): read); its content then is not in the record", None
    )
    assert at_start(data, value="absent", pattern="x")[0] is False


def test_file_at_start_reads_not_found_and_skips_failed_changes() -> None:
    missing = attempt(
        turn("ok", [call("read_file", path="a.txt", ok=False, result="Error: No such file")])
    )
    absent = "it was absent before the attempt (turn 1 call 0 (read_file): it failed, not found)"
    assert at_start(missing, value="absent") == before(absent, True)
    assert at_start(missing, value="exists", pattern="x") == before(absent, False)
    # a failed read for another reason and a failed write tell nothing; the read after does
    other = attempt(
        turn(
            "ok",
            [
                call("read_file", path="a.txt", ok=False, result="permission denied"),
                call("write_file", path="a.txt", ok=False),
                call("read_file", path="a.txt", result="z"),
            ],
        )
    )
    assert at_start(other, value="exists") == before(
        "it existed before the attempt (turn 1 call 2 (read_file): read)", True
    )
    changed = attempt(
        turn("ok"), turn("ok", [call("write_file", path="a.txt"), call("read_file", path="a.txt")])
    )
    assert at_start(changed, value="exists") == before(
        "undecided: turn 2 call 0 (write_file) may have changed it before any read showed it", None
    )
    assert at_start(attempt(turn("ok")), value="absent") == before(
        "undecided: no call showed its state before the attempt", None
    )
    # run without the fixtures: the overlay's host path is the one read
    fixed = dataclasses.replace(READ_TOOLS, fixtures=(Fixture(kind="file", path="a.txt"),))
    imported = attempt(
        turn("ok", [call("read_file", path="/host/old.txt", result="q")]), fixtures_applied=False
    )
    c = crit("P", "file_at_start", path="a.txt", value="exists")
    assert got(c, imported, fixed) == (
        True,
        {
            "file": "/host/old.txt",
            "note": "it existed before the attempt (turn 1 call 0 (read_file): read)",
            "decided_by": BEFORE,
        },
    )
    # with the fixtures in place the workspace path is the one
    assert got(c, msgspec.structs.replace(imported, fixtures_applied=True), fixed)[0] is None


def test_file_at_start_reads_line_ends_as_the_live_workspace_does() -> None:
    read = attempt(turn("ok", [call("read_file", path="a.txt", result="v: 1\r\nname: x\r")]))
    matched = "it existed (turn 1 call 0 (read_file): read); content matches “^v: 1$”"
    assert at_start(read, value="exists", pattern="^v: 1$") == before(
        matched, True, "v: 1\nname: x"
    )


def test_file_at_start_of_an_unmapped_path_without_fixtures_reads_the_path_itself() -> None:
    fixed = dataclasses.replace(READ_TOOLS, fixtures=(Fixture(kind="file", path="b.txt"),))
    imported = attempt(
        turn("ok", [call("read_file", path="b.txt", result="q")]), fixtures_applied=False
    )
    assert got(crit("P", "file_at_start", path="b.txt", value="exists"), imported, fixed) == (
        True,
        {"file": "b.txt", "note": "it existed before the attempt (turn 1 call 0 (read_file): read)",
         "decided_by": BEFORE},
    )  # fmt: skip
    # a pattern that fills to nothing matches any content
    b = dataclasses.replace(
        READ_TOOLS, reference=dataclasses.replace(READ_TOOLS.reference, vars={"e": ""})
    )
    read = attempt(turn("ok", [call("read_file", path="a.txt", result="v")]))
    c = crit("P", "file_at_start", path="a.txt", value="exists", pattern="{{e}}")
    assert got(c, read, b)[0] is True
    # no path: the workspace itself, which no call names
    assert got(crit("P", "file_at_start", value="exists"), read, b) == (
        None,
        {"file": ".", "note": "undecided: no call showed its state before the attempt",
         "decided_by": BEFORE},
    )  # fmt: skip


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
