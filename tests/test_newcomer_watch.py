"""The newcomer's first night, the watching part, through the real commands: `run` in a
terminal draws a bar and ends with a summary; in a log it writes timestamped lines whose ETA
is the attempts left times the agent's pace, with a range; `batch` says when each job starts
and ends, in a terminal and in a cron log.

The example agent is slowed by its own fault option (``--latency-s``: every reply waits at
least that long), so the ETA is checked against a floor the agent guarantees, never against
the wall clock.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ._patience import EVENTUALLY_S
from ._terminal import in_terminal
from .conftest import ROOT

STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "
CLOCK = r"\d+:\d\d:\d\d"
ETA = re.compile(rf"eta ({CLOCK}) \(({CLOCK}) to ({CLOCK})\)")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
ONE_TURN = "L1-CALC-01"


def _seconds(clock: str) -> int:
    hours, minutes, seconds = (int(part) for part in clock.split(":"))
    return hours * 3600 + minutes * 60 + seconds


def _in_terminal(*args: str, cwd: Path) -> tuple[int, str]:
    """Exit status and screen text of `agenttest ARGS` with a terminal for stdout and
    stderr (120 columns), escape sequences taken out."""
    code, shown, _ = in_terminal(*args, cwd=cwd)
    return code, ANSI.sub("", shown).replace("\r", "\n")


def _in_a_log(*args: str, cwd: Path) -> tuple[int, list[str]]:
    """Exit status and lines of `agenttest ARGS` with stdout and stderr appended to one
    file, as cron's `>> cron.log 2>&1` does."""
    log = cwd / "cron.log"
    with log.open("a", encoding="utf-8") as sink:
        done = subprocess.run(
            [sys.executable, "-m", "agenttest", *args], cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=sink, stderr=subprocess.STDOUT, timeout=EVENTUALLY_S,
        )  # fmt: skip
    lines = log.read_text(encoding="utf-8").splitlines()
    log.unlink()
    return done.returncode, lines


def _run_args(tmp: Path, *extra: str) -> list[str]:
    return [
        "run", str(ROOT / "batteries"), "--agent", "example", "--out", str(tmp / "runs"),
        "--allow-temp", *extra,
    ]  # fmt: skip


def test_run_in_a_terminal_draws_a_bar_and_ends_with_a_summary(tmp_path: Path) -> None:
    code, screen = _in_terminal(
        *_run_args(tmp_path, "--only", f"{ONE_TURN},L1-EDGE-01", "--k", "2"), cwd=tmp_path
    )
    assert code == 0, screen
    lines = [line.strip() for line in screen.splitlines() if line.strip()]
    assert any("━" in line and "4/4" in line for line in lines), screen  # the bar, to the end
    assert not any(re.match(STAMP, line) for line in lines)  # no log lines on a terminal
    summary = lines[next(i for i, line in enumerate(lines) if line.startswith("summary: ")) :]
    assert re.fullmatch(
        r"summary: 4 attempt\(s\): \d PASS, \d FAIL, \d ERROR, \d UNDECIDED", summary[0]
    )
    assert re.fullmatch(
        r"pass@1: [\d.]+% \(\d/\d\), 95% Wilson interval .* \(exploratory\)", summary[1]
    )
    assert summary[2].startswith("decision: ")
    assert summary[3].startswith("blocks: ")
    assert summary[4].startswith("slowest blocks: ")
    assert summary[-1].startswith("full report: agenttest report ")
    assert len(summary) <= 10  # a screen, not the report


def test_run_in_a_log_estimates_what_is_left_from_the_agents_pace(tmp_path: Path) -> None:
    # every reply waits at least 2 s, so each attempt takes at least that: the ETA after
    # n attempts is at least (4 - n) x 2 s, whatever the machine (the old bar said seconds
    # for a slow model with minutes left)
    latency = 2
    code, lines = _in_a_log(
        *_run_args(
            tmp_path, "--only", ONE_TURN, "--k", "4", "--example-args", f"--latency-s {latency}"
        ),
        cwd=tmp_path,
    )
    assert code == 0, lines
    progress = [line for line in lines if re.match(STAMP, line)]
    assert progress[0].endswith("eta -:--:-- until the first attempt ends"), progress[0]
    ended = [line for line in progress if re.search(r"\] \S+ run \d: ", line)]
    assert len(ended) == 4
    for n, line in enumerate(ended[:-1], start=1):
        found = ETA.search(line)
        assert found, line
        expected, low, high = (_seconds(found.group(i)) for i in (1, 2, 3))
        assert low <= expected <= high
        assert expected >= (4 - n) * latency, line
    assert "eta" not in ended[-1]  # nothing left
    # the summary follows the last attempt, unstamped: a result, not a log event
    assert lines[-1].startswith("full report: agenttest report ")
    assert any(line.startswith("summary: 4 attempt(s): ") for line in lines)


def _nightly(tmp: Path) -> Path:
    path = tmp / "nightly.yaml"
    path.write_text(
        f"out: {tmp / 'nightly'}\n"
        "jobs:\n"
        "  - label: smoke\n"
        f"    batteries: [{ROOT / 'batteries'}]\n"
        "    agent: example\n"
        f"    only: [{ONE_TURN}]\n"
        "    k: 2\n"
        "    allow_temp: true\n",
        encoding="utf-8",
    )
    return path


def test_batch_in_a_cron_log_stamps_every_line_from_each_start_to_each_result(
    tmp_path: Path,
) -> None:
    nightly = _nightly(tmp_path)
    for night in (1, 2):
        code, lines = _in_a_log("batch", str(nightly), cwd=tmp_path)
        assert code == 0, lines
        assert lines and all(re.match(STAMP, line) for line in lines), lines
        start = lines[0].split(" ", 2)[2]
        assert start.startswith("smoke: started: 2 attempt(s) planned; run file "), start
        if night == 1:  # nothing to go by until the first attempt ends
            assert start.endswith("; eta -:--:-- until the first attempt ends")
        else:  # the night before ran the same job: its pace, with a range
            assert re.search(
                rf"; eta {CLOCK}( \({CLOCK} to {CLOCK}\))? from run_\S+\.jsonl$", start
            )
        assert any(re.search(r"\[1/2\] L1-CALC-01 run 1: \w+.* \| eta ", line) for line in lines)
        assert re.search(r"smoke: ok: .* \(took \d+:\d\d:\d\d\)$", lines[-1]), lines[-1]


def test_batch_in_a_terminal_stamps_its_own_lines_around_the_bar(tmp_path: Path) -> None:
    code, screen = _in_terminal("batch", str(_nightly(tmp_path)), cwd=tmp_path)
    assert code == 0, screen
    lines = [line.strip() for line in screen.splitlines() if line.strip()]
    starts = [i for i, line in enumerate(lines) if re.match(STAMP + "smoke: started: ", line)]
    results = [i for i, line in enumerate(lines) if re.match(STAMP + "smoke: ok: ", line)]
    bars = [i for i, line in enumerate(lines) if "━" in line and "2/2" in line]
    assert starts and results and bars, screen
    assert starts[0] < bars[0] < results[-1]
