"""``--agent example``: the bundled example agent as a child process on a free loopback port.

The child is started through the example agent's own entry point
(``python -m agenttest.example_agent``), so a library run needs no CLI packages. It gets its
own session (a Ctrl-C in the terminal reaches the runner only, which then stops the child
itself) and watches its parent, so a runner killed with SIGKILL does not leave an orphaned
agent behind.
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
from pathlib import Path
from typing import IO

from agenttest.errors import AgentUnavailable

from ._config import example_config
from ._config_types import AgentConfig, ReplicaEntry


class ExampleAgent:
    """Start with :meth:`start`, always :meth:`stop` (also on error and interrupt)."""

    def __init__(self, extra_args: tuple[str, ...] = (), start_timeout_s: float = 60.0) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="agenttest-example-"))
        self.workspace = self.root / "workspace"
        self.workspace.mkdir()
        self.log_file = self.root / "agent.log"
        self.extra_args = extra_args
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen[str] | None = None
        self.url: str | None = None

    def start(self) -> str:
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
        return self.url

    def stop(self) -> None:
        """End the agent and remove its folder (workspace and log)."""
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


def start_examples(agents: list[ExampleAgent]) -> AgentConfig:
    """Start the agents side by side (each its own port and workspace) and return their
    config: one agent, or a pool listing each as a replica. The caller stops them all."""
    errors: list[BaseException] = []

    def start(agent: ExampleAgent) -> None:
        try:
            agent.start()
        except BaseException as exc:  # handed to the caller's thread below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(a,), daemon=True) for a in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    first = agents[0]
    assert first.url is not None
    config = example_config(first.url, first.workspace, log_file=str(first.log_file))
    if len(agents) == 1:
        return config
    replicas = tuple(ReplicaEntry(str(a.url), str(a.workspace), str(a.log_file)) for a in agents)
    return dataclasses.replace(config, replicas=replicas)
