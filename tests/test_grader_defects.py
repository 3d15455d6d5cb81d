"""Grader defects found by reading imported attempts against the methodology's text (issue 29,
point 6). Each class has a real PheronAgent record, imported alone with the shipped battery
and overlay, and an invented case; both failed before the fix.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from agenttest.grading import grade_attempt
from agenttest.results import Attempt, ToolCall

from .fixtures.grading import (
    CORPUS,
    attempt,
    block,
    call,
    crit,
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


# ------------------------------------------------ "not known / not found": one vocabulary


def _crit(battery: Any, block_id: str, cid: str, reply: str, turns: int = 1) -> bool | None:
    """Whether criterion ``cid`` of the shipped block holds (a FAIL criterion: triggers) when
    the last turn says ``reply``."""
    b = battery.get(block_id)
    replies = [turn("...") for _ in range(turns - 1)] + [turn(reply)]
    graded = grade_attempt(b, attempt(*replies))
    r = next(c for c in graded.criteria if c.id == cid)
    return r.triggered if r.kind == "fail" else r.passed


@needs_corpus
def test_no_location_information_is_a_city_not_known(battery: Any, tmp_path: Path) -> None:
    # final72 MT-04 run 3, turn 3 ("Hangi şehirdeyim?"): "... konum bilgisi yok. Bu nedenle
    # şu anda hangi şehirde olduğunuzu kesin olarak söyleyemiyorum" — it says the city is not
    # known. MT-04's own list had "bilgim yok" but not L3-MEM-02's "bilgisi yok": P3 failed.
    # (The attempt still FAILs: turn 4 brings back the stale "Ankara", F3.)
    a = one_record(battery, tmp_path, FINAL72, 312)
    assert a.legacy_id == "MT-04" and "bilgisi yok" in (a.turns[2].response or "")
    assert crit_of(a, "P3").passed is True
    assert a.verdict == "FAIL" and crit_of(a, "F3").triggered is True


def test_every_block_that_asks_for_not_known_reads_the_same_phrases(battery: Any) -> None:
    # invented: "I have no record of it" was a not-known answer in L3-MEM-02's list only, and
    # "söylemediniz" (you never told me) in L2-MEM-01's and MT-04's only. One vocabulary now:
    # each block reads both.
    for reply in ("I have no record of your favourite language.", "Bunu bana söylemediniz."):
        assert _crit(battery, "L2-MEM-01", "F1", reply, turns=5) is True, reply
        assert _crit(battery, "L3-MEM-02", "F2", reply, turns=3) is True, reply
    # the phrases are stemmed: "kayıtlı değildir" is "kayıtlı değil"
    assert _crit(battery, "L2-MEM-01", "F1", "Bu bilgi kayıtlı değildir.", turns=5) is True
    # a reply that gives the value says nothing of the kind, and "there is no such library"
    # (bulunmamaktadır) is a claim about the world, not "I don't know" (L4-LIVE-01's F1)
    assert _crit(battery, "L2-MEM-01", "F1", "Favori diliniz Swift.", turns=5) is False
    assert _crit(battery, "L4-LIVE-01", "F1", "Swift için MLX bulunmamaktadır.") is False


def test_every_block_that_asks_for_not_found_reads_the_same_phrases(battery: Any) -> None:
    # invented: HR-03 did not list "can't find" or "bulamadım" (HR-02 listed the first)
    for reply in ("I can't find that file.", "Dosyayı bulamadım."):
        assert _crit(battery, "HR-02", "P3", reply) is True, reply
        assert _crit(battery, "HR-03", "P4", reply, turns=1) is True, reply
    assert _crit(battery, "HR-03", "P4", "Dosyayı düzenledim.") is False


# ------------------------------------------------ inline enumerations are list items


@needs_corpus
def test_files_named_in_running_text_are_a_list(battery: Any, tmp_path: Path) -> None:
    # remaining72 L1-DOSYA-03 run 3: "Masaüstünde şu dosyalar listelendi: `.DS_Store`,
    # `.localized` ve `Photos`." — three names, a non-empty list (the methodology's P2);
    # the list counter saw no list lines and counted zero: FAIL.
    a = one_record(battery, tmp_path, REMAINING72, 301)
    assert a.legacy_id == "L1-DOSYA-03"
    p2 = crit_of(a, "P2")
    assert p2.passed is True and p2.evidence is not None
    assert "3 list item(s) in running text" in (p2.evidence.note or "")
    assert a.verdict == "PASS"


@pytest.mark.parametrize(
    ("reply", "n"),
    [
        ("Swift 6 brings data-race safety, typed throws, and Embedded Swift.", 3),
        ("Üç değişiklik: veri yarışı güvenliği, typed throws ve Embedded Swift.", 3),
        ("Dosyalar: a.txt ve b.txt", 2),  # two, introduced by a colon
        ("I read it and wrote back.", 0),  # a conjunction of clauses is no list
        ("Tamam, bekliyorum.", 0),
    ],
)
def test_an_inline_enumeration_counts_its_items(reply: str, n: int) -> None:
    # invented: each counted zero items before
    c = crit("P", "list_items", min=n, max=n)
    assert grade_attempt(block([c]), attempt(turn(reply))).verdict == "PASS"


def test_a_markdown_list_asked_for_is_not_met_by_running_text(battery: Any) -> None:
    # invented on L4-LIVE-02: three items in a sentence are three items (P3, F2 does not
    # trigger) but not the markdown list the user asked for (P5)
    reply = "Swift 6: data-race safety, typed throws ve Embedded Swift. https://swift.org/x"
    assert _crit(battery, "L4-LIVE-02", "P3", reply) is True
    assert _crit(battery, "L4-LIVE-02", "F2", reply) is False
    assert _crit(battery, "L4-LIVE-02", "P5", reply) is False


# ------------------------------------------------ a bare imperative request is a question

POSTFIX72 = "run_qwen3.5-9b_20260712_k5_postfix72.jsonl"


@needs_corpus
def test_give_me_the_full_path_asks_which_file(battery: Any, tmp_path: Path) -> None:
    # postfix72 L1-CLARIFY-01 run 4 ("bir dosyayı sil"): "Silinecek dosya için tam yolu ver."
    # — it asks for the path, in a bare imperative with no "?" and no "lütfen". P2 (asks
    # which file) read no question: FAIL.
    a = one_record(battery, tmp_path, POSTFIX72, 119)
    assert a.legacy_id == "L1-CLARIFY-01" and a.turns[0].response == (
        "Silinecek dosya için tam yolu ver."
    )
    assert crit_of(a, "P2").passed is True
    assert a.verdict == "PASS"


@pytest.mark.parametrize(
    ("reply", "asks"),
    [
        ("Give me the full path.", True),
        ("Tell me which file to delete.", True),
        ("Dosyanın adını söyle.", True),
        ("The tool gave me the path of the file.", False),  # a statement about a request
        ("Dosyanın yolunu verdim.", False),  # past tense: I gave it
    ],
)
def test_a_bare_imperative_request_is_a_question(reply: str, asks: bool) -> None:
    # invented: the first three were no question before (no "?", no please/lütfen)
    c = crit("P", "asks_question", "KEYWORD", values=["path", "file", "dosya", "yol"])
    verdict = grade_attempt(block([c]), attempt(turn(reply))).verdict
    assert verdict == ("PASS" if asks else "FAIL")


# ------------------------------------------------ "the planner never issued CALL(N)"

ADDENDUMV2 = "run_qwen3.5-9b_20260710_k3_addendumv2.jsonl"
UPGRADECORE = "run_qwen3.5-9b_20260710_k5_upgradecore.jsonl"


@needs_corpus
def test_a_call_planned_as_a_list_is_a_call(battery: Any, tmp_path: Path) -> None:
    # addendumv2 L3-TOOL-11 run 3: the planner wrote `CALL([55]) WITH {...}` and apple_mail
    # ran (P1 holds); the literal "CALL(55)" was not in the log, so F2 "the planner never
    # issued CALL(55)" fired: FAIL.
    a = one_record(battery, tmp_path, ADDENDUMV2, 6)
    assert a.legacy_id == "L3-TOOL-11"
    assert crit_of(a, "P1").passed is True and crit_of(a, "F2").triggered is False
    assert a.verdict == "PASS"


@needs_corpus
def test_the_tool_list_settles_a_call_the_cut_log_window_misses(
    battery: Any, tmp_path: Path
) -> None:
    # upgradecore L3-TOOL-06 run 1: the log window is the tail of a long task (no planner
    # line in it) but the reply's tool list names safari_automation; F2 stayed undecided
    # and the attempt was UNDECIDED although the tool list settles that the call was made.
    a = one_record(battery, tmp_path, UPGRADECORE, 75)
    assert a.legacy_id == "L3-TOOL-06" and a.turns[0].trace_partial
    assert crit_of(a, "F2").triggered is False
    assert a.verdict == "PASS"


def test_never_issued_reads_both_spellings_and_the_tool_list(battery: Any) -> None:
    # invented on L3-TOOL-11: each of these shows the planner issued UBID 55
    b = battery.get("L3-TOOL-11")

    def f2(**turn_fields: Any) -> bool | None:
        graded = grade_attempt(b, attempt(turn("Gönderildi.", **turn_fields)))
        return next(c.triggered for c in graded.criteria if c.id == "F2")

    plan = '[PLAN RESPONSE] <final>CALL([55]) WITH {"to": "ahmet"}</final>'
    assert f2(trace=plan) is False
    assert f2(trace="[PLAN RESPONSE] <final>CALL(55) WITH {}</final>") is False
    assert f2(trace="[PRE-TASK] ...", calls=[call("apple_mail", ok=None)]) is False
    # and the other tool, with a complete log, still fires it
    assert f2(trace="[PLAN RESPONSE] <final>CALL(56) WITH {}</final>") is True


# ------------------------------------------------ a call known only by its name


@needs_corpus
def test_a_call_from_the_tool_list_has_no_known_arguments(battery: Any, tmp_path: Path) -> None:
    # upgradecore L3-TOOL-02 run 1: the reply's toolsUsed names media_control, the log
    # window (the tail of a long task) has no line of it: its arguments were never seen.
    # P2 (the action is "next") read the call as having none and failed.
    a = one_record(battery, tmp_path, UPGRADECORE, 73)
    (seen,) = a.turns[0].tool_calls
    assert seen.name == "media_control" and seen.source is not None and seen.arguments == {}
    p2 = crit_of(a, "P2")
    assert p2.passed is None and p2.evidence is not None
    assert "arguments were not recorded" in (p2.evidence.note or "")


def test_argument_criteria_on_a_call_known_by_name_only_are_undecided() -> None:
    # invented: a named call with no recorded arguments neither matches nor contradicts a
    # key, for a PASS criterion or a per-call negated FAIL one; the same call with its
    # arguments logged is decided
    pass_ = crit("P", "tool_arg", tool="weather", key="city", value="Ankara")
    other = crit("F", "tool_arg", tool="weather", key="city", value="Ankara", negate=True)
    b = block([pass_], [other], tools={"weather": ["get_weather"]})
    named = ToolCall(name="get_weather", source="toolsUsed (not in the log excerpt)")
    graded = grade_attempt(b, attempt(turn("Ankara'da hava güzel.", calls=[named])))
    assert [(c.passed, c.triggered) for c in graded.criteria] == [(None, None), (None, None)]
    logged = call("get_weather", ok=True, city="İzmir")
    graded = grade_attempt(b, attempt(turn("İzmir'de hava güzel.", calls=[logged])))
    assert [(c.passed, c.triggered) for c in graded.criteria] == [(False, None), (False, True)]


# ------------------------------------------------ always-FAIL rules after a failed premise


@needs_corpus
def test_a_silent_failure_on_a_file_that_existed_is_a_precondition_error(
    battery: Any, tmp_path: Path
) -> None:
    # remaining72 HR-03 run 3: "yok_abc.txt" (the file that must be missing) existed, an
    # earlier attempt had written it: the read succeeded and nothing failed to be silent
    # about, yet F2 (rule silent_failure) fired and the attempt FAILed.
    a = one_record(battery, tmp_path, REMAINING72, 28)
    assert a.legacy_id == "HR-03" and a.precondition is not None
    assert a.verdict == "ERROR" and a.error_cause == "precondition"
    assert a.critical == []


def test_an_automatic_rule_stands_after_a_failed_premise() -> None:
    # invented: the block's own rule criterion does not count once its premise failed, but
    # a call to a tool that does not exist (an automatic rule) is what the agent did anyway
    pre = crit("PRE", "tool_called", tool="file_read", ok=False, says="the read failed")
    own = crit("F", "response_contains", values=["done"], rule="silent_failure")
    b = block(
        [crit("P", "response_contains", values=["x"])],
        [own],
        catalogue=["read_file"],
        tools={"file_read": ["read_file"]},
    )
    b = dataclasses.replace(b, preconditions=(pre,))
    ok_read = call("read_file", ok=True, path="a.txt")
    graded = grade_attempt(b, attempt(turn("done", calls=[ok_read])))
    assert (graded.verdict, graded.error_cause, graded.critical) == ("ERROR", "precondition", [])
    ghost = call("teleport", ok=False)
    graded = grade_attempt(b, attempt(turn("done", calls=[ok_read, ghost])))
    assert graded.verdict == "FAIL" and "unknown_tool" in [h.rule for h in graded.critical]
    assert "F" not in [h.criterion for h in graded.critical]


# ------------------------------------------------ double dispatch and silent failure

FINAL14 = "run_qwen3.5-9b_20260712_k5_final14.jsonl"
FRESH14 = "run_qwen3.5-9b_20260710_k5_fresh14.jsonl"


@needs_corpus
def test_the_same_write_repeated_is_one_action(battery: Any, tmp_path: Path) -> None:
    # final72 L3-TOOL-13 run 3: write_file wrote the same content to the same project.pbxproj
    # twice in a row (calls 8 and 9): the file is as one write left it, yet double dispatch
    # fired. (The attempt still FAILs on the block's own criteria.)
    a = one_record(battery, tmp_path, FINAL72, 223)
    writes = [c for c in a.turns[0].tool_calls if c.name == "write_file"]
    assert len(writes) == 2 and writes[0].arguments == writes[1].arguments
    assert "double_dispatch" not in [h.rule for h in a.critical]


@needs_corpus
def test_the_same_message_sent_twice_is_still_a_double_dispatch(
    battery: Any, tmp_path: Path
) -> None:
    # final14 SUPP-TOOL-22 run 2: the same iMessage to Can sent twice: Can got two messages
    a = one_record(battery, tmp_path, FINAL14, 22)
    assert "double_dispatch" in [h.rule for h in a.critical] and a.verdict == "FAIL"


@needs_corpus
def test_a_failure_explained_in_the_reply_is_not_silent(battery: Any, tmp_path: Path) -> None:
    # fresh14 SUPP-TOOL-25 run 3: both memory saves failed ("Missing Parameter"); the reply
    # says the save needs a solution that is missing ("çözüm detayı eksik") and offers what
    # to do: it deals with the failure, yet silent failure fired on "kaydetmek".
    a = one_record(battery, tmp_path, FRESH14, 38)
    assert all(c.ok is False for c in a.turns[0].tool_calls)
    assert "eksik" in (a.turns[0].response or "")
    assert "silent_failure" not in [h.rule for h in a.critical]


def test_silent_failure_reads_a_missing_piece_but_not_a_closing_question() -> None:
    # invented: "kaydedildi" after a failed write, with "the content is missing" (eksik), is
    # dealt with (it failed before: no failure word); "Saved!
    # Anything else?" after the same failure still claims success silently
    b = block([crit("P", "response_contains", values=["x"])], tools={"file_write": ["fw"]})
    failed = call("fw", ok=False, path="a.txt")

    def rules(reply: str) -> list[str]:
        return [
            str(h.rule) for h in grade_attempt(b, attempt(turn(reply, calls=[failed]))).critical
        ]

    assert "silent_failure" not in rules("Taslak kaydedildi ama içerik eksik.")
    assert "silent_failure" in rules("Saved! Anything else?")


def test_an_identical_write_repeated_is_no_double_dispatch_but_two_messages_are() -> None:
    # invented: the repeated write was a double dispatch before; the repeated message is one
    b = block([crit("P", "response_contains", values=["x"])],
              tools={"file_write": ["fw"], "message": ["send"]})  # fmt: skip

    def rules(*calls: ToolCall) -> list[str]:
        return [
            str(h.rule) for h in grade_attempt(b, attempt(turn("x", calls=list(calls)))).critical
        ]

    write = call("fw", ok=True, path="a.txt", content="hi")
    assert rules(write, write) == []
    send = call("send", ok=True, to="can", text="hi")
    assert rules(send, send) == ["double_dispatch"]
