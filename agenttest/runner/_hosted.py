"""Hosted tools in a run: one MCP host per replica for the whole run, and the world it works on.

A replica whose agent takes its tools from the harness (``hosted_tools`` in its config, or
``--hosted-tools`` for the bundled agent) gets a :class:`ReplicaHost`: the
:class:`agenttest.hosted.HostedTools` serving at the replica's URL, and a world folder the
harness owns (a temporary folder, never the user's workspace). The attempt runner lays the
world fresh before each attempt (wiped, then the block's fixtures), opens the host to the
attempt (``begin``), takes the calls it served after each turn and closes it (``end``);
grading reads the world as the workspace; the world is wiped again after the record is
written. Calls that arrive while no attempt runs are refused by the host and counted in the
run_end.

:mod:`agenttest.hosted` (and with it the MCP SDK) is imported only when a host is made, so
a run without hosted tools never loads it.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agenttest.blocks import Fault
from agenttest.results import Attempt, HostedInfo, ToolCall, TurnRecord

from ._workspace import FixtureError, forget_notes, seed_notes, wipe

if TYPE_CHECKING:
    from agenttest.hosted import HostedTools

Log = Callable[[str], None]

#: The path of the endpoint ``--hosted-tools`` serves each bundled replica at.
MCP_PATH = "/mcp"


class ReplicaHost:
    """One replica's hosted tools and world. :meth:`start` before the agent starts (it may
    list the tools as it comes up), :meth:`close` on every way out."""

    def __init__(self, url: str, index: int = 0) -> None:
        self.url = url
        self.index = index
        self.root: Path | None = None  # made by start(), removed by close()
        self._tools: HostedTools | None = None
        self._open = False  # an attempt has begun and not ended

    def start(self) -> None:
        from agenttest.hosted import HostedTools

        self.root = Path(tempfile.mkdtemp(prefix=f"agenttest-world-{self.index}-"))
        (self.root / "world").mkdir()
        self._tools = HostedTools(self.url)
        self._tools.start()

    @property
    def world(self) -> Path:
        """The folder the replica's attempts' worlds are laid in (the workspace)."""
        assert self.root is not None, "a hosted replica is used before it was started"
        return self.root / "world"

    @property
    def tools(self) -> HostedTools:
        assert self._tools is not None, "a hosted replica is used before it was started"
        return self._tools

    @property
    def refused_outside(self) -> int:
        return self._tools.refused_outside if self._tools is not None else 0

    # -- one attempt ----------------------------------------------------------------------

    def lay(self) -> None:
        """An empty world for the next attempt's fixtures (one that cannot be emptied is
        the attempt's fixture error, never a world shared with the attempt before)."""
        try:
            wipe(self.world)
        except OSError as exc:
            raise FixtureError(f"the world {self.world} could not be emptied: {exc}") from None

    def seed_memory(self, items: list[str]) -> None:
        seed_notes(self.world, items)

    def reset_memory(self) -> None:
        forget_notes(self.world)

    def begin(self, faults: Sequence[Fault]) -> None:
        self.tools.begin(self.world, faults)
        self._open = True

    def take(self) -> list[ToolCall]:
        return self.tools.take_calls() if self._open else []

    def end_into(self, record: Attempt, turns: list[TurnRecord], log: Log) -> None:
        """Close the attempt (when one was opened): what the host says of it is the
        record's ``hosted``, and calls served after the last turn's take go to that turn
        (they were made for it). A host failing here costs only its own note."""
        if not self._open:
            return
        self._open = False
        try:
            # end first: it lets a call still in flight finish into the attempt, and the
            # take after it returns that call too
            info = self.tools.end()
            late = self.tools.take_calls()
        except Exception as exc:
            log(f"{record.test_id} run {record.run}: hosted tools: {type(exc).__name__}: {exc}")
            return
        if late and turns:
            turns[-1].hosted_calls += late
        record.hosted = info if isinstance(info, HostedInfo) else None

    def tear_down(self, log: Log) -> None:
        """After the attempt's record is written (grading has read the world)."""
        try:
            wipe(self.world)
        except OSError as exc:
            log(f"tearing the world {self.world} down: {exc}")

    def close(self) -> None:
        """Stop serving and remove the world (safe to call twice, or before start)."""
        tools, self._tools = self._tools, None
        root, self.root = self.root, None
        if tools is not None:
            tools.close()
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


def free_loopback_url() -> str:
    """A URL on a loopback port nothing listens on now, for a bundled replica's host."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}{MCP_PATH}"


def start_hosts(hosts: Sequence[ReplicaHost | None], log: Callable[[str], None]) -> None:
    """Start every replica's host (the caller closes them all, whichever way this ends)."""
    for index, host in enumerate(hosts):
        if host is None:
            continue
        host.start()
        who = f"replica {index}: " if len(hosts) > 1 else ""
        log(f"{who}hosted tools at {host.url} (world {host.world})")


def refused_outside(hosts: Sequence[ReplicaHost | None]) -> int:
    return sum(host.refused_outside for host in hosts if host is not None)
