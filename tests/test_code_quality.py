"""ruff and mypy stay clean: the configuration lives in pyproject.toml, CI enforces it here."""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import ROOT


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "agenttest", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True and set(config["packages"]) >= {"agenttest", "tests"}
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys\n"
        "from agenttest.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('numpy', 'scipy', 'openvino', 'jinja2', 'tokenizers', 'httpx') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "Usage: agenttest" in result.stdout  # the help really ran
    assert "HEAVY=\n" in result.stderr, f"heavy modules imported by --help: {result.stderr}"


WAIT_WITH_A_NUMBER = re.compile(
    r"\.(?:wait|join)\((?:timeout=)?[0-9.]+\)|communicate\(timeout=[0-9.]+\)"
    r"|Barrier\([^)]*timeout=[0-9.]+|monotonic\(\) \+ [0-9.]+"
    r"|assert [^#]*(?:monotonic|perf_counter)\(\)[^#]*<(?!=)"  # "took less than" on the clock
)


def test_tests_wait_for_events_without_a_clock() -> None:
    """A wait on something that must happen is bounded by EVENTUALLY_S (tests/_patience.py):
    a literal limit there is a test that fails on a busy machine. Waits meant to expire say
    so on their line (``short on purpose``)."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if WAIT_WITH_A_NUMBER.search(line) and "short on purpose" not in line:
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
