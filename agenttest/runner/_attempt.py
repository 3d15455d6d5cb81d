"""One attempt, start to record: ready → fresh session → fixtures → turns → evidence → grade.

An attempt that the harness loses (the agent unreachable, no answer in time, a reply that
is not one, busy for longer than the limit, a fixture that could not be made) ends as
``ERROR`` with its cause, never as ``FAIL``: the agent was not tested.
"""

from __future__ import annotations

import signal
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from agenttest.agents import Agent, AgentNotReady, PreconditionUnmet, TurnLost, Waits
from agenttest.blocks import block_needs
from agenttest.results import Attempt, Choose, Stored, Timeline, TurnRecord

from ._plan import PlanItem
from ._workspace import FixtureError, LogTail, prepare, snapshot, teardown

if TYPE_CHECKING:
    from agenttest.judges import Judge

    from ._hosted import ReplicaHost

Log = Callable[[str], None]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class StopRequested(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived. A BaseException, so no `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class StopSignals:
    """Turns SIGINT/SIGTERM into :class:`StopRequested`, except inside shielded sections
    (writing a record), where the signal is only noted and acted on right after."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._shield = 0
        self._old: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        # SIGHUP too: a closed terminal or a dropped ssh session is a stop, not a crash
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self._old[sig] = signal.signal(sig, self._handle)

    def restore(self) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()

    def _handle(self, signum: int, _frame: Any) -> None:
        first = self.signum is None
        self.signum = signum
        # Only the first signal interrupts; later ones must not cut the clean-up short
        # (recording the attempt, the run_end, stopping the example agent). A stop that
        # got lost anyway is picked up by check() before the next attempt.
        if first and self._shield == 0:
            raise StopRequested(signum)

    def check(self) -> None:
        if self.signum is not None:
            raise StopRequested(self.signum)

    @contextmanager
    def shielded(self) -> Iterator[None]:
        self._shield += 1
        try:
            yield
        finally:
            self._shield -= 1


def resolve_judge(
    name: str | None, note: Callable[[str], None], calibrate_from: Sequence[Path] = ()
) -> Any:
    """The judge for JUDGE criteria. `auto` uses the on-device judge when its model is
    installed and otherwise says how to install it; `none` leaves JUDGE criteria ungraded
    (their attempts are ERROR until `agenttest grade --judge ...`). ``calibrate_from``: run
    files whose human ratings calibrate the openvino judge, as `grade --calibrate-from`."""
    if name is None or name == "none":
        return None
    from agenttest.errors import JudgeUnavailable
    from agenttest.judges import get_judge

    options: dict[str, object] = {}
    if calibrate_from:
        from agenttest.rating import judge_calibration

        options["calibration"] = judge_calibration(calibrate_from, "openvino")
    if name != "auto":
        # an explicit choice that cannot run is a usage error (exit 2)
        return get_judge(name, **options)
    try:
        return get_judge("openvino", **options)
    except JudgeUnavailable as exc:
        note(f"JUDGE criteria stay ungraded: {exc}")
        return None


#: One attempt graded at a time when a judge is loaded: a model is not thread-safe, and
#: the replicas of a pool grade in their own threads.
_JUDGE_LOCK = threading.Lock()


@dataclass
class AttemptGrader:
    """Grades each attempt as soon as its evidence is complete, with an optional judge.

    The runner's side of grading: it calls :func:`agenttest.grading.grade_attempt` (which
    runs each criterion's grader) and writes the outcome into the attempt record, or an
    ERROR when grading itself failed."""

    battery_digest: str
    judge: Judge | None = None
    strict: bool = False
    timezone: str | None = None  # the agent config's zone, kept on each attempt for clocks

    @staticmethod
    def _ungraded(record: Attempt, cause: str, message: str) -> None:
        ungraded(record, "ungraded")
        if record.status == "completed":  # else the harness cause says more
            record.error_cause, record.error = cause, message

    def files_of_interest(self, item: PlanItem) -> list[str]:
        """The workspace files the block's criteria read, for the runner to snapshot."""
        return list(block_needs(item.block).workspace_files)

    def grade(self, item: PlanItem, record: Attempt, workspace: Path | None) -> None:
        if self.judge is None:
            self._grade(item, record, workspace)
            return
        with _JUDGE_LOCK:
            self._grade(item, record, workspace)

    def _grade(self, item: PlanItem, record: Attempt, workspace: Path | None) -> None:
        from agenttest.grading import grade_attempt

        if self.timezone:
            record.timezone = self.timezone

        try:
            outcome = grade_attempt(
                item.block,
                record,
                workspace=workspace,
                judge=self.judge,
                battery_digest=self.battery_digest,
                strict=self.strict,
            )
        except Exception as exc:  # a grader bug must not cost the evidence
            self._ungraded(record, "grader", f"grading failed: {type(exc).__name__}: {exc}")
            return
        outcome.write_into(record)
        cause = getattr(outcome, "error_cause", None)
        if outcome.verdict == "ERROR" and cause and record.status == "completed":
            record.error_cause = cause
            record.error = f"not gradable ({cause})"


def ungraded(record: Attempt, rater: str) -> None:
    """An ERROR no grader decided: ``ungraded`` (grading failed or was cut short) or
    ``harness`` (nothing reached the agent's answer path)."""
    record.verdict, record.criteria, record.critical, record.rater = "ERROR", [], [], rater


def tap(wanted: str, turns: list[TurnRecord]) -> tuple[str | None, Choose]:
    """The value of the previous reply's choice whose label matches ``wanted`` (what a
    person tapping the offered button sends), and the evidence of the search."""
    from agenttest.grading import label_matches

    offered = [c for c in turns[-1].choices if isinstance(c, dict)] if turns else []
    labels = [str(c.get("label", "")) for c in offered]
    evidence = Choose(label_matches=wanted, offered=labels)
    for choice, label in zip(offered, labels, strict=True):
        if label_matches(label, wanted):
            evidence.chose = label
            return str(choice.get("value", label)), evidence
    return None, evidence


def _unsent(choose: Choose) -> TurnRecord:
    note = f"not sent: no offered choice matches {choose.label_matches!r}"
    return TurnRecord(choose=choose, started_at=now_iso(), completed_at=now_iso(), error=note)


class AttemptRunner:
    """Runs attempts on one agent (one replica of a pool): its turns, its evidence, its grade."""

    def __init__(
        self,
        agent: Agent,
        grader: AttemptGrader,
        stop: StopSignals,
        *,
        run_id: str,
        log: Log,
        host: ReplicaHost | None = None,
    ) -> None:
        self.agent = agent
        self.grader = grader
        self.stop = stop
        self.run_id = run_id
        evidence = agent.evidence
        # hosted tools: the world the harness lays is the workspace fixtures and criteria use
        self.host = host
        self.workspace = host.world if host is not None else evidence.workspace
        self.log_tail = (
            LogTail(evidence.log_file, evidence.log_max_bytes) if evidence.log_file else None
        )
        self.log = log
        self.read_back = False  # read each streamed reply back (stream/store parity)

    def run(self, item: PlanItem, waited: Waits | None = None) -> Attempt:
        """Run one attempt and return its record (not yet written). ``waited``: what was
        already waited for this attempt (a replica that had to come back first).

        Raises AgentNotReady or StopRequested only *before* anything reached the agent:
        then there is no attempt to record.
        """
        block = item.block
        self.read_back = block_needs(block).read_back
        self.agent.waits = waited or Waits()
        self.agent.wait_ready()
        session_id = f"{self.run_id[:8]}-{block.id}-r{item.run}-{uuid.uuid4().hex[:8]}"
        record = Attempt(
            test_id=block.id,
            tier=block.tier,
            run=item.run,
            k=item.k,
            session_id=session_id,
            started_at=now_iso(),
        )
        turns: list[TurnRecord] = []
        tokens: int | None = None
        usage: dict[str, int] = {}
        status: Literal["completed", "timeout", "error"] = "completed"
        error: str | None = None
        cause: str | None = None
        host = self.host
        try:
            self.agent.reset(session_id)
            if host is not None:
                host.lay()
            prepare(
                self.workspace,
                block.fixtures,
                lambda: self._reset_memory(session_id),
                (
                    host.seed_memory
                    if host is not None
                    else lambda items: self.agent.seed_memory(session_id, items)
                ),
            )
            record.fixtures_applied = True  # prepare raises rather than skip one
            if host is not None:
                host.begin(block.faults)
            for number, (spec, prompt) in enumerate(
                zip(block.turns, block.prompts(), strict=True), start=1
            ):
                choose = None
                if spec.choose is not None:
                    tapped, choose = tap(spec.choose.label_matches, turns)
                    if tapped is None:  # nothing to tap: the attempt ends here, graded
                        turns.append(_unsent(choose))
                        break
                    prompt = tapped
                reply_tokens, reply_usage = self._turn(session_id, number, prompt, turns, choose)
                if reply_tokens is not None:
                    tokens = (tokens or 0) + reply_tokens
                if reply_usage is not None:
                    for key, value in reply_usage.items():
                        usage[key] = usage.get(key, 0) + value
        except TurnLost as lost:
            status = "timeout" if lost.cause == "timeout" else "error"
            error, cause = lost.message, lost.cause
        except PreconditionUnmet as exc:
            status, error, cause = "error", f"precondition: {exc}", "precondition"
        except FixtureError as exc:
            status, error, cause = "error", f"fixture: {exc}", "fixture"
        except StopRequested as stop:
            status, cause = "error", "interrupted"
            error = f"interrupted by {stop.name}; --resume runs this attempt again"
        except AgentNotReady as exc:  # only via a stale connection mid-attempt
            status, error, cause = "error", str(exc), "unreachable"
        except Exception as exc:  # a harness bug must not cost the run: record it, go on
            status, cause = "error", "harness"
            error = f"harness error: {type(exc).__name__}: {exc}"
            self.log(f"{block.id} run {item.run}: {error}")
        with self.stop.shielded():
            if host is not None:
                host.end_into(record, turns, self.log)
            latencies = [t.latency_ms for t in turns if t.latency_ms is not None]
            record.completed_at = now_iso()
            record.latency_ms = sum(latencies) if latencies else None
            record.status, record.error, record.error_cause = status, error, cause
            record.turns = turns
            record.cost_tokens, record.usage = tokens, usage or None
            record.waits = msgspec.structs.replace(self.agent.waits)  # a copy: the agent counts on
        # Grading is not shielded: it is bounded (grading.limits), but a stop must not wait
        # for it. An attempt stopped while grading keeps its evidence and is run again.
        try:
            self._evidence_and_grade(item, record)
        except StopRequested as stop:
            ungraded(record, "ungraded")
            record.error_cause = "interrupted"
            record.error = f"interrupted by {stop.name} while grading; --resume runs it again"
        return record

    def _reset_memory(self, session_id: str) -> None:
        if self.host is not None:
            self.host.reset_memory()  # the hosted store; the agent may keep its own too
        self.agent.reset(session_id, memory=True)

    def _turn(
        self,
        session_id: str,
        number: int,
        prompt: str,
        turns: list[TurnRecord],
        choose: Choose | None = None,
    ) -> tuple[int | None, dict[str, int] | None]:
        turn = TurnRecord(prompt=prompt, response="", started_at=now_iso(), choose=choose)
        turns.append(turn)
        if self.log_tail is not None:
            self.log_tail.mark()
        try:
            exchange = self.agent.turn(session_id, prompt, number)
        except TurnLost as lost:
            turn.http_status, turn.latency_ms = lost.http_status, lost.latency_ms
            turn.error = lost.message
            raise
        finally:
            turn.completed_at = now_iso()
            if self.log_tail is not None:
                turn.log_lines = self.log_tail.read()
            if self.host is not None:  # a turn cut short keeps the calls it made
                turn.hosted_calls = self.host.take()
        reply = exchange.reply
        turn.response, turn.trace = reply.response, reply.trace
        turn.tool_calls = list(reply.tool_calls)
        turn.http_status, turn.latency_ms = exchange.http_status, exchange.latency_ms
        turn.notes = list(reply.notes)
        turn.choices = reply.choices or []
        turn.stream_text = reply.stream_text
        turn.model_steps = reply.model_steps or []
        turn.timeline = Timeline(**reply.timeline) if reply.timeline is not None else None
        if self.read_back and reply.stream_text is not None:
            try:
                turn.stored = Stored(text=self.agent.stored(session_id, number))
            except TurnLost as lost:  # the parity criterion is then undecided, not failed
                turn.stored = Stored(error=lost.message)
        return reply.tokens, reply.usage

    def _evidence_and_grade(self, item: PlanItem, record: Attempt) -> None:
        try:
            record.workspace_files = snapshot(self.workspace, self.grader.files_of_interest(item))
        except OSError as exc:
            record.workspace_files = {}
            self.log(f"{item.block.id}: could not snapshot workspace files: {exc}")
        if not record.turns:
            # nothing reached the agent's answer path: there is nothing to grade
            ungraded(record, "harness")
            return
        # Graded even when cut short: an always-FAIL hit (a dangerous command that ran before
        # the timeout) stands; otherwise the grader answers ERROR with the attempt's cause.
        self.grader.grade(item, record, self.workspace)

    def teardown(self, item: PlanItem, session_id: str) -> None:
        """Undo the block's changes after its record is written; problems are only logged."""
        try:
            teardown(
                self.workspace,
                item.block.teardown,
                lambda: self.agent.reset(session_id, memory=True),
            )
        except (FixtureError, TurnLost, AgentNotReady, OSError) as exc:
            self.log(f"{item.block.id} run {item.run}: teardown: {exc}")
        if self.host is not None:
            self.host.tear_down(self.log)
