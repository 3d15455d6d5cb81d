"""Reference misbehaving agents: the agents a block must not be fooled by.

Each is a tiny agent in this process (``mode: reference``, the config's ``model`` names the
behaviour) with one way of earning a verdict it does not deserve:

- ``idle``: uses no tool and shrugs ("I am not sure, sorry.");
- ``echo``: repeats the prompt word for word;
- ``yes-man``: says it did everything asked, and calls nothing;
- ``refuser``: declines everything;
- ``liar``: reports tool calls, with results, that it never made.

``agenttest reference-agents`` runs a battery against all five and checks each block's
expectation (``reference_agents:`` in the block; by default none of them may PASS), so a
block whose criteria an idle or lying agent satisfies is found before a user trusts it.
They keep a workspace of their own so fixtures can be laid, and never touch it.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from agenttest.results import ToolCall

from ._agent import Evidence, Exchange, Reply, TurnLost, Waits
from ._config_types import AgentConfig

IDLE_REPLY = "I am not sure, sorry."
YES_MAN_REPLY = "Done! I have taken care of everything you asked, exactly as requested."
REFUSER_REPLY = "I'm sorry, but I can't help with that request."

_URL = re.compile(r"https?://[^\s\"'<>]+")
_PATH = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.[A-Za-z0-9]{1,5}\b")
_SUM = re.compile(r"\d[\d\s.,]*(?:[-+*/×x÷^]\s*\d[\d\s.,]*)+")


def _liar_calls(prompt: str) -> list[ToolCall]:
    """Calls a liar claims for ``prompt``: whatever the prompt seems to want, each said to
    have worked, none of them made."""
    calls: list[ToolCall] = []
    for url in _URL.findall(prompt)[:2]:
        calls.append(
            ToolCall(name="web_fetch", arguments={"url": url}, ok=True, result="page fetched")
        )
    urls = " ".join(_URL.findall(prompt))
    for path in [p for p in _PATH.findall(prompt) if p not in urls][:2]:
        calls.append(
            ToolCall(name="file_read", arguments={"path": path}, ok=True, result="file read")
        )
        calls.append(
            ToolCall(
                name="file_write",
                arguments={"path": path, "content": "done"},
                ok=True,
                result="file written",
            )
        )
    total = _SUM.search(prompt)
    if total is not None:
        expression = total.group(0).strip()
        calls.append(
            ToolCall(name="calculator", arguments={"expression": expression}, ok=True, result="42")
        )
    if not calls:
        calls.append(
            ToolCall(name="web_search", arguments={"query": prompt[:200]}, ok=True, result="found")
        )
    return calls


def _liar(prompt: str) -> Reply:
    calls = _liar_calls(prompt)
    names = ", ".join(sorted({c.name for c in calls}))
    text = f"Done. I used {names} and everything worked; the answer is 42."
    return Reply(text, calls, "")


_BEHAVIOURS: dict[str, Callable[[str], Reply]] = {
    "idle": lambda prompt: Reply(IDLE_REPLY, [], ""),
    "echo": lambda prompt: Reply(prompt, [], ""),
    "yes-man": lambda prompt: Reply(YES_MAN_REPLY, [], ""),
    "refuser": lambda prompt: Reply(REFUSER_REPLY, [], ""),
    "liar": _liar,
}

#: the reference agents, in the order reports list them
REFERENCE_AGENTS: tuple[str, ...] = tuple(_BEHAVIOURS)


class ReferenceAgent:
    """One reference agent; ``config.model`` is its behaviour (one of
    :data:`REFERENCE_AGENTS`)."""

    def __init__(self, config: AgentConfig, log: Callable[[str], None] | None = None) -> None:
        if config.model not in _BEHAVIOURS:
            raise ValueError(f"no reference agent {config.model!r}: {', '.join(_BEHAVIOURS)}")
        self.config = config
        self.waits = Waits()
        self._answer = _BEHAVIOURS[config.model]
        self._root: Path | None = None

    @property
    def evidence(self) -> Evidence:
        return Evidence(workspace=self._root / "workspace" if self._root else None)

    def start(self) -> None:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix=f"agenttest-{self.config.model}-"))
            (self._root / "workspace").mkdir()

    def wait_ready(
        self, *, wanted: Callable[[str], bool] | None = None, quiet: bool = False
    ) -> float:
        return 0.0

    def reset(self, session_id: str, *, memory: bool = False) -> int | None:
        return None

    def seed_memory(self, session_id: str, items: list[str]) -> None:
        """Accepts the notes and forgets them: a misbehaving agent is not let off by an
        unmet precondition."""

    def turn(self, session_id: str, prompt: str, number: int) -> Exchange:
        return Exchange(self._answer(prompt), 200, 0)

    def stored(self, session_id: str, number: int) -> str:
        raise TurnLost("no_store", "a reference agent keeps no replies")

    def stop(self) -> None:
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None
