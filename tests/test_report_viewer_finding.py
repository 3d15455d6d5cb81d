"""Finding an attempt in the HTML report's viewer, in a real browser: search over every
text of an attempt (case- and accent-insensitive, marks on exactly the matched characters
after ``İ``, ``ß`` and combining marks), the attempt's 1-based number and its link, sorting
by a column, the navigation to the viewer, and evidence that reads.

Needs Debian's ``chromium`` (driven over the DevTools pipe, see ``tests/_cdp.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenttest.reporting import build_report, render

from ._cdp import CHROMIUM, Browser
from .fixtures.reports.builders import attempt, meta, run_end, write

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]

LONG_RATER = "rules@sha256:4579095a911bbe1e0a1b2c3d4e5f6a7b+openvino@sha256:0a1b2c3d4e5f6a7b8c9d"


def _turn(reply: str, **extra: Any) -> dict[str, Any]:
    return {"prompt": "p", "response": reply, "tool_calls": [], "trace": "", "http_status": 200,
            "latency_ms": 100, **extra}  # fmt: skip


def _run(tmp: Path) -> Path:
    tool = _turn(
        "done",
        tool_calls=[{"name": "read_file", "arguments": {"path": "notes.md"}, "ok": True,
                     "result": "the zeppelin left at noon"}],
        trace="ROUTE files\nPLAN read the quokka notes",
    )  # fmt: skip
    failing = [{"id": "P1", "tag": "STATE", "kind": "pass", "type": "tool_called", "passed": False,
                "says": "the weather tool ran for the city the user named, with the units the "
                        "user asked for, and its answer was read back without inventing a figure",
                "evidence": {"turn": 1, "note": "0 call(s) of weather counted (calls that "
                             "succeeded); wanted at least 1; calls seen: none; "
                             "read_file(notes/weather-2026-12-05.md) failed: permission denied"}}]  # fmt: skip
    records = [
        meta("run-a", [], tester="alice"),
        attempt("L1-A", 1, "PASS", response="İİİ İstanbul'da needle var"),
        attempt("L1-A", 2, "PASS", response="Die Straße ist lang", cost_tokens=10),
        attempt("L1-B", 1, "PASS", turns=[tool], cost_tokens=30),
        attempt("L1-C", 1, "FAIL", response="", criteria=failing, rater=LONG_RATER),
        attempt("L2-D", 1, "PASS", tier="L2", response="un cafe\u0301 noir"),
        run_end(),
    ]  # fmt: skip
    return write(tmp / "run.jsonl", records)


def _page(tmp: Path) -> Path:
    page = tmp / "report.html"
    page.write_text(render(build_report([_run(tmp)], viewer=True), "html"), encoding="utf-8")
    return page


def _search(b: Browser, text: str) -> None:
    """Type into the search field and press Enter (a change event searches at once)."""
    b.js(
        f"(() => {{ const e = document.getElementById('f-q'); e.value = {json.dumps(text)}; "
        "e.dispatchEvent(new Event('change')); })()"
    )


def _blocks(b: Browser) -> list[str]:
    return list(
        b.js(
            "Array.from(document.querySelectorAll('#v-rows tr.attempt button.open'))"
            ".map(x => x.textContent)"
        )
    )


def _marks(b: Browser, scope: str) -> list[str]:
    return list(
        b.js(f"Array.from(document.querySelectorAll({json.dumps(scope)})).map(m => m.textContent)")
    )


def _open_first(b: Browser) -> None:
    b.js("document.querySelector('#v-rows button.open').click()")


def test_search_finds_a_tool_result_a_trace_evidence_and_a_block_id(tmp_path: Path) -> None:
    with Browser(1280, 900) as b:
        b.open(_page(tmp_path).as_uri())
        assert len(_blocks(b)) == 5  # precondition: every attempt listed
        _search(b, "ZEPPELIN")  # in a tool result only
        assert _blocks(b) == ["L1-B"]
        assert b.js("document.querySelector('#v-rows .where').textContent") == "tool result: "
        _open_first(b)
        assert _marks(b, ".attempt-view ol.calls pre.result mark") == ["zeppelin"]
        _search(b, "quokka")  # in a trace line only
        assert _blocks(b) == ["L1-B"]
        _open_first(b)
        assert _marks(b, ".attempt-view ol.trace mark") == ["quokka"]
        _search(b, "calls seen")  # in a criterion's evidence
        assert _blocks(b) == ["L1-C"]
        _open_first(b)
        assert _marks(b, ".attempt-view td.evidence mark") == ["calls seen"]
        _search(b, "l2-d")  # a block id, marked in the row
        assert _blocks(b) == ["L2-D"]
        assert _marks(b, "#v-rows button.open mark") == ["L2-D"]
        _search(b, "notes.md")  # a tool call's arguments
        assert _blocks(b) == ["L1-B"]
        _search(b, "nothing of the sort")
        assert _blocks(b) == []


def test_marks_cover_exactly_the_matched_characters_after_dotted_i_sharp_s_and_marks(
    tmp_path: Path,
) -> None:
    with Browser(1280, 900) as b:
        b.open(_page(tmp_path).as_uri())
        # "İ".toLowerCase() is two code units: offsets taken from it marked "dle v" here
        _search(b, "needle")
        assert _blocks(b) == ["L1-A"]
        assert _marks(b, "#v-rows mark") == ["needle"]
        _search(b, "istanbul")  # dotted capital I folds to i
        assert _marks(b, "#v-rows mark") == ["İstanbul"]
        _search(b, "İİ İSTANBUL")
        assert _marks(b, "#v-rows mark") == ["İİ İstanbul"]
        _search(b, "STRASSE")  # ß is ss
        assert _blocks(b) == ["L1-A"]
        assert _marks(b, "#v-rows mark") == ["Straße"]
        _search(b, "café")  # a precomposed é finds e + a combining acute, marked whole
        assert _blocks(b) == ["L2-D"]
        assert _marks(b, "#v-rows mark") == ["cafe\u0301"]
        _search(b, "cafe")
        assert _marks(b, "#v-rows mark") == ["cafe\u0301"]
        _open_first(b)
        assert _marks(b, ".attempt-view pre mark") == ["cafe\u0301"]


def _numbers(b: Browser) -> list[str]:
    return list(
        b.js("Array.from(document.querySelectorAll('#v-rows a.number')).map(x => x.textContent)")
    )


def test_attempts_are_numbered_from_one_and_a_number_links_to_its_attempt(
    tmp_path: Path,
) -> None:
    page = _page(tmp_path)
    with Browser(1280, 900) as b:
        b.open(page.as_uri())
        assert _numbers(b) == ["1", "2", "3", "4", "5"]
        assert b.js("document.querySelector('#v-rows a.number').getAttribute('href')") == (
            "#attempt-1"
        )
        # the first attempt is #attempt-1: opened, with its number and a link to copy
        b.open("about:blank")  # a new fragment alone loads nothing: start afresh
        b.open(page.as_uri() + "#attempt-1")
        assert b.js("document.querySelector('.attempt-view h4').textContent") == (
            "Attempt 1 \u00b7 PASS"
        )
        assert "İstanbul" in b.js("document.querySelector('.attempt-view').textContent")
        assert b.js("document.querySelector('.copy-link input').value") == (
            page.as_uri() + "#attempt-1"
        )
        # a number clicked in a filtered, re-sorted list opens that attempt, not a position
        b.open(page.as_uri() + "?verdict=FAIL")
        assert _numbers(b) == ["4"]
        b.js("document.querySelector('#v-rows a.number').click()")
        assert b.js("location.hash") == "#attempt-4"
        assert b.js("document.querySelector('.attempt-view h4').textContent") == (
            "Attempt 4 \u00b7 FAIL"
        )
        # an old 0-based link names no attempt: said so, nothing opened in its place
        b.open(page.as_uri() + "#attempt-0")
        assert "numbered 1 to 5" in b.js("document.getElementById('v-note').textContent")
        assert b.js("document.querySelectorAll('.attempt-view').length") == 0


def _sort(b: Browser, column: str) -> None:
    b.js(f"document.querySelector('th[data-sort={column}] button').click()")


def test_a_column_header_sorts_and_a_second_press_reverses(tmp_path: Path) -> None:
    with Browser(1280, 900) as b:
        b.open(_page(tmp_path).as_uri())
        assert _numbers(b) == ["1", "2", "3", "4", "5"]
        _sort(b, "verdict")  # worst first
        assert _blocks(b)[0] == "L1-C"
        assert b.js("document.querySelector('th[data-sort=verdict]').ariaSort") == "ascending"
        _sort(b, "tier")
        _sort(b, "tier")  # descending: L2 first
        assert _blocks(b)[0] == "L2-D"
        assert b.js("document.querySelector('th[data-sort=tier]').ariaSort") == "descending"
        assert b.js("document.querySelector('th[data-sort=verdict]').ariaSort") is None
        _sort(b, "tokens")  # fewest first; attempts without a count after, in their order
        assert _numbers(b) == ["2", "3", "1", "4", "5"]
        _sort(b, "tokens")  # reversed, and attempts without a count still last
        assert _numbers(b) == ["3", "2", "1", "4", "5"]
        # the header buttons are buttons: reachable with Tab, pressed with Enter or Space
        assert b.js("document.querySelector('th[data-sort=block] button').tagName") == "BUTTON"
        b.js("document.querySelector('th[data-sort=block] button').focus()")
        assert b.js("document.activeElement.textContent") == "Block"
        # a sort can be preset from the address
        b.open(_page(tmp_path).as_uri() + "?sort=-number")
        assert _numbers(b) == ["5", "4", "3", "2", "1"]


def test_the_viewer_comes_first_and_every_section_is_linked_from_the_top(tmp_path: Path) -> None:
    with Browser(1280, 900) as b:
        b.open(_page(tmp_path).as_uri())
        links = b.js(
            "Array.from(document.querySelectorAll('nav.contents a')).map(a => a.getAttribute('href'))"
        )
        headings = b.js("Array.from(document.querySelectorAll('h2[id]')).map(h => '#' + h.id)")
        assert links == headings and links[0] == "#attempts"
        # the viewer starts on the first screen
        assert b.js("document.getElementById('attempts').getBoundingClientRect().top") < 900
        # the section links stay in view while the page scrolls, and lead to their section
        b.js("document.querySelector('nav.contents a[href=\"#raters\"]').click()")
        assert b.js("window.scrollY") > 900
        assert b.js("document.querySelector('nav.contents').getBoundingClientRect().top") >= 0
        top = b.js("document.getElementById('raters').getBoundingClientRect().top")
        bottom = b.js("document.querySelector('header.top').getBoundingClientRect().bottom")
        assert bottom <= top < 900


def test_evidence_wraps_between_words_a_long_rater_stays_narrow_and_empty_says_so(
    tmp_path: Path,
) -> None:
    with Browser(1280, 900) as b:
        b.open(_page(tmp_path).as_uri() + "?verdict=FAIL")
        assert b.js("document.querySelector('#v-rows .excerpt').textContent") == "(empty reply)"
        width = b.js("document.querySelector('table.attempts').getBoundingClientRect().width")
        rater = b.js("document.querySelector('#v-rows td.rater').getBoundingClientRect().width")
        assert rater < width / 8
        assert b.js("document.querySelector('#v-rows td.rater').title") == LONG_RATER
        _open_first(b)
        assert b.js("document.querySelector('.attempt-view pre.empty').textContent") == (
            "(empty reply)"
        )
        # and in the failing attempts' section, which needs no script
        assert b.js("document.querySelector('#fail-L1-C pre.empty').textContent") == (
            "(empty reply)"
        )
        # every word of the evidence sits whole on one line: no line starts inside a word
        broken = b.js(
            """(() => {
              const cell = document.querySelector('.attempt-view td.evidence');
              const text = cell.firstChild, range = document.createRange(), cut = [];
              let top = null;
              for (let i = 0; i < text.length; i++) {
                range.setStart(text, i); range.setEnd(text, i + 1);
                const r = range.getClientRects()[0];
                if (!r) continue;
                if (top !== null && r.top > top + 2 && /\\w/.test(text.data[i - 1])
                    && /\\w/.test(text.data[i])) cut.push(i);
                top = r.top;
              }
              return cut;
            })()"""
        )
        assert broken == []


def test_the_per_block_table_sorts_by_a_column_too(tmp_path: Path) -> None:
    def blocks() -> list[str]:
        return list(
            b.js(
                "Array.from(document.querySelectorAll('#block-table tbody tr'))"
                ".map(r => r.cells[0].getAttribute('data-text'))"
            )
        )

    with Browser(1280, 900) as b:
        b.open(_page(tmp_path).as_uri())
        assert blocks() == ["L1-A", "L1-B", "L1-C", "L2-D"]
        pass_at_1 = "document.querySelectorAll('#block-table thead th button')[4]"
        assert b.js(pass_at_1 + ".textContent").startswith("pass@1")
        b.js(pass_at_1 + ".click()")  # lowest first, ties in the page's order
        assert blocks() == ["L1-C", "L1-A", "L1-B", "L2-D"]
        b.js(pass_at_1 + ".click()")
        assert blocks() == ["L1-A", "L1-B", "L2-D", "L1-C"]
        assert b.js(pass_at_1 + ".parentElement.ariaSort") == "descending"
        b.js("document.querySelectorAll('#block-table thead th button')[0].click()")
        b.js("document.querySelectorAll('#block-table thead th button')[0].click()")
        assert blocks() == ["L2-D", "L1-C", "L1-B", "L1-A"]


def test_a_verdict_reads_whole_on_one_line(tmp_path: Path) -> None:
    # "UNDECIDE / D" broke across two lines in a 6.5em column; not applicable wraps between
    # its words instead of showing NOT_APPLICABLE
    records = [
        meta("run-v", [], tester="alice"),
        attempt("L1-A", 1, "UNDECIDED", response="maybe"),
        attempt("L1-B", 1, "NOT_APPLICABLE", response=""),
        run_end(),
    ]
    run = write(tmp_path / "run.jsonl", records)
    page = tmp_path / "report.html"
    page.write_text(render(build_report([run], viewer=True), "html"), encoding="utf-8")
    with Browser(1280, 900) as b:
        b.open(page.as_uri())
        cells = b.js(
            """Array.from(document.querySelectorAll('#v-rows tr.attempt')).map(tr => {
                 const td = tr.children[2], range = document.createRange();
                 range.selectNodeContents(td);
                 const lines = new Set(Array.from(range.getClientRects()).map(r => r.top));
                 return [td.textContent, lines.size];
               })"""
        )
        lines = {text: n for text, n in cells}
        assert set(lines) == {"UNDECIDED", "not applicable"}
        assert lines["UNDECIDED"] == 1  # two lines here would be a word cut in two
