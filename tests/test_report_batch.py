"""Nightly batches: orchestration with a fake executor, the lock, exit codes, and one real run."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agenttest.batch import Job, JobOutcome, batch_exit_code, batch_lock, load_batch, run_batch
from agenttest.errors import AgentUnavailable, InputError, Interrupted, UsageError
from agenttest.results import run_file_name, unused_path

from .conftest import ROOT, run_cli
from .fixtures.reports.builders import attempt, meta, run_end, write

RULES = "rules@sha256:5e1c0a7d93b2f468"


def _batch_file(tmp: Path, body: str) -> Path:
    path = tmp / "nightly.yaml"
    path.write_text(body, encoding="utf-8")
    return path


NIGHTLY = """\
out: out
jobs:
  - label: core
    batteries: [batteries]
    agent: example
    k: 30
    gate: true
  - label: sec
    batteries: batteries
    agent: agent.yaml
    formats: [json, junit]
"""


class FakeRunner:
    """Writes a run file like the runner would: passes per call decide the verdicts."""

    def __init__(self, passes: list[int]) -> None:
        self.passes = passes
        self.calls: list[str] = []

    def __call__(self, job: Job) -> Path:
        self.calls.append(job.label)
        x = self.passes[len(self.calls) - 1]
        job.out.mkdir(parents=True, exist_ok=True)
        path = unused_path(job.out, run_file_name("fake", 30, job.label))
        stamp = f"2026-07-{10 + len(self.calls):02d}T02:00:00+00:00"
        records = [
            meta(
                f"{job.label}-{len(self.calls)}",
                [],
                label=job.label,
                started_at=stamp,
                k_nominal=30,
                tester="cron",
            )
        ]
        records += [
            attempt("A", r, "PASS" if r <= x else "FAIL", k=30, rater=RULES) for r in range(1, 31)
        ]
        records.append(run_end())
        return write(path, records)


def test_jobs_run_in_order_report_and_compare_with_their_previous_run(tmp_path: Path) -> None:
    nightly = _batch_file(tmp_path, NIGHTLY)
    said: list[str] = []
    runner = FakeRunner([30, 29, 3, 28])  # core: 30 then 3 (regression); sec: 29 then 28
    first = run_batch(nightly, executor=runner, say=said.append)
    assert runner.calls == ["core", "sec"]
    assert [o.status for o in first] == ["ok", "ok"] and batch_exit_code(first) == 0
    core = first[0]
    assert core.previous is None and core.run_file is not None
    suffixes = sorted(p.name.removeprefix(core.run_file.stem) for p in core.reports)
    assert suffixes == [".html", ".json", ".junit.xml", ".md"]
    assert all(p.is_file() for p in core.reports)
    sec_file = first[1].run_file
    assert sec_file is not None
    assert sorted(p.name.removeprefix(sec_file.stem) for p in first[1].reports) == [
        ".json", ".junit.xml"
    ]  # fmt: skip

    second = run_batch(nightly, executor=runner, say=said.append)
    core2, sec2 = second
    assert core2.run_file is not None
    assert core2.previous == core.run_file and sec2.previous == first[1].run_file
    assert core2.status == "blocked" and "3 regression(s)" in core2.summary  # A, L1, overall
    assert core2.decision.startswith("blocked: L1 tier fell from 100% to 10% (3/30 vs 30/30")
    assert sec2.status == "ok"  # 28/30 vs 29/30 is noise, and sec has no gate anyway
    assert batch_exit_code(second) == 1
    compare = json.loads(Path(f"{core2.run_file.with_suffix('')}.compare.json").read_text())
    assert [b["cls"] for b in compare["blocks"]] == ["regression"]
    report = json.loads(Path(f"{core2.run_file.with_suffix('')}.json").read_text())
    assert report["regression"]["baseline"] == core.run_file.name
    summaries = sorted((tmp_path / "out").glob("batch_*.json"))
    assert summaries and json.loads(summaries[-1].read_text())["jobs"][0]["status"] == "blocked"
    assert any(line.startswith("core: blocked:") for line in said)


Nights = tuple[Path, Any, list[JobOutcome], list[str]]


def _two_nights(tmp_path: Path, passes: list[int], between: Callable[[Path], Any]) -> Nights:
    """Night 1 of the NIGHTLY batch, then ``between(the core job's folder)``, then night 2."""
    nightly = _batch_file(tmp_path, NIGHTLY)
    said: list[str] = []
    runner = FakeRunner(passes)
    first = run_batch(nightly, executor=runner, say=said.append)
    assert first[0].run_file is not None
    made = between(first[0].run_file.parent)
    return first[0].run_file, made, run_batch(nightly, executor=runner, say=said.append), said


def test_the_baseline_is_the_newest_complete_run_and_the_batch_says_why(tmp_path: Path) -> None:
    def killed_and_stopped(out: Path) -> tuple[Path, Path]:
        # was killed after one attempt: a run file with no run_end, newer than night 1,
        # and another night that was interrupted
        killed = write(
            out / "run_fake_20260712_k30_core_killed.jsonl",
            [meta("core-killed", [], label="core", started_at="2026-07-12T02:00:00+00:00"),
             attempt("A", 1, "FAIL", k=30, rater=RULES)],
        )  # fmt: skip
        stopped = write(
            out / "run_fake_20260713_k30_core_stopped.jsonl",
            [meta("core-stopped", [], label="core", started_at="2026-07-13T02:00:00+00:00"),
             attempt("A", 1, "PASS", k=30, rater=RULES), {**run_end(), "reason": "interrupted"}],
        )  # fmt: skip
        return killed, stopped

    night1, (killed, stopped), second, said = _two_nights(
        tmp_path, [30, 30, 0, 30], killed_and_stopped
    )
    core = second[0]
    assert core.previous == night1  # not the killed or interrupted night
    assert core.status == "blocked"  # 30/30 -> 0/30 is seen, not "0 regressions"
    assert core.baseline_skipped == [
        f"{stopped.name}: ended interrupted",
        f"{killed.name}: no run_end (killed or still running)",
    ]
    assert f"core: baseline {night1.name} (newest complete run)" in said
    assert f"core: not a baseline: {killed.name}: no run_end (killed or still running)" in said


def test_a_night_dated_in_the_future_is_never_the_newest_run(tmp_path: Path) -> None:
    # The clock jumped a year ahead for one night: ordered by its date, that night was the
    # baseline of every night after it, for weeks (issue 32 #10).
    def ahead_of_time(out: Path) -> Path:
        return write(
            out / "run_fake_20991231_k30_core.jsonl",
            [meta("core-ahead", [], label="core", started_at="2099-12-31T02:00:00+00:00")]
            + [attempt("A", r, "FAIL", k=30, rater=RULES) for r in range(1, 31)]
            + [run_end()],
        )

    night1, ahead, second, said = _two_nights(tmp_path, [30, 30, 30, 30], ahead_of_time)
    core = second[0]
    assert core.previous == night1  # the last real night, not the one from 2099
    assert core.warnings == [
        f"{ahead.name} is dated 2099-12-31T02:00:00+00:00, later than now: the clock was "
        "ahead when it ran; it is taken as the oldest run, not the newest"
    ]
    assert f"core: warning: {core.warnings[0]}" in said
    summary = json.loads(sorted((tmp_path / "out").glob("batch_*.json"))[-1].read_text())
    assert summary["jobs"][0]["warnings"] == core.warnings


def test_an_aborted_job_is_reported_the_others_still_run_and_exit_is_3(tmp_path: Path) -> None:
    nightly = _batch_file(tmp_path, NIGHTLY)
    fake = FakeRunner([30, 30])

    def executor(job: Job) -> Path:
        if job.label == "core":
            fake(job)  # a partial run file is on disk when the agent goes away
            raise AgentUnavailable("agent never became ready")
        return fake(job)

    outcomes = run_batch(nightly, executor=executor, say=lambda _: None)
    assert [o.status for o in outcomes] == ["aborted", "ok"]
    assert outcomes[0].run_file is not None and outcomes[0].reports  # what was written is shown
    assert batch_exit_code(outcomes) == 3


def test_a_refused_job_gives_2_and_an_interrupt_stops_the_batch(tmp_path: Path) -> None:
    nightly = _batch_file(tmp_path, NIGHTLY)

    def refuse(job: Job) -> Path:
        raise UsageError("no such battery")

    outcomes = run_batch(nightly, executor=refuse, say=lambda _: None)
    assert [o.status for o in outcomes] == ["refused", "refused"]
    assert batch_exit_code(outcomes) == 2

    calls: list[str] = []

    def interrupt(job: Job) -> Path:
        calls.append(job.label)
        raise Interrupted("Ctrl-C")

    with pytest.raises(Interrupted):
        run_batch(nightly, executor=interrupt, say=lambda _: None)
    assert calls == ["core"]


def test_a_stop_after_a_complete_run_says_the_exact_commands_that_write_its_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C while the reports are rendered: the run file is complete, only reports are missing
    import agenttest.reporting

    nightly = _batch_file(tmp_path, NIGHTLY)
    first = run_batch(nightly, executor=FakeRunner([30, 29]), say=lambda _: None)

    def ctrl_c(*_args: Any, **_kwargs: Any) -> str:
        raise KeyboardInterrupt

    said: list[str] = []
    with monkeypatch.context() as patched:
        patched.setattr(agenttest.reporting, "render", ctrl_c)
        with pytest.raises(Interrupted):
            run_batch(nightly, executor=FakeRunner([3]), say=said.append)
    run_file = max((tmp_path / "out").glob("run_*core*.jsonl"), key=lambda p: p.stat().st_mtime)
    assert not run_file.with_suffix(".md").exists()
    assert "its run file is complete but has no reports" in said[-5]
    commands = [line.strip() for line in said[-4:]]
    assert commands[0] == (
        f"agenttest report {run_file} --baseline {first[0].run_file} "
        f"--format md --output {run_file.with_suffix('.md')}"
    )
    for command in commands:  # each one, run as printed, writes its report
        done = run_cli(*command.split()[1:])
        assert done.returncode == 0, done.stderr
    written = sorted(
        p.name.removeprefix(run_file.stem) for p in run_file.parent.glob(f"{run_file.stem}.*")
    )
    assert written == [".html", ".json", ".jsonl", ".junit.xml", ".md"]
    summaries = sorted((tmp_path / "out").glob("batch_*.json"))
    assert json.loads(summaries[-1].read_text())["jobs"][0]["status"] == "interrupted"


def test_a_ctrl_c_as_the_run_ends_says_how_to_write_the_reports(tmp_path: Path) -> None:
    # the run file was complete when Ctrl-C came, outside the runner's own stop handling
    # (its agent was being stopped): a KeyboardInterrupt, not the runner's Interrupted
    nightly = _batch_file(tmp_path, NIGHTLY)
    runner = FakeRunner([30])

    def finished_then_stopped(job: Job) -> Path:
        runner(job)
        raise KeyboardInterrupt

    said: list[str] = []
    with pytest.raises(Interrupted, match="interrupted during job core"):
        run_batch(nightly, executor=finished_then_stopped, say=said.append)
    (run_file,) = (tmp_path / "out").glob("run_*core*.jsonl")
    assert (
        said[0]
        == "core: interrupted; its run file is complete but has no reports. Write them with:"
    )
    assert (
        said[1]
        == f"  agenttest report {run_file} --format md --output {run_file.with_suffix('.md')}"
    )
    assert len(said) == 5  # one command per format


def test_a_stop_during_a_run_says_how_to_resume_not_how_to_report(tmp_path: Path) -> None:
    nightly = _batch_file(tmp_path, NIGHTLY)

    def stopped(job: Job) -> Path:
        raise Interrupted("interrupted by SIGINT; continue with: agenttest run --resume X")

    said: list[str] = []
    with pytest.raises(Interrupted):
        run_batch(nightly, executor=stopped, say=said.append)
    assert said == ["core: interrupted by SIGINT; continue with: agenttest run --resume X"]


def test_two_batches_never_overlap(tmp_path: Path) -> None:
    nightly = _batch_file(tmp_path, NIGHTLY)
    lock = load_batch(nightly).lock
    ran: list[str] = []

    def record(job: Any) -> Path:
        ran.append(job.label)
        return Path()

    with batch_lock(lock):
        with pytest.raises(UsageError, match="another batch is running"):
            run_batch(nightly, executor=record, say=print)
        held = run_cli("batch", str(nightly))
        assert held.returncode == 2 and "another batch is running" in held.stderr
    assert ran == []
    # released: the next batch takes the lock
    run_batch(nightly, executor=FakeRunner([30, 30]), say=lambda _: None)


def test_a_bad_batch_file_names_file_and_line(tmp_path: Path) -> None:
    nightly = _batch_file(tmp_path, """\
out: out
jobs:
  - label: core
    batteries: [batteries]
    agent: example
    k: 0
  - batteries: [batteries]
    agent: example
    colour: blue
""")  # fmt: skip
    with pytest.raises(InputError) as info:
        load_batch(nightly)
    lines = info.value.lines()
    assert f"{nightly}:6: `k` must be a whole number ≥ 1" in lines
    assert any(line.startswith(f"{nightly}:9: unknown job key `colour`") for line in lines)
    assert any("needs a `label`" in line for line in lines)
    result = run_cli("batch", str(nightly))
    assert result.returncode == 2 and f"{nightly}:6:" in result.stderr


def test_a_real_nightly_batch_against_the_example_agent(tmp_path: Path) -> None:
    """End to end through the real runner: two nights, reports, comparison, exit 0."""
    nightly = _batch_file(tmp_path, f"""\
out: nightly
jobs:
  - label: smoke
    batteries: [{ROOT / "batteries"}]
    agent: example
    only: [L1-CALC-01, SEC-01]
    k: 2
    gate: true
    allow_temp: true
""")  # fmt: skip
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "
    for night in (1, 2):
        result = run_cli("batch", str(nightly), timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        # a cron log: every line of the batch and of its run timestamped, start to result
        said = result.stdout.splitlines()
        assert all(re.match(stamp, line) for line in said), said
        eta = "-:--:-- until the first attempt ends" if night == 1 else r"[\d:]+.* from run_\S+"
        assert re.fullmatch(
            stamp + r"smoke: started: 4 attempt\(s\) planned; run file \S+\.jsonl; eta " + eta,
            said[0],
        ), said[0]
        assert re.fullmatch(stamp + r"smoke: ok: .* \(took \d+:\d\d:\d\d\)", said[-1]), said[-1]
        ran = [line for line in result.stderr.splitlines() if re.match(stamp + r"\[\d/4\] ", line)]
        assert len(ran) == 8  # each attempt started and ended, the ends with the ETA left
        assert re.search(r"\[1/4\] \S+ run 1: \w+.* in \d+\.\ds \| eta \d+:\d\d:\d\d", ran[1])
    runs = sorted((tmp_path / "nightly").glob("run_*_smoke*.jsonl"))
    assert len(runs) == 2
    newest = max(runs, key=lambda p: p.stat().st_mtime)
    report = json.loads(newest.with_suffix(".json").read_text())
    assert set(report["blocks"]) == {"L1-CALC-01", "SEC-01"}
    assert report["blocks"]["SEC-01"]["n"] + report["blocks"]["SEC-01"]["errors"] == 2
    assert report["regression"] is not None
    assert newest.with_suffix(".compare.json").is_file()
    assert "Arithmetic" in newest.with_suffix(".md").read_text()  # titles from the battery
