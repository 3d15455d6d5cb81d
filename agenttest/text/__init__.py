"""Reading text: what "the same text" and "the same number" mean, for graders and judges.

One package below both ``grading`` (the deterministic criteria) and ``judges`` (the
on-device judge's checks), so the rules live in one place and neither imports the other to
read a response. It needs nothing else of agenttest.

* Text: :func:`clean`, :func:`normalize`, :func:`fold`, :func:`find` (``._normalize``):
  literal escapes, Markdown, quotes, tolerant or Turkish case folding, accents; every
  transformed text keeps the span of the original it came from. ``stem=True`` compares
  word by word through the English and Turkish stemmers (``._stem``).
* Sentences: :func:`match_key` and :func:`looks_turkish` (``._keys``), the form the judge
  compares whole sentences in.
* Numbers: :func:`extract_numbers` and :func:`readings` (``._numbers``): every value a
  written number can mean (decimal marks, Unicode minus, thousands separators).
* Dates and versions: :func:`extract_dates`, :func:`extract_versions`,
  :func:`quantities` (``._quantities``).
* Mentions: :func:`mentions` (``._mentions``): the dates and numbers of a text as the judge
  compares them, number words ("twenty one", "on dört") included.

docs/grading.md describes the rules for battery authors.
"""

from __future__ import annotations

from ._keys import looks_turkish, match_key, normalise, tr_casefold, words
from ._mentions import (
    Mention,
    Reading,
    date_mentions,
    dates_agree,
    mentions,
    number_mentions,
    numbers_agree,
)
from ._normalize import (
    Mapped,
    clean,
    find,
    find_all,
    fold,
    haystack,
    light,
    normalize,
    strip_wrappers,
)
from ._numbers import NumberToken, as_decimal, extract_numbers, number_equal, readings
from ._quantities import (
    DateToken,
    DateValue,
    Quantities,
    VersionToken,
    dates_match,
    extract_dates,
    extract_versions,
    quantities,
    same_date,
    values_match,
)
from ._snowball import stem_words

__all__ = [
    "DateToken",
    "DateValue",
    "Mapped",
    "Mention",
    "NumberToken",
    "Quantities",
    "Reading",
    "VersionToken",
    "as_decimal",
    "clean",
    "date_mentions",
    "dates_agree",
    "dates_match",
    "extract_dates",
    "extract_numbers",
    "extract_versions",
    "find",
    "find_all",
    "fold",
    "haystack",
    "light",
    "looks_turkish",
    "match_key",
    "mentions",
    "normalise",
    "normalize",
    "number_equal",
    "number_mentions",
    "numbers_agree",
    "quantities",
    "readings",
    "same_date",
    "stem_words",
    "strip_wrappers",
    "tr_casefold",
    "values_match",
    "words",
]
