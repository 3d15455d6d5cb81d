"""The shared normalisation layer: folding, cleaning, spans, word forms, numbers (methodology
§3.2), each pinned at its edges (a character that folds to two, an escape that ends the text,
a number whose marks settle the decimal mark of the whole text)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agenttest import text as nz
from agenttest.text import _stem


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


def test_folding_reaches_every_form_of_a_letter() -> None:
    assert nz.normalize("Straße").text == "strasse"  # one character folds to two
    assert nz.fold("𝐈STANBUL") == "istanbul"  # a styled capital I folds like I
    assert nz.fold("ABC", case=False) == "ABC"
    # Turkish casing keeps the dotless ı even when accents are stripped
    assert nz.normalize("ılık", turkish=True, accents=True).text == "ılık"
    assert nz.strip_wrappers("“Xbox”") == "Xbox"  # letters are never wrappers
    # accents given explicitly win over the default
    assert nz.normalize("Café", accents=False).text == "café"
    assert nz.normalize("Çalış", turkish=True, accents=True).text == "calıs"


def test_find_all_matches_whole_words_by_default_and_where_the_value_ends() -> None:
    h = nz.haystack
    assert nz.find_all(h("Ankaralı"), "ankara") == []  # whole words by default
    assert nz.find_all(h("ANKARA"), "ankara") == [[0, 6]]  # case-insensitive by default
    assert nz.find_all(h("Ankara"), "ANKARA") == [[0, 6]]
    assert nz.find_all(h("Bankara"), "ankara") == []  # a word edge before a letter
    assert nz.find_all(h("a-5"), "-5") == [[1, 3]]  # none before a sign
    assert nz.find_all(h("c++17"), "c++") == [[0, 3]]  # none after a symbol


def test_a_span_at_the_end_of_a_mapped_text_is_empty_there() -> None:
    for mapped in (
        nz.clean("ab"),
        nz.clean("ab", collapse=False),
        nz.light("ab"),
        nz.normalize("ab"),
    ):
        assert mapped.span(2, 2) == [2, 2]
    assert nz.clean("a  b").span(0, 3) == [0, 4]


def test_literal_escapes_at_the_end_and_side_by_side() -> None:
    assert nz.light("abc\\").text == "abc\\"  # a lone backslash at the end stays
    assert nz.light("a\\n").text == "a\n"  # an escape that ends the text
    assert nz.light("a\\n\\nb").text == "a\n\nb"  # two line breaks, not one
    # each character points at where it came from: `\r\n` (4 characters) is one break
    assert nz.light("a\\r\\nb").pos == (0, 1, 5)
    assert nz.light("a\\nb").pos == (0, 1, 3)


def test_markdown_markers_go_only_where_they_mark() -> None:
    assert nz.normalize('"a" `b`').text == "a b"  # normalize drops quotes and backticks
    assert nz.clean("XX marks").text == "XX marks"
    assert nz.clean("_x y").text == "x y"  # a marker at the start: the edge before it
    assert nz.clean("a*b").text == "a*b"  # between two words: 3*4, not emphasis
    assert nz.clean("about ~5 km").text == "about ~5 km"  # a single tilde is a word


# ------------------------------------------------------------------ word forms


def test_negative_turkish_verb_forms_have_one_root_across_tenses() -> None:
    # _stems is cached: a forked mutant run inherits the parent's cache, so the root is
    # asked for directly
    roots = {
        "bulunamadi": "bulunam|3sg",  # -ama- past: the vowel before the tense goes
        "bulunamiyor": "bulunam|3sg",  # -iyor has swallowed it
        "bulunamadilar": "bulunam|3pl",
        "almadi": "alm|3sg",  # a root of exactly four letters before the tense
        "imadi": None,  # three: too short to be a verb root
        "bulundu": None,  # positive: not unified across tenses
        "kommudu": None,  # a root that ends in a vowel other than a/e keeps it
        "bulunamXdi": None,  # (case-sensitive values keep capitals)
    }
    assert {word: _stem._verb_root(word) for word in roots} == roots


def test_a_negative_verb_keeps_its_person_across_tenses_however_each_spells_it() -> None:
    # the past and the present spell one person differently: -m/-um "I", -k/-uz "we",
    # -n/-sun "you", -niz/-sunuz "you (plural)"
    same = [
        ("gondermedim", "gondermiyorum"),
        ("gondermedik", "gondermiyoruz"),
        ("gondermedin", "gondermiyorsun"),
        ("gondermediniz", "gondermiyorsunuz"),
        ("gondermediler", "gondermiyorlar"),
    ]
    for past, present in same:
        assert _stem.same_word(present, past), (present, past)
        assert _stem.same_word(past, present), (past, present)
    assert not _stem.same_word("gondermiyorum", "gondermedin")  # "you" is not "I"
    assert not _stem.same_word("gondermiyorum", "gondermedi")
    assert not _stem.same_word("gondermiyoruz", "gondermedim")


def test_a_vowel_drop_needs_four_letters_ending_in_a_high_vowel_and_a_consonant() -> None:
    assert _stem._vowel_drop("isim", "ismi") is True  # four letters are enough
    assert _stem._vowel_drop("sehir", "sehri") is True
    assert _stem._vowel_drop("kir", "kri") is False  # three are not
    assert _stem._vowel_drop("kalem", "kalmi") is False  # `e` does not drop
    assert _stem._vowel_drop("abXr", "abri") is False


def test_a_number_is_the_same_word_only_as_itself() -> None:
    assert _stem._stems("12leri") & _stem._stems("12")  # precondition: a shared stem
    assert _stem.same_word("12leri", "12") is False
    assert _stem.same_word("12", "13") is False
    assert _stem.same_word("12", "12") is True


def test_find_words_spans_the_whole_run_of_words() -> None:
    assert _stem.find_words("a dosyasi yok b", "dosya yok") == [(2, 13)]
    assert _stem.find_words("x dosyasi", "dosya") == [(2, 9)]


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


def test_a_number_with_both_marks_settles_the_decimal_mark_of_the_text() -> None:
    # precondition: alone, 29.988 keeps both readings
    assert values("29.988") == [{Decimal(29988), Decimal("29.988")}]
    # "1.234,5": the comma is the decimal mark here, so 29.988 groups thousands ...
    assert values("1.234,5 ve 29.988")[1] == {Decimal(29988)}
    # ... and "1,234.5": the dot is, so 29.988 is a decimal
    assert values("1,234.5 and 29.988")[1] == {Decimal("29.988")}


@pytest.mark.parametrize(
    ("text", "second"),
    [
        ("1.234.567,5 ve 29.988", {Decimal(29988)}),  # the last of three marks decides
        ("1.234.567 ve 29.988", {Decimal(29988)}),  # dots that group: a comma decimal
        ("1,234,567 and 29.988", {Decimal("29.988")}),  # commas that group: a dot decimal
        ("1234,567 ve 29.988", {Decimal(29988)}),  # no group can be 1234: a decimal comma
        ("1.234,5 ve 29,988", {Decimal("29.988")}),
        ("1,234.5 and 29,988", {Decimal(29988)}),
    ],
)
def test_an_unambiguous_number_settles_the_decimal_mark_of_the_text(
    text: str, second: set[Decimal]
) -> None:
    assert values(text)[1] == second


def test_decimal_parts_that_are_not_three_digits_are_decimals_only() -> None:
    assert values("0.18") == [{Decimal("0.18")}]
    assert values("1850.000") == [{Decimal(1850)}]
    assert values("12,50") == [{Decimal("12.5")}]


def test_grouped_and_mixed_separators() -> None:
    assert values("1.234.567") == [{Decimal(1234567)}]
    assert values("1,234,567") == [{Decimal(1234567)}]
    assert values("1.234,5") == [{Decimal("1234.5")}]
    assert values("1,234.5") == [{Decimal("1234.5")}]


_NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("num", "values"),
    [
        # thousands grouped by no-break spaces, with a decimal comma or dot, or none
        (f"1{_NBSP}234,5", {Decimal("1234.5")}),
        (f"1{_NBSP}234.5", {Decimal("1234.5")}),
        (f"1{_NBSP}234", {Decimal(1234)}),
        (f"1{_NBSP}{_NBSP}234", set()),  # a doubled space is no group separator
        (f"1{_NBSP}234,x", set()),
        # both marks: the last one is the decimal mark, once, after valid groups
        ("1.234.567,5", {Decimal("1234567.5")}),
        ("1,234.567.8", set()),
        ("12345.678,9", set()),
        ("1.23,5", set()),
        # groups of three after a first group of one to three digits without a leading 0
        ("1234.567.890", set()),
        ("0.234.567", set()),
        ("1.23.456", set()),
        # one mark and three digits: a thousands group only when the first group can be one
        ("1234.567", {Decimal("1234.567")}),
        ("0.500", {Decimal("0.500")}),
    ],
)
def test_readings_of_grouped_numbers(num: str, values: set[Decimal]) -> None:
    assert nz.readings(num) == values


def test_markdown_inside_a_number_does_not_split_it() -> None:
    assert values("1**2**3") == [{Decimal(123)}]


def test_dates_versions_and_addresses_are_not_numbers() -> None:
    assert values("13.07.2026") == []
    assert values("macOS 15.1.2") == []
    assert values("192.168.0.1") == []


def test_signs_and_ranges() -> None:
    assert values("-5 °C") == [{Decimal(-5)}]
    assert values("3-4") == [{Decimal(3)}, {Decimal(4)}]


def test_the_unicode_minus_negates_like_the_hyphen() -> None:
    assert values("-5") == [{Decimal(-5)}]
    assert values("−5") == [{Decimal(-5)}]
    assert values("sıcaklık −3,5 derece") == [{Decimal("-3.5")}]


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
