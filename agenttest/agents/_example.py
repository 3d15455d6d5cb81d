"""``--agent example``: the bundled example agent as a child process on a free loopback port.

An :class:`~._agent.Agent` like the others: :meth:`ExampleAgent.start` launches it, and from
then on it is reached over the native protocol (an :class:`~._client.AgentClient` of its
own). The child is started through the example agent's own entry point (``python -m
agenttest.example_agent``), so a library run needs no CLI packages. It gets its own session
(a Ctrl-C in the terminal reaches the runner only, which then stops the child itself) and
watches its parent, so a runner killed with SIGKILL does not leave an orphaned agent behind.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from agenttest.errors import AgentUnavailable, InternalError

from ._agent import Evidence, Exchange, Log, Waits
from ._client import AgentClient
from ._config import example_config
from ._config_example import PLACEHOLDER_URL
from ._config_types import AgentConfig
from ._model_agent import DEFAULT_MODEL


class ExampleAgent:
    """Start with :meth:`start`, always :meth:`stop` (also on error and interrupt).

    Its config is ``template``'s shared keys (timeouts, prices, name, ...: the agent config
    file's, when it has ``example:``) with where the child listens and writes, and
    ``model``, the model the run tests."""

    def __init__(
        self,
        extra_args: tuple[str, ...] = (),
        *,
        template: AgentConfig | None = None,
        model: str = DEFAULT_MODEL,
        stream: bool = False,
        log: Log | None = None,
        start_timeout_s: float = 60.0,
    ) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="agenttest-example-"))
        self.workspace = self.root / "workspace"
        self.workspace.mkdir()
        self.log_file = self.root / "agent.log"
        self.extra_args = extra_args
        self.start_timeout_s = start_timeout_s
        self.template, self.model, self.stream = template, model, stream
        self._log = log
        self.proc: subprocess.Popen[str] | None = None
        self.url: str | None = None
        self.config = self._configured(PLACEHOLDER_URL)  # where it listens: once started
        self._client: AgentClient | None = None
        self._waits = Waits()

    def _configured(self, url: str) -> AgentConfig:
        started = example_config(url, self.workspace, log_file=str(self.log_file))
        if self.template is None:
            config = dataclasses.replace(started, model=self.model)
        else:
            config = dataclasses.replace(
                self.template,
                base_url=url,
                workspace=started.workspace,
                log_file=started.log_file,
                replicas=(),
                store=self.template.store or started.store,
                model=self.model,
            )
        return dataclasses.replace(config, stream=True) if self.stream else config

    # -- the agent, once started: the native protocol -------------------------------------

    def _running(self) -> AgentClient:
        if self._client is None:
            raise InternalError("the example agent is used before it was started")
        return self._client

    @property
    def waits(self) -> Waits:
        return self._client.waits if self._client is not None else self._waits

    @waits.setter
    def waits(self, waits: Waits) -> None:
        if self._client is not None:
            self._client.waits = waits
        self._waits = waits

    @property
    def evidence(self) -> Evidence:
        return Evidence.of(self.config)

    def wait_ready(
        self, *, wanted: Callable[[str], bool] | None = None, quiet: bool = False
    ) -> float:
        return self._running().wait_ready(wanted=wanted, quiet=quiet)

    def reset(self, session_id: str, *, memory: bool = False) -> int | None:
        return self._running().reset(session_id, memory=memory)

    def seed_memory(self, session_id: str, items: list[str]) -> None:
        self._running().seed_memory(session_id, items)

    def turn(self, session_id: str, prompt: str, number: int) -> Exchange:
        return self._running().turn(session_id, prompt, number)

    def stored(self, session_id: str, number: int) -> str:
        return self._running().stored(session_id, number)

    # -- the process ----------------------------------------------------------------------

    def start(self) -> None:
        """Launch the child and wait for the URL it prints; :class:`AgentUnavailable`
        (with its own output) when it does not start."""
        log = self.log_file.open("a", encoding="utf-8")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agenttest.example_agent",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--workspace",
                str(self.workspace),
                "--exit-with-parent",
                str(os.getpid()),
                *self.extra_args,
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        log.close()
        first: list[str] = []
        got = threading.Event()
        assert self.proc.stdout is not None
        threading.Thread(
            target=_drain, args=(self.proc.stdout, first, got, self.log_file), daemon=True
        ).start()
        got.wait(self.start_timeout_s)
        if not first or not first[0].startswith("http"):
            self._end_process()  # the log must outlive the process: it explains the failure
            tail = self.log_file.read_text(encoding="utf-8", errors="replace")[-2000:]
            self.stop()
            raise AgentUnavailable(
                f"the example agent did not start (first line {first[:1]!r}); its output:\n{tail}"
            )
        self.url = first[0].strip()
        self.config = self._configured(self.url)
        self._client = AgentClient(self.config, log=self._log)
        self._client.waits = self._waits

    def stop(self) -> None:
        """Close its connections, end the agent and remove its folder (workspace and log)."""
        client, self._client = self._client, None
        if client is not None:
            client.close()
        self._end_process()
        shutil.rmtree(self.root, ignore_errors=True)

    def _end_process(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def _drain(stream: IO[str], first: list[str], got: threading.Event, log_file: Path) -> None:
    """Hand over the first stdout line, then keep the pipe empty (to the log) so it never blocks."""
    first.append(stream.readline())
    got.set()
    try:
        with log_file.open("a", encoding="utf-8") as log:
            for rest in stream:
                log.write(rest)
                log.flush()
    except (OSError, ValueError):
        pass
