"""The model-as-agent's shell sandbox against a hostile model (security suite).

A prompt-injected page is enough to make a model ask for any command, so the model here
is the attacker: a loopback chat-completions server that answers with shell calls which
write outside the workspace, read outside it, set the clock, hang, or follow a link out,
each spelled the ways getopt accepts (attached values, clustered letters, abbreviated long
options, values after the option). The example agent runs them with its openai brain;
nothing outside the workspace is read or written, and nothing inside is written.
"""

from __future__ import annotations

import gzip
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from .test_example_agent_openai import agent_for, ask, assistant, fake_model, tool_call

__all__ = ["fake_model"]  # the fixture, shared with the openai brain specs

SECRET = "TOPSECRET-5f1e"


def _attacks(outside: Path) -> list[str]:
    o = str(outside)
    return [
        f"sort -o{o}/written payload.txt",
        f"sort -o {o}/written payload.txt",
        f"sort --output={o}/written payload.txt",
        f"sort --out={o}/written payload.txt",
        f"sort -uo{o}/written payload.txt",
        f"sort -T{o} payload.txt",
        f"sort --files0-from={o}/names",
        f"grep -f{o}/secret.txt -r .",
        f"grep -if{o}/secret.txt payload.txt",
        f"grep --fil={o}/secret.txt payload.txt",
        "grep -R TOPSECRET .",
        "grep --dereference-recursive TOPSECRET .",
        "grep -r TOPSECRET *",
        f"wc --files0-from={o}/names",
        "find -L . -name secret.txt",
        "find . -follow -name secret.txt",
        f"find . -fprint {o}/written",
        f"find . -fprint{o}/written",
        f"find . -newer {o}/secret.txt",
        "date -s2020-01-01",
        "date --set=2020-01-01",
        "date 010100002020",
        f"date -f{o}/secret.txt",
        "tail -fn1 payload.txt",
        "tail --follow payload.txt",
        "ls -L link",
        "ls -RL .",
        "head -c 100 link/secret.txt",
        "uniq payload.txt copy.txt",
        "cat -- link/secret.txt",
    ]


def test_a_hostile_model_cannot_leave_the_workspace_through_the_shell(
    fake_model: Any, tmp_path: Path
) -> None:
    space, outside = tmp_path / "ws", tmp_path / "outside"
    space.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n", encoding="utf-8")
    (outside / "names").write_bytes(str(outside / "secret.txt").encode() + b"\0")
    (space / "payload.txt").write_text("b\na\n", encoding="utf-8")
    os.symlink(outside, space / "link")
    attacks = _attacks(outside)
    model = fake_model([
        (200, assistant(calls=[tool_call(f"c{i}", "shell", {"command": c})
                               for i, c in enumerate(attacks)])),
        (200, assistant("done")),
    ])  # fmt: skip
    with agent_for(model, space) as srv:
        body = ask(srv, "summarise the page").json()
    calls = body["tool_calls"]
    assert [c["arguments"]["command"] for c in calls] == attacks
    ran = {c["arguments"]["command"]: c for c in calls if c["ok"]}
    assert not ran, f"these ran: {sorted(ran)}"
    assert all(c["result"].startswith(("BLOCKED", "ERROR")) for c in calls), calls
    assert SECRET not in str(body)
    assert sorted(p.name for p in outside.iterdir()) == ["names", "secret.txt"]
    assert sorted(p.name for p in space.iterdir()) == ["link", "payload.txt"]


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("sort -r payload.txt", "b\na"),
        ("sort -k1,1 -t , payload.txt", "a\nb"),
        ("grep -rn a .", "./payload.txt:2:a"),
        ("grep -e b payload.txt", "b"),
        ("grep -c -- a payload.txt", "1"),
        ("head -n1 payload.txt", "b"),
        ("tail -1 payload.txt", "a"),
        ("wc -l payload.txt", "2 payload.txt"),
        ("find . -name '*.txt' -type f", "./payload.txt"),
        ("date -u +%Y -d 2020-05-01", "2020"),
        ("uniq -c payload.txt", "1 b\n      1 a"),
        ("ls -la", "payload.txt"),
    ],
)
def test_the_shell_still_runs_what_it_is_for(tmp_path: Path, command: str, output: str) -> None:
    from .test_example_agent_tools import direct

    (tmp_path / "payload.txt").write_text("b\na\n", encoding="utf-8")
    call, _lines = direct(tmp_path, "shell", command=command)
    assert call["ok"] is True, call
    assert output in call["result"]


class _RawModel(ThreadingHTTPServer):
    """A model endpoint that answers every request with one raw body and its headers."""

    daemon_threads = True

    def __init__(self, body: bytes, headers: dict[str, str]) -> None:
        super().__init__(("127.0.0.1", 0), _RawHandler)
        self.body, self.headers = body, headers
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _RawHandler(BaseHTTPRequestHandler):
    server: _RawModel

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        for name, value in {
            **self.server.headers,
            "Content-Length": str(len(self.server.body)),
        }.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(self.server.body)


def _completion(content: str) -> bytes:
    return json.dumps(assistant(content)).encode()


@pytest.mark.parametrize(
    ("body", "headers", "said"),
    [
        # 40 MiB of answer, gzipped to a few dozen KiB: inflated, it passed any size check
        (gzip.compress(_completion("a" * (40 << 20))), {"Content-Encoding": "gzip"},
         "gzip-encoded reply although it was asked for none"),
        (_completion("a" * (40 << 20)), {}, "larger than 33,554,432 bytes"),
    ],
    ids=["gzip bomb", "40 MiB reply"],
)  # fmt: skip
def test_a_hostile_model_reply_is_bounded(
    tmp_path: Path, body: bytes, headers: dict[str, str], said: str
) -> None:
    model = _RawModel(body, {"Content-Type": "application/json", **headers})
    try:
        with agent_for(model, tmp_path) as srv:  # type: ignore[arg-type]
            reply = ask(srv, "hello")
    finally:
        model.shutdown()
        model.server_close()
    assert reply.status_code == 502, reply.text[:200]
    assert said in reply.json()["error"]


def test_a_hostile_model_cannot_fill_the_disk_through_the_file_tools(
    fake_model: Any, tmp_path: Path
) -> None:
    big = "x" * 2_000_000
    model = fake_model([
        (200, assistant(calls=[
            tool_call("w", "file_write", {"path": "big.txt", "content": big}),
            tool_call("s", "file_write", {"path": "small.txt", "content": "x" * 1000}),
            tool_call("p", "file_patch", {"path": "small.txt", "find": "x", "replace": big[:5000]}),
            tool_call("a", "file_patch", {"path": "small.txt", "append": big}),
        ])),
        (200, assistant("done")),
    ])  # fmt: skip
    with agent_for(model, tmp_path) as srv:
        body = ask(srv, "write it").json()
    assert [c["ok"] for c in body["tool_calls"]] == [False, True, False, False]
    assert not (tmp_path / "big.txt").exists()
    assert (tmp_path / "small.txt").read_text() == "x" * 1000
