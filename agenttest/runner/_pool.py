"""A pool of agent replicas: one scheduler, one worker thread per replica, one writer.

Each replica is driven exactly as a single agent is (its own :class:`AgentClient`, so at
most one request is ever in flight on it, readiness before every attempt, busy replies
waited out). An attempt — its fixtures, turns and teardown — stays on the replica that
started it. The main thread is the only one that writes the run file: workers hand it
each finished record and wait until it is written (fsynced) before tearing down.

A replica that stops being ready is taken out of the rotation and probed with back-off;
the attempt it lost is ``ERROR`` with its cause as usual, and the run goes on on the
others. A replica that answers ready again is used again. The run ends with exit 3 only
when every replica has been down for its whole ``readiness.timeout_s``.

Threads, not processes: the harness only waits on HTTP (see docs/agents.md).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agenttest.results import iter_records

from ._attempt import AttemptRunner, Grader, StopSignals
from ._client import AgentClient
from ._config_types import AgentConfig
from ._decide import EarlyStop
from ._plan import Key, PlanItem
from ._waiting import AgentNotReady
from ._workspace import LogTail

#: Harness causes after which a replica is checked before it gets another attempt.
SUSPECT_CAUSES = frozenset({"unreachable", "lost", "timeout", "busy"})


@dataclass
class Replica:
    index: int
    config: AgentConfig
    client: AgentClient
    attempts: AttemptRunner
    down_since: float | None = None  # monotonic time it was first seen not ready
    gone: bool = False  # down for its whole readiness timeout: counts towards aborting
    busy: bool = False
    suspect: bool = False
    served: int = 0
    seconds: float = 0.0  # wall time of the attempts it served

    @property
    def mean_s(self) -> float | None:
        return self.seconds / self.served if self.served else None


@dataclass
class Finished:
    replica: Replica
    item: PlanItem
    record: dict[str, Any]
    written: threading.Event = field(default_factory=threading.Event)


def expected_seconds(baseline: Path | None) -> Callable[[PlanItem], float]:
    """How long an attempt is expected to take: its block's mean latency in ``baseline``
    (an earlier run of the same battery), else its number of turns (a unitless guess)."""
    means: dict[str, float] = {}
    if baseline is not None:
        sums: dict[str, list[float]] = {}
        for record in iter_records(baseline):
            latency = record.get("latency_ms")
            if record.get("record_type") == "attempt" and isinstance(latency, int | float):
                sums.setdefault(str(record.get("test_id")), []).append(float(latency))
        means = {test_id: sum(v) / len(v) / 1000 for test_id, v in sums.items()}
    fallback = max(means.values(), default=0.0)  # a block the baseline lacks: assume long

    def expected(item: PlanItem) -> float:
        if baseline is None:
            return float(len(item.block.prompts()))
        return means.get(item.block.id, fallback)

    return expected


def lost_on(latest: dict[Key, dict[str, Any]], todo: Sequence[PlanItem]) -> dict[Key, int]:
    """For ``--retry-errors``: the replica that lost each attempt about to be retried."""
    out: dict[Key, int] = {}
    for item in todo:
        replica = (latest.get(item.key) or {}).get("replica")
        if isinstance(replica, int):
            out[item.key] = replica
    return out


class SharedJudgeGrader(Grader):
    """Grades one attempt at a time when a judge is loaded (a model is not thread-safe)."""

    lock = threading.Lock()

    def grade(self, item: PlanItem, record: dict[str, Any], workspace: Path | None) -> None:
        if self.judge is None:
            super().grade(item, record, workspace)
            return
        with self.lock:
            super().grade(item, record, workspace)


def expected_order(
    items: Sequence[PlanItem], expected_s: Callable[[PlanItem], float]
) -> list[PlanItem]:
    """Round by round (so ``--until-decided`` sees each block's early runs first), and in
    each round the longest expected attempts first, so the pool's tail is short ones."""
    return sorted(items, key=lambda i: (i.run, -expected_s(i), i.block.id))


class Pool:
    """The shared state of a pooled run. Everything under :attr:`lock`."""

    def __init__(
        self,
        configs: Sequence[AgentConfig],
        todo: Sequence[PlanItem],
        early: EarlyStop,
        make_grader: Callable[[], Grader],
        *,
        run_id: str,
        log: Callable[[str], None],
        avoid: dict[Key, int] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.lock = threading.Lock()
        self.queue = list(todo)
        self.early = early
        self.log = log
        self.clock = clock
        self.sleep = sleep
        self.avoid = avoid or {}  # key -> replica that lost it last time (--retry-errors)
        self.in_flight: dict[Key, int] = {}
        self.finished: queue.Queue[Finished] = queue.Queue()
        self.stopping = threading.Event()
        self.skips: list[tuple[PlanItem, str]] = []  # for the progress display
        self.records_written = 0
        self.replicas: list[Replica] = []
        for index, config in enumerate(configs):
            client = AgentClient(config, log=self._tagged(index))
            tail = LogTail(config.log_path, config.log_max_bytes) if config.log_path else None
            runner = AttemptRunner(
                client,
                make_grader(),
                StopSignals(),  # never installed: signals reach the main thread only
                run_id=run_id,
                workspace=config.workspace_path,
                log_tail=tail,
                log=self._tagged(index),
            )
            self.replicas.append(Replica(index, config, client, runner))
        self.threads = [
            threading.Thread(target=self._work, args=(r,), name=f"replica-{r.index}", daemon=True)
            for r in self.replicas
        ]

    def _tagged(self, index: int) -> Callable[[str], None]:
        return lambda message: self.log(f"replica {index}: {message}")

    # -- the queue ------------------------------------------------------------------------

    def take(self, replica: Replica) -> PlanItem | Literal["wait"] | None:
        """The next attempt for ``replica`` (skipping decided ones), None when none is left,
        or ``"wait"``: only attempts this replica lost are left and another replica is up
        and idle, so that one should retry them (``--retry-errors``)."""
        with self.lock:
            while self.queue:
                mine = [
                    i for i, it in enumerate(self.queue) if self.avoid.get(it.key) != replica.index
                ]
                if not mine and self._someone_else_idle(replica):
                    return "wait"
                item = self.queue.pop(mine[0] if mine else 0)
                decided = self.early.skip(item)
                if decided is not None:
                    self.skips.append((item, self.early.skipped[item.key]))
                    continue
                self.in_flight[item.key] = replica.index
                replica.busy = True
                return item
            return None

    def _someone_else_idle(self, replica: Replica) -> bool:
        return any(
            r is not replica
            and not r.busy
            and r.down_since is None
            and self.threads[r.index].is_alive()
            for r in self.replicas
        )

    def give_back(self, item: PlanItem, replica: Replica) -> None:
        """An attempt that never reached the agent goes back to the front of the queue."""
        with self.lock:
            self.in_flight.pop(item.key, None)
            replica.busy = False
            self.queue.insert(0, item)
            self.avoid[item.key] = replica.index

    def work_left(self) -> bool:
        with self.lock:
            return bool(self.queue or self.in_flight)

    def all_gone(self) -> bool:
        with self.lock:
            return bool(self.queue) and all(r.gone for r in self.replicas)

    def counts(self) -> tuple[int, int]:
        """(busy, down) replicas."""
        with self.lock:
            busy = sum(1 for r in self.replicas if r.busy)
            down = sum(1 for r in self.replicas if r.down_since is not None)
            return busy, down

    def eta_s(self) -> float | None:
        """Attempts still queued over the pool's observed throughput (replicas that are up)."""
        with self.lock:
            rate = sum(1 / r.mean_s for r in self.replicas if r.mean_s and r.down_since is None)
            left = len(self.queue) + len(self.in_flight)
        return left / rate if rate else None

    # -- one worker per replica -----------------------------------------------------------

    def _wait_until_up(self, replica: Replica) -> bool:
        """Probe with back-off until the replica is ready; False when the run is stopping."""
        r = replica.config.readiness
        pause = r.poll_s
        while not self.stopping.is_set():
            with self.lock:
                if not self.queue:
                    return False  # nothing left for it to do; the others finish up
            state = replica.client.probe()
            now = self.clock()
            with self.lock:
                if state == "ready":
                    if replica.down_since is not None:
                        self.log(f"replica {replica.index} is back ({replica.config.base_url})")
                    replica.down_since, replica.gone, replica.suspect = None, False, False
                    return True
                if replica.down_since is None:
                    replica.down_since = now
                    self.log(f"replica {replica.index} out of rotation: {state}")
                if now - replica.down_since >= r.timeout_s:
                    replica.gone = True
            self.sleep(pause)
            pause = min(pause * 2, r.max_poll_s)
        return False

    def _work(self, replica: Replica) -> None:
        while not self.stopping.is_set():
            if replica.suspect and not self._wait_until_up(replica):
                return
            item = self.take(replica)
            if item is None:
                return
            if isinstance(item, str):  # "wait"
                self.sleep(replica.config.readiness.poll_s)
                continue
            started = self.clock()
            try:
                record = replica.attempts.run(item)
            except AgentNotReady:
                # it waited its whole readiness timeout before anything was sent
                with self.lock:
                    replica.down_since = started
                    replica.gone = True
                    replica.suspect = True
                self.give_back(item, replica)
                continue
            record["replica"] = replica.index
            done = Finished(replica, item, record)
            with self.lock:
                replica.served += 1
                replica.seconds += self.clock() - started
            self.finished.put(done)
            while not done.written.wait(0.2):
                if self.stopping.is_set():
                    return
            with self.lock:
                replica.busy = False
            if record.get("error_cause") in SUSPECT_CAUSES:
                replica.suspect = True
            replica.attempts.teardown(item, record["session_id"])

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def written(self, done: Finished) -> None:
        with self.lock:
            self.in_flight.pop(done.item.key, None)
        done.written.set()

    def close(self, join_s: float = 5.0) -> None:
        self.stopping.set()
        deadline = time.monotonic() + join_s
        for thread in self.threads:
            if thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))
        for replica in self.replicas:
            replica.client.close()

    # -- the main thread ------------------------------------------------------------------

    def drive(
        self,
        latest: dict[Key, dict[str, Any]],
        append: Callable[[dict[str, Any]], None],
        stop: StopSignals,
        progress: Any,
    ) -> int:
        """Run the queue to the end on the replicas; return the records written.

        Raises AgentNotReady when every replica is gone, StopRequested on a signal; the
        caller writes the ``run_end`` either way. Attempts still in flight then are not
        recorded (``--resume`` runs them).
        """
        self.records_written = 0
        self.start()
        while True:
            stop.check()
            self._report_skips(progress)
            try:
                done: Finished | None = self.finished.get(timeout=0.2)
            except queue.Empty:
                done = None
            if done is None:
                if not any(t.is_alive() for t in self.threads):
                    if not self.work_left():
                        return self.records_written
                    raise AgentNotReady("every replica of the pool dropped out with work left")
                if self.all_gone():
                    raise AgentNotReady(
                        f"no replica of the pool is ready (all {len(self.replicas)} down for "
                        "their readiness timeout)"
                    )
                continue
            item, record = done.item, done.record
            with stop.shielded():
                with self.lock:
                    latest[item.key] = record
                    others = [k for k in self.in_flight if k != item.key]
                    note = self.early.recorded(item, others)
                if note is not None:
                    record["decided"] = note
                append(record)
                self.records_written += 1
            self.written(done)
            progress.pool(*self.counts(), self.eta_s())
            progress.attempt_done(record)

    def _report_skips(self, progress: Any) -> None:
        with self.lock:
            skips, self.skips = self.skips, []
        for item, why in skips:
            progress.attempt_skipped(item.block.id, item.run, why)
