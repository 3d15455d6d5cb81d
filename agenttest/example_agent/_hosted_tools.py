"""The agent's tool registry when its tools are hosted (``--hosted-tools URL``).

The host's ``tools/list`` is the registry: a tool the host lists runs on the host (its
world, its faults, its record), under the host's name, description and JSON Schema. What
the agent adds is its own behaviour around a call, not a second world: a tool it knows
keeps its confirmation and its ROUTE category, and text a content tool brings back passes
the agent's instruction guard (withheld sentences leave an ``INJECTION`` trace line, as
locally), and emptying a file still needs ``force`` (:func:`hosted_guard`). A tool of the
agent's own that the host does not list (the shell, audio, the decoys) is answered "not
hosted"; nothing runs locally in its place. Such a call, and one made while the host cannot
be reached, never reached the host: it is traced (``UNSENT``) and not reported, so the
reply's calls are exactly the calls the host received.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import ToolContext, ToolError, ToolOutput, bool_arg
from ._guard import strip_instructions
from ._hosted import HostClient, HostedTool, HostUnreachable
from ._tools import TOOLS, Runner, ToolSpec

#: Tools whose text is someone else's content: read as data, never as instructions
#: (``docs_search`` answers JSON the brains read as such, as the local tool's).
CONTENT_TOOLS = frozenset({"file_read", "web_fetch", "web_search"})


class NotSent(ToolError):
    """The call never reached the host (it could not be reached): the agent made no call."""


@dataclass
class HostedRegistry:
    """The host's tools as the agent's :class:`ToolSpec` entries, built once per listing."""

    client: HostClient
    _listed: list[HostedTool] | None = None
    _specs: dict[str, ToolSpec] = field(default_factory=dict)

    def specs(self) -> dict[str, ToolSpec]:
        """Every hosted tool by name; :class:`HostUnreachable` when the host cannot be asked."""
        listed = self.client.tools()
        if listed is not self._listed:
            self._specs = {tool.name: hosted_spec(tool) for tool in listed}
            self._listed = listed
        return self._specs

    def lookup(self, name: str) -> ToolSpec | str:
        """The spec of ``name``, or why there is none (unknown, not hosted, no host)."""
        try:
            spec = self.specs().get(name)
        except HostUnreachable as exc:
            return f"{name} was not run: {exc}"
        if spec is not None:
            return spec
        if name in TOOLS:
            return (
                f"{name} is not hosted: this agent takes its tools from the harness "
                f"({self.client.url}), which has no {name} tool, and runs nothing locally "
                "in its place"
            )
        return f"unknown tool {name!r}"

    def openai_tools(self) -> list[dict[str, Any]]:
        """The host's tools in the chat-completions ``tools`` format (HostUnreachable)."""
        return [
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": spec.parameters,
                },
            }
            for spec in self.specs().values()
        ]


def hosted_guard(
    name: str, args: dict[str, Any], read: Callable[[str], tuple[bool, str]]
) -> tuple[dict[str, Any], str | None]:
    """The agent's own data-loss guard on the host's world: emptying a file that has content
    needs ``force`` (``read`` looks at it first, a call the reply reports like any other).
    ``force`` is the agent's word, not the host's: it is not sent. Returns the arguments to
    send and, when the guard refuses, why."""
    if name != "file_write" or ("force" not in args and str(args.get("content") or "").strip()):
        return args, None
    sent = {k: v for k, v in args.items() if k != "force"}
    if str(args.get("content") or "").strip() or bool_arg(args, "force"):
        return sent, None
    path = str(args.get("path") or "")
    found, text = read(path)
    if found and text.strip():
        return sent, f"refusing to overwrite non-empty {path} with empty content"
    return sent, None


def hosted_spec(tool: HostedTool) -> ToolSpec:
    """A listed tool as the agent runs it: on the host, with what the agent knows of it."""
    local = TOOLS.get(tool.name)
    return ToolSpec(
        tool.name,
        tool.description,
        dict(tool.input_schema),
        _on_host(tool.name),
        local.category if local else tool.name,
        confirm=local.confirm if local else False,
        # the guards before a confirmation read the local folder, which is not the world
        precheck=None,
        read_only=local.read_only if local else False,
    )


def _on_host(name: str) -> Runner:
    def run(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        if ctx.hosted is None:  # a hosted spec only exists in a hosted context
            raise ToolError(f"{name} is hosted, and this agent has no host")
        try:
            result = ctx.hosted.client.call(name, args)
        except HostUnreachable as exc:
            raise NotSent(str(exc)) from None
        if not result.ok:
            raise ToolError(result.text)
        if name not in CONTENT_TOOLS:
            return ToolOutput(result.text)
        text, withheld = strip_instructions(result.text)
        notes = [f"INJECTION ignored {_source(name, args)}"] if withheld else []
        return ToolOutput(text, notes, received=result.text)

    return run


def _source(name: str, args: Mapping[str, Any]) -> str:
    for key in ("url", "path", "query"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return name
