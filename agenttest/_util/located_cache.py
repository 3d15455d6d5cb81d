"""Parsed YAML remembered by content, so a battery is parsed once per change of a file.

Composing YAML in pure Python with every value's line (:mod:`.located_yaml`) costs about
12 ms per block file, most of the start-up of a command on a whole battery. What it yields
depends on nothing but the text (and the code that parsed it), so the result is kept in a
cache folder outside the checkout, one file per content digest, and read back in well
under a millisecond. libyaml's C loader would be as fast, but it accepts documents the
pure-Python loader refuses (tabs after values, ``?`` inside flow mappings, a byte-order
mark mid-file) and places some values on other lines, so its verdicts and ``FILE:LINE``
messages would differ; the pure-Python loader stays the only one.

The folder is ``$AGENTTEST_CACHE_DIR``, else ``$XDG_CACHE_HOME/agenttest``, else
``~/.cache/agenttest``; deleting it is always safe. Only documents that parsed without a
problem are kept, so every message about a bad file comes from a fresh parse. An entry is
JSON, never code: a header line naming the digest it belongs to and the SHA-256 of the
tree below it, then the tree. One that is torn, altered, written for other content or by
another version is ignored and written again; a folder that cannot be written only costs
the parse.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import yaml

from agenttest import __version__
from agenttest.errors import Problem

from .located_yaml import Located, load_located

CACHE_ENV = "AGENTTEST_CACHE_DIR"
#: Bumped whenever :func:`load_located`'s output or this file's layout changes.
_FORMAT = "located-yaml 1"
_SALT = f"agenttest {__version__}; {_FORMAT}; PyYAML {yaml.__version__}\0".encode()
_SCALARS = (str, int, bool, type(None))
_DECODED = (*_SCALARS, float)  # JSON has no infinity or NaN: only finite floats were kept


def cache_dir() -> Path:
    """Where parsed files are kept (the folder need not exist yet)."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "agenttest"


def _key(text: str) -> str:
    return hashlib.sha256(_SALT + text.encode("utf-8", "surrogatepass")).hexdigest()


def _entry(key: str) -> Path:
    return cache_dir() / "yaml" / f"{key}.json"


def is_cached(text: str) -> bool:
    """Whether a sound parse of ``text`` is kept: loading it will not parse."""
    return _body(_key(text)) is not None


def load_located_cached(text: str, filename: str) -> tuple[Located | None, list[Problem]]:
    """:func:`load_located`, from the cache when this text was parsed before."""
    key = _key(text)
    kept = _read(key)
    if kept is not None:
        return kept, []
    located, problems = load_located(text, filename)
    if located is not None and not problems:
        _write(key, located)
    return located, problems


def _body(key: str) -> bytes | None:
    """The entry's tree, when its header names this key and the tree's checksum holds."""
    try:
        raw = _entry(key).read_bytes()
    except OSError:
        return None
    header, _, body = raw.partition(b"\n")
    try:
        head = msgspec.json.decode(header)
    except msgspec.DecodeError:
        return None
    if head != {"key": key, "sha256": hashlib.sha256(body).hexdigest()}:
        return None  # another document's entry, another version's, or altered
    return body


def _read(key: str) -> Located | None:
    body = _body(key)
    if body is None:
        return None
    try:
        return _decode(msgspec.json.decode(body))
    except (msgspec.DecodeError, ValueError, TypeError, AttributeError, RecursionError):
        return None


def _write(key: str, located: Located) -> None:
    try:
        body = msgspec.json.encode(_encode(located))
    except (_Unkept, ValueError, TypeError, OverflowError, RecursionError):
        return  # dates, binary, infinities, huge integers, lone surrogates: parsed each time
    header = msgspec.json.encode({"key": key, "sha256": hashlib.sha256(body).hexdigest()})
    target = _entry(key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(header + b"\n" + body)
            os.replace(temp, target)  # readers see the old entry or the whole new one
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a read-only or full disk: the next command parses again


class _Unkept(Exception):
    """A value JSON would not give back as it is."""


# A node is [line, value]: a list value is a sequence of nodes, a dict value a mapping of
# key -> [key line, node], anything else the scalar itself.
def _encode(node: Located) -> list[Any]:
    value = node.value
    if isinstance(value, list):
        return [node.line, [_encode(item) for item in value]]
    if isinstance(value, dict):
        return [
            node.line,
            {k: [node.key_lines[k], _encode(child)] for k, child in value.items()},
        ]
    if isinstance(value, _SCALARS) or (isinstance(value, float) and math.isfinite(value)):
        return [node.line, value]
    raise _Unkept


def _decode(raw: Any) -> Located:
    line, value = raw
    if type(line) is not int:
        raise TypeError("a node's line is an integer")
    if isinstance(value, list):
        return Located([_decode(item) for item in value], line)
    if isinstance(value, dict):
        out: dict[str, Located] = {}
        key_lines: dict[str, int] = {}
        for k, pair in value.items():
            key_line, child = pair
            if type(key_line) is not int:
                raise TypeError("a key's line is an integer")
            out[k] = _decode(child)
            key_lines[k] = key_line
        return Located(out, line, key_lines)
    if isinstance(value, _DECODED):
        return Located(value, line)
    raise TypeError("not a node")
