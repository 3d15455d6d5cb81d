"""Commands whose library parts land in later issues register here."""

from __future__ import annotations
