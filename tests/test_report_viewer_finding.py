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
                "says": "the weather tool ran",
                "evidence": {"turn": 1, "note": "0 call(s) of weather counted; calls seen: none"}}]  # fmt: skip
    records = [
        meta("run-a", [], tester="alice"),
        attempt("L1-A", 1, "PASS", response="İİİ İstanbul'da needle var"),
        attempt("L1-A", 2, "PASS", response="Die Straße ist lang"),
        attempt("L1-B", 1, "PASS", turns=[tool], tokens=30),
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
