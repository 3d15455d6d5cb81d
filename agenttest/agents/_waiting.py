"""Waiting on the agent: until it is ready, and out of its busy replies, counted apart.

Readiness is polled with back-off (a refused connection means "not yet"), with a heartbeat
so an agent that never comes up is not a silent quarter of an hour; a busy reply's
``Retry-After`` says how long to wait. The time both take is kept in :class:`Waits`, apart
from the answer latency, so a slow start does not read as a slow agent.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from agenttest.sanitize import terminal_safe

from ._adapters import Request
from ._agent import AgentNotReady, NotWanted, Waits
from ._config_types import AgentConfig
from ._reply import Garbage, dig, parse_json
from ._sender import MAX_REPLY_BYTES, ReplyTooLarge, ms

Log = Callable[[str], None]


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


def health_state(config: AgentConfig, send: Callable[[Request], httpx.Response]) -> str:
    """One readiness check: "ready", or what the agent looks like instead.

    Without ``readiness.path`` an open port is ready; else ``send`` asks the health path.
    """
    r = config.readiness
    if r.path is None:
        url = urlsplit(config.base_url)
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            with socket.create_connection(
                (url.hostname or "127.0.0.1", port), timeout=config.timeouts.connect_s
            ):
                return "ready"
        except OSError as exc:
            return f"unreachable ({exc.strerror or exc})"
    try:
        resp = send(Request("GET", r.path, b"", ""))
    except ReplyTooLarge:
        return f"health reply larger than {MAX_REPLY_BYTES} bytes at {r.path}"
    except httpx.ConnectError:
        return "unreachable (connection refused)"
    except httpx.TimeoutException:
        return "not answering its health check"
    except httpx.HTTPError as exc:
        return f"unreachable ({type(exc).__name__})"
    if resp.status_code in config.busy_statuses:
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


def wait_until_ready(
    probe: Callable[[], str],
    config: AgentConfig,
    waits: Waits,
    *,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    log: Log,
    scrub: Callable[[str], str],
    wanted: Callable[[str], bool] | None = None,
) -> float:
    """Poll ``probe`` with back-off until ready; raise :class:`AgentNotReady` after the limit.

    Returns the seconds waited; they are added to ``waits.ready_ms`` either way. ``wanted``
    sees every state that is not ready; when it answers False the wait ends with
    :class:`NotWanted` (a pool whose work is done stops probing a replica that is down).
    """
    r = config.readiness
    started = clock()
    deadline = started + r.timeout_s
    pause = r.poll_s
    last = None
    # a heartbeat with the time left, so an agent that never comes up is not 15 silent
    # minutes in a cron mail (every tenth of the limit, between 1 s and 60 s)
    every = max(1.0, min(60.0, r.timeout_s / 10))
    beat = started + every
    while True:
        state = probe()
        if state == "ready":
            waited = clock() - started
            waits.ready_ms += ms(waited)
            if last is not None:
                log(f"agent ready after {waited:.1f}s")
            return waited
        if wanted is not None and not wanted(state):
            waits.ready_ms += ms(clock() - started)
            raise NotWanted(state)
        if state != last:
            log(f"waiting for the agent to be ready: {terminal_safe(state)}")
            last = state
        now = clock()
        remaining = deadline - now
        if now >= beat and remaining > 0:
            log(
                f"still waiting for the agent ({terminal_safe(state)}): "
                f"{now - started:.0f}s so far, {remaining:.0f}s left of "
                f"readiness.timeout_s={r.timeout_s:g}"
            )
            beat = now + every
        if remaining <= 0:
            waits.ready_ms += ms(clock() - started)
            raise AgentNotReady(
                scrub(
                    f"the agent at {config.base_url} was not ready within "
                    f"{r.timeout_s:g}s (last seen: {terminal_safe(state)})"
                )
            )
        sleep(min(pause, remaining))
        pause = min(pause * 1.5, r.max_poll_s)
