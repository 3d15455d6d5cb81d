"""The HTTP client for one agent: strictly serial, patient, and honest about what went wrong.

The agents this drives are single-user and slow. Three rules follow:

* one request at a time, asserted (a second concurrent request would be rejected as busy
  in a millisecond and look like a failure of the agent);
* wait for ``ready`` before every attempt, with back-off, treating a refused connection as
  "not yet"; wait out busy replies (honouring ``Retry-After``) without counting them;
* after an answer timed out the agent is usually still working on it, so nothing else is
  sent until it reports ready again.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from agenttest.errors import AgentUnavailable, AttemptError, InternalError
from agenttest.sanitize import redact, terminal_safe

from ._adapters import Adapter, Garbage, Reply, Request, dig, make_adapter, parse_json
from ._config import AgentConfig
from ._stream import StreamAgentError, StreamDecoder, StreamError, StreamTruncated, framing_of
from ._transport import BadEncoding, BodyTooLarge, Deadline, DeadlineTransport, read_body
from ._workspace import PreconditionUnmet

Log = Callable[[str], None]


class AgentNotReady(AgentUnavailable):
    """The agent did not report ready within ``readiness.timeout_s``."""


class OverlapError(InternalError):
    """A second request while one is in flight: a bug in the runner, never allowed."""


MAX_REPLY_BYTES = 32 * 1024 * 1024


class ReplyTooLarge(Garbage):
    """A reply body beyond :data:`MAX_REPLY_BYTES`: treated as garbage."""


STREAM_KEY = "agenttest.stream"  # response extension holding the StreamDecoder


class StreamIdle(AttemptError):
    """A streamed reply went quiet for longer than ``timeouts.idle_s``."""


class TurnLost(AttemptError):
    """The harness could not obtain an answer; the attempt becomes ``ERROR`` with this cause."""

    def __init__(
        self,
        cause: str,
        message: str,
        http_status: int | None = None,
        latency_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.cause = cause
        self.message = message
        self.http_status = http_status
        self.latency_ms = latency_ms


@dataclass
class Exchange:
    reply: Reply
    http_status: int
    latency_ms: int


@dataclass
class Waits:
    """Time spent waiting on the agent, per attempt (kept apart from the answer latency)."""

    ready_ms: int = 0
    busy_ms: int = 0
    busy_replies: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "ready_ms": self.ready_ms,
            "busy_ms": self.busy_ms,
            "busy_replies": self.busy_replies,
        }


def retry_after_s(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date); None if unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class AgentClient:
    """Talks to one agent. Not thread-safe by design: one caller, one request at a time."""

    def __init__(
        self,
        config: AgentConfig,
        *,
        log: Log | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.adapter: Adapter = make_adapter(config)
        # every message that leaves the client (progress, errors, run_end) loses its secrets:
        # URL passwords, query values and the configured header values
        self._secrets = tuple(v for v in config.headers.values() if v)
        say = log or (lambda _msg: None)
        self.log: Log = lambda msg: say(self.scrub(msg))
        self.sleep = sleep
        self.clock = clock
        self.waits = Waits()
        self._in_flight = threading.Lock()
        self._stale = False  # an abandoned request may still be running on the agent
        t = config.timeouts
        self._answer_timeout = httpx.Timeout(
            connect=t.connect_s, read=t.answer_s, write=t.answer_s, pool=t.connect_s
        )
        # Streaming asked for: each wait for bytes (the first included) is an idle gap.
        idle = t.idle_s if config.stream and t.idle_s else t.answer_s
        self._idle_s = t.idle_s
        self._stream_timeout = httpx.Timeout(
            connect=t.connect_s, read=min(idle, t.answer_s), write=t.answer_s, pool=t.connect_s
        )
        self._probe_timeout = httpx.Timeout(
            connect=t.connect_s,
            read=config.readiness.probe_timeout_s,
            write=config.readiness.probe_timeout_s,
            pool=t.connect_s,
        )
        self._deadline = Deadline(clock)
        self._http = httpx.Client(
            base_url=config.base_url,
            # identity: a compressed reply would be inflated past the size cap (a gzip bomb);
            # one that comes compressed anyway is decoded here with the cap on decoded bytes
            headers={**dict(config.headers), "accept-encoding": "identity"},
            timeout=self._answer_timeout,
            follow_redirects=False,
            trust_env=False,
            transport=DeadlineTransport(self._deadline),
        )

    def scrub(self, text: str) -> str:
        return redact(text, self._secrets)

    def _lost(
        self,
        cause: str,
        message: str,
        http_status: int | None = None,
        latency_ms: int | None = None,
    ) -> TurnLost:
        return TurnLost(cause, self.scrub(message), http_status, latency_ms)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> AgentClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport ---------------------------------------------------------------------

    def _send(
        self, req: Request, timeout: httpx.Timeout, streamable: bool = False
    ) -> httpx.Response:
        if not self._in_flight.acquire(blocking=False):
            raise OverlapError("a second request while one is in flight")
        try:
            headers = {"content-type": req.content_type} if req.content else {}
            if req.accept:
                headers["accept"] = req.accept
            request = self._http.build_request(
                req.method,
                req.path,
                content=req.content or None,
                headers=headers or None,
                timeout=timeout,
            )
            # httpx's read timeout bounds each read; one deadline bounds the whole exchange,
            # from connect to the last byte (endless 100 Continue, dripped headers or body),
            # and the decoded body is capped at MAX_REPLY_BYTES. A stream's reads are bounded
            # by the idle limit, the stream as a whole by the answer limit.
            started = self.clock()
            limit = self.config.timeouts.answer_s if streamable else (timeout.read or 0)
            deadline = self._deadline.at = started + limit
            resp = self._http.send(request, stream=True)
            decoder = self._decoder(resp) if streamable else None
            on_data = None
            if decoder is not None:
                on_data = lambda data: self._stream_chunk(decoder, data, started)  # noqa: E731
            try:
                body = read_body(resp, MAX_REPLY_BYTES, on_data)
            except BodyTooLarge as exc:
                raise ReplyTooLarge(str(exc)) from None
            except BadEncoding as exc:
                raise ReplyTooLarge(f"unreadable reply: {exc}") from None
            except httpx.ReadTimeout:
                if (
                    decoder is not None
                    and decoder.timeline.first_byte_ms is not None
                    and deadline - self.clock() > 0.01  # else it is the answer limit
                ):
                    raise StreamIdle(self._idle_message(decoder)) from None
                raise
            finally:
                resp.close()
            kept = [
                (k, v)
                for k, v in resp.headers.multi_items()
                if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
            ]
            return httpx.Response(
                resp.status_code,
                headers=kept,
                content=body,
                request=request,
                extensions={STREAM_KEY: decoder} if decoder is not None else None,
            )
        finally:
            self._deadline.at = None
            self._in_flight.release()

    def _decoder(self, resp: httpx.Response) -> StreamDecoder | None:
        """A decoder when a successful reply is a stream (asked for or not)."""
        framing = framing_of(resp.headers.get("content-type"))
        if framing is None or not 200 <= resp.status_code < 300:
            return None
        return StreamDecoder(framing, self.adapter.dialect)

    def _stream_chunk(self, decoder: StreamDecoder, chunk: bytes, started: float) -> bool:
        ms = _ms(self.clock() - started)
        last = decoder.timeline
        if (
            self._idle_s is not None
            and last.first_byte_ms is not None
            and decoder.last_ms is not None
            and ms - decoder.last_ms > self._idle_s * 1000
        ):
            raise StreamIdle(self._idle_message(decoder))
        try:
            decoder.feed(chunk, ms)
        except StreamError as exc:
            decoder.failure = exc
            return True
        return decoder.done

    def _idle_message(self, decoder: StreamDecoder) -> str:
        limit = self._idle_s if self._idle_s is not None else self.config.timeouts.answer_s
        tl = decoder.timeline
        return (
            f"the stream went quiet for more than {limit:g}s after {tl.events} events "
            f"({tl.chunks} chunks); limit timeouts.idle_s"
        )

    def _exchange(
        self, req: Request, what: str, streamable: bool = False
    ) -> tuple[httpx.Response, int]:
        """Send until the agent accepts (busy replies waited out); returns reply and latency."""
        busy_started: float | None = None
        pause = 0.5
        cap = self.config.timeouts.retry_after_cap_s
        while True:
            if self._stale:
                self.log("the abandoned request may still be running: waiting for ready first")
                self.wait_ready()
            started = self.clock()
            try:
                resp = self._send(
                    req,
                    self._stream_timeout if streamable else self._answer_timeout,
                    streamable,
                )
            except ReplyTooLarge as exc:
                raise self._lost("garbage", f"{what}: {exc}") from None
            except StreamIdle as exc:
                self._stale = True
                raise self._lost(
                    "idle", f"{what}: {exc}", latency_ms=_ms(self.clock() - started)
                ) from None
            except httpx.ConnectError as exc:
                raise self._lost(
                    "unreachable", f"{what}: cannot connect to the agent ({exc})"
                ) from None
            except httpx.ConnectTimeout:
                raise self._lost(
                    "unreachable",
                    f"{what}: no connection within {self.config.timeouts.connect_s:g}s",
                ) from None
            except httpx.TimeoutException:
                self._stale = True
                raise self._lost(
                    "timeout",
                    f"{what}: no answer within {self.config.timeouts.answer_s:g}s",
                    latency_ms=_ms(self.clock() - started),
                ) from None
            except httpx.HTTPError as exc:
                self._stale = True
                raise self._lost(
                    "lost",
                    f"{what}: the connection broke before the answer ({type(exc).__name__}: {exc});"
                    " did the agent crash or restart?",
                    latency_ms=_ms(self.clock() - started),
                ) from None
            latency = _ms(self.clock() - started)
            if resp.status_code not in self.config.busy_statuses:
                if busy_started is not None:
                    self.waits.busy_ms += _ms(self.clock() - busy_started)
                return resp, latency
            now = self.clock()
            busy_started = now if busy_started is None else busy_started
            self.waits.busy_replies += 1
            hinted = retry_after_s(resp.headers.get("retry-after"))
            wait = min(cap, hinted if hinted is not None else pause)
            wait = max(wait, 0.05)
            pause = min(pause * 2, cap)
            busy_for = now - busy_started
            if busy_for + wait > self.config.timeouts.busy_s:
                self.waits.busy_ms += _ms(busy_for)
                raise self._lost(
                    "busy",
                    f"{what}: the agent stayed busy for {busy_for:.1f}s "
                    f"({self.waits.busy_replies} busy replies, last HTTP {resp.status_code}); "
                    f"limit timeouts.busy_s={self.config.timeouts.busy_s:g}",
                    http_status=resp.status_code,
                )
            self.log(
                f"agent busy (HTTP {resp.status_code}); retrying {what} in {wait:.2f}s"
                + (" (Retry-After)" if hinted is not None else "")
            )
            self.sleep(wait)

    # -- readiness ---------------------------------------------------------------------

    def probe(self) -> str:
        """One readiness check: "ready", or what the agent looks like instead."""
        r = self.config.readiness
        if r.path is None:
            url = urlsplit(self.config.base_url)
            port = url.port or (443 if url.scheme == "https" else 80)
            try:
                with socket.create_connection(
                    (url.hostname or "127.0.0.1", port), timeout=self.config.timeouts.connect_s
                ):
                    return "ready"
            except OSError as exc:
                return f"unreachable ({exc.strerror or exc})"
        try:
            resp = self._send(Request("GET", r.path, b"", ""), self._probe_timeout)
        except ReplyTooLarge:
            return f"health reply larger than {MAX_REPLY_BYTES} bytes at {r.path}"
        except httpx.ConnectError:
            return "unreachable (connection refused)"
        except httpx.TimeoutException:
            return "not answering its health check"
        except httpx.HTTPError as exc:
            return f"unreachable ({type(exc).__name__})"
        if resp.status_code in self.config.busy_statuses:
            return f"busy (HTTP {resp.status_code})"
        if not 200 <= resp.status_code < 300:
            hint = " (is readiness.path right?)" if resp.status_code in (404, 405) else ""
            return f"HTTP {resp.status_code} at {r.path}{hint}"
        if r.ready_field is None:
            return "ready"
        try:
            value: Any = dig(parse_json(resp.content), r.ready_field)
        except Garbage:
            return "health reply is not JSON"
        if isinstance(value, str | int | float | bool) and str(value) in r.ready:
            return "ready"
        return str(value) if isinstance(value, str) else f"{r.ready_field}={value!r}"

    def wait_ready(self) -> float:
        """Poll with back-off until ready; raise :class:`AgentNotReady` after the limit."""
        r = self.config.readiness
        started = self.clock()
        deadline = started + r.timeout_s
        pause = r.poll_s
        last = None
        # a heartbeat with the time left, so an agent that never comes up is not 15 silent
        # minutes in a cron mail (every tenth of the limit, between 1 s and 60 s)
        every = max(1.0, min(60.0, r.timeout_s / 10))
        beat = started + every
        while True:
            state = self.probe()
            if state == "ready":
                self._stale = False
                waited = self.clock() - started
                self.waits.ready_ms += _ms(waited)
                if last is not None:
                    self.log(f"agent ready after {waited:.1f}s")
                return waited
            if state != last:
                self.log(f"waiting for the agent to be ready: {terminal_safe(state)}")
                last = state
            now = self.clock()
            remaining = deadline - now
            if now >= beat and remaining > 0:
                self.log(
                    f"still waiting for the agent ({terminal_safe(state)}): "
                    f"{now - started:.0f}s so far, {remaining:.0f}s left of "
                    f"readiness.timeout_s={r.timeout_s:g}"
                )
                beat = now + every
            if remaining <= 0:
                self.waits.ready_ms += _ms(self.clock() - started)
                raise AgentNotReady(
                    self.scrub(
                        f"the agent at {self.config.base_url} was not ready within "
                        f"{r.timeout_s:g}s (last seen: {terminal_safe(state)})"
                    )
                )
            self.sleep(min(pause, remaining))
            pause = min(pause * 1.5, r.max_poll_s)

    # -- protocol ----------------------------------------------------------------------

    def reset(self, session_id: str, *, memory: bool = False) -> int | None:
        """Start a fresh session (and with ``memory`` forget persistent memory too)."""
        self.adapter.forget(session_id)
        req = self.adapter.reset_request(session_id, memory)
        if req is None:
            return None
        resp, _latency = self._exchange(req, "reset")
        if not 200 <= resp.status_code < 300:
            raise self._lost(
                "http_error",
                f"reset: HTTP {resp.status_code}: {resp.text[:200]!r}",
                http_status=resp.status_code,
            )
        return resp.status_code

    def seed_memory(self, session_id: str, items: list[str]) -> None:
        """Put notes into the agent's persistent memory (a ``memory_seed`` fixture).

        Raises :class:`PreconditionUnmet` when the agent cannot be seeded (no way to ask
        in its config, or it answers that it has no such endpoint): the block's premise
        cannot be set up, which is neither a FAIL nor a lost turn.
        """
        req = self.adapter.seed_request(session_id, items)
        if req is None:
            raise PreconditionUnmet("the agent's protocol offers no way to seed its memory")
        resp, _latency = self._exchange(req, "memory seed")
        if resp.status_code in (404, 405, 501):
            raise PreconditionUnmet(f"the agent cannot be seeded (HTTP {resp.status_code})")
        if not 200 <= resp.status_code < 300:
            raise self._lost(
                "http_error",
                f"memory seed: HTTP {resp.status_code}: {resp.text[:200]!r}",
                http_status=resp.status_code,
            )

    def turn(self, session_id: str, prompt: str, turn: int) -> Exchange:
        req = self.adapter.turn_request(session_id, prompt, turn)
        resp, latency = self._exchange(req, f"turn {turn}", streamable=True)
        if not 200 <= resp.status_code < 300:
            raise self._lost(
                "http_error",
                f"turn {turn}: HTTP {resp.status_code}: {resp.text[:200]!r}",
                http_status=resp.status_code,
                latency_ms=latency,
            )
        decoder = resp.extensions.get(STREAM_KEY)
        try:
            if isinstance(decoder, StreamDecoder):
                reply = self._streamed_reply(decoder, session_id, prompt, turn, resp, latency)
            else:
                reply = self.adapter.parse(session_id, prompt, resp.content)
        except Garbage as exc:
            raise self._lost(
                "garbage", f"turn {turn}: {exc}", http_status=resp.status_code, latency_ms=latency
            ) from None
        return Exchange(reply, resp.status_code, latency)

    def stored(self, session_id: str, turn: int) -> str:
        """The agent's stored copy of the latest reply (``store`` in the config)."""
        store = self.config.store
        if store is None:
            raise TurnLost("no_store", "the agent config has no `store` to read replies back")
        resp, _latency = self._exchange(
            self.adapter.store_request(store, session_id, turn), "store"
        )
        if not 200 <= resp.status_code < 300:
            raise TurnLost(
                "http_error",
                f"store: HTTP {resp.status_code}: {resp.text[:200]!r}",
                http_status=resp.status_code,
            )
        try:
            return self.adapter.stored_text(store, resp.content)
        except Garbage as exc:
            raise TurnLost("garbage", f"store: {exc}") from None

    def _streamed_reply(
        self,
        decoder: StreamDecoder,
        session_id: str,
        prompt: str,
        turn: int,
        resp: httpx.Response,
        latency: int,
    ) -> Reply:
        def lost(cause: str, message: str) -> TurnLost:
            return TurnLost(
                cause, f"turn {turn}: {message}", http_status=resp.status_code, latency_ms=latency
            )

        try:
            if decoder.failure is not None:
                raise decoder.failure
            streamed = decoder.finish()
        except StreamTruncated as exc:
            self._stale = True  # the agent may still be writing the rest
            raise lost("truncated", str(exc)) from None
        except StreamAgentError as exc:
            raise lost("stream_error", f"the agent sent an error event: {exc}") from None
        except StreamError as exc:
            raise Garbage(str(exc)) from None
        return self.adapter.parse_stream(session_id, prompt, streamed)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
