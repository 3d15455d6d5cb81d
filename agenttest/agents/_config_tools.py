"""``openai.tools``: the tool definitions a plain chat-completions agent is offered.

A bare model behind ``mode: openai`` can only ask for the tools the request names. The key
names a JSON or YAML file, relative to the config file, that holds a list of OpenAI tool
definitions or an object with ``tools:`` — what the example agent serves at
``GET /v1/tools``, so ``curl -s http://127.0.0.1:8765/v1/tools > tools.json`` makes one.
They are sent as the request's ``tools`` (with ``tool_choice: auto`` unless ``params``
says otherwise); the shipped ``examples/agents/openai.yaml`` names the example agent's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenttest._util.located_yaml import Located
from agenttest.errors import Problem


def tools_of(
    path_text: str, params: dict[str, Any], node: Located | None, base: Path, filename: str
) -> tuple[dict[str, Any], list[Problem]]:
    """``params`` with the file's tools added, or the problems with it at the key's line."""
    line = node.key_lines.get("tools", node.line) if node is not None else 1

    def problem(message: str) -> tuple[dict[str, Any], list[Problem]]:
        return params, [Problem(filename, line, f"`openai.tools` {path_text}: {message}")]

    if "tools" in params:
        return problem("`openai.params` has `tools` too; give the tools once")
    path = Path(path_text).expanduser()
    path = path if path.is_absolute() else base / path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        return problem(f"cannot be read ({getattr(exc, 'strerror', None) or exc})")
    try:
        data = _load(text, path)
    except ValueError as exc:
        return problem(str(exc))
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        return problem("must hold a list of tool definitions (a list, or {tools: [...]})")
    for i, tool in enumerate(tools, 1):
        function = tool.get("function") if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            return problem(f"tool {i} has no function.name (an OpenAI tool definition)")
    return {**params, "tools": tools, "tool_choice": params.get("tool_choice", "auto")}, []


def _load(text: str, path: Path) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ValueError(f"is not JSON ({exc})") from None
    import yaml  # YAML is a superset of JSON: a .yaml or .yml file may hold either

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"is not YAML ({' '.join(str(exc).split())})") from None
