"""The shared number reader (agenttest.text): one implementation for the
deterministic criteria and the judge."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agenttest import text as numbers
from agenttest.judges._checks import check_facts
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


def test_dates_hide_their_parts_from_the_numbers() -> None:
    found = numbers.quantities("Released 2024-03-15, or 15 Mart 2024 in Turkish, and 31.12.2025.")
    assert [set(d.values) for d in found.dates] == [
        {(2024, 3, 15)},
        {(2025, 12, 31)},
        {(2024, 3, 15)},
    ]
    assert found.numbers == [] and found.versions == []


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
    checks, features = check_facts("The fix shipped in v0.16.2.", "The fix shipped in v0.16.3.")
    assert checks[0].status == "fail", checks
    assert features["wrong_number"] == 1
    checks, _ = check_facts("The fix shipped in v0.16.2.", "It shipped in 0.16.2.")
    assert checks[0].status == "ok", checks
