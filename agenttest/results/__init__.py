"""Results on disk: typed schema 2.0 records, a durable writer and a streaming reader."""

from ._calibration import (
    HARNESS_RATERS,
    HUMAN_PREFIX,
    KAPPA_THRESHOLD,
    MIN_CALIBRATION_SAMPLES,
    calibration,
    parse_timestamp,
    rater_kind,
)
from ._files import RunWriter, check_not_temp, dumps, run_file_name, temp_roots, unused_path
from ._reader import MIGRATIONS, ReadNotes, iter_records, read_run_meta
from ._records import (
    SCHEMA_VERSION,
    Attempt,
    CriterionResult,
    Evidence,
    Grade,
    Record,
    RunEnd,
    RunMeta,
    ToolCall,
    TurnRecord,
)

__all__ = [
    "HARNESS_RATERS",
    "HUMAN_PREFIX",
    "KAPPA_THRESHOLD",
    "MIGRATIONS",
    "MIN_CALIBRATION_SAMPLES",
    "SCHEMA_VERSION",
    "Attempt",
    "CriterionResult",
    "Evidence",
    "Grade",
    "ReadNotes",
    "Record",
    "RunEnd",
    "RunMeta",
    "RunWriter",
    "ToolCall",
    "TurnRecord",
    "calibration",
    "check_not_temp",
    "dumps",
    "iter_records",
    "parse_timestamp",
    "rater_kind",
    "read_run_meta",
    "run_file_name",
    "temp_roots",
    "unused_path",
]
