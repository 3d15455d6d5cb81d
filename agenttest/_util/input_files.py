"""Opening a file the user named: a clear ``FILE:0: cannot read WHAT: why`` (exit 2) if not.

Readers that go through a file line by line (run files, pairs files) open it here, so a
missing or unreadable file is reported the same way whatever reads it.

A pipe can be read once only, and readers go through a run file more than once (the report
reads its records, then the failing attempts' transcripts): ``report <(zcat run.jsonl.gz)``
lost the transcripts on the second pass, which found the pipe empty, and a named FIFO's
second open waited for a writer that had gone. So the first open of anything that is not a
regular file reads it whole into a temporary file, and every later open in the process reads
that copy. A command that appends to the file (``grade``, ``rate``) cannot write back into a
pipe: :func:`appendable` refuses one before anything is read.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import BinaryIO

from agenttest.errors import InputError, Problem

_lock = threading.Lock()
#: (device, inode) of a pipe or FIFO already read -> the temporary copy of what it gave
_copies: dict[tuple[int, int], Path] = {}


def open_input(path: Path, what: str) -> BinaryIO:
    """``path`` opened for reading bytes; :class:`InputError` naming ``what`` when it cannot be."""
    try:
        info = path.stat()
        if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
            return path.open("rb")  # a folder: open says what is wrong with it
        return _copy_once(path, (info.st_dev, info.st_ino)).open("rb")
    except OSError as exc:
        raise InputError(
            [Problem(str(path), 0, f"cannot read {what}: {exc.strerror or exc}")]
        ) from None


def _copy_once(path: Path, key: tuple[int, int]) -> Path:
    with _lock:
        copy = _copies.get(key)
        if copy is None:
            handle, name = tempfile.mkstemp(prefix="agenttest-input-", suffix=".jsonl")
            copy = Path(name)
            atexit.register(copy.unlink, missing_ok=True)
            with os.fdopen(handle, "wb") as target, path.open("rb") as source:
                shutil.copyfileobj(source, target, 1 << 20)
            _copies[key] = copy
        return copy


def appendable(path: Path, what: str, command: str = "agenttest") -> None:
    """Refuse (:class:`InputError`, exit 2) a ``path`` that exists but is not a regular file:
    ``command`` appends records to it, which a pipe, FIFO or device cannot take (a FIFO
    with no writer also blocked the command forever)."""
    try:
        info = path.stat()
    except OSError:
        return  # missing or unreadable: the reader says so in its own words
    if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
        raise InputError(
            [
                Problem(
                    str(path),
                    0,
                    f"cannot use {what}: it is a pipe, FIFO or device, not a file; "
                    f"`{command}` appends its records to the run file itself",
                )
            ]
        )
