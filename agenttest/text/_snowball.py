"""Snowball stems for every thread that grades or judges: one stemmer per thread.

A Snowball stemmer keeps the word it is working on in the object, so one shared between
threads (a pool's workers grade at once) returns another thread's stems or raises, and a
cache above it keeps the wrong stem for the rest of the process. Each thread gets its own.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

_LOCAL = threading.local()


def stem_words(words: Sequence[str], language: str) -> list[str]:
    """The Snowball stems (``language``: ``english`` or ``turkish``) of ``words``, made with
    this thread's own stemmer."""
    stemmers: dict[str, Any] | None = getattr(_LOCAL, "stemmers", None)
    if stemmers is None:
        stemmers = _LOCAL.stemmers = {}
    stemmer = stemmers.get(language)
    if stemmer is None:
        import snowballstemmer  # a small pure-Python library; imported on first use

        stemmer = stemmers[language] = snowballstemmer.stemmer(language)
    return list(stemmer.stemWords(list(words)))
