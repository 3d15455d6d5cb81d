"""The world a hosted tool works on: a directory the harness owns, one per replica.

Layout (the contract the runner lays fixtures by, docs/hosted-tools.md): files and folders at
their paths; web pages at ``.web/<host><path>``; the memory store ``.memory/notes.jsonl``;
tickets ``.tickets/<id>.json``; the documentation corpus ``.docs/``; sent messages
``.outbox/messages.jsonl``; offline weather and contacts ``.data/weather.json`` and
``.data/contacts.json``.

Those dot-folders are the harness's: the file tools can neither see nor touch them, so an
agent moves a ticket with the ticket tool, not by writing its JSON, and reads the docs
through the search the block meant to test; nor any repository's ``.git`` (the git tool
is its only, read-only, view). Every path is resolved with its symlinks and
must stay inside the root; one that leaves it is a failed call, never a read or a write.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

#: The harness's own folders inside a world (their contents are the special tools' state).
RESERVED = frozenset({".web", ".memory", ".tickets", ".docs", ".outbox", ".data"})


class ToolFailure(Exception):
    """A tool could not do what it was asked; the message is the call's error."""


class World:
    """A world root and the rules for reaching into it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def path(self, rel: str, *, allow_reserved: bool = False) -> Path:
        """The absolute path of ``rel``, refusing any that resolves outside the world (``..``,
        an absolute path, a symlink pointing out) or, for file tools, into a harness folder."""
        text = rel.strip()
        if "\0" in text:
            raise ToolFailure("a path cannot contain a NUL character")
        if os.path.isabs(text) or text.startswith("~"):
            raise ToolFailure(f"path outside the world: {rel!r} (paths are relative to it)")
        try:
            target = (self.root / (text or ".")).resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
            raise ToolFailure(f"cannot resolve {rel!r}: {exc}") from None
        if target != self.root and not target.is_relative_to(self.root):
            raise ToolFailure(f"path outside the world: {rel!r}")
        if not allow_reserved and self.reserved(target):
            raise ToolFailure(f"no such file or folder: {rel!r}")
        return target

    def reserved(self, target: Path) -> bool:
        parts = target.relative_to(self.root).parts
        # a repository's .git too: a config written there (diff.external, a filter) would
        # make the git tool run a command of the agent's choosing on the harness's machine
        return bool(parts) and (parts[0] in RESERVED or ".git" in parts)

    def rel(self, target: Path) -> str:
        """``target`` as a path relative to the world, ``.`` for the root."""
        rel = PurePosixPath(*target.relative_to(self.root).parts).as_posix()
        return rel or "."

    def state_file(self, *parts: str) -> Path:
        """A harness file (``.memory/notes.jsonl``): its path, checked like any other."""
        return self.path("/".join(parts), allow_reserved=True)

    def read_jsonl(self, *parts: str) -> Iterator[dict[str, Any]]:
        """The JSON objects of a harness JSONL file, skipping lines that are not objects."""
        target = self.state_file(*parts)
        if not target.is_file():
            return
        for line in target.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                yield value

    def write_jsonl(self, items: list[dict[str, Any]], *parts: str) -> None:
        target = self.state_file(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(item, ensure_ascii=False) for item in items]
        target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    def append_jsonl(self, item: dict[str, Any], *parts: str) -> None:
        target = self.state_file(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as f:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")

    def read_json(self, *parts: str) -> Any:
        """A harness JSON file's value; None when absent; a ToolFailure when unreadable."""
        target = self.state_file(*parts)
        if not target.is_file():
            return None
        try:
            return json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ToolFailure(f"{self.rel(target)} cannot be read: {exc}") from None


def str_arg(args: dict[str, Any], name: str, default: str = "") -> str:
    """A string argument (the schema has already checked its type)."""
    value = args.get(name, default)
    return value if isinstance(value, str) else default
