"""The bad-input catalogue: malformed blocks, overlays, agent configs, run files and command
lines, each with its exit code and message, run as one test. No case may print a traceback
or write anything."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agenttest.cli import main

from ._patience import EVENTUALLY_S
from .conftest import FIXTURES, report_count, run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

BAD = FIXTURES / "bad_inputs"
BLOCKS = FIXTURES / "blocks"
GOLDEN = Path(__file__).parent / "golden" / "run_2.0.jsonl"


def _first_line_expectation(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    line, message = first.removeprefix("# expect: ").split(": ", 1)
    return f"{path}:{line}: {message}"


def _cases(out: Path) -> list[tuple[str, list[str], int, str]]:
    """(name, argv, exit code, text that stderr must contain)."""
    o = ["--out", str(out), "--allow-temp", "--quiet"]
    cases: list[tuple[str, list[str], int, str]] = []
    for p in sorted((BLOCKS / "bad").iterdir()):
        if p.is_dir():
            expect = next(f for f in sorted(p.iterdir()) if f.read_text().startswith("# expect"))
            cases.append(
                (f"block: {p.name}", ["validate", str(p)], 2, _first_line_expectation(expect))
            )
        else:
            cases.append((f"block: {p.stem}", ["validate", str(p)], 2, _first_line_expectation(p)))
    good = str(BLOCKS / "good")
    for p in sorted((BLOCKS / "overlays").iterdir()):
        cases.append(
            (
                f"overlay: {p.stem}",
                ["validate", good, "--overlay", str(p)],
                2,
                _first_line_expectation(p),
            )
        )
    agents = {
        "unknown_key": "unknown key `base_ulr` in agent config (did you mean `base_url`?)",
        "no_base_url": ":1: missing required key `base_url`",
        "negative_timeout": ":4: `timeouts.answer_s` must be > 0",
        "bad_scheme": ":3: `base_url` must be an http(s) URL",
        "not_yaml": ":4: not valid YAML",
        "bad_mode": ":4: `agent config.mode` must be one of native, rest, openai",
        "missing_env": "needs the environment variable AGENTTEST_NO_SUCH_SECRET",
        # memory without limit, or a stack overflow: a data file that says too much (issue 32)
        "alias_bomb": "alias_bomb.yaml:1: unsupported YAML value: the file expands to more than",
        # NaN passed every `<= 0` test, then every attempt was ERROR harness with exit 0
        "nan_timeout": "nan_timeout.yaml:4: `timeouts.answer_s` must be a finite number",
        # one agent twice: two requests in flight on it
        "replicas_one_agent": "replicas_one_agent.yaml:3: two replicas share one base_url",
    }
    for name, text in agents.items():
        cases.append(
            (
                f"agent config: {name}",
                ["run", good, "--agent", str(BAD / "agents" / f"{name}.yaml"), *o],
                2,
                text,
            )
        )
    runs = {
        "empty": "empty run file",
        "not_json": ":1: not a JSONL run file",
        "array_line": ":1: not a JSONL run file",
        "legacy_v1": "agenttest import FILE --from methodology-v1",
        "newer_schema": "newer than this agenttest understands",
        "no_run_meta": "must start with a run_meta record",
        "old_schema": "predates 2.0",
        # declarations bounded before anything loops or allocates by them (defect 11)
        "plan_runs_huge": ":1: bad run_meta: run_meta: `plan[0].runs` must be at most 10,000",
        "k_nominal_huge": ":1: bad run_meta: run_meta: `k_nominal` must be at most 10,000",
        "selection_k_huge": ":1: bad run_meta: run_meta: `selection.k` must be at most 10,000",
    }
    for name, text in runs.items():
        run_file = str(BAD / "runs" / f"{name}.jsonl")
        cases.append((f"run file (report): {name}", ["report", run_file], 2, text))
    cases += [
        (
            "run file (grade): legacy_v1",
            ["grade", str(BAD / "runs" / "legacy_v1.jsonl")],
            2,
            "--from methodology-v1",
        ),
        (
            "run file (agreement): not_json",
            ["agreement", str(BAD / "runs" / "not_json.jsonl")],
            2,
            "not a JSONL run file",
        ),
        (
            "run file (compare): newer",
            ["compare", str(GOLDEN), str(BAD / "runs" / "newer_schema.jsonl")],
            2,
            "newer",
        ),
        (
            "run file (resume): example_args that move the example agent",
            [
                "run",
                "--resume",
                str(BAD / "runs" / "example_args_moved.jsonl"),
                "--quiet",
                "--allow-temp",
            ],
            2,
            "run_meta.selection.example_args holds --workspace, --host",
        ),
        (
            "run file (resume): selection.k of 10**12",
            [
                "run",
                "--resume",
                str(BAD / "runs" / "selection_k_huge.jsonl"),
                "--quiet",
                "--allow-temp",
            ],
            2,
            "selection_k_huge.jsonl:1: bad run_meta: run_meta: `selection.k` must be at most",
        ),
        (
            "run file: missing",
            ["report", "no/such/run.jsonl"],
            2,
            "no/such/run.jsonl:0: cannot read run file",
        ),
        (
            "pairs file: bad lines",
            ["judge", "score", "--pairs", str(BAD / "pairs" / "bad.jsonl")],
            2,
            "bad.jsonl:2: not a JSON object",
        ),
        (
            "batch: k zero",
            ["batch", str(BAD / "batches" / "k_zero.yaml")],
            2,
            "k_zero.yaml:2: `k` must be a whole number",
        ),
        (
            "batch: unknown key",
            ["batch", str(BAD / "batches" / "unknown_key.yaml")],
            2,
            "unknown key `jobz`",
        ),
        (
            "batch: alias bomb",
            ["batch", str(BAD / "batches" / "alias_bomb.yaml")],
            2,
            "alias_bomb.yaml:1: unsupported YAML value: the file expands to more than 200,000",
        ),
        (
            "batch: nested 20 000 levels",
            ["batch", str(BAD / "batches" / "deep_nesting.yaml")],
            2,
            "deep_nesting.yaml:1: not valid YAML: nested deeper than 100 levels",
        ),
        (
            "cli: --out under a file",  # an unwritable output was exit 4, "a bug in agenttest"
            [
                "run",
                good,
                "--agent",
                "example",
                "--out",
                str(GOLDEN / "out"),
                "--quiet",
                "--allow-temp",
            ],
            2,
            f"{GOLDEN / 'out'}: cannot create the output folder",
        ),
        ("cli: unknown command", ["frobnicate"], 2, "No such command 'frobnicate'"),
        ("cli: unknown option", ["list", good, "--nope"], 2, "No such option: --nope"),
        (
            "cli: k not a number",
            ["run", good, "--agent", "example", "--k", "abc", *o],
            2,
            "Invalid value for '--k'",
        ),
        (
            "cli: k zero",
            ["run", good, "--agent", "example", "--k", "0", *o],
            2,
            "--k must be at least 1",
        ),
        (
            "cli: k beyond what a run can hold",
            ["run", good, "--agent", "example", "--k", "10001", *o],
            2,
            "--k must be at most 10,000",
        ),
        ("cli: run without agent", ["run", good, *o], 2, "--agent is required"),
        (
            "cli: retry-errors without resume",
            ["run", good, "--agent", "example", "--retry-errors", *o],
            2,
            "--retry-errors needs --resume",
        ),
        (
            "cli: output under /tmp",
            ["run", good, "--agent", "example", "--out", "/tmp/agenttest-catalogue", "--quiet"],
            2,
            "refusing to write results under the temp folder",
        ),
        (
            "cli: unknown block in --only",
            ["run", good, "--agent", "example", "--only", "NOPE-01", *o],
            2,
            "--only NOPE-01: no such block",
        ),
        (
            "cli: unknown tier",
            ["run", good, "--agent", "example", "--tier", "L9", *o],
            2,
            "--tier L9: not a tier",
        ),
        (
            "cli: unknown judge",
            ["run", good, "--agent", "example", "--judge", "oracle", *o],
            2,
            "unknown judge 'oracle'",
        ),
        ("cli: report format", ["report", str(GOLDEN), "--format", "pdf"], 2, "--format pdf"),
        ("cli: report without files", ["report"], 2, "Missing argument"),
        ("cli: report -o a folder", ["report", str(GOLDEN), "-o", str(out)], 2, "is a folder"),
        ("cli: compare one file", ["compare", str(GOLDEN)], 2, "Missing argument"),
        (
            "cli: import unknown format",
            ["import", str(GOLDEN), "--from", "methodology-v9", *o[:3]],
            2,
            "unknown format 'methodology-v9'",
        ),
        (
            "cli: rate negative sample",
            ["rate", str(GOLDEN), "--rater", "x", "--sample", "-1"],
            2,
            "Invalid value for '--sample'",
        ),
        (
            "cli: missing overlay",
            ["validate", good, "--overlay", "no/such.yaml"],
            2,
            "no/such.yaml:0: cannot read overlay",
        ),
        (
            "cli: missing agent config",
            ["run", good, "--agent", "no/such.yaml", *o],
            2,
            "no/such.yaml:0: cannot read agent config",
        ),
        (
            "cli: missing battery folder",
            ["list", "no/such/battery"],
            2,
            "no/such/battery:0: no such file or folder",
        ),
        (
            # two runs under one id: the order of the arguments decided the report (#17)
            "run files: two runs under one run_id",
            ["report", *map(str, _one_run_id_twice(out.parent))],
            2,
            "both say they are run r-same but hold different attempts for L1-CALC-01 run 1",
        ),
        (
            # a run file's battery.paths is anyone's to edit: a name too long for the file
            # system was exit 4, "a bug in agenttest" (issue 32 #23)
            "run file: a battery path of 300 000 characters",
            ["grade", str(_with_battery_paths(out.parent / "long.jsonl", ["b" * 300_000]))],
            2,
            "b…:0: not a path: over 4,096 characters",
        ),
    ]
    return cases


def _one_run_id_twice(folder: Path) -> tuple[Path, Path]:
    """Two run files of one ``run_id`` whose attempt 1 are two different attempts."""
    return tuple(  # type: ignore[return-value]
        write(
            folder / f"same-{verdict}.jsonl",
            [
                meta("r-same", []),
                attempt("L1-CALC-01", 1, verdict, k=1, started_at=f"2026-07-13T08:0{i}:00+00:00"),
                run_end(),
            ],
        )
        for i, verdict in enumerate(("PASS", "FAIL"))
    )


def test_a_copy_of_a_run_merges_with_it_in_either_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A copy taken mid-run (attempt 1 lost) and the run itself, whose --retry-errors run 1
    # again: one run, merged the same whichever file comes first (#17).
    lost = attempt("L1-CALC-01", 1, "ERROR", k=1)
    retried = attempt("L1-CALC-01", 1, "PASS", k=1, started_at="2026-07-13T09:00:00+00:00")
    second = attempt("L1-CALC-01", 2, "FAIL", k=1)
    run = write(tmp_path / "run.jsonl", [meta("r-1", []), lost, second, retried, run_end()])
    copy = write(tmp_path / "copy.jsonl", [meta("r-1", []), lost, second])
    shown = []
    for files in ((run, copy), (copy, run)):
        assert main(["report", *map(str, files), "--format", "json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        block = summary["blocks"]["L1-CALC-01"]
        shown.append((block["passed"], block["failed"], block["errors"]))
    assert shown == [(1, 1, 0), (1, 1, 0)]  # the retry's PASS, whichever file comes first


def _with_battery_paths(path: Path, paths: list[str]) -> Path:
    """A run file like the golden one whose ``run_meta`` records ``paths`` as its battery."""
    meta, *rest = GOLDEN.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(meta)
    record["battery"] = {**(record.get("battery") or {}), "paths": paths}
    path.write_text(json.dumps(record) + "\n" + "".join(rest), encoding="utf-8")
    return path


def test_bad_input_catalogue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.environ.pop("AGENTTEST_NO_SUCH_SECRET", None)
    cases = _cases(out)
    failures = []
    for name, argv, code, text in cases:
        got = main(argv)
        captured = capsys.readouterr()
        problems = []
        if got != code:
            problems.append(f"exit {got}, wanted {code}")
        if text not in captured.err:
            problems.append(f"stderr lacks {text!r}")
        if "Traceback" in captured.err + captured.out:
            problems.append("printed a traceback")
        if any(out.iterdir()) or Path("/tmp/agenttest-catalogue").exists():
            problems.append(f"wrote {[p.name for p in out.iterdir()]}")
        if problems:
            failures.append(
                f"{name}: {'; '.join(problems)}\n    stderr: {captured.err.strip()[-300:]}"
            )
    kinds = {n.split(":")[0] for n, *_ in cases}
    report_count(
        "bad-input catalogue",
        f"{len(cases)} cases over {len(kinds)} kinds of input; "
        f"{len(cases) - len(failures)} behaved as documented",
    )
    assert len(cases) >= 40
    assert not failures, "\n".join(failures)


# -- pipes and FIFOs: read once, never appended to (issue 32 #18, #21) ----------------------


def _through_a_pipe(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``agenttest report /dev/fd/N ARGS`` with ``path``'s bytes arriving through a pipe
    (what ``report <(zcat run.jsonl.gz)`` does)."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(path.read_bytes())

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        return subprocess.run(
            [sys.executable, "-m", "agenttest", "report", f"/dev/fd/{read_end}", *args],
            pass_fds=(read_end,),
            capture_output=True,
            text=True,
            timeout=EVENTUALLY_S,
        )
    finally:
        os.close(read_end)
        feeder.join(EVENTUALLY_S)


def test_a_report_read_from_a_pipe_is_the_report_of_the_file(tmp_path: Path) -> None:
    # The report reads a run file twice (records, then failing attempts' transcripts): the
    # second pass over a pipe found it empty and the transcripts were silently missing.
    run = write(
        tmp_path / "run.jsonl",
        [
            meta("r-pipe", []),
            attempt("L1-CALC-01", 1, "FAIL", k=1, response="the-failing-reply-4711"),
            attempt("L1-CALC-01", 2, "PASS", k=1),
            run_end(),
        ],
    )
    piped = _through_a_pipe(run)
    assert piped.returncode == 0, piped.stderr
    direct = run_cli("report", str(run))
    assert "the-failing-reply-4711" in direct.stdout  # precondition: the file's report shows it
    assert "the-failing-reply-4711" in piped.stdout
    # the same report but for the file's name (/dev/fd/N, shown as N where a stem is shown)
    named = re.compile(r"jsonl|/dev/fd/|\b\d+: ")
    assert [line for line in piped.stdout.splitlines() if not named.search(line)] == [
        line for line in direct.stdout.splitlines() if not named.search(line)
    ]


@pytest.mark.parametrize("command", ["grade", "rate"])
def test_grade_and_rate_refuse_a_fifo_at_once(tmp_path: Path, command: str) -> None:
    # They append records to the run file: a FIFO cannot take them, and opening one with no
    # writer (or no reader) waited forever.
    fifo = tmp_path / "run.jsonl"
    os.mkfifo(fifo)
    extra = ["--rater", "ann"] if command == "rate" else []
    done = run_cli(command, str(fifo), *extra)
    assert done.returncode == 2, done.stderr
    assert f"{fifo}:0: cannot use the run file: it is a pipe, FIFO or device" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_battery_path_from_a_run_file_never_crawls_the_file_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `battery.paths: ["/"]` made report and grade walk every file on the machine. A folder
    # with more entries than a battery could hold is refused; 60 stand in for the 100,000.
    import agenttest.blocks._loader as loader

    monkeypatch.setattr(loader, "MAX_BATTERY_ENTRIES", 60)
    crowded = tmp_path / "crowded"
    (crowded / "sub").mkdir(parents=True)
    (crowded / "block.yaml").write_text((BLOCKS / "good" / "L2-FULL-01.yaml").read_text("utf-8"))
    for i in range(60):
        (crowded / "sub" / f"f{i}.txt").write_text("")
    run = _with_battery_paths(tmp_path / "run.jsonl", [str(crowded)])
    before = run.read_bytes()
    assert main(["grade", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{crowded}:0: not a battery folder: more than 60 files and folders" in err
    assert main(["report", str(run), "--format", "json"]) == 0  # reported without a battery
    capsys.readouterr()
    long = _with_battery_paths(tmp_path / "long.jsonl", ["b" * 300_000])
    assert main(["report", str(long), "--format", "json"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert run.read_bytes() == before  # nothing appended
