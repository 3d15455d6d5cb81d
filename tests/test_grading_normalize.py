"""The shared normalisation layer: folding, cleaning, spans, numbers (methodology §3.2)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agenttest import text as nz


def values(text: str) -> list[set[Decimal]]:
    return [set(t.values) for t in nz.extract_numbers(text)]


# ------------------------------------------------------------------ folding


@pytest.mark.parametrize("text", ["İSTANBUL", "Istanbul", "istanbul", "ıstanbul", "İstanbul"])
def test_tolerant_folding_maps_every_i_to_i(text: str) -> None:
    assert nz.fold(text) == "istanbul"


def test_accents_are_stripped_by_default_and_kept_in_turkish_mode() -> None:
    assert nz.fold("Çağrı Güneş") == "cagri gunes"
    assert nz.fold("Çağrı Güneş", turkish=True) == "çağrı güneş"


def test_turkish_mode_tells_dotless_from_dotted_i() -> None:
    assert nz.fold("ISTANBUL", turkish=True) == "ıstanbul"
    assert nz.fold("İSTANBUL", turkish=True) == "istanbul"
    assert nz.fold("ISTANBUL", turkish=True) != nz.fold("İSTANBUL", turkish=True)


def test_literal_newline_sequences_become_whitespace() -> None:
    text = "Line one\\nLine two\\r\\nLine three\\tend"
    assert nz.clean(text).text == "Line one Line two Line three end"
    assert nz.light(text).text == "Line one\nLine two\nLine three\tend"


def test_markdown_backticks_emphasis_and_quotes_are_dropped_but_snake_case_survives() -> None:
    assert nz.clean("**bold** `code` *it* __u__ ~~s~~").text == "bold code it u s"
    assert nz.clean("pheron_test.txt and 3 * 4").text == "pheron_test.txt and 3 * 4"
    assert nz.clean('"quoted" «x»').text == "quoted x"


def test_strip_wrappers_removes_a_trailing_backtick_from_a_url() -> None:
    assert (
        nz.strip_wrappers("`https://github.com/ml-explore/mlx`")
        == "https://github.com/ml-explore/mlx"
    )
    assert (
        nz.strip_wrappers("https://github.com/ml-explore/mlx`")
        == "https://github.com/ml-explore/mlx"
    )
    assert nz.strip_wrappers('**"Ankara"**') == "Ankara"


def test_spans_point_into_the_original_text() -> None:
    original = "Hava **İSTANBUL**\\nbugün güzel"
    hay = nz.haystack(original)
    span = nz.find(hay, "istanbul")
    assert span is not None
    assert original[span[0] : span[1]] == "İSTANBUL"
    span = nz.find(hay, "bugün")
    assert span is not None and original[span[0] : span[1]] == "bugün"


def test_whole_word_matching_and_stem_matching() -> None:
    hay = nz.haystack("Ankaralılar Ankara'nın havasını sever")
    assert nz.find(hay, "ankaralı") is None  # not a whole word
    assert nz.find(hay, "ankaralı", stem=True) is not None  # agglutinative stem
    assert nz.find(hay, "havası") is None
    assert nz.find(hay, "havası", stem=True) is not None
    assert nz.find(hay, "ankara") is not None  # the apostrophe splits the suffix off


def test_case_sensitive_matching_keeps_case() -> None:
    hay = nz.haystack("The word INJECTED", case_sensitive=True)
    assert nz.find(hay, "INJECTED", case_sensitive=True) is not None
    assert nz.find(hay, "injected", case_sensitive=True) is None


# ------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    "text",
    ["29988", "29.988", "29,988", "Result: 29.988", "Sonuç: **29.988**", "29\u00a0988"],
)
def test_every_accepted_format_of_29988_reads_as_29988(text: str) -> None:
    assert any(Decimal(29988) in v for v in values(text))


@pytest.mark.parametrize("text", ["333", "333.0", "333,0", "**333,0**", "`333`"])
def test_333_formats(text: str) -> None:
    readings = values(text)
    assert len(readings) == 1 and Decimal(333) in readings[0]


def test_541171_with_a_comma_group_and_markdown() -> None:
    assert values("Sonuç **541,171**'dir.") == [{Decimal(541171), Decimal("541.171")}]


def test_one_separator_with_three_digits_is_ambiguous_and_keeps_both_readings() -> None:
    # 29.988 is 29988 in Turkish writing and 29.988 in English: both are accepted.
    assert values("29.988") == [{Decimal(29988), Decimal("29.988")}]


def test_other_numbers_of_the_same_text_settle_the_decimal_mark() -> None:
    # "12,5" shows the comma is this text's decimal mark, so 29.988 groups thousands.
    assert values("12,5 ve 29.988")[1] == {Decimal(29988)}
    # "12.5" shows the dot is the decimal mark, so 29.988 is twenty-nine point nine...
    assert values("12.5 and 29.988")[1] == {Decimal("29.988")}
    # conflicting hints: both readings stay
    assert values("12.5 ve 3,5 ve 29.988")[2] == {Decimal(29988), Decimal("29.988")}


def test_decimal_parts_that_are_not_three_digits_are_decimals_only() -> None:
    assert values("0.18") == [{Decimal("0.18")}]
    assert values("1850.000") == [{Decimal(1850)}]
    assert values("12,50") == [{Decimal("12.5")}]


def test_grouped_and_mixed_separators() -> None:
    assert values("1.234.567") == [{Decimal(1234567)}]
    assert values("1,234,567") == [{Decimal(1234567)}]
    assert values("1.234,5") == [{Decimal("1234.5")}]
    assert values("1,234.5") == [{Decimal("1234.5")}]


def test_dates_versions_and_addresses_are_not_numbers() -> None:
    assert values("13.07.2026") == []
    assert values("macOS 15.1.2") == []
    assert values("192.168.0.1") == []


def test_signs_and_ranges() -> None:
    assert values("-5 °C") == [{Decimal(-5)}]
    assert values("3-4") == [{Decimal(3)}, {Decimal(4)}]


def test_a_different_number_is_not_accepted() -> None:
    target = Decimal(541171)
    for text in ("541,170", "541.17", "54117", "5411710"):
        assert not any(nz.number_equal(t.values, target, None) for t in nz.extract_numbers(text)), (
            text
        )


def test_tolerance() -> None:
    (token,) = nz.extract_numbers("≈ 332.9")
    assert not nz.number_equal(token.values, Decimal(333), None)
    assert nz.number_equal(token.values, Decimal(333), 0.2)


def test_number_spans_point_at_the_original_characters() -> None:
    text = "Sonuç **541,171**'dir."
    (token,) = nz.extract_numbers(text)
    assert text[token.start : token.end] == "541,171"


def test_as_decimal_reads_criterion_values() -> None:
    assert nz.as_decimal(333) == Decimal(333)
    assert nz.as_decimal(0.18) == Decimal("0.18")
    assert nz.as_decimal("541171") == Decimal(541171)
    assert nz.as_decimal("29.988") is None  # ambiguous: a criterion must say which it means
    assert nz.as_decimal(True) is None
