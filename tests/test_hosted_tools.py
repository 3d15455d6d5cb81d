"""The hosted tools on a world (called directly; tests/test_hosted_server.py calls them over
MCP): each does its job on the world's files, pages, memory and tickets, and never reaches
outside the world or into the harness's own folders."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenttest.blocks import HOSTED_ROLES
from agenttest.hosted import ToolOutcome, call_tool, tool_specs


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = tmp_path / "world"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "todo.txt").write_text("buy milk\ncall Ada\n", encoding="utf-8")
    (root / ".web" / "shop.test" / "offers").mkdir(parents=True)
    (root / ".web" / "shop.test" / "index.html").write_text(
        "<html><title>Shop</title><body><p>Cheap lamps today.</p>"
        "<script>var hidden = 1;</script></body></html>",
        encoding="utf-8",
    )
    (root / ".web" / "shop.test" / "offers" / "lamp.html").write_text(
        "<title>Lamp offer</title><p>The brass lamp costs 40 euros.</p>", encoding="utf-8"
    )
    (root / ".docs").mkdir()
    (root / ".docs" / "billing.md").write_text(
        "# Billing\nInvoices are sent monthly.\n", encoding="utf-8"
    )
    (root / ".docs" / "login.md").write_text("# Login\nReset your password.\n", encoding="utf-8")
    (root / ".tickets").mkdir()
    ticket = {
        "id": "T-7",
        "title": "Login fails",
        "state": "open",
        "transitions": {"open": ["in_progress"], "in_progress": ["closed"]},
    }
    (root / ".tickets" / "T-7.json").write_text(json.dumps(ticket), encoding="utf-8")
    (root / ".memory").mkdir()
    (root / ".memory" / "notes.jsonl").write_text(
        '{"text": "the deploy key is in vault"}\nnot json\n', encoding="utf-8"
    )
    return root


def _call(world: Path, tool: str, **args: Any) -> ToolOutcome:
    return call_tool(world, None, tool, args)


def _ok(world: Path, tool: str, **args: Any) -> str:
    out = _call(world, tool, **args)
    assert out.ok, out.error
    return out.result


def test_the_tools_are_the_hosted_roles_each_with_an_object_schema() -> None:
    specs = tool_specs()
    assert tuple(s.name for s in specs) == HOSTED_ROLES
    for spec in specs:
        schema = spec.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"]), spec.name
        assert spec.description


def test_file_tools_read_write_list_patch_move_and_delete(world: Path) -> None:
    assert _ok(world, "file_read", path="notes/todo.txt") == "buy milk\ncall Ada\n"
    _ok(world, "file_write", path="out/report.md", content="# Report\n")
    assert (world / "out" / "report.md").read_text() == "# Report\n"
    assert _ok(world, "file_list") == ".: notes/, out/"  # the harness's folders stay hidden
    _ok(world, "file_patch", path="notes/todo.txt", find="milk", replace="bread")
    _ok(world, "file_patch", path="notes/todo.txt", append="water plants")
    assert (world / "notes" / "todo.txt").read_text() == "buy bread\ncall Ada\nwater plants\n"
    _ok(world, "file_move", source="out/report.md", destination="notes")
    assert (world / "notes" / "report.md").is_file() and not (world / "out" / "report.md").exists()
    _ok(world, "file_delete", path="notes/report.md")
    assert not (world / "notes" / "report.md").exists()
    missing = _call(world, "file_read", path="notes/none.txt")
    assert not missing.ok and missing.error == "no such file: notes/none.txt"
    clash = _call(world, "file_move", source="notes/todo.txt", destination="notes/todo.txt")
    assert not clash.ok and "already exists" in (clash.error or "")


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("file_read", {"path": "../secret.txt"}),
        ("file_read", {"path": "/etc/hostname"}),
        ("file_read", {"path": "~/x"}),
        ("file_write", {"path": "../escaped.txt", "content": "x"}),
        ("file_write", {"path": "link/escaped.txt", "content": "x"}),
        ("file_read", {"path": "link/secret.txt"}),
        ("file_list", {"path": "link"}),
        ("file_delete", {"path": "../secret.txt"}),
        ("file_move", {"source": "notes/todo.txt", "destination": "../moved.txt"}),
        ("file_patch", {"path": "link/secret.txt", "append": "x"}),
        ("git", {"action": "log", "path": "link"}),
    ],
)
def test_a_path_outside_the_world_is_an_error_and_nothing_outside_changes(
    world: Path, name: str, args: dict[str, Any]
) -> None:
    outside = world.parent
    (outside / "secret.txt").write_text("top secret", encoding="utf-8")
    os.symlink(outside, world / "link")  # a symlink pointing out counts as outside
    before = sorted(p.name for p in outside.iterdir())
    out = call_tool(world, None, name, args)
    assert not out.ok and "outside the world" in (out.error or ""), out
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (outside / "secret.txt").read_text() == "top secret"
    assert (world / "notes" / "todo.txt").is_file()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("file_read", {"path": ".tickets/T-7.json"}),
        ("file_write", {"path": ".tickets/T-7.json", "content": '{"state": "closed"}'}),
        ("file_read", {"path": ".docs/billing.md"}),
        ("file_delete", {"path": ".memory/notes.jsonl"}),
        ("file_move", {"source": "notes/todo.txt", "destination": ".tickets/T-7.json"}),
        ("file_write", {"path": "repo/.git/config", "content": "[diff]\nexternal = sh"}),
        ("file_patch", {"path": "repo/.git/config", "append": "[core]\nfsmonitor = sh"}),
    ],
)
def test_the_file_tools_cannot_reach_the_harness_folders(
    world: Path, name: str, args: dict[str, Any]
) -> None:
    # an agent moves a ticket with the ticket tool, not by writing its JSON; and it cannot
    # write a git config that would make the git tool run its command
    (world / "repo" / ".git").mkdir(parents=True)
    (world / "repo" / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    before = (world / ".tickets" / "T-7.json").read_text()
    out = call_tool(world, None, name, args)
    assert not out.ok and "no such file" in (out.error or "")
    assert (world / ".tickets" / "T-7.json").read_text() == before
    assert (world / ".memory" / "notes.jsonl").is_file()
    assert (world / "repo" / ".git" / "config").read_text() == "[core]\n"
    assert (world / "notes" / "todo.txt").is_file()


def test_web_fetch_reads_the_world_pages_and_says_404_or_unknown_host(world: Path) -> None:
    page = _ok(world, "web_fetch", url="https://shop.test/")
    assert page == "Shop (https://shop.test/)\nCheap lamps today."  # no script text
    assert "40 euros" in _ok(world, "web_fetch", url="https://shop.test/offers/lamp.html")
    assert _call(world, "web_fetch", url="https://shop.test/gone").error == (
        "404 not found: https://shop.test/gone"
    )
    assert _call(world, "web_fetch", url="https://nowhere.test/").error == (
        "could not resolve host nowhere.test"
    )
    assert "only http(s)" in (_call(world, "web_fetch", url="file:///etc/passwd").error or "")
    escape = _call(world, "web_fetch", url="https://shop.test/../../notes/todo.txt")
    assert not escape.ok


def test_web_search_ranks_pages_by_the_query_words(world: Path) -> None:
    found = _ok(world, "web_search", query="brass lamp price")
    assert found.splitlines()[1].startswith("- Lamp offer <https://shop.test/offers/lamp.html>")
    assert _ok(world, "web_search", query="volcanoes") == "no results for 'volcanoes'"


def test_docs_search_answers_json_pages_and_the_index_may_be_missing(world: Path) -> None:
    hits = json.loads(_ok(world, "docs_search", query="when are invoices sent"))
    assert [r["id"] for r in hits["results"]] == ["billing"]
    assert hits["results"][0]["url"] == "https://docs.example.test/billing"
    assert hits["results"][0]["title"] == "Billing"
    assert json.loads(_ok(world, "docs_search", query="volcano"))["results"] == []
    assert _call(world, "docs_index").error == "the documentation index is unavailable"
    (world / ".docs" / "_index.json").write_text('{"pages": ["billing", "login"]}')
    assert json.loads(_ok(world, "docs_index")) == {"pages": ["billing", "login"]}


def test_memory_saves_recalls_and_resets_the_world_store(world: Path) -> None:
    assert _ok(world, "memory", action="recall") == "- the deploy key is in vault"
    _ok(world, "memory", action="save", text="Ada prefers tea")
    lines = (world / ".memory" / "notes.jsonl").read_text().splitlines()
    assert json.loads(lines[-1]) == {"text": "Ada prefers tea"}
    assert _ok(world, "memory", action="recall", text="what does Ada drink? tea") == (
        "- Ada prefers tea"
    )
    _ok(world, "memory", action="reset")
    assert _ok(world, "memory", action="recall") == "no notes in memory"


def test_ticket_moves_only_along_its_transitions(world: Path) -> None:
    assert _ok(world, "ticket", action="list") == (
        "T-7: Login fails [state: open; can move to: in_progress]"
    )
    refused = _call(world, "ticket", action="move", ticket_id="T-7", state="closed")
    assert not refused.ok and "cannot move from 'open' to 'closed'" in (refused.error or "")
    assert json.loads((world / ".tickets" / "T-7.json").read_text())["state"] == "open"
    _ok(world, "ticket", action="move", ticket_id="T-7", state="in_progress")
    _ok(world, "ticket", action="move", ticket_id="T-7", state="closed")
    assert json.loads((world / ".tickets" / "T-7.json").read_text())["state"] == "closed"
    assert _call(world, "ticket", action="show", ticket_id="../T-7").error == (
        "no such ticket: '../T-7'"
    )


def test_message_contacts_and_weather_use_the_world_data(world: Path) -> None:
    _ok(world, "message", recipient="Ada", text="on my way")
    sent = (world / ".outbox" / "messages.jsonl").read_text().splitlines()
    assert [json.loads(s) for s in sent] == [{"recipient": "Ada", "text": "on my way"}]
    assert _call(world, "contacts", name="Ada").error == "the address book is empty"
    (world / ".data").mkdir()
    (world / ".data" / "contacts.json").write_text('[{"name": "Ada Lovelace", "phone": "1"}]')
    assert json.loads(_ok(world, "contacts", name="ada"))["phone"] == "1"
    (world / ".data" / "weather.json").write_text(
        '{"Izmir": {"today": {"condition": "sunny", "high_c": 24}}}'
    )
    assert _ok(world, "weather", location="izmir") == "izmir today: sunny, high 24 °C"
    assert "no weather for 'Oslo'" in (_call(world, "weather", location="Oslo").error or "")
    assert "no weather for 'Istanbul'" in (_call(world, "weather", location="Istanbul").error or "")


def test_a_world_without_weather_is_answered_from_the_harness_sample(world: Path) -> None:
    assert not (world / ".data" / "weather.json").exists()  # precondition: no block data
    # the city as an agent spells it: Turkish dotted capital, plain ASCII, any case
    for spelling in ("İstanbul", "Istanbul", "ISTANBUL"):
        answer = _ok(world, "weather", location=spelling, day="tomorrow")
        assert answer.startswith(f"{spelling} tomorrow: light rain, high 15 °C, low 10 °C")
    unknown = _call(world, "weather", location="Oslo").error or ""
    assert "no weather for 'Oslo'" in unknown and "_about" not in unknown


@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("0.1 + 0.2", "0.3"),
        ("sqrt(144) + 3^4", "93"),
        ("15% * 80", "12"),
        ("17 % 5", "2"),
        ("10 / 4", "2.5"),
        ("round(2 / 3, 2)", "0.67"),
    ],
)
def test_the_calculator_is_exact(world: Path, expression: str, answer: str) -> None:
    assert _ok(world, "calculator", expression=expression) == f"{expression} = {answer}"


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("__import__('os').system('true')", "not arithmetic"),
        ("2 ** 10 ** 10", "too large"),
        ("1 / 0", "division by zero"),
        ("open('x')", "unknown function 'open'"),
        ("1 +", "cannot read"),
    ],
)
def test_the_calculator_refuses_what_is_not_bounded_arithmetic(
    world: Path, expression: str, error: str
) -> None:
    out = _call(world, "calculator", expression=expression)
    assert not out.ok and error in (out.error or ""), out


def test_git_shows_the_world_repository_read_only(world: Path) -> None:
    repo = world / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    log = _ok(world, "git", action="log")
    assert log.endswith(" first") and len(log.splitlines()) == 1
    assert _ok(world, "git", action="branch") == "* main"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "missing required argument `path`"),
        ({"path": 3}, "argument `path` must be a string"),
        ({"path": "a", "mode": "x"}, "unknown argument `mode` (this tool takes: path)"),
        ({"path": "a" * 3000}, "argument `path` is longer than 2000 characters"),
    ],
)
def test_arguments_that_fail_the_schema_are_an_error_before_the_tool_runs(
    world: Path, args: dict[str, Any], error: str
) -> None:
    out = call_tool(world, None, "file_read", args)
    assert not out.ok and out.error == f"file_read: {error}"


def test_an_unknown_tool_is_an_error(world: Path) -> None:
    out = call_tool(world, None, "shell", {"command": "ls"})
    assert not out.ok and out.error == "unknown tool `shell`"


def test_a_symlink_loop_in_the_world_is_an_error_not_a_crash(world: Path) -> None:
    os.symlink("loop", world / "loop")
    out = call_tool(world, None, "file_read", {"path": "loop/x.txt"})
    assert not out.ok and out.error


def test_a_fifo_in_the_world_is_not_read_or_written_as_a_file(world: Path) -> None:
    os.mkfifo(world / "pipe")  # reading or writing it would hang the tool
    assert call_tool(world, None, "file_read", {"path": "pipe"}).error == "no such file: pipe"
    out = call_tool(world, None, "file_write", {"path": "pipe", "content": "x"})
    assert not out.ok and out.error == "pipe is not a regular file"
