"""Driving the agent through a session's plan: serially, or over a pool of replicas.

Every attempt is written whole before the next starts; every way out of the loop (done,
stopped, the agent gone, a config error seen three times) writes a ``run_end`` first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenttest.errors import AgentUnavailable
from agenttest.results import RunWriter
from agenttest.results import attempt as new_attempt
from agenttest.results import run_end as new_run_end

from ._attempt import AttemptRunner, Grader, StopRequested, StopSignals, now_iso
from ._client import AgentClient
from ._config_stop import ConfigErrorWatch
from ._config_types import AgentConfig
from ._decide import EarlyStop
from ._plan import counts, needs_run
from ._pool import Pool, SharedJudgeGrader, expected_order, expected_seconds, lost_on
from ._progress import Progress
from ._session import Session
from ._waiting import AgentNotReady
from ._workspace import LogTail

if TYPE_CHECKING:
    from agenttest.judges import Judge


def drive(
    session: Session,
    configs: list[AgentConfig],
    writer: RunWriter,
    stop: StopSignals,
    progress: Progress,
    judge: Judge | None = None,
    strict: bool = False,
) -> None:
    latest = session.latest
    todo = [item for item in session.plan if needs_run(latest.get(item.key), session.retry_errors)]
    early = EarlyStop(session.plan, latest, (i.key for i in todo), session.until_decided)
    written = 0
    if len(configs) > 1:
        todo = expected_order(todo, expected_seconds(session.baseline))

    def finish(reason: str) -> None:
        with stop.shielded():
            writer.append(
                new_run_end(
                    completed_at=now_iso(),
                    counts=counts(session.plan, latest),
                    attempts={
                        "planned": len(session.plan),
                        "skipped_as_decided": len(early.skipped),
                        "recorded": sum(1 for i in session.plan if i.key in latest),
                        "written_this_session": written,
                    },
                    reason=reason,
                )
            )

    if len(configs) > 1:
        pool = Pool(
            configs,
            todo,
            early,
            lambda: SharedJudgeGrader(
                session.battery.digest, judge=judge, strict=strict, timezone=configs[0].timezone
            ),
            run_id=session.run_id,
            log=progress.note,
            avoid=lost_on(latest, todo) if session.retry_errors else None,
        )
        progress.start(len(session.plan), len(session.plan) - len(todo), str(session.path))
        try:
            written = pool.drive(
                latest, lambda record: writer.append(new_attempt(**record)), stop, progress
            )
            finish("completed")
        except AgentNotReady as exc:
            written = pool.records_written
            finish(f"aborted: {exc}")
            raise AgentUnavailable(
                f"{exc}. What was recorded stays in {session.path}; "
                f"continue with: agenttest run --resume {session.path}"
            ) from None
        except StopRequested:
            written = pool.records_written
            finish("interrupted")
            raise
        finally:
            pool.close()
        return
    config = configs[0]
    client = AgentClient(config, log=progress.note)
    tail = LogTail(config.log_path, config.log_max_bytes) if config.log_path else None
    attempts = AttemptRunner(
        client,
        Grader(session.battery.digest, judge=judge, strict=strict, timezone=config.timezone),
        stop,
        run_id=session.run_id,
        workspace=config.workspace_path,
        log_tail=tail,
        log=progress.note,
    )
    progress.start(len(session.plan), len(session.plan) - len(todo), str(session.path))
    watch = ConfigErrorWatch()
    try:
        for item in todo:
            stop.check()
            if early.skip(item) is not None:
                progress.attempt_skipped(item.block.id, item.run, early.skipped[item.key])
                continue
            progress.attempt_started(item.block.id, item.run, item.k)
            try:
                record = attempts.run(item)
            except AgentNotReady as exc:
                finish(f"aborted: {exc}")
                raise AgentUnavailable(
                    f"{exc}. What was recorded stays in {session.path}; "
                    f"continue with: agenttest run --resume {session.path}"
                ) from None
            with stop.shielded():
                latest[item.key] = record
                note = early.recorded(item)
                if note is not None:
                    record["decided"] = note
                writer.append(new_attempt(**record))
                written += 1
            progress.attempt_done(record)
            if record.get("error_cause") == "interrupted":
                raise StopRequested(stop.signum or 2)
            config_error = watch.seen(record)
            if config_error is not None:
                finish(f"aborted: {config_error}")
                raise AgentUnavailable(
                    config_error.replace("--resume FILE", f"agenttest run --resume {session.path}")
                )
            stop.check()
            attempts.teardown(item, record["session_id"])
        finish("completed")
    except StopRequested:
        finish("interrupted")
        raise
    finally:
        client.close()
