"""Running the real `agenttest` with a terminal: a pseudo-terminal as its stdout (and its
stderr, unless that is read apart), for the specs of what a person sees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ._patience import EVENTUALLY_S


def in_terminal(
    *args: str,
    cwd: Path,
    columns: int = 120,
    env: dict[str, str] | None = None,
    stderr_too: bool = True,
) -> tuple[int, str, str]:
    """Exit status, what reached the terminal, and stderr when it went to a pipe instead."""
    import fcntl
    import pty
    import struct
    import termios

    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    full_env = {**os.environ, "TERM": "xterm", "COLUMNS": str(columns), **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenttest", *args], cwd=cwd, env=full_env,
        stdin=subprocess.DEVNULL, stdout=child, stderr=child if stderr_too else subprocess.PIPE,
    )  # fmt: skip
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    code = proc.wait(timeout=EVENTUALLY_S)
    errors = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    return code, b"".join(chunks).decode("utf-8", "replace"), errors
