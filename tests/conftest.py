"""Shared test helpers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# No test may depend on the machine's speed: hypothesis fails an example that takes longer
# than 200 ms by default, which a loaded 2-core machine passes (test_stats.py under mutmut).
settings.register_profile("agenttest", deadline=None)
settings.load_profile("agenttest")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the real `agenttest` entry point in a fresh interpreter."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "agenttest", *args],
        cwd=cwd or ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def cli():  # type: ignore[no-untyped-def]
    return run_cli


#: Counts that the fault, crash and bad-input suites report at the end of the run.
SUITE_COUNTS: dict[str, list[str]] = {}


def report_count(suite: str, line: str) -> None:
    SUITE_COUNTS.setdefault(suite, []).append(line)


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    for suite, lines in SUITE_COUNTS.items():
        terminalreporter.write_sep("-", suite)
        for line in lines:
            terminalreporter.write_line(line)
