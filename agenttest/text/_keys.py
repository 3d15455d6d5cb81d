"""The comparison key of a sentence and a guess at its language (English and Turkish).

The judge's checks compare whole sentences in :func:`match_key` form; the grader's
criteria compare values and responses through :mod:`._normalize` (which keeps spans).
"""

from __future__ import annotations

import re
import unicodedata

_TURKISH_LETTERS = frozenset("ğĞşŞıİçÇöÖüÜ")


def words(text: str) -> frozenset[str]:
    """A word set from a space-separated literal (keeps long word lists readable)."""
    return frozenset(text.split())


_TURKISH_WORDS = words(
    "ve bir bu için ile de da değil yok var mı mi çok daha gibi olarak ama şu ne ki "
    "olan oldu sonra önce evet hayır"
)
_QUOTES = str.maketrans({"’": "'", "‘": "'", "`": "'", "“": '"', "”": '"', "„": '"', "´": "'"})
_SPACE_RE = re.compile(r"\s+")


def tr_casefold(text: str) -> str:
    """Lower-case with Turkish dotted/dotless i rules: ``İ`` -> ``i`` and ``I`` -> ``ı``.

    Python's own ``lower()`` maps ``I`` to ``i`` (wrong for Turkish) and ``İ`` to ``i`` plus
    a combining dot; we map both explicitly first, then lower-case the rest.
    """
    text = unicodedata.normalize("NFC", text)
    return text.replace("İ", "i").replace("I", "ı").lower()


def normalise(text: str) -> str:
    """NFC, straight quotes and apostrophes, single spaces (case kept)."""
    text = unicodedata.normalize("NFC", text).translate(_QUOTES)
    return _SPACE_RE.sub(" ", text).strip()


def match_key(text: str) -> str:
    """The form two strings are compared in: Turkish casefold, then ``ı`` -> ``i``.

    Folding the dotless i back onto i makes "Izmir" (an English spelling) match "İzmir" and
    English "IBM" match "ibm"; the only cost is that Turkish minimal pairs such as
    "sınır"/"sinir" compare equal, which the checks can live with.
    """
    return tr_casefold(normalise(text)).replace("ı", "i")


def looks_turkish(text: str) -> bool:
    """A cheap guess: Turkish-only letters, or at least two common Turkish words."""
    if any(ch in _TURKISH_LETTERS for ch in text):
        return True
    words = re.findall(r"\w+", tr_casefold(text))
    return sum(word in _TURKISH_WORDS for word in words) >= 2
