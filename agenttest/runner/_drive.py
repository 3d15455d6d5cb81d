"""Driving a session's plan over its agent: what is left to run, and every way out.

The loop itself is :class:`._pool.Pool` (one agent is a pool of one). Every attempt is
written whole before the next starts on its replica; every way out of the loop (done,
stopped, the agent gone, a configuration error seen three times in a row) writes a
``run_end`` first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agenttest.agents import Agent, AgentNotReady, provided
from agenttest.errors import AgentUnavailable
from agenttest.results import RunEnd, RunWriter

from ._applicable import not_applicable, not_applicable_record
from ._attempt import AttemptGrader, StopRequested, StopSignals, now_iso
from ._config_stop import ConfigErrors
from ._decide import EarlyStop
from ._plan import counts, needs_run
from ._pool import Pool
from ._progress import Progress
from ._schedule import expected_order, expected_seconds, lost_on
from ._session import Session

if TYPE_CHECKING:
    from agenttest.judges import Judge

    from ._hosted import ReplicaHost


def drive(
    session: Session,
    agents: list[Agent],
    writer: RunWriter,
    stop: StopSignals,
    progress: Progress,
    judge: Judge | None = None,
    strict: bool = False,
    hosts: Sequence[ReplicaHost | None] = (),
) -> None:
    latest = session.latest
    todo = [item for item in session.plan if needs_run(latest.get(item.key), session.retry_errors)]
    # decided from the agent config before anything is sent: a block it cannot serve
    agent = provided(agents[0].config, hosted=any(h is not None for h in hosts))
    reasons = {item.block.id: not_applicable(item.block, agent, strict) for item in todo}
    skip = [item for item in todo if reasons[item.block.id]]
    todo = [item for item in todo if not reasons[item.block.id]]
    early = EarlyStop(session.plan, latest, (i.key for i in todo), session.until_decided)
    if len(agents) > 1:  # one agent keeps the plan's order: it has no tail to shorten
        todo = expected_order(todo, expected_seconds(session.baseline))
    pool = Pool(
        agents,
        todo,
        early,
        lambda: AttemptGrader(
            session.battery.digest, judge=judge, strict=strict, timezone=agents[0].config.timezone
        ),
        stop,
        run_id=session.run_id,
        log=progress.note,
        avoid=lost_on(latest, todo) if session.retry_errors else None,
        hosts=hosts,
    )

    def finish(reason: str) -> None:
        with stop.shielded():
            writer.append(
                RunEnd(
                    completed_at=now_iso(),
                    counts=counts(session.plan, latest),
                    attempts={
                        "planned": len(session.plan),
                        "skipped_as_decided": len(early.skipped),
                        "recorded": sum(1 for i in session.plan if i.key in latest),
                        "written_this_session": pool.records_written + len(skip),
                    },
                    reason=reason,
                    hosted_refused_outside=sum(h.refused_outside for h in hosts if h),
                )
            )

    for earlier in latest.values():  # a resumed run knows its agent's pace from the start
        pool.durations.add_record(earlier)
    progress.eta(pool.eta())
    progress.start(len(session.plan), len(session.plan) - len(todo) - len(skip), str(session.path))
    try:
        if skip:
            from agenttest.grading import rater_id

            rater = rater_id(None, session.battery.digest)
            for item in skip:
                with stop.shielded():
                    record = not_applicable_record(
                        item, str(reasons[item.block.id]), rater, now_iso()
                    )
                    latest[item.key] = record
                    writer.append(record)
                progress.attempt_done(record)
        pool.drive(latest, writer.append, progress)
        finish("completed")
    except AgentNotReady as exc:
        finish(f"aborted: {exc}")
        raise AgentUnavailable(
            f"{exc}. What was recorded stays in {session.path}; "
            f"continue with: agenttest run --resume {session.path}"
        ) from None
    except ConfigErrors as exc:
        finish(f"aborted: {exc}")
        raise AgentUnavailable(exc.resumable(session.path)) from None
    except StopRequested:
        finish("interrupted")
        raise
    finally:
        pool.close()
