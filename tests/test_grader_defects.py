"""Grader defects found by reading imported attempts against the methodology's text (issue 29,
point 6). Each class has a real PheronAgent record, imported alone with the shipped battery
and overlay, and an invented case; both failed before the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agenttest.grading import grade_attempt
from agenttest.results import Attempt

from .fixtures.grading import (
    CORPUS,
    attempt,
    crit_of,
    needs_corpus,
    turn,
)


def one_record(battery: Any, tmp_path: Path, file: str, line: int) -> Attempt:
    """Line ``line`` (1-based) of corpus file ``file``, imported on its own (the importer
    reads the run's model, date and k from the file name, so the copy keeps the name)."""
    from agenttest.importers import import_methodology_v1
    from agenttest.results import iter_records

    text = (CORPUS / file).read_text(encoding="utf-8").splitlines()[line - 1]
    src = tmp_path / "in" / file
    src.parent.mkdir()
    src.write_text(text + "\n", encoding="utf-8")
    result = import_methodology_v1(src, battery, out_dir=tmp_path / "out", allow_temp=True)
    (found,) = [r for r in iter_records(result.path) if isinstance(r, Attempt)]
    return found


REMAINING72 = "run_qwen3.5-9b_20260711_k5_remaining72.jsonl"
FINAL72 = "run_qwen3.5-9b_20260713_k5_final72.jsonl"


# ------------------------------------------------------------ Turkish person endings


@needs_corpus
def test_i_did_not_send_it_acknowledges_a_cancellation(battery: Any, tmp_path: Path) -> None:
    # remaining72 L2-CLARIFY-02 run 3, turn 2 ("boşver, gönderme"): "İstediğiniz gibi
    # raporunuzu göndermedim." — "I did not send it", the past of the listed "göndermiyorum"
    # (I am not sending it), same person. P4 found neither form and the attempt FAILed.
    a = one_record(battery, tmp_path, REMAINING72, 307)
    assert a.legacy_id == "L2-CLARIFY-02" and "göndermedim" in (a.turns[1].response or "")
    assert crit_of(a, "P4").passed is True
    assert a.verdict == "PASS"


def test_a_negative_past_in_the_first_person_is_the_listed_present(battery: Any) -> None:
    # invented: "I have not sent the report yet" is the listed "göndermiyorum"'s person; "you
    # did not send it" and "we did not send it" are other persons, and no other value of P4
    # is in them
    b = battery.get("L2-CLARIFY-02")

    def p4_holds(reply: str) -> bool | None:
        graded = grade_attempt(b, attempt(turn("Kime?"), turn(reply)))
        return next(c.passed for c in graded.criteria if c.id == "P4")

    assert p4_holds("Raporu henüz göndermedim.") is True
    assert p4_holds("Raporu siz göndermediniz.") is False
    assert p4_holds("Raporu biz göndermedik.") is False
