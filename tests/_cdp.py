"""A small driver for headless Chromium over the DevTools protocol on a pipe.

``--remote-debugging-pipe`` makes Chromium read NUL-terminated JSON commands on fd 3 and
answer on fd 4: no port, no network, no third-party client. Enough to open a page at a
given size, run JavaScript in it (click, type, read the DOM) and take a screenshot —
what the viewer tests and the viewer benchmark need.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 120.0) -> None:
        if CHROMIUM is None:
            raise BrowserError("chromium is not installed")
        self.width, self.height, self.timeout = width, height, timeout
        self._next = 0
        self._buffer = b""
        self._events: list[dict[str, Any]] = []
        self._profile = tempfile.TemporaryDirectory(prefix="agenttest-cdp-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", "--remote-debugging-pipe",
             f"--user-data-dir={self._profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=_pipes(to_chrome_r, from_chrome_w),
        )  # fmt: skip
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        self.send("Page.enable", session=True)
        self.send("Runtime.enable", session=True)
        self.resize(width, height)

    # -- protocol ------------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("chromium did not answer")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(raw))

    def wait_event(self, method: str) -> dict[str, Any]:
        for i, event in enumerate(self._events):
            if event.get("method") == method:
                return self._events.pop(i)
        while True:
            event = self._read()
            if event.get("method") == method:
                return event
            self._events.append(event)

    # -- page ------------------------------------------------------------------------------
    def resize(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
            session=True,
        )

    def open(self, url: str) -> None:
        self._events = [e for e in self._events if e.get("method") != "Page.loadEventFired"]
        self.send("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        """Evaluate in the page (promises awaited) and return the JSON value."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(BrowserError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=30)  # short on purpose: then killed
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pipes(read_end: int, write_end: int) -> Any:
    """In the child: the command pipe on fd 3, the answer pipe on fd 4."""

    def setup() -> None:
        # move both out of the way first: either may already sit on fd 3 or 4
        high_r = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10)
        high_w = fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
        os.dup2(high_r, 3)
        os.dup2(high_w, 4)
        os.close(high_r)
        os.close(high_w)

    return setup
