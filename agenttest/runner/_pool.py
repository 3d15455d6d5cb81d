"""The drive loop: a session's attempts over a pool of agent replicas; one agent is a pool of one.

Every rule lives here once, whatever the number of replicas: which attempt comes next
(decided blocks skipped, a lost attempt retried elsewhere), readiness before every attempt,
a replica that is down drained and probed until it is back, the stop when every replica is
gone or when attempts in a row are lost to a configuration error, the one thread that
writes the run file, progress.

Each replica is one :class:`~agenttest.agents.Agent` (the run starts and stops them),
driven by one worker (:meth:`Pool._work`), so at most one request is ever in flight on it.
An attempt — its fixtures, turns and teardown — stays on the replica that started it.
Workers hand what happens (:data:`._replica.Event`) to the driving thread, the only one
that writes the run file; a worker waits until its record is written (fsynced) before
tearing down.

A pool of one needs no threads: its worker runs in the driving thread and each event is
handled as it is posted. A signal therefore reaches its attempt, which is recorded as
``interrupted`` (evidence kept, ``--resume`` runs it again). Several replicas each get a
thread (the harness only waits on its agents: see docs/agents.md); a signal reaches the driving
thread only, so the attempts in flight on the workers are not recorded (``--resume`` runs
them). A pool of one also looks like one agent: no ``replica`` index on its records, no
replica in its messages, no pool line in its progress.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from agenttest.agents import Agent, AgentNotReady, NotWanted, Waits
from agenttest.results import Attempt
from agenttest.sanitize import redact

from ._attempt import AttemptGrader, AttemptRunner, StopRequested, StopSignals
from ._config_stop import ConfigErrors, ConfigErrorWatch
from ._decide import EarlyStop
from ._eta import Durations, Estimate, estimate_time
from ._plan import Key, PlanItem
from ._progress import Progress
from ._replica import (
    SUSPECT_CAUSES,
    AllGone,
    Event,
    Finished,
    Left,
    Replica,
    Skipped,
    Started,
    replica_log,
)
from ._schedule import expected_order, expected_seconds, lost_on

if TYPE_CHECKING:
    from ._hosted import ReplicaHost

# what a pool's order is made of (tests import them from here)
__all__ = ["Pool", "expected_order", "expected_seconds", "lost_on"]


class Pool:
    """The shared state of a run's replicas. Everything under :attr:`lock`."""

    def __init__(
        self,
        agents: Sequence[Agent],
        todo: Sequence[PlanItem],
        early: EarlyStop,
        make_grader: Callable[[], AttemptGrader],
        stop: StopSignals,
        *,
        run_id: str,
        log: Callable[[str], None],
        avoid: dict[Key, int] | None = None,
        hosts: Sequence[ReplicaHost | None] = (),
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.lock = threading.Lock()
        self.single = len(agents) == 1
        self.queue = list(todo)
        self.early = early
        self.stop = stop
        # the pool's own messages (a replica out of rotation or back, every one gone) get
        # the redaction the agent client gives its messages: URL passwords and query values
        # and every configured header value, not the URL-only one progress adds (#27)
        secrets = tuple(v for a in agents for v in a.config.headers.values() if v)
        self.scrub: Callable[[str], str] = lambda text: redact(text, secrets)
        self.log: Callable[[str], None] = lambda message: log(self.scrub(message))
        self.clock = clock
        self.sleep = sleep
        self.avoid = avoid or {}  # key -> replica that lost it last time (--retry-errors)
        self.in_flight: dict[Key, int] = {}
        self.started: dict[Key, float] = {}  # clock time each attempt in flight started
        self.durations = Durations()  # every attempt's wall time, for the ETA
        self.events: queue.Queue[Event] = queue.Queue()
        self.stopping = threading.Event()
        self.watch = ConfigErrorWatch()
        self.records_written = 0
        self._threads: list[threading.Thread] = []
        self.replicas: list[Replica] = []
        for index, agent in enumerate(agents):
            runner = AttemptRunner(
                agent,
                make_grader(),
                # the one replica runs in the thread that takes the signals; other threads
                # never see one (a StopSignals that is never installed)
                stop if self.single else StopSignals(),
                run_id=run_id,
                log=replica_log(self.log, index, len(agents)),
                host=hosts[index] if hosts else None,
            )
            self.replicas.append(Replica(index, agent, runner))
        self._latest: dict[Key, Attempt] = {}
        self._append: Callable[[Attempt], None] = lambda _record: None
        self._progress = Progress()

    # -- the queue ------------------------------------------------------------------------

    def take(self, replica: Replica) -> PlanItem | Literal["wait"] | None:
        """The next attempt for ``replica`` (skipping decided ones), None when the work is
        done, or ``"wait"``: only attempts this replica lost are left and another replica
        is up and idle, so that one should retry them (``--retry-errors``); or none is
        queued but some are in flight elsewhere, and one may come back to the queue."""
        skipped: list[Skipped] = []
        taken: PlanItem | Literal["wait"] | None = None
        with self.lock:
            while self.queue:
                mine = [
                    i for i, it in enumerate(self.queue) if self.avoid.get(it.key) != replica.index
                ]
                if not mine and self._someone_else_idle(replica):
                    taken = "wait"
                    break
                item = self.queue.pop(mine[0] if mine else 0)
                if self.early.skip(item) is not None:
                    skipped.append(Skipped(item, self.early.skipped[item.key]))
                    continue
                self.in_flight[item.key] = replica.index
                self.started[item.key] = self.clock()
                replica.busy = True
                taken = item
                break
            if taken is None and self.in_flight:
                taken = "wait"
        for event in skipped:
            self._post(event)
        return taken

    def _someone_else_idle(self, replica: Replica) -> bool:
        return any(
            r is not replica and not r.busy and r.down_since is None and r.working
            for r in self.replicas
        )

    def give_back(self, item: PlanItem, replica: Replica) -> None:
        """An attempt that never reached the agent goes back to the front of the queue."""
        with self.lock:
            self.in_flight.pop(item.key, None)
            self.started.pop(item.key, None)
            replica.busy = False
            self.queue.insert(0, item)
            self.avoid[item.key] = replica.index

    def work_left(self) -> bool:
        with self.lock:
            return bool(self.queue or self.in_flight)

    def counts(self) -> tuple[int, int]:
        """(busy, down) replicas."""
        with self.lock:
            busy = sum(1 for r in self.replicas if r.busy)
            down = sum(1 for r in self.replicas if r.down_since is not None)
            return busy, down

    def eta(self) -> Estimate | None:
        """What is queued and in flight, from the durations seen, over the replicas up."""
        with self.lock:
            now = self.clock()
            return estimate_time(
                self.durations,
                [item.block.id for item in self.queue],
                replicas=[r.index for r in self.replicas if r.down_since is None],
                running=[(key[0], now - self.started.get(key, now)) for key in self.in_flight],
            )

    # -- readiness ------------------------------------------------------------------------

    def _going_on(self, replica: Replica) -> bool:
        replica.attempts.stop.check()  # one agent: a signal noted while writing stops here
        return not self.stopping.is_set()

    def _gone(self, replica: Replica, why: AgentNotReady, since: float) -> None:
        """``replica`` was not ready for its whole readiness timeout: out of rotation, and
        the run stops when every replica is gone (work is left: this one's attempt)."""
        with self.lock:
            if replica.down_since is None:
                replica.down_since = since
            replica.gone, replica.suspect, replica.why_gone = True, True, str(why)
            # a replica whose worker has left will never take the work back: it counts as
            # gone, or an attempt given back after the others left would wait forever
            every = bool(self.queue) and all(
                r.gone or (r is not replica and not r.working) for r in self.replicas
            )
        if not every:
            self.log(f"replica {replica.index} out of rotation: {why}")
            return
        if self.single:
            message = replica.why_gone
        else:
            message = (
                f"no replica of the pool is ready (all {len(self.replicas)} down for their "
                "readiness timeout; "
                + "; ".join(
                    f"replica {r.index}: {r.why_gone or 'no longer running'}" for r in self.replicas
                )
                + ")"
            )
        self._post(AllGone(self.scrub(message)))

    def _wait_until_up(self, replica: Replica) -> bool:
        """A suspect replica waits until it is ready before it takes another attempt (the
        wait counts in that attempt's ``waits``); one gone is probed on, quietly, and used
        again once it is back. False when the run is stopping or nothing is left for it."""

        def wanted(_state: str) -> bool:
            with self.lock:
                if replica.down_since is None:
                    replica.down_since = self.clock()
            return self._going_on(replica) and self.work_left()

        replica.agent.waits = Waits()
        while self._going_on(replica) and self.work_left():
            started = self.clock()
            try:
                replica.agent.wait_ready(wanted=wanted, quiet=replica.gone)
            except NotWanted:
                return False
            except AgentNotReady as exc:
                self._gone(replica, exc, started)
                continue
            with self.lock:
                if replica.gone:
                    self.log(f"replica {replica.index} is back ({replica.config.base_url})")
                replica.down_since, replica.gone, replica.suspect = None, False, False
            replica.waited = replica.agent.waits
            return True
        return False

    # -- one worker per replica -----------------------------------------------------------

    def _work(self, replica: Replica) -> None:
        while self._going_on(replica):
            if replica.suspect and not self._wait_until_up(replica):
                return
            item = self.take(replica)
            if item is None:
                return
            if isinstance(item, str):  # "wait"
                self.sleep(replica.config.readiness.poll_s)
                continue
            self._post(Started(item))
            started = self.clock()
            try:
                record = replica.attempts.run(item, replica.waited)
            except AgentNotReady as exc:
                # it waited its whole readiness timeout before anything was sent
                replica.waited = None
                self.give_back(item, replica)
                self._gone(replica, exc, started)
                continue
            replica.waited = None
            if not self.single:
                record.replica = replica.index
            done = Finished(replica, item, record)
            with self.lock:
                replica.served += 1
                replica.seconds += self.clock() - started
                self.durations.add(
                    item.block.id, self.clock() - started, None if self.single else replica.index
                )
            self._post(done)
            while not done.written.wait(0.2):
                if self.stopping.is_set():
                    return
            with self.lock:
                replica.busy = False
            if record.error_cause in SUSPECT_CAUSES:
                replica.suspect = True
            if not self._going_on(replica):
                return
            replica.attempts.teardown(item, record.session_id or "")

    def _worker(self, replica: Replica) -> None:
        try:
            self._work(replica)
        finally:
            replica.working = False
            self.events.put(Left())

    def close(self, join_s: float = 5.0) -> None:
        self.stopping.set()
        deadline = time.monotonic() + join_s
        for thread in self._threads:
            if thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))

    # -- the driving thread ---------------------------------------------------------------

    def _post(self, event: Event) -> None:
        if self.single:
            self._handle(event)  # the worker is the driving thread
        else:
            self.events.put(event)

    def drive(
        self,
        latest: dict[Key, Attempt],
        append: Callable[[Attempt], None],
        progress: Progress,
    ) -> int:
        """Run the queue to the end on the replicas; return the records written.

        Raises AgentNotReady when every replica is gone, ConfigErrors when attempts in a
        row were lost to one configuration error, StopRequested on a signal; the caller
        writes the ``run_end`` whichever way. Attempts in flight on other threads then are
        not recorded (``--resume`` runs them).
        """
        self._latest, self._append, self._progress = latest, append, progress
        self.records_written = 0
        for replica in self.replicas:
            replica.working = True
        if self.single:
            self._work(self.replicas[0])
        else:
            self._threads = [
                threading.Thread(
                    target=self._worker, args=(r,), name=f"replica-{r.index}", daemon=True
                )
                for r in self.replicas
            ]
            for thread in self._threads:
                thread.start()
            left = 0
            while left < len(self._threads):
                self.stop.check()
                try:
                    event = self.events.get(timeout=0.2)
                except queue.Empty:
                    continue
                if isinstance(event, Left):
                    left += 1
                else:
                    self._handle(event)
        if self.work_left():
            raise AgentNotReady("every replica of the pool dropped out with work left")
        return self.records_written

    def _handle(self, event: Event) -> None:
        progress = self._progress
        if isinstance(event, Skipped):
            progress.attempt_skipped(event.item.block.id, event.item.run, event.why)
        elif isinstance(event, Started):
            if self.single:  # several at once: the pool line says what is going on
                progress.attempt_started(event.item.block.id, event.item.run, event.item.k)
        elif isinstance(event, AllGone):
            raise AgentNotReady(event.message)
        elif isinstance(event, Finished):
            self._record(event)

    def _record(self, done: Finished) -> None:
        item, record = done.item, done.record
        with self.stop.shielded():
            with self.lock:
                self._latest[item.key] = record
                others = [k for k in self.in_flight if k != item.key]
                note = self.early.recorded(item, others)
            if note is not None:
                record.decided = note
            self._append(record)
            self.records_written += 1
        with self.lock:
            self.in_flight.pop(item.key, None)
            self.started.pop(item.key, None)
        done.written.set()
        eta = self.eta()
        if not self.single:
            self._progress.pool(*self.counts(), eta)
        self._progress.eta(eta)
        self._progress.attempt_done(record)
        if record.error_cause == "interrupted":  # the signal cut this attempt short
            raise StopRequested(self.stop.signum or 2)
        problem = self.watch.seen(record)
        if problem is not None:
            raise ConfigErrors(problem)
