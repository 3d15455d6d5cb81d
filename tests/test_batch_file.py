"""The batch file as a user writes it: its JSON Schema (`agenttest schema --batch`) agrees
with the loader, and a misspelt key or format is answered with the word meant, file and line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from agenttest.batch import load_batch
from agenttest.errors import InputError

from .conftest import ROOT, run_cli

GOOD: dict[str, Any] = {
    "out": "reports/nightly",
    "alpha": 0.05,
    "jobs": [
        {"label": "core", "batteries": ["batteries"], "agent": "example", "k": 5},
        {"label": "sec", "batteries": "batteries/SEC", "agent": "a.yaml", "formats": "json"},
    ],
}


def _validator() -> jsonschema.Draft202012Validator:
    done = run_cli("schema", "--batch")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _loads(tmp: Path, data: dict[str, Any]) -> bool:
    path = tmp / "nightly.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    try:
        load_batch(path)
    except InputError:
        return False
    return True


def test_the_batch_schema_takes_the_documented_batch_files() -> None:
    validator = _validator()
    fenced = re.findall(
        r"```yaml\n(.*?)```", (ROOT / "docs" / "nightly.md").read_text("utf-8"), re.S
    )
    documented = [yaml.safe_load(text) for text in fenced if re.search(r"^jobs:", text, re.M)]
    assert documented  # the precondition: docs/nightly.md shows a batch file
    for data in documented:
        errors = [e.message for e in validator.iter_errors(data)]
        assert not errors, errors


@pytest.mark.parametrize(
    "change",
    [
        {},  # the good one
        {"jobz": []},
        {"alpha": 1.5},
        {"jobs": []},
        {"jobs": [{"label": "core", "batteries": ["batteries"]}]},  # no agent
        {"jobs": [{"label": "core", "batteries": ["batteries"], "agent": "example", "k": 0}]},
        {"jobs": [{"label": "c", "batteries": "b", "agent": "example", "formats": ["pdf"]}]},
        {"jobs": [{"label": "c", "batteries": "b", "agent": "example", "tier": ["L1"]}]},
        {"jobs": [{"label": " ", "batteries": "b", "agent": "example"}]},
    ],
)
def test_the_batch_schema_refuses_what_the_loader_refuses(
    tmp_path: Path, change: dict[str, Any]
) -> None:
    data = {**GOOD, **change}
    by_loader = _loads(tmp_path, data)
    assert _validator().is_valid(data) == by_loader
    assert by_loader == (change == {})


def test_a_misspelt_key_or_format_is_answered_with_the_word_meant(tmp_path: Path) -> None:
    nightly = tmp_path / "nightly.yaml"
    nightly.write_text(
        "outt: reports\n"
        "jobs:\n"
        "  - label: core\n"
        "    batteries: [batteries]\n"
        "    agent: example\n"
        "    tier: [L1]\n"
        "    formats: [md, htm]\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        load_batch(nightly)
    lines = info.value.lines()
    assert f"{nightly}:1: unknown key `outt` (did you mean `out`?)" in lines
    assert f"{nightly}:6: unknown job key `tier` (did you mean `tiers`?)" in lines
    assert any(
        line.startswith(f"{nightly}:7: `formats` may hold") and "(did you mean `html`?)" in line
        for line in lines
    )
    assert [p.line for p in info.value.problems] == [1, 6, 7]  # top to bottom
    done = run_cli("batch", str(nightly))
    assert done.returncode == 2
    assert f"{nightly}:6: unknown job key `tier` (did you mean `tiers`?)" in done.stderr
