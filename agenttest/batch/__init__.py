"""Nightly batches: orchestration above the runner and the reports (see docs/nightly.md).

``batch_exit_code(run_batch("nightly.yaml"))`` is what `agenttest batch` does.
"""

from ._batch_file import Batch, Job, load_batch
from ._nightly import (
    JobOutcome,
    batch_exit_code,
    batch_lock,
    batch_reason,
    previous_run,
    run_batch,
    run_job,
)
from ._schema import batch_json_schema

__all__ = [
    "Batch",
    "Job",
    "JobOutcome",
    "batch_exit_code",
    "batch_json_schema",
    "batch_lock",
    "batch_reason",
    "load_batch",
    "previous_run",
    "run_batch",
    "run_job",
]
