"""The newcomer's first hour, the scaffolding part: `agenttest init` writes starting files
that load as they are, never over a file of the user's, through the real command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from agenttest.agents import load_agent_config
from agenttest.batch import load_batch

from .conftest import ROOT, run_cli


def _schema(*flags: str) -> jsonschema.Draft202012Validator:
    done = run_cli("schema", *flags)
    assert done.returncode == 0, done.stderr
    return jsonschema.Draft202012Validator(json.loads(done.stdout))


def _init(tmp: Path, kind: str, *extra: str) -> tuple[Path, str]:
    done = run_cli("init", kind, *extra, cwd=tmp)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("wrote ") and second.startswith("next: agenttest ")
    return tmp / first.removeprefix("wrote "), second.removeprefix("next: ")


def _comments(path: Path) -> int:
    return sum(line.lstrip().startswith("#") for line in path.read_text("utf-8").splitlines())


def test_init_block_writes_a_commented_block_that_validates_strictly(tmp_path: Path) -> None:
    path, step = _init(tmp_path, "block")
    assert _comments(path) >= 2
    assert step == f"agenttest validate --strict {path.name}"
    done = run_cli("validate", "--strict", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 blocks valid (L1 1)")
    assert _schema()  # blocks and overlays.is_valid(yaml.safe_load(path.read_text("utf-8")))


def test_init_overlay_writes_an_overlay_the_shipped_battery_takes(tmp_path: Path) -> None:
    path, _ = _init(tmp_path, "overlay", "my-overlay.yaml")
    assert path == tmp_path / "my-overlay.yaml" and _comments(path) >= 2
    done = run_cli("validate", "--strict", str(ROOT / "batteries"), "--overlay", str(path))
    assert done.returncode == 0, done.stderr
    assert "valid with overlay my-agent" in done.stdout
    assert _schema()  # blocks and overlays.is_valid(yaml.safe_load(path.read_text("utf-8")))


def test_init_agent_writes_a_config_that_loads_and_fits_its_schema(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    path, step = _init(tmp_path, "agent", "agents")  # a folder: the default name inside it
    assert path == tmp_path / "agents" / "agent.yaml" and _comments(path) >= 5
    assert step == "agenttest run batteries --agent agents/agent.yaml --tier L1 --k 1"
    config = load_agent_config(path)
    assert (config.model, config.mode, config.name) == ("my-model", "native", "my-agent")
    data: Any = yaml.safe_load(path.read_text("utf-8"))
    assert _schema("--agent-config").is_valid(data)


def test_init_batch_writes_a_batch_file_that_loads_and_fits_its_schema(tmp_path: Path) -> None:
    path, step = _init(tmp_path, "batch")
    assert path.name == "nightly.yaml" and step == "agenttest batch nightly.yaml"
    batch = load_batch(path)
    assert [job.label for job in batch.jobs] == ["core"] and batch.jobs[0].agent == "example"
    assert _schema("--batch").is_valid(yaml.safe_load(path.read_text("utf-8")))


@pytest.mark.parametrize("kind", ["agent", "overlay", "block", "batch"])
def test_init_never_writes_over_a_file_unless_forced(tmp_path: Path, kind: str) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("# my own work\n", encoding="utf-8")
    done = run_cli("init", kind, str(mine))
    assert done.returncode == 2
    assert f"{mine} already exists; nothing written (use --force to replace it)" in done.stderr
    assert mine.read_text("utf-8") == "# my own work\n"
    forced = run_cli("init", kind, str(mine), "--force")
    assert forced.returncode == 0, forced.stderr
    assert mine.read_text("utf-8") != "# my own work\n"


def test_init_of_an_unknown_kind_names_the_kinds(tmp_path: Path) -> None:
    done = run_cli("init", "agnet", cwd=tmp_path)
    assert done.returncode == 2
    assert (
        "`init` writes one of agent, overlay, block, batch; got `agnet` (did you mean `agent`?)"
        in done.stderr
    )
    assert list(tmp_path.iterdir()) == []
