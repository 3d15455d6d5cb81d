"""`judge` commands: registered with the app on import."""

from __future__ import annotations
