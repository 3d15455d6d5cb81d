"""The HTTP client for one agent: strictly serial, patient, and honest about what went wrong.

The agents this drives are single-user and slow. Three rules follow:

* one request at a time, asserted (a second concurrent request would be rejected as busy
  in a millisecond and look like a failure of the agent);
* wait for ``ready`` before every attempt, with back-off, treating a refused connection as
  "not yet"; wait out busy replies (honouring ``Retry-After``) without counting them;
* after an answer timed out the agent is usually still working on it, so nothing else is
  sent until it reports ready again.

This module speaks the protocol and says why a turn was lost (:class:`~._agent.TurnLost`);
one bounded request at a time is :mod:`._sender`, the waiting for ready is :mod:`._waiting`,
how each mode asks and reads a turn is :mod:`._adapters`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from agenttest.sanitize import redact

from ._adapters import Adapter, Request, make_adapter
from ._agent import Evidence, Exchange, PreconditionUnmet, Reply, TurnLost, Waits
from ._config_types import AgentConfig
from ._reply import Garbage
from ._sender import (
    STREAM_KEY,
    ReplyTooLarge,
    Sender,
    StreamIdle,
    ms,
)
from ._stream import StreamAgentError, StreamDecoder, StreamError, StreamTruncated
from ._waiting import Log, health_state, retry_after_s, wait_until_ready


class AgentClient:
    """An :class:`~._agent.Agent` reached over HTTP: the native protocol, a REST API or an
    OpenAI-compatible endpoint (``config.mode``), streamed or not (``config.stream``).
    Not thread-safe by design: one caller, one request at a time."""

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
        self._stale = False  # an abandoned request may still be running on the agent
        self._sender = Sender(config, self.adapter.dialect, clock)

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

    @property
    def evidence(self) -> Evidence:
        return Evidence.of(self.config)

    def start(self) -> None:
        """Nothing to bring up: the agent runs already, at ``config.base_url``."""

    def stop(self) -> None:
        self.close()

    def close(self) -> None:
        self._sender.close()

    def __enter__(self) -> AgentClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one request, busy replies waited out ----------------------------------------------

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
                sender = self._sender
                timeout = sender.stream_timeout if streamable else sender.answer_timeout
                resp = sender.send(req, timeout, streamable)
            except ReplyTooLarge as exc:
                raise self._lost("garbage", f"{what}: {exc}") from None
            except StreamIdle as exc:
                self._stale = True
                raise self._lost(
                    "idle", f"{what}: {exc}", latency_ms=ms(self.clock() - started)
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
                    latency_ms=ms(self.clock() - started),
                ) from None
            except httpx.HTTPError as exc:
                self._stale = True
                raise self._lost(
                    "lost",
                    f"{what}: the connection broke before the answer ({type(exc).__name__}: {exc});"
                    " did the agent crash or restart?",
                    latency_ms=ms(self.clock() - started),
                ) from None
            latency = ms(self.clock() - started)
            if resp.status_code not in self.config.busy_statuses:
                if busy_started is not None:
                    self.waits.busy_ms += ms(self.clock() - busy_started)
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
                self.waits.busy_ms += ms(busy_for)
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
        sender = self._sender
        return health_state(self.config, lambda req: sender.send(req, sender.probe_timeout))

    def wait_ready(
        self, *, wanted: Callable[[str], bool] | None = None, quiet: bool = False
    ) -> float:
        """Poll with back-off until ready; raise :class:`AgentNotReady` after the limit.

        ``wanted`` sees each state that is not ready and may end the wait (:class:`NotWanted`);
        ``quiet`` waits without a word (a replica already known to be down).
        """
        waited = wait_until_ready(
            self.probe,
            self.config,
            self.waits,
            clock=self.clock,
            sleep=self.sleep,
            log=(lambda _msg: None) if quiet else self.log,
            scrub=self.scrub,
            wanted=wanted,
        )
        self._stale = False
        return waited

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
