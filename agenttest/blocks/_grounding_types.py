"""The words of the evidence-honesty criteria that the block model types (``derived``)."""

from __future__ import annotations

from typing import Literal

Derivation = Literal["sum", "difference", "product", "ratio", "percent", "count"]
DERIVATIONS: tuple[str, ...] = ("sum", "difference", "product", "ratio", "percent", "count")
