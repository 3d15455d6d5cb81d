"""The shared number reader (agenttest.grading.numbers): one implementation for the
deterministic criteria and the judge."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from agenttest import text as numbers
from agenttest.judges._pairs import value_conflict
from agenttest.text import number_mentions as judge_numbers
from agenttest.text import numbers_agree


def test_versions_are_strings_of_parts_and_never_decimals() -> None:
    found = numbers.quantities("Upgrade from v0.16.2 to 0.16.3, not 0.16.")
    assert [v.value for v in found.versions] == ["0.16.2", "0.16.3"]
    assert [set(n.values) for n in found.numbers] == [{Decimal("0.16")}]
    # the grader's own reader gives a dotted string no numeric reading at all
    assert numbers.readings("0.16.2") == frozenset()


def test_thousands_grouping_is_a_number_not_a_version() -> None:
    found = numbers.quantities("1.234.567 rows")
    assert found.versions == []
    assert [set(n.values) for n in found.numbers] == [{Decimal(1234567)}]


def test_a_grouped_number_before_a_version_does_not_end_the_search() -> None:
    assert [v.value for v in numbers.extract_versions("1.234.567 ve 1.2.3")] == ["1.2.3"]


def test_dates_hide_their_parts_from_the_numbers() -> None:
    found = numbers.quantities("Released 2024-03-15, or 15 Mart 2024 in Turkish, and 31.12.2025.")
    assert [set(d.values) for d in found.dates] == [
        {(2024, 3, 15)},
        {(2025, 12, 31)},
        {(2024, 3, 15)},
    ]
    assert found.numbers == [] and found.versions == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("March 15, 2024", [("March 15, 2024", {(2024, 3, 15)})]),
        ("15 Mart 2024", [("15 Mart 2024", {(2024, 3, 15)})]),
        ("March 2024", [("March 2024", {(2024, 3, None)})]),
        ("on March 15 then", [("March 15", {(None, 3, 15)})]),
        ("the 15th of March", [("15th of March", {(None, 3, 15)})]),
        ("Feb 30", [("Feb 30", {(None, 2, 30)})]),  # a day the month lacks still reads
        # two-digit years: 00-69 in the 2000s, 70-99 in the 1900s
        ("15.03.24", [("15.03.24", {(2024, 3, 15)})]),
        ("15.03.69", [("15.03.69", {(2069, 3, 15)})]),
        ("15.03.70", [("15.03.70", {(1970, 3, 15)})]),
        ("03/04/2024", [("03/04/2024", {(2024, 3, 4), (2024, 4, 3)})]),
        # the month and the day within 1-12 and 1-31, each checked
        ("2024-01-01", [("2024-01-01", {(2024, 1, 1)})]),
        ("2024-12-31", [("2024-12-31", {(2024, 12, 31)})]),
        ("2024-13-05", []),
        ("2024-00-10", []),
        ("2024-05-32", []),
        ("2024-05-00", []),
        ("0 March", []),
    ],
)
def test_each_date_form_reads_as_its_year_month_and_day(
    text: str, found: list[tuple[str, set[Any]]]
) -> None:
    assert [(d.text, set(d.values)) for d in numbers.extract_dates(text)] == found


def test_dates_and_values_agree_on_every_part_both_know() -> None:
    assert numbers.same_date({(2024, 3, 15)}, [(2024, 3, 15)])
    assert numbers.same_date({(2024, 3, 15)}, [(None, 3, 15)])  # no year: not a conflict
    assert numbers.same_date({(2024, 3, 15), (2024, 15, 3)}, [(None, 15, 3)])  # some reading
    assert not numbers.same_date({(2024, 3, 15)}, [(2024, 3, 16)])
    assert not numbers.same_date({(2024, 3, 15)}, [(2025, None, None), (2024, 4, None)])
    assert not numbers.same_date(set(), [(2024, 3, 15)])
    [us] = numbers.extract_dates("03/04/2024")  # both orders
    [eu] = numbers.extract_dates("4 March 2024")
    [other] = numbers.extract_dates("2024-04-03")
    assert numbers.dates_match(us, eu) and numbers.dates_match(us, other)
    assert not numbers.dates_match(eu, numbers.extract_dates("5 March 2024")[0])
    one = frozenset({Decimal(1)})
    assert numbers.values_match(one, frozenset({Decimal(1), Decimal(1000)}))
    assert not numbers.values_match(one, frozenset({Decimal(2)}))


def test_spans_point_into_the_original_text() -> None:
    text = "**Sürüm** `v1.2.3`, tarih 15 Şubat 2024."
    found = numbers.quantities(text)
    (version,), (date,) = found.versions, found.dates
    assert text[version.start : version.end] == "v1.2.3"
    assert text[date.start : date.end] == "15 Şubat 2024"


def test_digits_glued_to_a_word_are_a_name() -> None:
    found = numbers.quantities("Qwen3 on L1 returned 64GB")
    assert [n.text for n in found.numbers] == ["64"]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("−5 °C", "-5 degrees", True),  # Unicode minus is a minus
        ("−5 °C", "5 degrees", False),  # ... and a sign is never dropped
        ("1.234,5", "1234.5", True),
        ("1\u202f500", "1500", True),  # narrow no-break space groups thousands
        ("v2.0.1", "2.0.1", True),
        ("v2.0.1", "2.0.2", False),
    ],
)
def test_judge_reads_numbers_through_the_shared_reader(a: str, b: str, same: bool) -> None:
    (x,), (y,) = judge_numbers(a), judge_numbers(b)
    assert numbers_agree(x, y) is same
    shared_x = numbers.quantities(a)
    assert shared_x.numbers or shared_x.versions, "the shared reader sees the figure too"


def test_text_convention_settles_an_ambiguous_group_for_both() -> None:
    # "1.234,5" shows this text writes the comma as decimal mark, so "29.988" is 29988
    text = "Toplam 1.234,5 TL; ayrıca 29.988 kişi."
    shared_values = [set(n.values) for n in numbers.extract_numbers(text)]
    assert shared_values == [{Decimal("1234.5")}, {Decimal(29988)}]
    judge_values = [set(m.readings) for m in judge_numbers(text)]
    assert judge_values == shared_values


def test_a_version_mismatch_is_a_wrong_number_for_the_judge() -> None:
    wrong = value_conflict("The fix shipped in v0.16.2.", "The fix shipped in v0.16.3.")
    assert wrong is not None and wrong.startswith("number:"), wrong
    assert value_conflict("The fix shipped in v0.16.2.", "It shipped in 0.16.2.") is None
