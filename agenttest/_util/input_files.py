"""Opening a file the user named: a clear ``FILE:0: cannot read WHAT: why`` (exit 2) if not.

Readers that go through a file line by line (run files, pairs files) open it here, so a
missing or unreadable file is reported the same way whatever reads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from agenttest.errors import InputError, Problem


def open_input(path: Path, what: str) -> BinaryIO:
    """``path`` opened for reading bytes; :class:`InputError` naming ``what`` when it cannot be."""
    try:
        return path.open("rb")
    except OSError as exc:
        raise InputError(
            [Problem(str(path), 0, f"cannot read {what}: {exc.strerror or exc}")]
        ) from None
