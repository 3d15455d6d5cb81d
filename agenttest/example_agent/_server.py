"""The HTTP face of the example agent (SPEC section 5): the server and its endpoints.

One agent, one user: turns are serialised by a lock, and a turn or reset that arrives while
another turn runs gets ``409`` with ``Retry-After``. ``GET /health`` says ``loading``
during the loading period, ``busy`` while a turn runs, ``ready`` otherwise. The faults it
shows on purpose are :mod:`._faults`; binding and running it is :mod:`._serving`.
"""

from __future__ import annotations

import json
import math
import os
import queue
import random
import re
import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ._agent import Agent, BrainError, TurnResult
from ._faults import CRASH_EXIT_CODE, Faults
from ._hosted import HostUnreachable
from ._requests import (
    SESSION_RULE,
    Addressed,
    BadRequest,
    ResetRequest,
    SeedRequest,
    TurnRequest,
    chat_turn,
    read,
)
from ._sandbox import Blocked
from ._stream_face import completion, live_events, native_events, openai_events, sse
from ._tools import openai_tools

MAX_BODY = 1_000_000


class AgentServer(ThreadingHTTPServer):
    """A threading HTTP server around one :class:`Agent`."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], agent: Agent, faults: Faults,
                 *, access_log: bool = False, temp_workspace: bool = False) -> None:  # fmt: skip
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        self.agent = agent
        self.faults = faults
        self.access_log = access_log
        self.temp_workspace = temp_workspace
        self.turn_lock = threading.Lock()
        self.answered = 0
        self.started = time.monotonic()
        self.stopping = threading.Event()
        self._rng = random.Random(faults.seed)
        self._rng_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        raw_host, port = self.server_address[:2]
        host = raw_host.decode() if isinstance(raw_host, bytes) else str(raw_host)
        shown = f"[{host}]" if ":" in str(host) else str(host)
        return f"http://{shown}:{port}"

    @property
    def workspace(self) -> Path:
        return self.agent.workspace

    def loading_left(self) -> float:
        return max(0.0, self.faults.loading_s - (time.monotonic() - self.started))

    def status(self) -> str:
        if self.loading_left() > 0:
            return "loading"
        if self.turn_lock.locked():
            return "busy"
        host = self.agent.host
        unreachable = host.check() if host is not None else None
        # a model-driven brain is only as ready as its model (issue 30)
        unready = getattr(self.agent.brain, "unready", None)
        unreachable = unreachable or (unready() if unready is not None else None)
        # with hosted tools, an agent that cannot list the host's tools cannot work
        return f"waiting: {unreachable}" if unreachable else "ready"

    def tool_list(self) -> dict[str, Any]:
        """``GET /v1/tools``: what the brain may call (the host's tools, when hosted)."""
        hosted = self.agent.ctx.hosted
        if hosted is None:
            return {"tools": openai_tools()}
        try:
            return {"tools": hosted.openai_tools(), "hosted": hosted.client.url}
        except HostUnreachable as exc:
            return {"tools": [], "hosted": hosted.client.url, "error": str(exc)}

    def chance(self, probability: float) -> bool:
        if probability <= 0:
            return False
        with self._rng_lock:
            return self._rng.random() < probability

    def start(self) -> AgentServer:
        """Serve in a background thread (for tests and embedding)."""
        self._thread = threading.Thread(target=self.serve_forever, args=(0.1,), name="example-agent",
                                        daemon=True)  # fmt: skip
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, release hung turns, close the socket, drop a temp workspace."""
        self.stopping.set()
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self.server_close()
        self.agent.close()
        if self.temp_workspace:
            shutil.rmtree(self.workspace, ignore_errors=True)

    def __enter__(self) -> AgentServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    server: AgentServer
    protocol_version = "HTTP/1.1"
    server_version = "agenttest-example-agent"
    # Without these, the body (a second small write after the headers) waited for the
    # client's delayed ACK (Nagle's algorithm): ~40 ms added to every request. TCP_NODELAY
    # sends at once, and a buffered wfile sends headers and body as one write on flush().
    disable_nagle_algorithm = True
    wbufsize = -1

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.access_log:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    def _send(self, status: int, body: Any, retry_after: float | None = None,
              raw: bytes | None = None) -> None:  # fmt: skip
        data = raw if raw is not None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        if retry_after is not None:
            self.send_header("Retry-After", str(max(1, math.ceil(retry_after))))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()  # headers and body leave together (wfile is buffered)

    def _error(self, status: int, message: str, retry_after: float | None = None) -> None:
        self._send(status, {"error": message}, retry_after)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/health":
            self._send(200, {"status": self.server.status()})
        elif path == "/v1/tools":
            self._send(200, self.server.tool_list())
        elif path == "/v1/models":
            self._send(
                200, {"object": "list", "data": [{"id": "example-agent", "object": "model"}]}
            )
        elif path.startswith("/v1/sessions/") and path.endswith("/messages"):
            self._messages(unquote(path.removeprefix("/v1/sessions/").removesuffix("/messages")))
        elif path == "/":
            brain = self.server.agent.brain.name
            self._send(200, {"name": "agenttest example agent", "brain": brain,
                             "endpoints": ["GET /health", "POST /v1/turn", "POST /v1/reset",
                                           "GET /v1/tools", "GET /v1/sessions/{id}/messages",
                                           "POST /v1/chat/completions"]})  # fmt: skip
        else:
            self._error(404, f"no such endpoint: GET {path}")

    def _messages(self, session_id: str) -> None:
        """The stored conversation, as the agent keeps it (what a reload would show)."""
        session = self.server.agent.sessions.get(session_id)
        if session is None:
            self._error(404, f"no such session: {session_id}")
            return
        messages = []
        for message, response in session.history:
            if self.server.faults.store_drift:  # a guard that runs on the stored copy only
                response = re.sub(r"\d", "#", response)
            messages += [{"role": "user", "content": message},
                         {"role": "assistant", "content": response}]  # fmt: skip
        self._send(200, {"session_id": session_id, "messages": messages})

    def _stream(self, events: Iterator[bytes]) -> None:
        """An SSE reply in chunked transfer, each event flushed as it is written."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _body(self) -> dict[str, object] | None:
        """The request's JSON object, or None when a 400 (411, 413) has said why not."""
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._error(411, "Content-Length required")
            return None
        if not 0 <= length <= MAX_BODY:
            self._error(413, f"body larger than {MAX_BODY} bytes")
            return None
        try:
            body = json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            self._error(400, "body is not valid JSON")
            return None
        if not isinstance(body, dict):
            self._error(400, "body must be a JSON object")
            return None
        return body

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if path not in ("/v1/turn", "/v1/reset", "/v1/memory/seed", "/v1/chat/completions"):
            self._error(404, f"no such endpoint: POST {path}")
            return
        body = self._body()
        if body is None:
            return
        try:
            self._post(path, body)
        except BadRequest as exc:
            self._error(400, str(exc))

    def _post(self, path: str, body: dict[str, object]) -> None:
        turn: TurnRequest | None = None
        model = None  # the chat face's: its reply is a chat completion naming the model
        if path == "/v1/chat/completions":
            turn, model = chat_turn(body)
        else:
            read(body, Addressed, SESSION_RULE)
            if path == "/v1/turn":
                turn = read(body, TurnRequest, "message must be a string")
        server = self.server
        left = server.loading_left()
        if left > 0:
            self._error(503, "loading", retry_after=left)
            return
        if turn is not None and server.chance(server.faults.busy_probability):
            self._error(503, "busy (simulated)", retry_after=1)
            return
        if not server.turn_lock.acquire(blocking=False):
            self._error(409, "busy: another turn is in progress", retry_after=1)
            return
        try:
            if path == "/v1/reset":
                self._reset(read(body, ResetRequest, "memory must be true or false"))
            elif path == "/v1/memory/seed":
                self._seed(read(body, SeedRequest, "items must be a list of non-empty strings"))
            elif turn is not None:
                self._turn(turn, model)
        finally:
            server.turn_lock.release()

    def _reset(self, request: ResetRequest) -> None:
        try:
            forgot, cleared = self.server.agent.reset(request.session_id, memory=request.memory)
        except (OSError, Blocked) as exc:  # the memory file could not be rewritten
            self._error(500, f"reset failed: {type(exc).__name__}: {exc}")
            return
        answer: dict[str, Any] = {"status": "ok", "session_id": request.session_id,
                                  "forgotten": forgot}  # fmt: skip
        if cleared is not None:
            answer["memory_cleared"] = cleared
        self._send(200, answer)

    def _seed(self, request: SeedRequest) -> None:
        """Save notes into the persistent memory, as if an earlier session had (EV blocks)."""
        try:
            count = 0
            for text in request.items:
                count = self.server.agent.ctx.memory.save(text)
        except (OSError, Blocked) as exc:
            self._error(500, f"seed failed: {type(exc).__name__}: {exc}")
            return
        self._send(200, {"status": "ok", "seeded": len(request.items), "items": count})

    def _turn(self, request: TurnRequest, model: str | None) -> None:
        server, faults = self.server, self.server.faults
        if faults.hang_after is not None and server.answered >= faults.hang_after:
            server.stopping.wait()  # never answers; released only by shutdown
            self.close_connection = True
            return
        if faults.latency_s and server.stopping.wait(faults.latency_s):
            return
        stream = request.streamed or "text/event-stream" in (self.headers.get("Accept") or "")
        if stream and model is None and getattr(server.agent.brain, "live", False):
            self._live(request)
            return
        try:
            result = server.agent.turn(request.session_id, request.message)
        except BrainError as exc:
            self._error(exc.status, str(exc), exc.retry_after)
            return
        except Exception as exc:  # the agent must answer, even about its own bug
            self._error(500, f"internal error: {type(exc).__name__}: {exc}")
            return
        server.answered += 1
        if server.chance(faults.garbage_probability):
            self._send(200, None, raw=b"<<garbage>> \x00\xff not json {")
        elif model is not None:
            if stream:
                self._stream(openai_events(result, model))
            else:
                self._send(200, completion(result, model))
        elif stream:
            self._stream(native_events(result, late_choices=faults.late_choices))
        else:
            self._send(200, result.as_json())
        self._maybe_crash()

    def _maybe_crash(self) -> None:
        faults = self.server.faults
        if faults.crash_after is not None and self.server.answered >= faults.crash_after:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(CRASH_EXIT_CODE)

    def _live(self, request: TurnRequest) -> None:
        """A native stream written as the turn goes (a model-driven brain): each call as it
        ends and the answer as the model sends it, then the final event — or an error event
        when the model fails after the stream began (issue 31)."""
        server = self.server
        events: queue.Queue[bytes | None] = queue.Queue()
        said: set[str] = set()
        ended: list[TurnResult | str] = []

        def emit(event: dict[str, Any]) -> None:
            said.add(str(event.get("type")))
            events.put(sse(event))

        def work() -> None:
            try:
                ended.append(server.agent.turn(request.session_id, request.message, emit))
            except BrainError as exc:
                ended.append(str(exc))
            except Exception as exc:  # the agent must answer, even about its own bug
                ended.append(f"internal error: {type(exc).__name__}: {exc}")
            finally:
                events.put(None)

        def stream() -> Iterator[bytes]:
            while (event := events.get()) is not None:
                yield event
            if not isinstance(ended[0], str):
                server.answered += 1
            yield from live_events(ended[0], "choices" in said)

        threading.Thread(target=work, name="live-turn", daemon=True).start()
        self._stream(stream())
        self._maybe_crash()
