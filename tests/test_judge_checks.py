"""Deterministic judge checks on an aligned pair: numbers, dates, entities, polarity (no model)."""

from __future__ import annotations

import pytest

from agenttest.judges._checks import antonym_flips, negation_cues, reference_entities
from agenttest.judges._pairs import (
    entity_conflict,
    polarity_conflict,
    value_conflict,
    yes_no_conflict,
)
from agenttest.text import (
    date_mentions,
    looks_turkish,
    match_key,
    number_mentions,
    numbers_agree,
    tr_casefold,
)


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


def test_a_number_conflict_needs_a_wrong_value_and_a_lost_one() -> None:
    assert value_conflict("The total was 29988 dollars.", "Total: $29,988.") is None
    wrong = value_conflict("The total was 29988 dollars.", "The total was 29,898 dollars.")
    assert wrong == "number: the reference says 29988, the reply 29,898"
    assert value_conflict("The total was 29988 dollars.", "The total is unknown.") is None
    assert value_conflict("The capital is Paris.", "It is 3 km away.") is None
    # a value the tools returned counts as stated
    assert value_conflict("It is 12.", "It is 12, from 7 and 5.", tool_text="7 5") is None


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
    assert value_conflict(f"It happens on {a}.", f"It happens on {b}.") is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("2024-03-15", "March 16, 2024"),
        ("31.12.2025", "31 Aralık 2024"),
        ("5 June 2024", "5 July 2024"),
    ],
)
def test_wrong_dates_fail(a: str, b: str) -> None:
    found = value_conflict(f"It happens on {a}.", f"It happens on {b}.")
    assert found is not None and found.startswith("date:")


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


def test_entity_swap() -> None:
    swap = entity_conflict(
        "The capital of Australia is Canberra.", "The capital of Australia is Sydney."
    )
    assert swap == "entity: the reference says Canberra, the reply Sydney"
    assert entity_conflict("The capital of Australia is Canberra.", "It is Canberra.") is None
    assert (
        entity_conflict(
            "Raporu İzmir ofisi Ankara'da hazırladı.", "Rapor Izmir ofisinde, Ankara'dan geldi."
        )
        is None
    )


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
    assert polarity_conflict(ref, cand) or yes_no_conflict(ref, cand)
    assert polarity_conflict(ref, ref) is None


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
    assert polarity_conflict(ref, cand) is None


def test_turkish_suffixes_do_not_fire_on_english() -> None:
    assert negation_cues("Restart immediately and call the comedian.") == []
    assert negation_cues("An amazing result.") == []
    assert negation_cues("Hemen yeniden başlatılmadı.") != []


def test_antonym_flips_need_both_sides() -> None:
    assert antonym_flips("The door is open.", "The door is closed.") == ["open/closed"]
    assert antonym_flips("Open or closed.", "It is closed.") == []
