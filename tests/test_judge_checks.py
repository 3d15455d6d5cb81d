"""Deterministic judge checks: numbers, dates, entities, polarity, refusals (no model)."""

from __future__ import annotations

import pytest

from agenttest.judges._checks import (
    antonym_flips,
    check_entities,
    check_facts,
    check_negation,
    check_refusal,
    is_refusal,
    negation_cues,
    reference_entities,
    run_checks,
)
from agenttest.text import (
    date_mentions,
    looks_turkish,
    match_key,
    number_mentions,
    numbers_agree,
    tr_casefold,
)


def statuses(reference: str, candidate: str) -> dict[str, str]:
    return {c.name: c.status for c in run_checks(reference, candidate).checks}


@pytest.mark.parametrize(
    ("text", "folded"),
    [("İSTANBUL", "istanbul"), ("IŞIK", "ışık"), ("DİYARBAKIR", "diyarbakır"), ("Iğdır", "ığdır")],
)
def test_turkish_casefold(text: str, folded: str) -> None:
    assert tr_casefold(text) == folded


def test_match_key_joins_dotted_and_dotless_i() -> None:
    assert match_key("Izmir") == match_key("İzmir") == match_key("izmir")
    assert match_key("IBM") == match_key("ibm")
    assert match_key("Ankara") != match_key("Ankora")
    assert tr_casefold("Izmir") != tr_casefold("İzmir")  # the casefold itself keeps them apart


def test_looks_turkish() -> None:
    assert looks_turkish("Sunucu şu anda çalışıyor.")
    assert looks_turkish("Bu dosya ve bu kod")
    assert not looks_turkish("The server is running.")


def one_number(text: str) -> object:
    found = number_mentions(text)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("29988", "29.988"),
        ("29988", "29,988"),
        ("333,0", "333"),
        ("1,234.5", "1.234,5"),
        ("2,500,000", "2500000"),
        ("1\u00a0500", "1500"),  # a no-break space groups; a plain space does not (shared reader)
        ("0.75", "0,75"),
        ("twelve", "12"),
        ("forty-five", "45"),
        ("on dört gün", "14"),
        ("64GB", "64"),
    ],
)
def test_numbers_match_across_formats(a: str, b: str) -> None:
    assert numbers_agree(one_number(a), one_number(b))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("29988", "29898"),
        ("333,0", "330"),
        ("2.5", "25"),
        ("250", "2,500"),
        ("3.11", "3.8"),
        ("1.2.3", "1.2.4"),
    ],
)
def test_different_numbers_do_not_match(a: str, b: str) -> None:
    assert not numbers_agree(one_number(a), one_number(b))  # type: ignore[arg-type]


def test_lone_one_is_not_a_number() -> None:
    assert number_mentions("Use the old one, it is a bir hata") == []
    assert [sorted(m.readings) for m in number_mentions("twenty one")] == [[21.0]]


def test_number_check_statuses() -> None:
    checks, features = check_facts("The total was 29988 dollars.", "Total: $29,988.")
    assert checks[0].status == "ok" and features["wrong_number"] == 0
    checks, features = check_facts("The total was 29988 dollars.", "The total was 29,898 dollars.")
    assert checks[0].status == "fail" and features["wrong_number"] == 1
    assert "29988" in checks[0].detail and "29,898" in checks[0].detail
    checks, features = check_facts("The total was 29988 dollars.", "The total is unknown.")
    assert checks[0].status == "warn" and features["missing_number"] == 1
    checks, _ = check_facts("The capital is Paris.", "It is 3 km away.")
    assert checks[0].status == "n/a"  # numbers only the candidate states are allowed


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("2024-03-15", "March 15, 2024"),
        ("31.12.2025", "31 December 2025"),
        ("31.12.2025", "31 Aralık 2025'te"),
        ("30/09/2024", "September 30, 2024"),
        ("4 July 1990", "1990-07-04"),
    ],
)
def test_dates_match_across_formats(a: str, b: str) -> None:
    assert statuses(f"It happens on {a}.", f"It happens on {b}.")["dates"] == "ok"
    assert statuses(f"It happens on {a}.", f"It happens on {b}.")["numbers"] == "n/a"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("2024-03-15", "March 16, 2024"),
        ("31.12.2025", "31 Aralık 2024"),
        ("5 June 2024", "5 July 2024"),
    ],
)
def test_wrong_dates_fail(a: str, b: str) -> None:
    assert statuses(f"It happens on {a}.", f"It happens on {b}.")["dates"] == "fail"


def test_ambiguous_slash_date_reads_both_ways() -> None:
    (date,) = date_mentions("03/04/2024")
    assert date.readings == frozenset({(2024, 3, 4), (2024, 4, 3)})


def test_reference_entities() -> None:
    ents = reference_entities(
        "Hamlet was written by William Shakespeare. Run 'make test' in /etc/app/config.yaml."
    )
    assert "William" in ents and "Shakespeare" in ents and "make test" in ents
    assert "/etc/app/config.yaml" in ents or "etc/app/config.yaml" in ents
    assert "Hamlet" not in ents  # sentence-initial: cannot tell a name from a capital


def test_entity_check() -> None:
    result, features = check_entities(
        "The capital of Australia is Canberra.", "The capital of Australia is Sydney."
    )
    assert result.status == "warn" and "Canberra" in result.detail
    assert features["entity_swap"] == 1 and features["entity_missing"] == 0.5
    result, features = check_entities(
        "The capital of Australia is Canberra.", "Canberra is Australia's capital."
    )
    assert result.status == "ok" and features["entity_missing"] == 0


def test_entity_check_tolerates_turkish_suffixes_and_i() -> None:
    result, _ = check_entities(
        "Raporu İzmir ofisi Ankara'da hazırladı.", "Rapor Izmir ofisinde, Ankara'dan geldi."
    )
    assert result.status == "ok"


@pytest.mark.parametrize(
    ("ref", "cand"),
    [
        ("The service is running.", "The service is not running."),
        ("The function is thread-safe.", "The function isn't thread-safe."),
        ("The user has admin rights.", "The user has no admin rights."),
        ("Do not commit the secrets file.", "Commit the secrets file."),
        ("Yes, the endpoint requires authentication.", "No, it requires authentication."),
        ("Sunucu şu anda çalışıyor.", "Sunucu şu anda çalışmıyor."),
        ("Testler geçti.", "Testler geçmedi."),
        ("Bu dosya silinmemeli.", "Bu dosya silinmelidir."),
        ("Önbellek etkin değil.", "Önbellek etkin."),
        ("Uygulama mobil cihazlarda çalışır.", "Uygulama mobil cihazlarda çalışmaz."),
        ("The door is open.", "The door is closed."),
        ("The value increased.", "The value decreased."),
    ],
)
def test_polarity_flips_fail(ref: str, cand: str) -> None:
    assert check_negation(ref, cand).status == "fail"
    assert check_negation(ref, ref).status == "ok"


@pytest.mark.parametrize(
    ("ref", "cand"),
    [
        ("The service is not running.", "The service isn't running."),
        ("You should never share your password.", "Do not ever share your password."),
        (
            "No, the endpoint does not require authentication.",
            "The endpoint doesn't need authentication.",
        ),
        ("The migration failed.", "The migration did not succeed."),
        ("It is not untrue that it is not raining.", "It is not raining, which is not untrue."),
        ("Kullanıcının yetkisi yok.", "Kullanıcının yetkisi bulunmuyor."),
    ],
)
def test_same_polarity_passes(ref: str, cand: str) -> None:
    assert check_negation(ref, cand).status == "ok"


def test_turkish_suffixes_do_not_fire_on_english() -> None:
    assert negation_cues("Restart immediately and call the comedian.") == []
    assert negation_cues("An amazing result.") == []
    assert negation_cues("Hemen yeniden başlatılmadı.") != []


def test_antonym_flips_need_both_sides() -> None:
    assert antonym_flips("The door is open.", "The door is closed.") == ["open/closed"]
    assert antonym_flips("Open or closed.", "It is closed.") == []


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but I can't help with that request.",
        "I cannot assist with resetting passwords.",
        "As an AI, I am unable to answer.",
        "I don't have access to order information.",
        "Üzgünüm, bu konuda yardımcı olamam.",
        "Bu soruya yanıt veremem.",
        "Maalesef bunu yapamıyorum.",
    ],
)
def test_refusals_are_recognised(text: str) -> None:
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "You can't divide by zero.",
        "The capital of France is Paris.",
        "Tamam, dosyayı sildim.",
        "Sorunsuz çalışıyor.",
    ],
)
def test_answers_are_not_refusals(text: str) -> None:
    assert not is_refusal(text)


def test_refusal_check() -> None:
    assert check_refusal("Paris.", "I can't help with that.").status == "fail"
    assert check_refusal("I can't help with that.", "Sure, here it is.").status == "fail"
    assert check_refusal("I can't help with that.", "Sorry, I cannot assist.").status == "ok"
    assert check_refusal("Paris.", "It is Paris.").status == "ok"


def test_run_checks_features_and_both_refuse() -> None:
    report = run_checks(
        "I cannot help with hacking.", "Sorry, I'm unable to help with breaking in."
    )
    assert report.features["both_refuse"] == 1 and report.features["polarity_mismatch"] == 0
    assert not report.hard_failures
    report = run_checks("The build took 45 seconds.", "The build did not take 54 seconds.")
    assert {c.name for c in report.hard_failures} == {"numbers", "polarity"}
    assert set(report.features) >= {
        "wrong_number",
        "missing_number",
        "wrong_date",
        "missing_date",
        "entity_missing",
        "entity_swap",
        "polarity_mismatch",
        "refusal_mismatch",
        "both_refuse",
        "turkish",
    }
