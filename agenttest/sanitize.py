"""Making hostile text safe to store and to show.

Everything an agent sends is data, and some of it cannot be written as it came:

* a lone UTF-16 surrogate (``"\\ud800"`` is valid JSON; LLM servers emit it when they cut an
  emoji pair) cannot be encoded as UTF-8, so one such reply would stop every write of a run;
* ``NaN`` and ``Infinity`` are accepted by Python's JSON parser but are not RFC 8259 JSON, so
  a run file holding them is unreadable for other tools;
* C0/C1 control characters (ESC, OSC, ...) in a reply printed on a terminal change its title,
  clear the screen or write the clipboard (OSC 52).

:func:`encodable` repairs a decoded JSON value (and says what it changed, for the evidence);
:func:`terminal_safe` makes text harmless for a terminal or a Markdown file.
"""

from __future__ import annotations

import math
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# A lone surrogate can only reach a decoded value through a JSON escape; this finds the
# escape in raw bytes cheaply, so readers need not walk every record.
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
#: How deep a reply may nest before it is garbage rather than a reply: a real tool result is
#: a handful of levels; hundreds are a loop or an attack (and recursion in every reader).
MAX_DEPTH = 200

# Every C0 and C1 control character except newline and tab, plus DEL.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class TooDeep(ValueError):
    """A JSON value nested deeper than :data:`MAX_DEPTH`."""


def fix_text(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many were replaced."""
    return _SURROGATE.subn("\ufffd", text)


def encodable(value: Any, max_depth: int = MAX_DEPTH) -> tuple[Any, list[str]]:
    """``value`` (decoded JSON) made writable as strict UTF-8 JSON, and notes on what changed.

    Lone surrogates become U+FFFD; non-finite floats become their name as a string
    (``"NaN"``, ``"Infinity"``, ``"-Infinity"``). Raises :class:`TooDeep` beyond
    ``max_depth``. Iterative, so a deep value cannot exhaust the Python stack.
    """
    surrogates = 0
    non_finite = 0

    def leaf(item: Any) -> Any:
        nonlocal surrogates, non_finite
        if isinstance(item, str):
            fixed, n = fix_text(item)
            surrogates += n
            return fixed
        if isinstance(item, float) and not math.isfinite(item):
            non_finite += 1
            return "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")
        return item

    root: list[Any] = [value]
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        container, depth = stack.pop()
        if depth > max_depth:
            raise TooDeep(f"nested deeper than {max_depth} levels")
        if isinstance(container, dict):
            for key in list(container):
                item = container[key]
                new_key = leaf(key) if isinstance(key, str) else key
                if new_key != key:
                    del container[key]
                if isinstance(item, dict | list):
                    stack.append((item, depth + 1))
                    container[new_key] = item
                else:
                    container[new_key] = leaf(item)
        else:
            for i, item in enumerate(container):
                if isinstance(item, dict | list):
                    stack.append((item, depth + 1))
                else:
                    container[i] = leaf(item)
    notes = []
    if surrogates:
        notes.append(
            f"{surrogates} lone UTF-16 surrogate(s) in the reply were replaced by U+FFFD "
            "(a cut emoji pair); the text is otherwise as received"
        )
    if non_finite:
        notes.append(
            f"{non_finite} NaN/Infinity value(s) in the reply are stored as strings "
            "(they are not JSON)"
        )
    return root[0], notes


REDACTED = "***"
_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")


def redact_url(url: str) -> str:
    """``url`` with its password and every query value replaced by ``***``."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        password, port = parts.password, parts.port
    except ValueError:  # not parseable as a URL: hide everything after the scheme
        return url.split("://", 1)[0] + "://" + REDACTED
    if password is None and not parts.query:
        return url
    netloc = parts.hostname or ""
    if port:
        netloc += f":{port}"
    if parts.username:
        netloc = f"{parts.username}:{REDACTED}@{netloc}"
    query = "&".join(
        f"{item.split('=', 1)[0]}={REDACTED}" if "=" in item else item
        for item in parts.query.split("&")
        if item
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Free text (an error, a progress line, a run_end reason) with every URL's password and
    query values, and every given secret value, replaced by ``***``."""
    text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)
    for secret in secrets:
        if len(secret) >= 6:  # shorter values would redact ordinary words
            text = text.replace(secret, REDACTED)
    return text


def terminal_safe(text: str) -> str:
    """``text`` with C0/C1 control characters (except ``\\n`` and ``\\t``) shown as ``\\xNN``.

    For everything agenttest writes to a terminal or to Markdown: replies, tool names,
    traces, health states and error messages may carry escape sequences from the agent.
    """
    text = fix_text(text)[0]
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
