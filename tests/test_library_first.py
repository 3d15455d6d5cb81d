"""The core runs without the CLI's packages: a whole example run through the library.

typer, rich and click are replaced by packages that refuse to import, in the parent and,
through the inherited PYTHONPATH, in the example agent the runner starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, run_cli

BLOCKED = ("typer", "rich", "click")

SCRIPT = """
import json, sys
from pathlib import Path
from agenttest.runner import RunRequest, run
from agenttest.results import iter_records
from agenttest.reporting import build_report, render

out = Path(sys.argv[1])
path = run(RunRequest(paths=[sys.argv[2]], agent="example", k=2, out=out, allow_temp=True,
                      judge="none"))
kinds = [r.record_type for r in iter_records(path)]
markdown = render(build_report([path]), "md")
print(json.dumps({"path": str(path), "kinds": kinds, "md": "L1-CALC-01" in markdown,
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)}))
""".replace("BLOCKED", repr(BLOCKED))


def _blocking_env(tmp: Path) -> dict[str, str]:
    shadow = tmp / "shadow"
    for name in BLOCKED:
        (shadow / name).mkdir(parents=True)
        (shadow / name / "__init__.py").write_text(
            f"raise ImportError('{name} is blocked: the library must run without it')\n"
        )
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow), str(ROOT)])}


def test_a_whole_example_run_needs_no_typer_rich_or_click(tmp_path: Path) -> None:
    env = _blocking_env(tmp_path)
    for name in BLOCKED:  # the precondition: the shadow really blocks, in any child too
        probe = subprocess.run(
            [sys.executable, "-c", f"import {name}"], env=env, capture_output=True, text=True
        )
        assert probe.returncode != 0 and "is blocked" in probe.stderr
    block = ROOT / "batteries" / "L1" / "L1-CALC-01.yaml"
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "out"), str(block)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # the library's progress is silent unless one is handed in
    seen = json.loads(result.stdout)
    assert seen["loaded"] == []
    assert seen["kinds"] == ["run_meta", "attempt", "attempt", "run_end"]
    assert seen["md"]


def test_an_example_agent_that_refuses_its_options_exits_3_with_its_own_output(
    tmp_path: Path,
) -> None:
    block = ROOT / "batteries" / "L1" / "L1-CALC-01.yaml"
    out = tmp_path / "out"
    result = run_cli(
        "run", str(block), "--agent", "example", "--k", "1", "--out", str(out),
        "--allow-temp", "--judge", "none", "--example-args", "--no-such-flag",
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "the example agent did not start" in result.stderr
    assert "unrecognized arguments: --no-such-flag" in result.stderr  # the agent's own words
    assert "Traceback" not in result.stderr
    assert not out.exists() or not list(out.glob("*.jsonl"))  # nothing half-done
