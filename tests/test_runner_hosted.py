"""Hosted tools in a run: the harness serves each replica's tools over MCP, lays every
attempt's world itself and records the calls it served on their turn.

The agents here are real loopback agents (native protocol) that call the harness's tools
with the official MCP client while they answer a turn, as an agent configured with
``hosted_tools`` would. What the records say is checked against what the agents did.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ._servers import LoopbackAgent, agent_yaml, write_battery

# -- a run without hosted tools pays nothing for them ---------------------------------------------

_IMPORTS = """\
import runpy, sys
sys.argv = ["agenttest", *sys.argv[1:]]
try:
    runpy.run_module("agenttest", run_name="__main__")
except SystemExit as exc:
    code = exc.code
heavy = sorted(
    m for m in sys.modules
    if m.split(".")[0] in ("mcp", "starlette", "uvicorn", "sse_starlette")
    or m.startswith("agenttest.hosted")
)
print(json.dumps({"code": code, "heavy": heavy}))
"""


def test_a_run_without_hosted_tools_imports_no_mcp_module(tmp_path: Path) -> None:
    battery = write_battery(tmp_path / "battery", {"L1-PLAIN-01": (1, 1)})
    config = tmp_path / "agent.yaml"
    with LoopbackAgent() as agent:
        config.write_text(agent_yaml(agent.url), encoding="utf-8")
        done = subprocess.run(
            [
                sys.executable, "-c", "import json\n" + _IMPORTS, "run", str(battery),
                "--agent", str(config), "--out", str(tmp_path / "out"), "--allow-temp",
                "--judge", "none", "--quiet",
            ],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["code"] in (0, None) and agent.state.turns == 1  # the run really ran
    assert seen["heavy"] == []
