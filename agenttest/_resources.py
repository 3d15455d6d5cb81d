"""Find files that ship with agenttest, in a source checkout, an editable install or a wheel."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SOURCE_ROOT = Path(__file__).resolve().parent.parent


def templates_dir() -> Path:
    """The report templates: `templates/` of a checkout, else `agenttest._templates` of a wheel."""
    checkout = _SOURCE_ROOT / "templates"
    if checkout.is_dir():
        return checkout
    spec = importlib.util.find_spec("agenttest._templates")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    raise FileNotFoundError("agenttest's report templates are missing; reinstall agenttest")
