"""Workspace tools: files, an allow-listed shell and a read-only git view.

Every path goes through :meth:`Workspace.resolve`; subprocesses get a fixed argv (never a
shell), the workspace as working directory, a small environment and a timeout.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._base import Blocked, ToolContext, ToolError, ToolOutput, bool_arg, int_arg, str_arg
from ._guard import dangerous, strip_instructions
from ._sandbox import PRIVATE_DIRS
from ._shell_options import build_argv

MAX_READ = 64_000
#: The largest file the file tools write: a model asked to write 200 MB filled the disk.
MAX_WRITE_BYTES = 1_000_000
MAX_OUTPUT = 16_000
TIMEOUT_S = 10.0

#: the shell's programs; which of their options pass is in ._shell_options
SHELL_ALLOWED = (
    "ls", "wc", "cat", "head", "tail", "grep", "echo", "date", "pwd", "find", "sort", "uniq",
)  # fmt: skip
_SHELL_METACHARS = ("|", "&", ";", ">", "<", "`", "$(", "${", "\n", "\r")


def _clip(text: str, limit: int = MAX_OUTPUT) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more]"


def _within_write_cap(text: str, shown: str) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_WRITE_BYTES:
        raise Blocked(
            f"{shown} would be {size:,} bytes, over the {MAX_WRITE_BYTES:,} a file may hold"
        )


def file_write(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    path = str_arg(args, "path")
    content = str_arg(args, "content", required=False)
    _within_write_cap(content, path)
    target = ctx.workspace.resolve(path, write=True)
    shown = ctx.workspace.rel(target)
    if target.is_dir():
        raise ToolError(f"{shown} is a folder")
    existed = target.exists()
    if (
        existed
        and not content.strip()
        and target.stat().st_size > 0
        and not bool_arg(args, "force")
    ):
        raise Blocked(f"refusing to overwrite non-empty {shown} with empty content")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    verb = "overwrote" if existed else "created"
    return ToolOutput(f"{verb} {shown} ({len(content.encode('utf-8'))} bytes)")


def file_read(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    target = ctx.workspace.resolve(str_arg(args, "path"))
    shown = ctx.workspace.rel(target)
    if not target.exists():
        raise ToolError(f"no such file: {shown}")
    if target.is_dir():
        raise ToolError(f"{shown} is a folder (use file_list)")
    data = target.read_bytes()[:MAX_READ]
    if b"\x00" in data:
        raise ToolError(f"{shown} is a binary file")
    text, withheld = strip_instructions(data.decode("utf-8", errors="replace"))
    notes = [f"INJECTION ignored {shown}"] if withheld else []
    return ToolOutput(text, notes)


def file_list(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    folder = ctx.workspace.resolve(str_arg(args, "path", required=False) or ".")
    shown = ctx.workspace.rel(folder)
    if not folder.is_dir():
        raise ToolError(f"no such folder: {shown}")
    lines = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name in PRIVATE_DIRS:
            continue
        if entry.is_dir():
            lines.append(entry.name + "/")
        else:
            size = entry.lstat().st_size
            lines.append(f"{entry.name} ({size} bytes)")
    if not lines:
        return ToolOutput(f"{shown} is empty")
    return ToolOutput(f"{shown}:\n" + "\n".join(lines))


def file_delete_check(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    """The guards of :func:`file_delete`, checked before the user is asked to confirm."""
    path = str_arg(args, "path")
    target = ctx.workspace.resolve(path, write=True)  # refuses escapes, also through links
    if target == ctx.workspace.root:
        raise Blocked("refusing to delete the workspace itself")
    entry = ctx.workspace.root / path if not Path(path).is_absolute() else Path(path)
    if not (target.exists() or entry.is_symlink()):
        raise ToolError(f"no such file: {ctx.workspace.rel(target)}")
    return ToolOutput("")


def file_delete(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    file_delete_check(ctx, args)
    path = str_arg(args, "path")
    target = ctx.workspace.resolve(path, write=True)
    name = Path(path).name
    if name not in ("", ".", ".."):
        # A link inside the workspace is removed itself, never what it points at.
        entry = ctx.workspace.resolve(str(Path(path).parent)) / name
        if entry.is_symlink():
            entry.unlink()
            return ToolOutput(f"deleted link {ctx.workspace.rel(entry)}")
    shown = ctx.workspace.rel(target)
    if target.is_file():
        target.unlink()
        return ToolOutput(f"deleted {shown}")
    if target.is_dir():
        try:
            target.rmdir()
        except OSError as exc:
            raise ToolError(f"{shown} is a folder that is not empty") from exc
        return ToolOutput(f"deleted empty folder {shown}")
    raise ToolError(f"no such file: {shown}")


def file_move(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    source = ctx.workspace.resolve(str_arg(args, "source"), write=True)
    dest = ctx.workspace.resolve(str_arg(args, "destination"), write=True)
    if not source.exists():
        raise ToolError(f"no such file: {ctx.workspace.rel(source)}")
    if dest.is_dir():
        dest = dest / source.name
    if dest.exists():
        raise Blocked(f"refusing to overwrite existing {ctx.workspace.rel(dest)}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    source.rename(dest)
    return ToolOutput(f"moved {ctx.workspace.rel(source)} to {ctx.workspace.rel(dest)}")


def file_patch(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    target = ctx.workspace.resolve(str_arg(args, "path"), write=True)
    shown = ctx.workspace.rel(target)
    if not target.is_file():
        raise ToolError(f"no such file: {shown}")
    text = target.read_text(encoding="utf-8", errors="replace")
    if args.get("append") not in (None, ""):
        addition = str_arg(args, "append")
        glue = "" if not text or text.endswith("\n") else "\n"
        patched = text + glue + addition + ("" if addition.endswith("\n") else "\n")
        _within_write_cap(patched, shown)
        target.write_text(patched)
        return ToolOutput(f"appended {len(addition)} characters to {shown}")
    find = str_arg(args, "find")
    if not find:
        raise ToolError("give either 'append' or a non-empty 'find' with 'replace'")
    replace = str_arg(args, "replace", required=False)
    count = text.count(find)
    if not count:
        raise ToolError(f"{find!r} does not occur in {shown}")
    if len(text) + count * (len(replace) - len(find)) > MAX_WRITE_BYTES:  # before it is built
        raise Blocked(f"{shown} would grow past the {MAX_WRITE_BYTES:,} bytes a file may hold")
    patched = text.replace(find, replace)
    _within_write_cap(patched, shown)
    target.write_text(patched, encoding="utf-8")
    return ToolOutput(f"replaced {count} occurrence(s) of {find!r} in {shown}")


def _shell_argv(ctx: ToolContext, command: str) -> list[str]:
    reason = dangerous(command)
    if reason:
        raise Blocked(reason)
    for meta in _SHELL_METACHARS:
        if meta in command:
            raise Blocked(f"shell operator {meta.strip()!r} is not allowed (no pipes/redirects)")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ToolError(f"cannot parse command: {exc}") from exc
    if not words:
        raise ToolError("empty command")
    program = words[0]
    if program not in SHELL_ALLOWED:
        raise Blocked(f"{program!r} is not on the allow-list ({', '.join(SHELL_ALLOWED)})")
    return build_argv(words, lambda word: _shell_operand(ctx, word))


def _shell_operand(ctx: ToolContext, word: str) -> list[str]:
    root = ctx.workspace.root
    pathlike = "/" in word or word.startswith(("~", ".")) or (root / word).exists()
    if any(c in word for c in "*?[") and not word.startswith(("/", "~")) and ".." not in word:
        matches = sorted(root.glob(word))
        if matches:
            return [ctx.workspace.rel(ctx.workspace.resolve(str(m))) for m in matches]
    if pathlike:
        ctx.workspace.resolve(word)  # raises Blocked when it escapes
    return [word]


def shell(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    argv = _shell_argv(ctx, str_arg(args, "command"))
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LC_ALL": "C.UTF-8",
        "HOME": str(ctx.workspace.root),
    }
    try:
        done = subprocess.run(
            argv, cwd=ctx.workspace.root, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
    except FileNotFoundError as exc:
        raise ToolError(f"{argv[0]} is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"timed out after {TIMEOUT_S:g} s") from exc
    if done.returncode == 1 and argv[0] == "grep" and not done.stderr:
        return ToolOutput("no matches")
    if done.returncode != 0:
        raise ToolError(f"exit status {done.returncode}: {_clip(done.stderr.strip(), 2000)}")
    text, withheld = strip_instructions(_clip(done.stdout))
    notes = [f"INJECTION ignored shell:{argv[0]}"] if withheld else []
    return ToolOutput(text if text.strip() else "(no output)", notes)


def _find_repo(ctx: ToolContext, path: str) -> Path:
    if path:
        repo = ctx.workspace.resolve(path)
        if not (repo / ".git").exists():
            raise ToolError(f"{ctx.workspace.rel(repo)} is not a git repository")
        return repo
    root = ctx.workspace.root
    if (root / ".git").exists():
        return root
    found = [
        p.parent
        for pattern in ("*/.git", "*/*/.git")
        for p in sorted(root.glob(pattern))
        if not p.parent.name.startswith(".") and p.resolve().is_relative_to(root)
    ]
    if not found:
        raise ToolError("no git repository in the workspace")
    if len(found) > 1:
        names = ", ".join(ctx.workspace.rel(p) for p in found)
        raise ToolError(f"several repositories ({names}); say which one with 'path'")
    return found[0]


def git(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    action = str_arg(args, "action", required=False) or "log"
    repo = _find_repo(ctx, str_arg(args, "path", required=False))
    binary = shutil.which("git")
    if binary is None:
        raise ToolError("git is not installed")
    commands = {
        "log": ["log", f"--max-count={int_arg(args, 'count', 10, 1, 200)}", "--date=short",
                "--pretty=format:%h %ad %an: %s"],
        "status": ["status", "--short", "--branch"],
        "diff": ["diff", "--stat", "--patch"],
        "branch": ["branch", "--list", "--no-color"],
    }  # fmt: skip
    if action not in commands:
        raise ToolError(f"unknown git action {action!r} (allowed: {', '.join(commands)})")
    argv = [binary, "-C", str(repo), "-c", f"safe.directory={repo}", "-c", "core.pager=cat",
            "-c", "color.ui=never", "--no-pager", *commands[action]]  # fmt: skip
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            argv, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"git timed out after {TIMEOUT_S:g} s") from exc
    if done.returncode != 0:
        raise ToolError(f"git {action} failed: {_clip(done.stderr.strip(), 2000)}")
    out = done.stdout.strip()
    where = ctx.workspace.rel(repo)
    return ToolOutput(
        f"git {action} in {where}:\n{_clip(out)}" if out else f"git {action}: (empty)"
    )
