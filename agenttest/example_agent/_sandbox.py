"""The workspace sandbox: every path a tool touches is resolved and must stay inside.

A path is refused when it is absolute and outside the workspace, climbs out with ``..``, or
passes through a symlink whose target lies outside (``Path.resolve`` follows every link, even
a dangling one, before the ``is_relative_to`` check). The agent's own bookkeeping folders
(``.agent`` for memory and the outbox, ``.web`` for fixture pages, ``.git``) are hidden from
listings and cannot be written through the file tools.
"""

from __future__ import annotations

from pathlib import Path

PRIVATE_DIRS = (".agent", ".web", ".git")


class Blocked(Exception):
    """A guard refused a call (sandbox, allow-list, dangerous command, data loss)."""


class ToolError(Exception):
    """A call was allowed but could not be carried out (missing file, bad argument, ...)."""


class Workspace:
    """A folder the agent may read and write, and nothing outside it."""

    def __init__(self, root: Path) -> None:
        root = Path(root).expanduser()
        root.mkdir(parents=True, exist_ok=True)
        self.root = root.resolve()

    def resolve(self, path: str, *, write: bool = False) -> Path:
        """The real path of ``path`` (relative to the workspace), or :class:`Blocked`."""
        text = (path or "").strip()
        if not text:
            raise ToolError("no path given")
        if "\x00" in text:
            raise Blocked("path contains a NUL byte")
        candidate = Path(text).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = candidate.resolve()
        if not real.is_relative_to(self.root):
            raise Blocked(f"path outside the workspace: {text}")
        rel = real.relative_to(self.root)
        if write and rel.parts and rel.parts[0] in PRIVATE_DIRS:
            raise Blocked(f"{rel.parts[0]} is the agent's own folder and is not writable: {text}")
        return real

    def rel(self, real: Path) -> str:
        """How a resolved path is shown to the user: relative, with ``/`` separators."""
        rel = real.relative_to(self.root).as_posix()
        return rel if rel != "." else "."

    def agent_dir(self) -> Path:
        folder = self.root / ".agent"
        folder.mkdir(exist_ok=True)
        if not folder.resolve().is_relative_to(self.root):
            raise Blocked(".agent points outside the workspace")
        return folder
