"""`grade` and `import`: grade stored attempts again; convert legacy result files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from agenttest._util.schema_version import SCHEMA_VERSION

from . import app
from ._options import allow_temp_option, strict_option

if TYPE_CHECKING:
    from agenttest.judges import Judge


def _judge(name: str | None) -> Judge | None:
    if not name:
        return None
    from agenttest.judges import get_judge

    return get_judge(name)


@app.command()
def grade(
    run_file: Path = typer.Argument(
        ..., help=f"A run file (JSONL, record schema {SCHEMA_VERSION} or older)."
    ),
    judge: str | None = typer.Option(
        None,
        "--judge",
        help="Judge for JUDGE criteria (e.g. `openvino`); without one they stay ungraded.",
    ),
    rater: str | None = typer.Option(
        None,
        "--rater",
        help="Rater name for the new grade records (default: rules[+judge]@digest).",
    ),
    battery: list[Path] = typer.Option(
        [], "--battery", help="Blocks to grade with (default: the paths in the run's run_meta)."
    ),
    overlay: Path | None = typer.Option(
        None, "--overlay", help="Overlay (default: the one in the run's run_meta)."
    ),
    strict: bool = strict_option(),
    calibrate_from: list[Path] = typer.Option(
        [],
        "--calibrate-from",
        help="More run files whose human ratings calibrate the openvino judge (RUN_FILE's "
        "own ratings always count).",
    ),
) -> None:
    """Grade every attempt of RUN_FILE again, APPENDING one `grade` record per attempt.

    Attempt records are never rewritten; readers take the newest grade of each rater.
    Prints counts by verdict. The openvino judge's verdicts on a kind of JUDGE criterion
    count only when people's ratings (`agenttest rate`) in RUN_FILE and --calibrate-from
    calibrate it for that kind (docs/judges.md, "Calibration from your ratings").
    """
    from agenttest._util.input_files import appendable
    from agenttest.grading import regrade

    appendable(run_file, "the run file", "agenttest grade")
    options: dict[str, object] = {}
    if judge == "openvino":
        from agenttest.rating import judge_calibration

        options["calibration"] = judge_calibration([run_file, *calibrate_from], judge)
    done = regrade(
        run_file, battery, overlay, judge=judge, rater=rater, strict=strict, judge_options=options
    )
    counts = done.counts
    parts = " ".join(f"{k}={counts[k]}" for k in ("PASS", "FAIL", "ERROR", "UNDECIDED"))
    if counts.get("NOT_APPLICABLE"):  # never sent, so not graded again
        parts += f"; not applicable (not graded) {counts['NOT_APPLICABLE']}"
    print(f"{run_file}: appended {counts['graded']} grade record(s): {parts}; "
          f"unknown ids {counts['unknown']}; battery {done.digest}")  # fmt: skip


@app.command(
    "import",
    help=f"""Convert a legacy result file into a schema {SCHEMA_VERSION} run file and grade it.

    Prints the new file's path, then per-tier counts of PASS, FAIL, ERROR and unknown ids.
    """,
)
def import_(
    file: Path = typer.Argument(..., help="A legacy result file."),
    from_: str = typer.Option(
        ..., "--from", help="The legacy format; only `methodology-v1` is known."
    ),
    overlay: Path | None = typer.Option(
        None,
        "--overlay",
        help="Overlay to grade with (default batteries/overlays/pheronagent.yaml).",
    ),
    battery: list[Path] = typer.Option(
        [],
        "--battery",
        help="Blocks (default: batteries and batteries/overlays/pheronagent-blocks).",
    ),
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for the new run file."),
    judge: str | None = typer.Option(None, "--judge", help="Judge for JUDGE criteria."),
    allow_temp: bool = allow_temp_option(),
) -> None:
    from agenttest.blocks import load_battery
    from agenttest.errors import UsageError
    from agenttest.importers import METHODOLOGY_V1, default_import_battery, import_methodology_v1

    if from_ != METHODOLOGY_V1:
        raise UsageError(f"unknown format {from_!r}; known: {METHODOLOGY_V1}")
    paths: list[Path] = list(battery)
    if not paths or overlay is None:
        default_paths, default_overlay = default_import_battery()
        paths = paths or default_paths
        overlay = overlay or default_overlay
    loaded = load_battery(paths, overlay=overlay)
    result = import_methodology_v1(
        file, loaded, out_dir=out, allow_temp=allow_temp, judge=_judge(judge),
        overlay_path=str(overlay),
    )  # fmt: skip
    print(result.path)
    for line in result.table():
        print(line)
    if result.unknown_ids:
        ids = ", ".join(f"{k} ({n})" for k, n in sorted(result.unknown_ids.items()))
        print(f"unknown ids, kept ungraded: {ids}")
    if result.error_causes:
        causes = ", ".join(f"{k} {n}" for k, n in sorted(result.error_causes.items()))
        print(f"ERROR causes: {causes}")
