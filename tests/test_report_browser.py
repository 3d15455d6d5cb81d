"""The HTML report in a real browser: agent text never runs as script; it reads on a phone.

Needs Debian's ``chromium``. Set ``AGENTTEST_SCREENSHOT_DIR`` to keep the screenshots.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agenttest.reporting import build_report, render

from .fixtures.reports.builders import attempt, meta, run_end, write

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]
FIXTURES = Path(__file__).parent / "fixtures" / "reports"

AGENT = "<script>document.title='PWNED-AGENT'</script>"
MODEL = "\"><script>document.body.setAttribute('data-pwned','model')</script>"
RESPONSE = "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
TRACE = "</pre><script>document.body.appendChild(document.createElement('pwned-trace'))</script>"
TIER = "<svg onload=\"document.body.setAttribute('data-pwned','svg')\">"
TITLE = "<iframe srcdoc=\"<script>parent.document.title='PWNED-IFRAME'</script>\"></iframe>"
RULES = "rules@sha256:5e1c0a7d93b2f468"


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={tmp / 'profile'}", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.handlers: list[tuple[str, str]] = []
        self.body_attrs: dict[str, str | None] = {}
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_title = tag == "title"
        if tag == "body":
            self.body_attrs = dict(attrs)
        self.handlers += [(tag, k) for k, _ in attrs if k.startswith("on")]

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def _dom(tmp: Path, page: Path) -> _Tags:
    result = _chromium(tmp, "--virtual-time-budget=3000", "--dump-dom", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert "<html" in result.stdout
    parsed = _Tags()
    parsed.feed(result.stdout)
    parsed.raw = result.stdout  # type: ignore[attr-defined]
    return parsed


def _hostile_report(tmp: Path) -> Path:
    plan = [{"test_id": "X-01", "runs": 2, "title": TITLE}]
    head = meta("xss", [], agent={"name": AGENT}, model=MODEL, tester="alice")
    head["plan"] = plan
    turn = {
        "prompt": "hello",
        "response": RESPONSE,
        "tool_calls": [],
        "trace": TRACE,
        "http_status": 200,
        "latency_ms": 900,
    }
    records = [
        head,
        attempt("X-01", 1, "FAIL", tier=TIER, rater=RULES, turns=[turn],
                criteria=[{"id": "P1", "tag": "STATE", "kind": "pass", "passed": False,
                           "says": RESPONSE, "evidence": {"turn": 1, "text": TRACE}}]),
        attempt("X-01", 2, "PASS", tier=TIER, rater=RULES),
        run_end(),
    ]  # fmt: skip
    run = write(tmp / "xss.jsonl", records)
    page = tmp / "report.html"
    page.write_text(render(build_report([run]), "html"), encoding="utf-8")
    return page


def test_payloads_in_agent_text_never_run_and_show_as_text(tmp_path: Path) -> None:
    page = _hostile_report(tmp_path)
    dom = _dom(tmp_path, page)
    # nothing ran: the title is ours, no attribute or element a payload would have added
    assert dom.title.startswith("agenttest report — "), dom.title
    assert "data-pwned" not in dom.body_attrs
    assert "pwned-trace" not in dom.tags and "iframe" not in dom.tags
    # no payload became markup: no script, img or iframe element, no on* handler anywhere
    assert "script" not in dom.tags and "img" not in dom.tags
    assert dom.handlers == []
    # and the text is shown, escaped
    raw = dom.raw  # type: ignore[attr-defined]
    assert "&lt;script&gt;document.title='PWNED-AGENT'&lt;/script&gt;" in raw
    assert "&lt;img src=x onerror=" in raw
    assert "&lt;/pre&gt;&lt;script&gt;document.body.appendChild" in raw
    assert "&lt;svg onload=" in raw  # the tier label, inside the SVG chart and the tables


def test_the_same_payloads_unescaped_do_run_in_this_browser(tmp_path: Path) -> None:
    """The control: without escaping these payloads execute, so the test above can fail."""
    page = tmp_path / "unsafe.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><title>control</title></head><body>"
        f"<h1>{AGENT}</h1><pre>{TRACE}</pre></body></html>",
        encoding="utf-8",
    )
    dom = _dom(tmp_path, page)
    assert dom.title == "PWNED-AGENT"
    assert "pwned-trace" in dom.tags


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("name", ["published", "hostile"])
def test_phone_width_screenshot(tmp_path: Path, name: str) -> None:
    if name == "published":
        runs = sorted(FIXTURES.glob("run_qwen3.5-9b_20260713_*.jsonl"))
        page = tmp_path / "report.html"
        report = build_report(runs, rater="claude-sonnet-5")
        page.write_text(render(report, "html"), encoding="utf-8")
    else:
        page = _hostile_report(tmp_path)
    shot = tmp_path / f"{name}_phone.png"
    result = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=412,900",
                       "--hide-scrollbars", page.as_uri())  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert _png_size(shot) == (412, 900)
    keep = os.environ.get("AGENTTEST_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
