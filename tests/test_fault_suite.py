"""The fault suite: kinds of agent misbehaviour on real loopback servers.

For each kind the run ends with every planned attempt recorded (graded, or ERROR with its
cause) or with a resumable stop and a clear message; nothing is lost, nothing duplicated,
and no two requests ever overlap. The summary line per kind is printed at the end of the
test session.
"""

from __future__ import annotations

import functools
import json
import socket
import struct
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agenttest.errors import AgentUnavailable
from agenttest.results import (
    MAX_RECORD_BYTES,
    Attempt,
    ReadNotes,
    RunEnd,
    RunMeta,
    RunWriter,
    TurnRecord,
    iter_records,
)
from agenttest.runner import RunRequest, run

from ._run_file import end_of
from ._servers import Behaviour, LoopbackAgent, agent_yaml, write_battery
from .conftest import report_count

BLOCKS = {"L1-A-01": (1, 2), "L1-B-01": (2, 2)}  # 2 blocks, k=2: 4 attempts, 6 turns
PLANNED = 4


def _raw(
    status_line: bytes, headers: list[tuple[str, str]], body: bytes, close: bool = True
) -> Callable[[Any], bool]:
    def write(handler: Any) -> bool:
        head = status_line + b"\r\n" + b"".join(f"{k}: {v}\r\n".encode() for k, v in headers)
        handler.wfile.write(head + b"\r\n" + body)
        handler.wfile.flush()
        if close:
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
        return True

    return write


def _reset_connection(handler: Any) -> bool:
    # SO_LINGER 0 then close: the peer sees a TCP RST, not an orderly end of stream.
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.close_connection = True
    handler.connection.close()
    return True


_OK = json.dumps({"response": "echo 1: fine", "tool_calls": [], "trace": ""}).encode()
_BIG = json.dumps({"response": "echo " + "x" * 10_000_000, "tool_calls": [], "trace": ""}).encode()


#: A hostile writer gives up after this long; a client that honours its deadline hangs up
#: long before, so "the client hung up first" is what the drip faults assert.
DRIP_CAP_S = 30.0
DRIPS_OUTLASTED: list[str] = []  # drips that ran to the cap: the client never hung up
_drip_lock = threading.Lock()


def _drip(first: bytes, unit: bytes, name: str) -> Callable[[Any], bool]:
    """Send ``first``, then ``unit`` every 20 ms until the client hangs up (or the cap)."""

    def write(handler: Any) -> bool:
        started = time.monotonic()
        try:
            handler.wfile.write(first)
            handler.wfile.flush()
            while time.monotonic() - started < DRIP_CAP_S:
                handler.wfile.write(unit)
                handler.wfile.flush()
                time.sleep(0.02)
        except OSError:
            return True  # the client hung up: what a deadline does
        with _drip_lock:
            DRIPS_OUTLASTED.append(name)
        handler.close_connection = True
        return True

    return write


@functools.cache
def _bomb(stacked: int, size: int = 40 * 1024 * 1024) -> bytes:
    """A valid reply of ``size`` bytes, gzip-compressed ``stacked`` times (a few KB)."""
    data = json.dumps({"response": "echo " + " " * size, "tool_calls": [], "trace": ""}).encode()
    for _ in range(stacked):
        packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        data = packer.compress(data) + packer.flush()
    return data


def _gzip_bomb(stacked: int) -> Callable[[Any], bool]:
    def write(handler: Any) -> bool:
        body = _bomb(stacked)
        encoding = ", ".join(["gzip"] * stacked)
        return _raw(
            b"HTTP/1.1 200 OK",
            [
                ("content-type", "application/json"),
                ("content-encoding", encoding),
                ("content-length", str(len(body))),
            ],
            body,
            close=False,
        )(handler)

    return write


def _json_reply(body: bytes) -> Callable[[Any], bool]:
    headers = [("content-type", "application/json"), ("content-length", str(len(body)))]
    return _raw(b"HTTP/1.1 200 OK", headers, body, close=False)


_SURROGATE = b'{"response": "echo \\ud83d cut emoji \\ud800", "tool_calls": [], "trace": ""}'
_NAN = (
    b'{"response": "echo", "trace": "", "tool_calls": [{"name": "calc",'
    b' "arguments": {"x": NaN}, "ok": true, "result": -Infinity}], "tokens": 1e999}'
)


def _choices(*offered: Any) -> bytes:
    reply = {"response": "echo", "trace": "", "tool_calls": [], "choices": list(offered)}
    return json.dumps(reply).encode()


def _stacked_gzip(layers: int) -> Callable[[Any], bool]:
    body = b'{"response": "echo", "trace": "", "tool_calls": []}'
    for _ in range(layers):
        body = zlib.compress(body, wbits=31)  # 31: a gzip header
    headers = [
        ("content-type", "application/json"),
        ("content-encoding", ", ".join(["gzip"] * layers)),
        ("content-length", str(len(body))),
    ]
    return _raw(b"HTTP/1.1 200 OK", headers, body, close=False)


def _sse_reply(*events: bytes) -> Callable[[Any], bool]:
    body = b"".join(b"data: " + e + b"\n\n" for e in events)
    headers = [("content-type", "text/event-stream"), ("content-length", str(len(body)))]
    return _raw(b"HTTP/1.1 200 OK", headers, body, close=False)


_DEEP_EVENT = (
    b'{"type": "tool_call", "tool_call": {"name": "x", "result": ' + b"[" * 990 + b"]" * 990 + b"}}"
)

_MANY_CALLS = b'{"response": "echo", "trace": "", "tool_calls": [' + b"{}," * 1000 + b"{}]}"
_DEEP = (
    b'{"response": "echo", "trace": "", "tool_calls": [{"name": "x", "result": '
    + b"[" * 950
    + b"]" * 950
    + b"}]}"
)
_DEEPER = b'{"response": "echo", "tool_calls": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


def _notes(attempts: list[Attempt]) -> list[str]:
    return [n for a in attempts for t in a.turns for n in t.notes]


@dataclass
class Fault:
    behaviour: Behaviour = field(default_factory=Behaviour)
    config: dict[str, Any] = field(default_factory=dict)
    # what must show up among the attempts' error causes (empty: all clean)
    causes: set[str] = field(default_factory=set)
    aborts: bool = False  # the run stops resumably (exit 3) instead of finishing
    during: Callable[[LoopbackAgent, Path], None] | None = None  # run in a thread mid-run
    check: Callable[[list[Attempt]], None] | None = None  # more about the attempts
    before: Callable[[], object] | None = None  # slow preparation, done before the clock runs


def _restart_between_turns(agent: LoopbackAgent, _log: Path) -> None:
    def on_turn(n: int) -> None:
        if n == 3:  # the first turn of L1-B-01's first attempt has just arrived
            agent.restart(0.3)

    agent.behaviour.on_turn = on_turn


def _rotate_log(agent: LoopbackAgent, log: Path) -> None:
    def on_turn(n: int) -> None:
        if n in (2, 4):
            log.rename(log.with_suffix(f".{n}"))  # logrotate: move away, start a new file
            # the new file opens with a banner longer than the old file was
            banner = "".join(f"# log rotated at turn {n}, line {i}\n" for i in range(200))
            log.write_text(banner, encoding="utf-8")

    agent.behaviour.on_turn = on_turn


def _clock_jumps(agent: LoopbackAgent, _log: Path) -> None:
    real_time = time.time

    def on_turn(n: int) -> None:
        if n == 2:  # wall clock jumps back an hour mid-run (NTP step, suspend/resume)
            offset = -3600.0
            time.time = lambda: real_time() + offset

    agent.behaviour.on_turn = on_turn


FAULTS: dict[str, Fault] = {
    "never ready": Fault(Behaviour(loading_s=60), {"readiness": {"timeout_s": 0.5}}, aborts=True),
    "slow readiness": Fault(Behaviour(loading_s=0.6)),
    "busy storm": Fault(Behaviour(busy_first=12, retry_after="0")),
    "retry-after of hours": Fault(Behaviour(busy_first=2, retry_after="7200")),
    "busy forever": Fault(
        Behaviour(busy_always=True, busy_status=503), {"timeouts": {"busy_s": 0.5}}, causes={"busy"}
    ),
    "hang mid-answer": Fault(
        Behaviour(hang_turns={2}, hang_s=3), {"timeouts": {"answer_s": 0.5}}, causes={"timeout"}
    ),
    "truncated body": Fault(
        Behaviour(
            raw_turns={
                2: _raw(
                    b"HTTP/1.1 200 OK",
                    [("content-type", "application/json"), ("content-length", str(len(_OK)))],
                    _OK[: len(_OK) // 2],
                )
            }
        ),
        causes={"garbage", "lost", "unreachable", "http_error"},
    ),
    "invalid JSON": Fault(Behaviour(garbage_turns={1, 3}), causes={"garbage"}),
    "10 MB body": Fault(
        Behaviour(
            raw_turns={
                2: _raw(
                    b"HTTP/1.1 200 OK",
                    [("content-type", "application/json"), ("content-length", str(len(_BIG)))],
                    _BIG,
                    close=False,
                )
            }
        ),
    ),
    "wrong content type": Fault(
        Behaviour(
            raw_turns={
                2: _raw(
                    b"HTTP/1.1 200 OK",
                    [("content-type", "text/html"), ("content-length", "27")],
                    b"<html><b>hello</b></html>\r\n",
                    close=False,
                )
            }
        ),
        causes={"garbage"},
    ),
    "500s": Fault(Behaviour(error_turns={1, 2}), causes={"http_error"}),
    "connection reset": Fault(
        Behaviour(raw_turns={2: _reset_connection}), causes={"lost", "unreachable", "garbage"}
    ),
    "restart between turns of one block": Fault(
        during=_restart_between_turns, causes={"lost", "unreachable", "timeout"}
    ),
    "session lost": Fault(Behaviour(forget_sessions=True)),
    "clock jumps": Fault(during=_clock_jumps),
    "log file rotates": Fault(during=_rotate_log),
    # -- hostile agents (issue 14) --
    "endless 100 Continue": Fault(
        Behaviour(raw_turns={2: _drip(b"", b"HTTP/1.1 100 Continue\r\n\r\n", "100 Continue")}),
        {"timeouts": {"answer_s": 0.5}},
        causes={"timeout"},
    ),
    "headers dripped a byte at a time": Fault(
        Behaviour(raw_turns={2: _drip(b"HTTP/1.1 200 OK\r\nX-Pad: ", b"a", "headers")}),
        {"timeouts": {"answer_s": 0.5}},
        causes={"timeout"},
    ),
    "health check drips its headers": Fault(
        Behaviour(raw_health=_drip(b"HTTP/1.1 200 OK\r\nX-Pad: ", b"a", "health")),
        {"readiness": {"timeout_s": 0.5, "probe_timeout_s": 0.3}},
        aborts=True,
    ),
    "gzip bomb": Fault(
        Behaviour(raw_turns={2: _gzip_bomb(1)}),
        {"timeouts": {"answer_s": 30}},
        causes={"garbage"},
        before=lambda: _bomb(1),
    ),
    "stacked gzip bomb": Fault(
        Behaviour(raw_turns={2: _gzip_bomb(2)}),
        {"timeouts": {"answer_s": 30}},
        causes={"garbage"},
        before=lambda: _bomb(2),
    ),
    "lone surrogates": Fault(
        Behaviour(raw_turns={1: _json_reply(_SURROGATE)}),
        check=lambda attempts: _check_repaired(attempts, "surrogate", "\ufffd cut emoji \ufffd"),
    ),
    # a stream's events are repaired as a whole reply is, and the repair is noted (#26):
    # text deltas with a cut emoji pair, a final event's reply with NaN
    "lone surrogates in streamed text": Fault(
        Behaviour(
            raw_turns={
                1: _sse_reply(
                    b'{"type": "text", "delta": "echo \\ud83d cut"}',
                    b'{"type": "text", "delta": " emoji \\ud800"}',
                    b'{"type": "final"}',
                )
            }
        ),
        check=lambda attempts: _check_repaired(attempts, "surrogate", "\ufffd cut emoji \ufffd"),
    ),
    "NaN in a streamed final reply": Fault(
        Behaviour(raw_turns={1: _sse_reply(b'{"type": "final", "reply": ' + _NAN + b"}")}),
        check=lambda attempts: _check_repaired(attempts, "NaN/Infinity", None),
    ),
    "NaN and Infinity": Fault(
        Behaviour(raw_turns={1: _json_reply(_NAN)}),
        check=lambda attempts: _check_repaired(attempts, "NaN/Infinity", None),
    ),
    "404 on every turn (a config error)": Fault(
        Behaviour(
            raw_turns={
                n: _raw(
                    b"HTTP/1.1 404 Not Found",
                    [("content-type", "application/json"), ("content-length", "2")],
                    b"{}",
                    close=False,
                )
                for n in range(1, 10)
            }
        ),
        aborts=True,
    ),
    "1 001 tool calls in one reply": Fault(
        Behaviour(raw_turns={2: _json_reply(_MANY_CALLS)}),
        causes={"garbage"},
        check=lambda attempts: _check_error(attempts, "1,001 tool calls in one turn"),
    ),
    "an 8 MiB choice label": Fault(
        Behaviour(raw_turns={2: _json_reply(_choices({"label": "x" * (8 << 20), "value": "v"}))}),
        causes={"garbage"},
        check=lambda attempts: _check_error(attempts, "more than the 4,096 a choice may hold"),
    ),
    "a choice label that is an object": Fault(
        # its JSON text ('{"text": "Yes"}') could be tapped by a label_matches of "Yes"
        Behaviour(raw_turns={2: _json_reply(_choices({"label": {"text": "Yes"}, "value": "y"}))}),
        causes={"garbage"},
        check=lambda attempts: _check_error(attempts, "a choice's label is not text"),
    ),
    "2 000 stacked gzip layers": Fault(
        Behaviour(raw_turns={2: _stacked_gzip(2000)}), causes={"garbage"}
    ),
    "a streamed event nested 990 levels": Fault(
        Behaviour(raw_turns={2: _sse_reply(_DEEP_EVENT)}), causes={"garbage"}
    ),
    "nested 950 levels": Fault(Behaviour(raw_turns={2: _json_reply(_DEEP)}), causes={"garbage"}),
    "nested 100 000 levels": Fault(
        Behaviour(raw_turns={2: _json_reply(_DEEPER)}), causes={"garbage"}
    ),
}


def _check_repaired(attempts: list[Attempt], what: str, text: str | None) -> None:
    notes = _notes(attempts)
    assert any(what in n for n in notes), f"the repair is not noted in the evidence: {notes}"
    if text is not None:
        assert any(text in (t.response or "") for a in attempts for t in a.turns)


def _check_error(attempts: list[Attempt], what: str) -> None:
    assert any(what in (a.error or "") for a in attempts), [a.error for a in attempts]


def _strict_json(line: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON (RFC 8259)")

    return json.loads(line, parse_constant=refuse)


@pytest.mark.parametrize("kind", list(FAULTS), ids=lambda k: k.replace(" ", "-"))
def test_fault(kind: str, tmp_path: Path) -> None:
    fault = FAULTS[kind]
    DRIPS_OUTLASTED.clear()
    if fault.before is not None:
        fault.before()
    log = tmp_path / "agent.log"
    log.write_text("", encoding="utf-8")
    fault.behaviour.log_file = str(log)
    battery = write_battery(tmp_path / "battery", BLOCKS)
    real_time = time.time
    with LoopbackAgent(fault.behaviour) as agent:
        if fault.during is not None:
            fault.during(agent, log)
        config = tmp_path / "agent.yaml"
        config.write_text(
            agent_yaml(agent.url, log_file=str(log), **fault.config), encoding="utf-8"
        )
        request = RunRequest(
            paths=[str(battery)],
            agent=str(config),
            out=tmp_path / "out",
            allow_temp=True,
            quiet=True,
            judge="none",
        )
        aborted = None
        try:
            path = run(request)
        except AgentUnavailable as exc:
            aborted = str(exc)
            path = next((tmp_path / "out").glob("*.jsonl"))
        finally:
            time.time = real_time
        max_overlap = agent.state.max_work_in_flight
    notes = ReadNotes(str(path))
    records = list(iter_records(path, notes))
    for line in path.read_bytes().decode("utf-8").splitlines():  # strict UTF-8 ...
        _strict_json(line)  # ... and strict JSON, for every tool that reads run files
    attempts = [r for r in records if isinstance(r, Attempt)]
    keys = [(a.test_id, a.run) for a in attempts]
    causes = Counter(a.error_cause or a.verdict for a in attempts)
    report_count(
        "fault suite",
        f"{kind:<36} attempts {len(attempts)}/{PLANNED}  duplicated {len(keys) - len(set(keys))}  "
        f"max in flight {max_overlap}  {'aborted (resumable)' if aborted else 'finished'}  "
        + ", ".join(f"{k}={v}" for k, v in sorted(causes.items())),
    )
    assert max_overlap <= 1, "two requests overlapped"
    assert not DRIPS_OUTLASTED, f"the client never hung up on: {DRIPS_OUTLASTED}"
    assert len(keys) == len(set(keys)), "an attempt was recorded twice"
    assert not notes.torn_lines
    assert isinstance(records[0], RunMeta) and isinstance(records[-1], RunEnd)
    if fault.aborts:
        assert aborted is not None and "--resume" in aborted
        reason = end_of(records).reason or ""
        assert "not ready" in reason or "aborted" in reason
        if "404" in kind:
            assert "check `openai.path`" in aborted and len(attempts) == 3
        return
    assert aborted is None
    assert len(attempts) == PLANNED, "an attempt was lost"
    for a in attempts:
        assert a.verdict in ("PASS", "FAIL", "ERROR")
        if a.verdict == "ERROR":
            assert a.error_cause and a.error, a
        assert (a.latency_ms or 0) >= 0
    seen = {a.error_cause for a in attempts if a.verdict == "ERROR"}
    if fault.causes:
        assert seen and seen <= fault.causes, f"causes {seen} not within {fault.causes}"
    else:
        assert not seen, f"no attempt should be lost to {kind}: {seen}"
        assert all(a.verdict == "PASS" for a in attempts)
    if fault.check is not None:
        fault.check(attempts)
    if kind == "log file rotates":
        with_lines = [a for a in attempts if any(t.log_lines for t in a.turns)]
        assert len(with_lines) == PLANNED, "log lines of an attempt were lost in the rotation"
        for a in attempts:
            lines = [ln for t in a.turns for ln in t.log_lines]
            assert any(ln.startswith("AUDIT turn") for ln in lines)
            torn = [
                ln
                for ln in lines
                if not ln.startswith(("AUDIT turn", "# log rotated", "[agenttest"))
            ]
            assert not torn, f"read from the wrong place after rotation: {torn[:2]}"
    if kind == "session lost":
        second_turns = [a.turns[1].response for a in attempts if len(a.turns) == 2]
        assert second_turns and all((r or "").startswith("echo 1:") for r in second_turns)


def test_an_attempt_too_long_for_a_line_is_written_as_garbage_and_read_back(
    tmp_path: Path,
) -> None:
    # Replies under the 32 MiB cap can add up (turns, calls, a stream's text) to a record
    # the readers skip as longer than their line cap: missing, and run again on every
    # --resume. Such a record is written as a garbage ERROR that keeps its identity.
    huge = "x" * (MAX_RECORD_BYTES + 1)
    path = tmp_path / "run.jsonl"
    with RunWriter(path, create=True) as writer:
        writer.append(RunMeta(run_id="r"))
        writer.append(
            Attempt(
                test_id="L1-A-01", run=1, verdict="PASS", session_id="s1",
                turns=[TurnRecord(prompt="p", response=huge, trace=huge, latency_ms=5)],
            )
        )  # fmt: skip
    assert path.stat().st_size < MAX_RECORD_BYTES
    (back,) = [r for r in iter_records(path) if isinstance(r, Attempt)]
    assert (back.test_id, back.run, back.session_id) == ("L1-A-01", 1, "s1")
    assert (back.verdict, back.error_cause) == ("ERROR", "garbage")
    assert "bytes, over the" in (back.error or "")
    assert back.turns[0].latency_ms == 5 and (back.turns[0].response or "").startswith("xxx")
