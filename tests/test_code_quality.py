"""ruff and mypy stay clean: the configuration lives in pyproject.toml, CI enforces it here."""

from __future__ import annotations

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
