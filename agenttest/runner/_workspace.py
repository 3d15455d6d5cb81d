"""The agent's workspace as the runner sees it: fixtures, teardown, snapshots, the log file.

Every path a block names is relative to the workspace; one that resolves outside it (``..``,
an absolute path, a symlink pointing out) is refused, so a battery can never make the
runner touch the tester's own files.

With hosted tools the workspace is the replica's world (a folder the harness owns), and the
hosted tools read the same layout: web pages at ``.web/<host><path>``, tickets at
``.tickets/<id>.json``, the memory store at ``.memory/notes.jsonl`` (one ``{"text": ...}`` a
line).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from agenttest.agents import PreconditionUnmet
from agenttest.blocks import Fixture, Teardown
from agenttest.errors import AttemptError

SNAPSHOT_MAX_BYTES = 256 * 1024
#: The hosted memory store inside a world (what ``memory_seed`` writes when hosted).
MEMORY_NOTES = ".memory/notes.jsonl"


class FixtureError(AttemptError):
    """A fixture could not be prepared; the attempt is ``ERROR`` (cause ``fixture``)."""


def inside(workspace: Path, rel: str) -> Path:
    """``workspace / rel``, refusing anything that resolves outside the workspace."""
    root = workspace.resolve()
    if not rel or os.path.isabs(rel) or rel.startswith("~"):
        raise FixtureError(f"path {rel!r} must be relative to the workspace")
    target = (root / rel).resolve()
    if target != root and not target.is_relative_to(root):
        raise FixtureError(f"path {rel!r} escapes the workspace {root}")
    return target


def web_page_path(url: str) -> str:
    """Where a ``web_page`` fixture lives: ``.web/<host><path>``, ``index.html`` for a folder."""
    parts = urlsplit(url)
    if not parts.hostname:
        raise FixtureError(f"web_page url {url!r} has no host")
    path = parts.path or "/"
    if path.endswith("/"):
        path += "index.html"
    return f".web/{parts.hostname}{path}"


def seed_notes(world: Path, items: list[str]) -> None:
    """``memory_seed`` on hosted tools: the notes go into the world's memory store (after
    any already there: a block may seed twice)."""
    target = inside(world, MEMORY_NOTES)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as f:
            for text in items:
                f.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise FixtureError(f"memory_seed: {exc}") from None


def forget_notes(world: Path) -> None:
    """``memory_reset`` on hosted tools: the world's memory store is emptied."""
    try:
        _remove(inside(world, MEMORY_NOTES))
    except OSError as exc:
        raise FixtureError(f"memory_reset: {exc}") from None


def _ticket(fx: Fixture) -> str:
    """A ticket fixture's file: its id, title (``content``), state and transitions."""
    transitions = {state: list(nexts) for state, nexts in fx.transitions.items()}
    ticket = {"id": fx.ticket_id, "title": fx.content or "", "state": fx.state}
    return json.dumps({**ticket, "transitions": transitions}, ensure_ascii=False, indent=2)


def _remove(target: Path) -> None:
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)


def _git_repo(target: Path, commits: tuple[str, ...]) -> None:
    _remove(target)
    target.mkdir(parents=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "agenttest",
        "GIT_AUTHOR_EMAIL": "agenttest@localhost",
        "GIT_COMMITTER_NAME": "agenttest",
        "GIT_COMMITTER_EMAIL": "agenttest@localhost",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }

    def git(*args: str) -> None:
        try:
            subprocess.run(
                ["git", *args], cwd=target, env=env, check=True, capture_output=True, timeout=60
            )
        except FileNotFoundError:
            raise FixtureError("git_repo fixture needs the `git` command") from None
        except subprocess.CalledProcessError as exc:
            raise FixtureError(
                f"git {args[0]} failed: {exc.stderr.decode(errors='replace')}"
            ) from None

    git("init", "-q", "-b", "main")
    log = target / "CHANGELOG.md"
    for i, message in enumerate(commits or ("initial commit",), start=1):
        with log.open("a", encoding="utf-8") as f:
            f.write(f"- {i}: {message}\n")
        git("add", "CHANGELOG.md")
        git("commit", "-q", "-m", message)


def prepare(
    workspace: Path | None,
    fixtures: tuple[Fixture, ...],
    reset_memory: Callable[[], object],
    seed_memory: Callable[[list[str]], object] | None = None,
) -> None:
    """Create the block's fixtures in their order; a `memory_reset` calls ``reset_memory``
    at its place, so a block can reset and then seed (or seed and keep); a `memory_seed`
    calls ``seed_memory`` with its content (one note a line)."""
    for fx in fixtures:
        if fx.kind == "memory_reset":
            reset_memory()
            continue
        if fx.kind == "memory_seed":
            if seed_memory is None:
                raise PreconditionUnmet("this run cannot seed the agent's memory")
            seed_memory([line for line in (fx.content or "").splitlines() if line.strip()])
            continue
        if workspace is None:
            raise FixtureError(
                f"the block needs a `{fx.kind}` fixture but the agent config names no `workspace`"
            )
        workspace.mkdir(parents=True, exist_ok=True)
        if fx.kind == "web_page":
            if fx.url is None:
                raise FixtureError("web_page fixture without url")
            target = inside(workspace, web_page_path(fx.url))
        elif fx.kind == "ticket":
            target = inside(workspace, f".tickets/{fx.ticket_id}.json")
        else:
            target = inside(workspace, fx.path or "")
        try:
            if fx.kind in ("file", "web_page"):
                if target.is_dir():
                    _remove(target)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(fx.content or "", encoding="utf-8")
            elif fx.kind == "dir":
                if target.exists() and not target.is_dir():
                    _remove(target)
                target.mkdir(parents=True, exist_ok=True)
            elif fx.kind == "absent":
                _remove(target)
            elif fx.kind == "git_repo":
                _git_repo(target, fx.commits)
            elif fx.kind == "ticket":
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(_ticket(fx), encoding="utf-8")
        except OSError as exc:
            where = fx.path or fx.url or fx.ticket_id
            raise FixtureError(f"{fx.kind} fixture {where}: {exc}") from None


def wipe(world: Path) -> None:
    """Empty a world folder (the harness's own), so the next attempt's is laid fresh."""
    world.mkdir(parents=True, exist_ok=True)
    for child in world.iterdir():
        _remove(child)


def teardown(
    workspace: Path | None, steps: tuple[Teardown, ...], reset_memory: Callable[[], object]
) -> None:
    """Undo what the block asked for, in order (``reset_memory`` for `memory_reset`)."""
    for step in steps:
        if step.kind == "memory_reset":
            reset_memory()
        elif step.kind == "remove" and workspace is not None and step.path:
            _remove(inside(workspace, step.path))


def snapshot(workspace: Path | None, paths: list[str]) -> dict[str, str | None]:
    """The text of each file of interest after the attempt (None: absent or not a file)."""
    out: dict[str, str | None] = {}
    if workspace is None:
        return out
    for rel in paths:
        try:
            target = inside(workspace, rel)
        except FixtureError:
            out[rel] = None
            continue
        if not target.is_file():
            out[rel] = None
            continue
        with target.open("rb") as f:
            data = f.read(SNAPSHOT_MAX_BYTES + 1)
        text = data[:SNAPSHOT_MAX_BYTES].decode("utf-8", "replace")
        out[rel] = text + ("\n[… truncated by agenttest]" if len(data) > SNAPSHOT_MAX_BYTES else "")
    return out


class LogTail:
    """The lines an agent appends to its log file between :meth:`mark` and :meth:`read`."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.offset = 0
        self.identity: tuple[int, int] | None = None

    def _stat(self) -> tuple[int, tuple[int, int] | None]:
        try:
            st = self.path.stat()
        except OSError:
            return 0, None
        return st.st_size, (st.st_dev, st.st_ino)

    def mark(self) -> None:
        self.offset, self.identity = self._stat()

    def read(self) -> list[str]:
        size, identity = self._stat()
        # A different file (rotated away and recreated) or a shorter one (truncated): the
        # lines of this attempt start at the top of what is there now.
        rotated = identity != self.identity or size < self.offset
        start = 0 if rotated else self.offset
        self.offset, self.identity = size, identity
        if size <= start or self.max_bytes == 0:
            return []
        try:
            with self.path.open("rb") as f:
                f.seek(start)
                data = f.read(min(size - start, self.max_bytes))
        except OSError as exc:
            return [f"[agenttest: cannot read log file {self.path}: {exc}]"]
        lines = data.decode("utf-8", "replace").splitlines()
        dropped = size - start - len(data)
        if dropped > 0:
            lines.append(f"[agenttest: {dropped} more bytes not kept (log_max_bytes)]")
        return lines
