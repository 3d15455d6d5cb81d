"""One request to the agent at a time, inside its limits.

:class:`Sender` owns the HTTP connection of one :class:`~._client.AgentClient` and sends
one request at a time (a second concurrent one is a runner bug, :class:`OverlapError`).
Each exchange is bounded from connect to the last byte by one deadline, its decoded body
by :data:`MAX_REPLY_BYTES`, and a streamed reply's silences by ``timeouts.idle_s``. What
the agent *meant* by the reply (busy, an error, an answer) is the client's business.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import httpx

from agenttest.errors import AttemptError, InternalError

from ._adapters import Request
from ._config_types import AgentConfig
from ._reply import Garbage
from ._stream import Dialect, StreamDecoder, StreamError, framing_of
from ._transport import BadEncoding, BodyTooLarge, Deadline, DeadlineTransport, read_body

MAX_REPLY_BYTES = 32 * 1024 * 1024

STREAM_KEY = "agenttest.stream"  # response extension holding the StreamDecoder


class OverlapError(InternalError):
    """A second request while one is in flight: a bug in the runner, never allowed."""


class ReplyTooLarge(Garbage):
    """A reply body beyond :data:`MAX_REPLY_BYTES`: treated as garbage."""


class StreamIdle(AttemptError):
    """A streamed reply went quiet for longer than ``timeouts.idle_s``."""


def ms(seconds: float) -> int:
    return round(seconds * 1000)


class Sender:
    """Sends one request at a time to ``config.base_url`` and reads its whole reply."""

    def __init__(self, config: AgentConfig, dialect: Dialect, clock: Callable[[], float]) -> None:
        self.config = config
        self.dialect = dialect
        self.clock = clock
        self._in_flight = threading.Lock()
        t = config.timeouts
        self.answer_timeout = httpx.Timeout(
            connect=t.connect_s, read=t.answer_s, write=t.answer_s, pool=t.connect_s
        )
        # Streaming asked for: each wait for bytes (the first included) is an idle gap.
        idle = t.idle_s if config.stream and t.idle_s else t.answer_s
        self._idle_s = t.idle_s
        self.stream_timeout = httpx.Timeout(
            connect=t.connect_s, read=min(idle, t.answer_s), write=t.answer_s, pool=t.connect_s
        )
        self.probe_timeout = httpx.Timeout(
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
            timeout=self.answer_timeout,
            follow_redirects=False,
            trust_env=False,
            transport=DeadlineTransport(self._deadline),
        )

    def close(self) -> None:
        self._http.close()

    def send(
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
        return StreamDecoder(framing, self.dialect)

    def _stream_chunk(self, decoder: StreamDecoder, chunk: bytes, started: float) -> bool:
        elapsed = ms(self.clock() - started)
        last = decoder.timeline
        if (
            self._idle_s is not None
            and last.first_byte_ms is not None
            and decoder.last_ms is not None
            and elapsed - decoder.last_ms > self._idle_s * 1000
        ):
            raise StreamIdle(self._idle_message(decoder))
        try:
            decoder.feed(chunk, elapsed)
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
