"""Limits on one HTTP exchange that no agent can talk its way around.

httpx's timeouts bound each socket operation, not the exchange: an agent that sends an
endless stream of ``100 Continue`` responses, or drips its headers a byte at a time, keeps
every read short and never reaches the answer limit. And httpx inflates compressed bodies
after any size check the caller can make on the raw stream, so a 1 MB gzip body becomes
1 GiB in memory. This module provides:

* :class:`DeadlineTransport` — an httpx transport whose every socket read and write is cut
  to the time left before one overall deadline (set per request, from connect to last byte);
* :func:`read_body` — reads a response's raw bytes and decodes ``gzip``/``deflate`` layers
  (stacked ones too) itself, counting *decoded* bytes against the reply cap, with bounded
  memory per step.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable
from typing import Any

import httpcore
import httpx

#: Decoded output produced per decompression step: memory per step stays bounded whatever
#: the compression ratio (zlib reaches ~1000:1, stacked layers multiply that).
_STEP = 256 * 1024


class Deadline:
    """The monotonic time by which the current exchange must be over (None: no limit)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.at: float | None = None

    def cap(self, timeout: float | None, error: type[Exception]) -> float | None:
        if self.at is None:
            return timeout
        left = self.at - self.clock()
        if left <= 0:
            raise error("the exchange's overall deadline has passed")
        return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, deadline: Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._deadline.cap(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._deadline.cap(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        timeout = self._deadline.cap(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, timeout), self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, deadline: Deadline) -> None:
        self._inner = httpcore.SyncBackend()
        self._deadline = deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        timeout = self._deadline.cap(timeout, httpcore.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _Stream(stream, self._deadline)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        timeout = self._deadline.cap(timeout, httpcore.ConnectTimeout)
        return _Stream(
            self._inner.connect_unix_socket(path, timeout, socket_options), self._deadline
        )

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's own transport (exception mapping, pooling) over a deadline-aware socket layer."""

    def __init__(self, deadline: Deadline) -> None:
        # httpx takes no network backend, so the pool its __init__ would build is built here
        # instead, with one (httpx's default settings, no proxy: agenttest never uses the
        # environment's proxies). No TLS context up front: httpcore makes its default one
        # when an https agent is first reached, and loading CA files costs every client.
        self._pool = httpcore.ConnectionPool(
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=_Backend(deadline),
        )


class BodyTooLarge(Exception):
    """The decoded body passed the cap."""


class BadEncoding(Exception):
    """A content encoding agenttest did not ask for and cannot decode safely."""


#: The most compression layers a reply may stack. Decoding recurses once per layer: 2,000
#: gzip layers overflowed the stack (a harness ERROR, retried by --retry-errors).
MAX_ENCODINGS = 4


def _layers(content_encoding: str) -> list[Any]:
    """Decoders for a ``Content-Encoding`` header, outermost (last applied) first."""
    decoders = []
    names = [p.strip().lower() for p in content_encoding.split(",") if p.strip()]
    if len([n for n in names if n != "identity"]) > MAX_ENCODINGS:
        raise BadEncoding(
            f"{len(names)} content encodings stacked (more than {MAX_ENCODINGS}; agenttest "
            "asks for identity)"
        )
    for name in reversed(names):
        if name in ("identity", ""):
            continue
        if name in ("gzip", "x-gzip"):
            decoders.append(zlib.decompressobj(zlib.MAX_WBITS | 16))
        elif name == "deflate":
            decoders.append(zlib.decompressobj())
        else:
            raise BadEncoding(f"content encoding {name!r} (agenttest asks for identity)")
    return decoders


class _Enough(Exception):
    """``on_data`` has all it needs (a stream's final event): stop reading."""


def read_body(
    resp: httpx.Response, cap: int, on_data: Callable[[bytes], bool] | None = None
) -> bytes:
    """The decoded body of a streamed response; :class:`BodyTooLarge` past ``cap`` bytes.

    ``on_data`` sees each decoded piece as it arrives (an incremental stream parser) and
    returns True to stop reading there."""
    layers = _layers(resp.headers.get("content-encoding", ""))
    body = bytearray()

    def push(level: int, data: bytes) -> None:
        if level == len(layers):
            body.extend(data)
            if len(body) > cap:
                raise BodyTooLarge(f"reply larger than {cap} bytes once decoded")
            if on_data is not None and data and on_data(data):
                raise _Enough
            return
        decoder = layers[level]
        while True:
            try:
                out = decoder.decompress(data, _STEP)
            except zlib.error as exc:
                raise BadEncoding(f"the compressed reply is corrupt ({exc})") from None
            data = decoder.unconsumed_tail
            push(level + 1, out)
            # a full step may leave output pending inside zlib even with no input left
            if not data and len(out) < _STEP:
                break

    try:
        for chunk in resp.iter_raw():
            push(0, chunk)
    except _Enough:
        pass
    return bytes(body)
