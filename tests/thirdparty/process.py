"""Starting the third-party agent (tests/thirdparty/shim.py) as a real subprocess.

``with shim_process(model_url, "--mcp-url", mcp_url, "--report", "none") as url: ...`` starts
``python -m tests.thirdparty.shim`` from the checkout, waits for the URL it prints once it
listens (importing the framework takes seconds on a busy machine), and stops it after.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator

from .._patience import EVENTUALLY_S
from ..conftest import ROOT


@contextlib.contextmanager
def shim_process(model_url: str, *options: str) -> Iterator[str]:
    """The shim's base URL while it runs (``options`` are its own: where its tools are,
    --report, --claim)."""
    args = [sys.executable, "-m", "tests.thirdparty.shim", "--model-url", model_url, *options]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()  # the first line once it listens; "" if it died
        assert url.startswith("http://127.0.0.1:"), f"the shim did not start (exit {proc.poll()})"
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=EVENTUALLY_S)
        except subprocess.TimeoutExpired:  # only a hang gets here
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
