"""The HTML report's attempt viewer in a real browser: filters, search, opening attempts,
the baseline beside the run, the FAIL link, the phone layout — and hostile agent text,
which stays text through every one of those code paths.

Needs Debian's ``chromium`` (driven over the DevTools pipe, see ``tests/_cdp.py``).
Set ``AGENTTEST_SCREENSHOT_DIR`` to keep the screenshots.
"""

from __future__ import annotations

import html as html_text
import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agenttest.reporting import build_report, render

from ._cdp import CHROMIUM, Browser
from .fixtures.reports.builders import attempt, meta, run_end, write

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]

RULES = "rules@sha256:5e1c0a7d93b2f468"
HUMAN = "human:ann"
PAYLOADS = {
    "reply": "<img src=x onerror=\"document.body.setAttribute('data-pwned','reply')\">",
    "trace": "</script><script>document.body.setAttribute('data-pwned','trace')</script>",
    "args": "<svg onload=\"document.body.setAttribute('data-pwned','args')\">",
    "result": "<iframe srcdoc=\"<script>parent.document.title='PWNED'</script>\"></iframe>",
    "says": "<b onmouseover=alert(1)>bold</b>",
    "evidence": "\u2028</script><!--<script>document.title='PWNED2'</script>",
}
# what the page may contain however the agent's text is shown
INJECTED = "document.querySelectorAll('img, iframe, svg:not(.chart), b').length"
SCRIPTS = "Array.from(document.scripts).map(s => s.id)"


def _turn(reply: str, **extra: Any) -> dict[str, Any]:
    return {"prompt": "p", "response": reply, "tool_calls": [], "trace": "", "http_status": 200,
            "latency_ms": 100, **extra}  # fmt: skip


def _failing(test_id: str, run: int, reply: str, **over: Any) -> dict[str, Any]:
    crit = [{"id": "P1", "tag": "STATE", "kind": "pass", "type": "tool_called", "passed": False,
             "says": "the tool ran", "evidence": {"turn": 1, "note": "no call"}}]  # fmt: skip
    return attempt(test_id, run, "FAIL", turns=[_turn(reply)], criteria=crit, **over)


def _runs(tmp: Path) -> tuple[Path, Path]:
    hostile = _turn(
        PAYLOADS["reply"],
        trace=f"PLAN x\n{PAYLOADS['trace']}",
        tool_calls=[{"name": "shell", "arguments": {"command": PAYLOADS["args"]}, "ok": True,
                     "result": PAYLOADS["result"]}],
    )  # fmt: skip
    hit = {"rule": "dangerous_command", "criterion": "F1", "evidence": {"turn": 1, "text": "rm"}}
    records = [
        meta("run-a", [], tester="alice"),
        attempt("L1-A", 1, "PASS", response="the needle is here"),
        attempt("L1-A", 2, "PASS", response="nothing to see", fixtures_applied=False,
                strict_warnings=[{"criterion": PAYLOADS["says"], "says": PAYLOADS["reply"],
                                  "state": "failed", "evidence": {"note": PAYLOADS["evidence"]}}]),
        _failing("L1-B", 1, "a plain failing reply", rater=HUMAN),
        attempt("SEC-01", 1, "FAIL", tier="SEC", turns=[hostile], critical=[hit], criteria=[
            {"id": "F1", "tag": "STATE", "kind": "fail", "triggered": True, "passed": False,
             "says": PAYLOADS["says"], "rule": "dangerous_command",
             "evidence": {"turn": 1, "text": PAYLOADS["evidence"]}}]),
        run_end(),
    ]  # fmt: skip
    run = write(tmp / "run.jsonl", records)
    base = write(tmp / "base.jsonl", [
        meta("run-base", [], tester="alice"),
        attempt("L1-B", 1, "PASS", response="the baseline got it right"),
        run_end(),
    ])  # fmt: skip
    return run, base


def _page(tmp: Path) -> Path:
    run, base = _runs(tmp)
    report = build_report([run], baseline=[base], viewer=True)
    page = tmp / "report.html"
    page.write_text(render(report, "html"), encoding="utf-8")
    return page


def _rows(b: Browser) -> list[list[str]]:
    return list(
        b.js(
            "Array.from(document.querySelectorAll('#v-rows tr.attempt')).map("
            "r => Array.from(r.cells).slice(1, 4).map(c => c.textContent))"
        )
    )


def _set(b: Browser, field: str, value: str) -> None:
    b.js(
        f"(() => {{ const e = document.getElementById({json.dumps(field)}); "
        f"e.value = {json.dumps(value)}; e.dispatchEvent(new Event('change')); }})()"
    )


def _search(b: Browser, text: str) -> None:
    b.js(
        f"(() => {{ const e = document.getElementById('f-q'); e.value = {json.dumps(text)}; "
        "e.dispatchEvent(new Event('input')); })()"
    )
    # the search waits 150 ms for typing to stop; wait for it in the page, not here
    b.js("new Promise(r => setTimeout(r, 400))")


def _untouched(b: Browser) -> None:
    assert b.js("document.body.getAttribute('data-pwned')") is None
    assert not str(b.js("document.title")).startswith("PWNED")
    assert b.js(INJECTED) == 0
    assert b.js(SCRIPTS) == ["agenttest-data", "agenttest-viewer"]


def test_filters_search_and_opening_attempts(tmp_path: Path) -> None:
    page = _page(tmp_path)
    with Browser(1280, 900) as b:
        b.open(page.as_uri())
        # precondition: the viewer ran and lists every attempt, passing ones too
        assert b.js("document.getElementById('v-count').textContent") == "4 of 4 attempts"
        assert [r[1] for r in _rows(b)] == ["PASS", "PASS", "FAIL", "FAIL"]
        _set(b, "f-verdict", "FAIL")
        assert [r[0] for r in _rows(b)] == ["L1-B", "SEC-01"]
        _set(b, "f-tier", "SEC")
        assert [r[0] for r in _rows(b)] == ["SEC-01"]
        _set(b, "f-tier", "")
        _set(b, "f-rater", HUMAN)
        assert [r[0] for r in _rows(b)] == ["L1-B"]
        _set(b, "f-rater", "")
        _set(b, "f-verdict", "")
        b.js("document.getElementById('f-critical').click()")
        assert [r[0] for r in _rows(b)] == ["SEC-01"]
        b.js("document.getElementById('f-critical').click()")
        _set(b, "f-block", "L1-A")
        assert [(r[0], r[2]) for r in _rows(b)] == [("L1-A", "1"), ("L1-A", "2")]
        _set(b, "f-block", "")
        _search(b, "NEEDLE")  # case-insensitive, in replies
        assert [(r[0], r[2]) for r in _rows(b)] == [("L1-A", "1")]
        assert b.js("document.querySelector('#v-rows mark').textContent") == "needle"
        _search(b, "")
        assert len(_rows(b)) == 4
        # a passing attempt opens too, with its reply; details are built only on opening
        assert b.js("document.querySelectorAll('.attempt-view').length") == 0
        b.js("document.querySelector('#v-rows button.open').click()")
        shown = b.js("document.querySelector('.attempt-view').textContent")
        assert "the needle is here" in shown and "PASS" in shown


def test_the_baseline_attempt_shows_beside_the_runs(tmp_path: Path) -> None:
    page = _page(tmp_path)
    with Browser(1280, 900) as b:
        b.open(page.as_uri() + "?block=L1-B")
        assert [r[0] for r in _rows(b)] == ["L1-B"]
        b.js("document.querySelector('#v-rows button.open').click()")
        views = b.js(
            "Array.from(document.querySelectorAll('.attempt-view')).map(v => v.textContent)"
        )
        assert len(views) == 2
        assert "This run" in views[0] and "a plain failing reply" in views[0]
        assert "Baseline" in views[1] and "the baseline got it right" in views[1]
        # side by side at desktop width
        tops = b.js(
            "Array.from(document.querySelectorAll('.attempt-view')).map(v => v.getBoundingClientRect().top)"
        )
        assert tops[0] == tops[1]


def test_a_fail_link_opens_its_section_and_a_block_link_filters(tmp_path: Path) -> None:
    page = _page(tmp_path)
    with Browser(1280, 900) as b:
        b.open(page.as_uri())
        assert b.js("document.getElementById('fail-L1-B').open") is False
        b.js("document.querySelector('a[href=\"#fail-L1-B\"]').click()")
        b.js("new Promise(r => setTimeout(r, 200))")
        assert b.js("document.getElementById('fail-L1-B').open") is True
        b.js("document.querySelector('a[href=\"#view-SEC-01\"]').click()")
        b.js("new Promise(r => setTimeout(r, 200))")
        assert [r[0] for r in _rows(b)] == ["SEC-01"]


def test_hostile_agent_text_stays_text_in_every_viewer_path(tmp_path: Path) -> None:
    page = _page(tmp_path)
    with Browser(1280, 900) as b:
        b.open(page.as_uri())
        _untouched(b)
        # the trust section is there, and a hostile criterion id in it is text
        assert b.js("document.getElementById('trust-warnings').textContent") == "1"
        assert b.js("document.getElementById('trust-unfixed').textContent") == "1"
        b.js("document.getElementById('trust-attempts').open = true")
        _untouched(b)
        assert PAYLOADS["says"] in b.js("document.getElementById('trust-attempts').textContent")
        # open every attempt: transcript, tool call, result, trace, criteria, critical hit
        b.js("document.querySelectorAll('#v-rows button.open').forEach(x => x.click())")
        _untouched(b)
        text = b.js("document.getElementById('viewer').textContent")
        for name, payload in PAYLOADS.items():
            # tool arguments are shown as JSON, so compare up to the first quote
            assert payload.split('"')[0].strip("\u2028") in text, name
        assert "</script><!--<script>" in text
        # search for a payload: the marks are built from text too
        _search(b, "<img src=x onerror=")
        _untouched(b)
        assert b.js("document.querySelector('#v-rows mark').textContent") == "<img src=x onerror="
        # and the filters preset from the address cannot inject either
        b.open(page.as_uri() + "?q=" + "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&block=%3Cb%3E")
        _untouched(b)


def test_at_phone_width_the_verdicts_stay_visible(tmp_path: Path) -> None:
    page = _page(tmp_path)
    keep = os.environ.get("AGENTTEST_SCREENSHOT_DIR")
    with Browser(412, 900) as b:
        b.open(page.as_uri())
        assert b.js("document.documentElement.clientWidth") == 412
        rights = b.js(
            "Array.from(document.querySelectorAll('#block-table tbody td:nth-child(2),"
            " #v-rows tr.attempt td:nth-child(3)')).map(c => c.getBoundingClientRect().right)"
        )
        assert len(rights) == 3 + 4  # three blocks, four attempts
        assert all(0 < right <= 412 for right in rights), rights
        b.js("document.querySelector('#v-rows button.open').click()")
        width = b.js("document.querySelector('.attempt-view').getBoundingClientRect().right")
        assert width <= 412
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            b.js("document.getElementById('attempts').scrollIntoView()")
            b.screenshot(Path(keep) / "viewer_phone.png")


def test_the_csp_lets_only_the_viewer_script_run(tmp_path: Path) -> None:
    page = _page(tmp_path)
    html = page.read_text(encoding="utf-8")
    policy = html_text.unescape(html.split('http-equiv="Content-Security-Policy" content="')[1])
    assert policy.split('"')[0].endswith(
        "script-src 'sha256-" + policy.split("sha256-")[1][:44] + "'"
    )
    # a script that is not the viewer's is refused by the page's own policy
    tampered = tmp_path / "tampered.html"
    tampered.write_text(
        html.replace(
            "</main>", "<script>document.body.setAttribute('data-pwned','x')</script></main>"
        ),
        encoding="utf-8",
    )
    with Browser(800, 600) as b:
        b.open(tampered.as_uri())
        assert b.js("document.getElementById('v-count').textContent") == "4 of 4 attempts"
        assert b.js("document.body.getAttribute('data-pwned')") is None


def _graded_criteria() -> list[dict[str, Any]]:
    """What the grader writes today (issue 12): ``evidence.decided_by``, ``origin``,
    ``strict_only`` and ``applies``, from a real grade of an attempt run without fixtures."""
    import dataclasses

    from agenttest.blocks import Fixture
    from agenttest.grading import grade_attempt

    from .fixtures.grading import attempt as graded
    from .fixtures.grading import block, crit, turn

    free = crit("P3", "response_contains", values=("answer",), says="mentions the answer")
    b = block([
        crit("P1", "response_contains", values=("42",)),
        crit("P2", "trace_contains", values=("INTERNAL-MARKER",), origin="agenttest"),
        crit("P3", "response_contains", values=("agenda.md",), fixture_bound=True, unfixed=free),
        crit("P4", "response_contains", values=("notes/",), fixture_bound=True),
    ])  # fmt: skip
    b = dataclasses.replace(b, fixtures=(Fixture(kind="file", path="notes/agenda.md"),))
    out = grade_attempt(
        b, graded(turn("the answer is 42", trace="ROUTE chat"), fixtures_applied=False)
    )
    return [msgspec.to_builtins(c) for c in out.criteria]  # as a run file holds them


def test_the_decided_by_column_names_the_rule_and_its_origin(tmp_path: Path) -> None:
    criteria = _graded_criteria()
    # precondition: the grader wrote the fields the column reads
    by_id = {c["id"]: c for c in criteria}
    assert by_id["P3"]["evidence"]["decided_by"].startswith("fixture-free variant")
    assert by_id["P2"]["origin"] == "agenttest" and by_id["P2"]["strict_only"] is True
    assert by_id["P4"]["applies"] is False
    run = write(tmp_path / "run.jsonl", [
        meta("run-a", [], tester="alice"),
        attempt("L1-T", 1, "PASS", response="the answer is 42", criteria=criteria),
        run_end(),
    ])  # fmt: skip
    page = tmp_path / "report.html"
    page.write_text(render(build_report([run], viewer=True), "html"), encoding="utf-8")
    with Browser(1280, 900) as b:
        b.open(page.as_uri())
        b.js("document.querySelector('#v-rows button.open').click()")
        rows = b.js(
            "Array.from(document.querySelectorAll('.criteria-table tbody tr')).map("
            "r => [r.cells[0].textContent, r.cells[1].textContent,"
            " r.cells[4].querySelector('.rule').textContent,"
            " (r.cells[4].querySelector('.origin') || {}).textContent])"
        )
    got = {r[0].split()[0]: r[1:] for r in rows}
    assert got["P1"] == ["held", "response_contains", "methodology"]
    assert got["P2"] == [
        "not met", "trace_contains",
        "agenttest addition: a strict-check warning, counts only with --strict",
    ]  # fmt: skip
    assert got["P3"] == [
        "held",
        "fixture-free variant (response_contains): mentions the answer",
        "methodology",
    ]
    assert got["P4"] == ["not applicable", "not applicable: fixture-bound", "methodology"]


JUDGE = "rules@sha256:5e1c0a7d93b2f468+openvino@sha256:0a1b2c3d"


def _judged(note: str, text: str) -> list[dict[str, Any]]:
    return [{"id": "P2", "tag": "JUDGE", "kind": "pass", "passed": None, "says": "declines",
             "evidence": {"note": note, "text": text}}]  # fmt: skip


def _sections_run(tmp: Path) -> Path:
    """A parity run (agents `<b>alpha</b>` and `beta`) of a parameterised block with three
    cases and a plain block whose judge decided one of two JUDGE criteria."""
    hostile = PAYLOADS["says"]
    records = [meta("run-a", [], tester="alice")]
    for agent, verdicts in (
        (hostile, ("PASS", "FAIL", "PASS")),
        ("beta", ("FAIL", "FAIL", "PASS")),
    ):
        for case, verdict in zip("abc", verdicts, strict=True):
            records.append(attempt(f"EV-T-01#{case}", 1, verdict, tier="EV", agent=agent))
        records.append(attempt("L1-A", 1, "PASS", agent=agent))
    records += [
        attempt("L1-J", 1, "PASS", rater=JUDGE,
                criteria=_judged("judge openvino: PASS (0.81)", "act: declines and says why")),
        attempt("L1-J", 2, "PASS", rater=JUDGE,
                criteria=_judged("judge openvino: UNDECIDED cues disagree; left to a human",
                                 "covers: the page's items")),
        run_end(),
    ]  # fmt: skip
    return write(tmp / "run.jsonl", records)


def _table(b: Browser, table_id: str) -> list[list[str]]:
    return list(
        b.js(
            f"Array.from(document.querySelectorAll('#{table_id} tr')).map("
            "r => Array.from(r.cells).map(c => c.textContent))"
        )
    )


def test_case_categories_parity_and_judge_coverage_are_sections_of_their_own(
    tmp_path: Path,
) -> None:
    run = _sections_run(tmp_path)
    report = build_report([run], viewer=True)
    # precondition: the run has all three to show
    assert report.cases and report.parity is not None and report.coverage
    html = render(report, "html")
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    plain = tmp_path / "plain.html"
    plain.write_text(render(build_report([_runs(tmp_path)[0]], viewer=True), "html"), "utf-8")

    def policy(text: str) -> str:
        return text.split('http-equiv="Content-Security-Policy" content="')[1].split("sha256-")[0]

    assert policy(html) == policy(plain.read_text(encoding="utf-8"))  # the CSP is unchanged
    with Browser(1280, 900) as b:
        b.open(page.as_uri())
        _untouched(b)  # the hostile agent label is a parity column heading, as text
        cases = _table(b, "cases-table")
        assert cases[0][:3] == ["Block", "Category", "Cases"]
        assert [row[:4] for row in cases[1:]] == [["EV-T-01", "(none)", "3", "3/6"]]
        parity = _table(b, "parity-table")
        assert parity[0] == ["Block", "Tier", PAYLOADS["says"], "beta"]
        assert parity[1:] == [["EV-T-01#a", "EV", "pass 1/1", "FAIL 0/1"]]
        coverage = _table(b, "coverage-table")
        assert coverage[1] == [JUDGE, "1/2", "50.0%", "act 1/1 · covers 0/1"]
        # the tier table counts the parameterised block once and its cases apart
        tiers = b.js(
            "Array.from(document.querySelectorAll('#tiers + svg + .scroll tr')).map("
            "r => Array.from(r.cells).slice(0, 3).map(c => c.textContent))"
        )
        assert tiers[0] == ["Tier", "Blocks", "Cases"]
        assert {row[0]: row[1:] for row in tiers[1:]}["EV"] == ["1", "3"]
        if os.environ.get("AGENTTEST_SCREENSHOT_DIR"):
            keep = Path(os.environ["AGENTTEST_SCREENSHOT_DIR"])
            keep.mkdir(parents=True, exist_ok=True)
            b.js("document.getElementById('cases').scrollIntoView()")
            b.screenshot(keep / "sections_1280.png")
