"""Jinja templates of a `rest` agent config: one sandboxed environment, checked at load time.

Kept apart from :mod:`._adapters` (which renders them per turn) so that reading a config
(:mod:`._config`) and asking a turn never import each other.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(undefined=StrictUndefined, autoescape=False)


def check_templates(templates: Iterable[tuple[str, str]]) -> list[str]:
    """Syntax problems in a rest config's (where, template) pairs (checked at load time, exit 2)."""
    from jinja2 import TemplateError

    env = environment()
    sample = {"prompt": "p", "session_id": "s", "turn": 1, "model": "m", "memory": False,
              "stream": False}  # fmt: skip
    problems = []
    for where, text in templates:
        try:
            env.from_string(text).render(sample)
        except TemplateError as exc:
            problems.append(
                f"`{where}` is not a valid template ({exc.message}); it may use "
                "prompt, session_id, turn, model, stream (and memory in rest.reset)"
            )
    return problems
