"""Real, misbehaving HTTP agents on 127.0.0.1 for runner tests (no mocks of the client).

:class:`LoopbackAgent` speaks the native protocol (SPEC section 5) and can be told to be
slow, loading, busy, hung, broken or gone. It counts every request and the most requests
ever in flight at once, so a test can prove the runner never overlapped two.

Others may reuse it: ``with LoopbackAgent(Behaviour(turn_delay_s=0.05)) as agent: ...``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Behaviour:
    """What the agent does. Turn numbers count POST /v1/turn requests from 1, busy replies
    included."""

    loading_s: float = 0.0  # /health says "loading" for this long after start
    turn_delay_s: float = 0.0  # every accepted turn takes this long
    busy_first: int = 0  # the first N turn requests get 409 + Retry-After
    busy_always: bool = False
    busy_status: int = 409
    retry_after: str | None = "0"
    hang_turns: set[int] = field(default_factory=set)  # these sleep hang_s before answering
    hang_s: float = 1.0
    garbage_turns: set[int] = field(default_factory=set)  # 200 with a non-JSON body
    error_turns: set[int] = field(default_factory=set)  # 500
    drop_turns: set[int] = field(default_factory=set)  # close the connection, no answer
    trickle_turns: set[int] = field(default_factory=set)  # the body one byte per trickle_byte_s
    trickle_byte_s: float = 0.05
    tool_calls: list[dict[str, Any]] = field(
        default_factory=lambda: [
            {"name": "calculator", "arguments": {"expression": "1+1"}, "ok": True, "result": "2"}
        ]
    )
    log_file: str | None = None  # each turn appends a line here
    on_turn: Callable[[int], None] | None = None  # called with the turn number on arrival
    # turn number -> writes its own raw reply on the handler (fault suite: truncated bodies,
    # resets, wrong content types, ...); returns True when it answered
    raw_turns: dict[int, Callable[[Any], bool]] = field(default_factory=dict)
    on_reset: Callable[[dict[str, Any]], None] | None = None  # called with each reset body
    forget_sessions: bool = False  # every turn acts as if the session were new (session lost)
    # writes its own raw reply to GET /health (a hostile health check); True when it answered
    raw_health: Callable[[Any], bool] | None = None
    # served under this path too (a base_url with a path: /PREFIX/health, /PREFIX/v1/turn)
    path_prefix: str = ""


class _State:
    def __init__(self, behaviour: Behaviour) -> None:
        self.b = behaviour
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.in_flight = 0
        self.max_in_flight = 0
        self.work_in_flight = 0
        self.max_work_in_flight = 0
        self.turns = 0
        self.requests: list[tuple[str, str, float]] = []  # (method, path, monotonic time)
        self.sessions: dict[str, int] = {}
        self.resets: list[dict[str, Any]] = []
        self.bodies: list[dict[str, Any]] = []
        self.connections: set[socket.socket] = set()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body leave at once, no 40 ms delayed-ACK stall
    state: _State

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        with self.state.lock:
            self.state.connections.add(self.connection)

    def finish(self) -> None:
        with self.state.lock:
            self.state.connections.discard(self.connection)
        with contextlib.suppress(OSError):  # the connection was cut (a simulated crash)
            super().finish()

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _enter(self, work: bool) -> None:
        st = self.state
        with st.lock:
            st.requests.append((self.command, self.path, time.monotonic()))
            st.in_flight += 1
            st.max_in_flight = max(st.max_in_flight, st.in_flight)
            if work:
                st.work_in_flight += 1
                st.max_work_in_flight = max(st.max_work_in_flight, st.work_in_flight)

    def _leave(self, work: bool) -> None:
        with self.state.lock:
            self.state.in_flight -= 1
            if work:
                self.state.work_in_flight -= 1

    def _unprefix(self) -> None:
        prefix = self.state.b.path_prefix
        if prefix and self.path.startswith(prefix + "/"):
            self.path = self.path[len(prefix) :]

    def do_GET(self) -> None:
        self._unprefix()
        self._enter(False)
        try:
            st = self.state
            if st.b.raw_health is not None and self.path == "/health" and st.b.raw_health(self):
                return
            if self.path != "/health":
                self._send(404, {"error": "not found"})
            elif time.monotonic() - st.started < st.b.loading_s:
                self._send(200, {"status": "loading"})
            elif st.work_in_flight:
                self._send(200, {"status": "busy"})
            else:
                self._send(200, {"status": "ready"})
        finally:
            self._leave(False)

    def do_POST(self) -> None:
        self._unprefix()
        self._enter(True)
        try:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path == "/v1/reset":
                self.state.resets.append(body)
                if self.state.b.on_reset is not None:
                    self.state.b.on_reset(body)
                self._send(200, {"ok": True})
            elif self.path == "/v1/turn":
                self._turn(body)
            else:
                self._send(404, {"error": "not found"})
        finally:
            self._leave(True)

    def _turn(self, body: dict[str, Any]) -> None:
        st, b = self.state, self.state.b
        with st.lock:
            st.turns += 1
            n = st.turns
            st.bodies.append(body)
        if b.on_turn is not None:
            b.on_turn(n)
        if b.busy_always or n <= b.busy_first:
            headers = {"retry-after": b.retry_after} if b.retry_after is not None else {}
            self._send(b.busy_status, {"status": "busy"}, headers)
            return
        raw = b.raw_turns.get(n)
        if raw is not None and raw(self):
            return
        if n in b.hang_turns:
            time.sleep(b.hang_s)
        if n in b.drop_turns:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if n in b.error_turns:
            self._send(500, {"error": "internal error"})
            return
        if n in b.trickle_turns:
            data = json.dumps({"response": "slow", "tool_calls": [], "trace": ""}).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                time.sleep(b.trickle_byte_s)
            return
        if n in b.garbage_turns:
            self._send(200, b"<html>oops</html>")
            return
        time.sleep(b.turn_delay_s)
        sid = str(body.get("session_id"))
        with st.lock:
            st.sessions[sid] = 1 if b.forget_sessions else st.sessions.get(sid, 0) + 1
            turn_in_session = st.sessions[sid]
        if b.log_file:
            with open(b.log_file, "a", encoding="utf-8") as f:
                f.write(f"AUDIT turn {n} session {sid}\n")
        message = str(body.get("message"))
        self._send(
            200,
            {
                "response": f"echo {turn_in_session}: {message}",
                "tool_calls": b.tool_calls,
                "trace": f"ROUTE chat\nTURN {turn_in_session}",
            },
        )


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # writing to a connection the test cut on purpose


class LoopbackAgent:
    """A native-protocol agent on 127.0.0.1 that can misbehave on cue, and restart."""

    def __init__(self, behaviour: Behaviour | None = None, port: int = 0) -> None:
        self.behaviour = behaviour or Behaviour()
        self.state = _State(self.behaviour)
        self.port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LoopbackAgent:
        handler = type("Handler", (_Handler,), {"state": self.state})
        server = _QuietServer(("127.0.0.1", self.port), handler)
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        self.state.started = time.monotonic()
        return self

    def stop(self) -> None:
        """Stop like a crashed process: stop listening and cut every open connection."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self.state.lock:
            connections = list(self.state.connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def restart(self, down_s: float) -> None:
        """Crash now (connections cut, then refused), come back after ``down_s`` seconds."""
        self.stop()

        def later() -> None:
            time.sleep(down_s)
            self.start()

        threading.Thread(target=later, daemon=True).start()

    def __enter__(self) -> LoopbackAgent:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def agent_yaml(url: str, **extra: Any) -> str:
    """A small native agent config as YAML text: quick polls, and limits that only a
    broken or absent agent reaches (a test about a limit sets its own small one), so a
    busy machine never turns a slow answer into a timeout."""
    config: dict[str, Any] = {
        "name": "loopback",
        "model": "loopback-model",
        "base_url": url,
        "timeouts": {"connect_s": 30, "answer_s": 120, "busy_s": 3, "retry_after_cap_s": 0.2},
        "readiness": {"timeout_s": 60, "poll_s": 0.02, "max_poll_s": 0.1, "probe_timeout_s": 30},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    return json.dumps(config, indent=1)  # JSON is YAML


BLOCK = """\
id: {id}
tier: L1
category: TEST
title: a test block
capability: answers
turns: {turns}
k: {k}
criteria:
  pass:
    - {{id: P1, tag: KEYWORD, type: response_contains, values: [echo], says: it echoes}}
"""


def write_battery(folder: Any, blocks: dict[str, tuple[int, int]]) -> Any:
    """Blocks named by id → (turns, k) under ``folder``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for block_id, (n_turns, k) in blocks.items():
        turns = json.dumps([f"{block_id} prompt {i}" for i in range(1, n_turns + 1)])
        text = BLOCK.format(id=block_id, turns=turns, k=k)
        (folder / f"{block_id}.yaml").write_text(text, encoding="utf-8")
    return folder


Route = Callable[[str, Any], tuple[int, Any]]


class RouteServer(LoopbackAgent):
    """A server for other APIs (rest, openai modes): ``routes[path](method, json_body)``
    returns ``(status, json_or_bytes)``. Requests are recorded in ``state.bodies``."""

    def __init__(self, routes: dict[str, Route]) -> None:
        super().__init__()
        self.routes = routes

    def start(self) -> RouteServer:
        routes = self.routes
        state = self.state

        class Handler(_Handler):
            def _route(self) -> None:
                self._enter(self.command == "POST")
                try:
                    length = int(self.headers.get("content-length") or 0)
                    raw = self.rfile.read(length) if length else b""
                    body = json.loads(raw) if raw else None
                    with state.lock:
                        state.bodies.append(
                            {"path": self.path, "body": body, "headers": dict(self.headers)}
                        )
                    route = routes.get(self.path)
                    status, reply = route(self.command, body) if route else (404, {})
                    self._send(status, reply)
                finally:
                    self._leave(self.command == "POST")

            do_GET = _route
            do_POST = _route

        Handler.state = state
        server = _QuietServer(("127.0.0.1", self.port), Handler)
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        return self


def run_config(tmp_path: Any, battery: Any, agent: Any, **fields: Any) -> Any:
    """Run ``battery`` in-process with the agent config file ``agent`` into
    ``tmp_path/out`` (``fields`` set other RunRequest fields); returns the run file's path."""
    from agenttest.runner import RunRequest, run

    fields.setdefault("out", tmp_path / "out")
    request = RunRequest(
        paths=[str(battery)], agent=str(agent), allow_temp=True, quiet=True, **fields
    )
    return run(request)


def run_battery_at(
    tmp_path: Any, url: str, battery: Any, *, judge: str | None = "none", **config: Any
) -> Any:
    """Write an agent config for ``url`` (``config`` overrides its keys) and run ``battery``
    in-process into ``tmp_path/out``; returns the run file's path."""
    agent = tmp_path / "agent.yaml"
    agent.write_text(agent_yaml(url, **config), encoding="utf-8")
    return run_config(tmp_path, battery, agent, judge=judge)
