"""The file tools and the read-only git view, over the world's own files.

Each takes the world and its (schema-checked) arguments and returns the result text, or
raises :class:`ToolFailure`. Writes stay inside the world and out of the harness's folders.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ._world import ToolFailure, World, str_arg

#: A file bigger than this is not read whole (the host caps results anyway).
MAX_READ_BYTES = 1_000_000
GIT_TIMEOUT_S = 10.0
_GIT_ACTIONS = {
    "log": ["log", "--no-color", "--date=short", "--format=%h %ad %s"],
    "status": ["status", "--short", "--branch"],
    # no external diff program or text conversion: only git itself runs
    "diff": ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--stat", "--patch"],
    "branch": ["branch", "--no-color", "--list"],
}
GIT_ACTION_NAMES = tuple(_GIT_ACTIONS)


def file_read(world: World, args: dict[str, Any]) -> str:
    target = world.path(str_arg(args, "path"))
    if target.is_dir():
        raise ToolFailure(f"{world.rel(target)} is a folder; use file_list")
    if not target.is_file():
        raise ToolFailure(f"no such file: {str_arg(args, 'path')}")
    with target.open("rb") as f:
        data = f.read(MAX_READ_BYTES + 1)
    if b"\0" in data[:4096]:
        raise ToolFailure(f"{world.rel(target)} is not a text file")
    text = data[:MAX_READ_BYTES].decode("utf-8", errors="replace")
    return text + ("\n[... file continues]" if len(data) > MAX_READ_BYTES else "")


def file_write(world: World, args: dict[str, Any]) -> str:
    target = world.path(str_arg(args, "path"))
    if target == world.root or target.is_dir():
        raise ToolFailure(f"{world.rel(target)} is a folder")
    if target.exists() and not target.is_file():  # a FIFO or a device would block or worse
        raise ToolFailure(f"{world.rel(target)} is not a regular file")
    content = str_arg(args, "content")
    existed = target.is_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    verb = "overwrote" if existed else "created"
    return f"{verb} {world.rel(target)} ({len(content)} characters)"


def file_list(world: World, args: dict[str, Any]) -> str:
    target = world.path(str_arg(args, "path", ".") or ".")
    if not target.is_dir():
        raise ToolFailure(f"no such folder: {str_arg(args, 'path', '.')}")
    lines = []
    for entry in sorted(target.iterdir(), key=lambda p: p.name):
        if world.reserved(entry.resolve()):
            continue
        if entry.is_dir():
            lines.append(entry.name + "/")
        else:
            size = entry.stat().st_size if entry.is_file() else 0
            lines.append(f"{entry.name} ({size} bytes)")
    where = world.rel(target)
    return f"{where}: " + (", ".join(lines) if lines else "(empty)")


def file_delete(world: World, args: dict[str, Any]) -> str:
    target = world.path(str_arg(args, "path"))
    if target == world.root:
        raise ToolFailure("the world's root cannot be deleted")
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        if any(target.iterdir()):
            raise ToolFailure(f"{world.rel(target)} is a folder that is not empty")
        target.rmdir()
    else:
        raise ToolFailure(f"no such file: {str_arg(args, 'path')}")
    return f"deleted {world.rel(target)}"


def file_move(world: World, args: dict[str, Any]) -> str:
    source = world.path(str_arg(args, "source"))
    dest = world.path(str_arg(args, "destination"))
    if source == world.root or not source.exists():
        raise ToolFailure(f"no such file: {str_arg(args, 'source')}")
    if dest.is_dir():
        dest = dest / source.name
        world.path(world.rel(dest))  # the joined name is checked like any other
    if dest.exists():
        raise ToolFailure(f"{world.rel(dest)} already exists; not overwritten")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(source), str(dest))
    return f"moved {world.rel(source)} to {world.rel(dest)}"


def file_patch(world: World, args: dict[str, Any]) -> str:
    target = world.path(str_arg(args, "path"))
    if not target.is_file():
        raise ToolFailure(f"no such file: {str_arg(args, 'path')}")
    text = target.read_text(encoding="utf-8", errors="replace")
    append = str_arg(args, "append")
    if append:
        glue = "" if not text or text.endswith("\n") else "\n"
        tail = "" if append.endswith("\n") else "\n"
        target.write_text(text + glue + append + tail, encoding="utf-8")
        return f"appended {len(append)} characters to {world.rel(target)}"
    find = str_arg(args, "find")
    if not find:
        raise ToolFailure("give `append`, or a non-empty `find` with `replace`")
    count = text.count(find)
    if not count:
        raise ToolFailure(f"{find!r} does not occur in {world.rel(target)}")
    target.write_text(text.replace(find, str_arg(args, "replace")), encoding="utf-8")
    return f"replaced {count} occurrence(s) in {world.rel(target)}"


def _repo(world: World, rel: str) -> Path:
    if rel:
        repo = world.path(rel)
        if not (repo / ".git").is_dir():
            raise ToolFailure(f"{world.rel(repo)} is not a git repository")
        return repo
    if (world.root / ".git").is_dir():
        return world.root
    found = sorted(p.parent for p in world.root.glob("*/.git") if p.is_dir())
    if not found:
        raise ToolFailure("no git repository in the world")
    if len(found) > 1:
        names = ", ".join(world.rel(p) for p in found)
        raise ToolFailure(f"several repositories ({names}); say which with `path`")
    return found[0]


def git(world: World, args: dict[str, Any]) -> str:
    action = str_arg(args, "action")
    repo = _repo(world, str_arg(args, "path"))
    argv = ["git", "-c", "safe.directory=*", "-c", "core.fsmonitor=false", *_GIT_ACTIONS[action]]
    if action == "log":
        count = args.get("count")
        argv.append(f"-n{count if isinstance(count, int) and count > 0 else 10}")
    # no user or system config: the tester's aliases, pagers and hooks have no say here
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(world.root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C.UTF-8",
    }
    try:
        done = subprocess.run(
            argv,
            cwd=repo,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError:
        raise ToolFailure("git is not installed on the harness's machine") from None
    except subprocess.TimeoutExpired:
        raise ToolFailure(f"git {action} timed out after {GIT_TIMEOUT_S:g} s") from None
    if done.returncode != 0:
        raise ToolFailure(f"git {action} failed: {done.stderr.strip()[:500]}")
    return done.stdout.strip() or "(no output)"
